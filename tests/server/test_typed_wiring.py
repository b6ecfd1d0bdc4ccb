"""Routes name the services they need by type (`shashki/server/http/deps.py`): no route, socket or
dependency reaches into `app.state` itself, so what each depends on is in its signature and mypy checks it.
Only the dependencies module and the app's edge wiring read `app.state`."""

from __future__ import annotations

import ast
from pathlib import Path

import shashki

PACKAGE = Path(shashki.__file__).parent
ADAPTERS = [PACKAGE / "server" / "http", PACKAGE / "server" / "lidraughts"]
ALLOWED = {"deps.py", "edge.py"}  # the typed accessors; the middlewares installed on the app


def state_lookups(source: str) -> list[int]:
    """The lines where `<something>.app.state` is read."""
    return [
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute)
        and node.attr == "state"
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "app"
    ]


def test_the_finder_sees_a_state_lookup():
    assert state_lookups("async def f(request):\n    return request.app.state.games\n") == [2]
    assert state_lookups("async def f(games: Games):\n    return games\n") == []


def test_no_route_reads_app_state_itself():
    found = {
        f"{path.relative_to(PACKAGE)}:{line}"
        for folder in ADAPTERS
        for path in sorted(folder.glob("*.py"))
        if path.name not in ALLOWED
        for line in state_lookups(path.read_text())
    }
    assert not found, f"use a typed dependency from shashki/server/http/deps.py instead: {sorted(found)}"
