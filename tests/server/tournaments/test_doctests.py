"""The examples in the tournament rules' docstrings run and give what they show."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["arena", "arena_pairing", "swiss", "roundrobin"]


@pytest.mark.parametrize("name", [f"shashki.server.tournaments.{m}" for m in MODULES])
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} has no docstring examples to run"
    assert result.failed == 0, f"{result.failed} docstring example(s) of {name} failed"
