"""The compiled move generator, when there is one, is built from the current source."""

import os

import shashki.rules.position as position


def test_compiled_move_generator_is_not_stale():
    compiled = position.__file__
    if not compiled.endswith(".so"):
        return  # the pure-Python module is in use: nothing can be stale
    source = os.path.join(os.path.dirname(compiled), "position.py")
    assert os.path.getmtime(compiled) >= os.path.getmtime(source), (
        "shashki/rules/position.py changed after it was compiled: run `make test` (or "
        "`.venv/bin/pip install -e .`) to rebuild it"
    )
