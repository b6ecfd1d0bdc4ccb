"""The examples in the docstrings run and give what they show."""

from __future__ import annotations

import ast
import doctest
import importlib
from pathlib import Path

import pytest

MODULES = [
    "shashki.rules",
    "shashki.rules.board",
    "shashki.rules.variant",
    "shashki.rules.position",
    "shashki.rules.notation",
    "shashki.rules.fen",
    "shashki.rules.pdn",
    "shashki.rules.pdn_write",
    "shashki.rules.pdn_tree",
    "shashki.rules.perft",
    "shashki.rules.game",
    "shashki.engine",
    "shashki.engine.timeman",
    "shashki.engine.hub",
    "shashki.engine.letters",
    "shashki.engine.book",
    "shashki.server.lidraughts",
    "shashki.server.games.terms",
    "shashki.server.limits",
    "shashki.server.connections",
    "shashki.server.public",
    "shashki.server.http.validation",
    "shashki.server.http.frames",
    "shashki.server.accounts.names",
    "shashki.server.history.export",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    if module.__file__.endswith(".so"):
        # Compiled with mypyc (the move generator): its examples are read from the source next to it.
        source = Path(module.__file__).with_name(name.rsplit(".", 1)[1] + ".py").read_text()
        text = ast.get_docstring(ast.parse(source)) or ""
        test = doctest.DocTestParser().get_doctest(text, dict(vars(module)), name, None, 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        runner.run(test)
        result = runner.summarize(verbose=False)
    else:
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} has no docstring examples to run"
    assert result.failed == 0, f"{result.failed} docstring example(s) of {name} failed"
