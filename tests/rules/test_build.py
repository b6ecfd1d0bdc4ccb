"""The compiled modules (setup.py's COMPILED), when there are, are built from the current source, and the
Makefile rebuilds them when any of them changes."""

import ast
import importlib
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _setup_compiled() -> list[str]:
    with open(os.path.join(ROOT, "setup.py")) as f:
        tree = ast.parse(f.read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "COMPILED" for t in node.targets):
            return list(ast.literal_eval(node.value))
    raise AssertionError("setup.py has no COMPILED list")


COMPILED = _setup_compiled()


def test_the_makefile_rebuilds_when_any_compiled_module_changes():
    with open(os.path.join(ROOT, "Makefile")) as f:
        makefile = f.read()
    listed = re.search(r"^COMPILED :=((?:.*\\\n)*.*)$", makefile, re.M)
    assert listed, "the Makefile has no COMPILED list"
    assert sorted(listed.group(1).replace("\\\n", " ").split()) == sorted(COMPILED)
    assert len(COMPILED) >= 10


@pytest.mark.parametrize("path", COMPILED)
def test_compiled_module_is_not_stale(path):
    name = path.removesuffix(".py").replace("/", ".")
    compiled = importlib.import_module(name).__file__
    if not compiled.endswith(".so"):
        return  # the pure-Python module is in use: nothing can be stale
    source = os.path.join(ROOT, path)
    assert os.path.getmtime(compiled) >= os.path.getmtime(source), (
        f"{source} changed after it was compiled: run `make test` (or "
        "`.venv/bin/pip install -e .`) to rebuild it"
    )
