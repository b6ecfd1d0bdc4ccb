"""The games domain owns its tables (issue 9, item 4; docs/architecture.md): no other module queries them.

Every module of `shashki/` outside `server/games/` is read with `ast` (nothing is imported). There the
games' table classes, `GameRecord` and `MoveRecord`, may only name types — a parameter's or a return
value's annotation, as the ratings' end hook receives the record of the game it rates — never appear in
code: not in `select(GameRecord)`, `s.get(GameRecord, ...)`, `update(MoveRecord)`, nor in a column
expression such as `GameRecord.white_id == user_id`. Those reads belong in `games.queries`.

Exempt: `server/schema.py` and `server/storage/` (the migrations), which gather every domain's tables.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "shashki"
TABLES = {"GameRecord", "MoveRecord"}
OWNER = ROOT / "server" / "games"
EXEMPT = (OWNER, ROOT / "server" / "storage", ROOT / "server" / "schema.py")


def annotations(tree: ast.AST) -> set[int]:
    """The ids of every node inside a type annotation."""
    roots: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg | ast.AnnAssign) and node.annotation is not None:
            roots.append(node.annotation)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.returns is not None:
            roots.append(node.returns)
    return {id(inner) for root in roots for inner in ast.walk(root)}


def uses_in_code(source: str, filename: str = "<module>") -> list[str]:
    """Where the games' table classes are used in code (not as a type, not in an import): `line: text`."""
    tree = ast.parse(source, filename)
    typed = annotations(tree)
    lines = source.splitlines()
    places = {
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and node.id in TABLES and id(node) not in typed
    }
    return [f"{n}: {lines[n - 1].strip()}" for n in sorted(places)]


def test_the_check_tells_a_query_from_a_type():
    query = "from x import GameRecord\nasync def f(s) -> None:\n    await s.get(GameRecord, 'id')\n"
    column = "def won(user_id: int):\n    return GameRecord.white_id == user_id\n"
    typed = "def hook(s, record: GameRecord) -> GameRecord | None:\n    x: MoveRecord\n    return record\n"
    assert uses_in_code(query) == ["3: await s.get(GameRecord, 'id')"]
    assert uses_in_code(column) == ["2: return GameRecord.white_id == user_id"]
    assert uses_in_code(typed) == []


def test_only_the_games_domain_queries_the_games_tables():
    modules = [p for p in sorted(ROOT.rglob("*.py")) if not any(p.is_relative_to(e) for e in EXEMPT)]
    assert len(modules) > 50  # the walk did find the package
    found = {
        str(p.relative_to(ROOT.parent)): uses
        for p in modules
        if (uses := uses_in_code(p.read_text(), str(p)))
    }
    assert not found, f"the games' tables are queried outside server/games (use games.queries): {found}"
