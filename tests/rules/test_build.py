"""The compiled modules (setup.py's COMPILED), when there are, are built from the current source."""

import importlib
import os

import pytest

COMPILED = [
    "shashki.rules.position",
    "shashki.engine.evaluation",
    "shashki.engine.transposition",
    "shashki.engine.alphabeta",
]


@pytest.mark.parametrize("name", COMPILED)
def test_compiled_module_is_not_stale(name):
    compiled = importlib.import_module(name).__file__
    if not compiled.endswith(".so"):
        return  # the pure-Python module is in use: nothing can be stale
    source = os.path.join(os.path.dirname(compiled), name.rsplit(".", 1)[1] + ".py")
    assert os.path.getmtime(compiled) >= os.path.getmtime(source), (
        f"{source} changed after it was compiled: run `make test` (or "
        "`.venv/bin/pip install -e .`) to rebuild it"
    )


def test_setup_compiles_the_listed_modules():
    # setup.py and this test name the same modules: a module added to one is checked by the other.
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(os.path.join(root, "setup.py")) as f:
        setup = f.read()
    for name in COMPILED:
        assert '"' + name.replace(".", "/") + '.py"' in setup
