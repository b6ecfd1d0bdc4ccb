"""The package's modules import each other in one direction only (ARCHITECTURE.md: layers look down).

Every module of `shashki/` is read with `ast` (nothing is imported) and its imports become edges of a
graph: `import a.b`, `from a import b` (an edge to the submodule `a.b` when there is one, else to `a`),
relative imports resolved. Those at module level count, and so do those inside functions: an import
put in a function to dodge a circle still makes the circle (issue 9). Those under `if TYPE_CHECKING:`
do not: they never run and only name types. A package counts only where its names are
imported (`from shashki.rules import Game`), not when one of its submodules is, since otherwise every
package whose `__init__` re-exports its modules would be a circle.

A circle is reported as the modules it goes through, e.g. `shashki.rules.fen -> shashki.rules.position
-> shashki.rules.fen`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "shashki"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def all_modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(ROOT.rglob("*.py")) if "migrations" not in p.parts}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def import_statements(tree: ast.AST, *, in_functions: bool):
    """The import statements of a module that can run: everywhere but under `if TYPE_CHECKING:` (its
    `else:` does run); inside functions too when `in_functions`."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) and not in_functions:
            continue
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            for stmt in node.orelse:
                yield from import_statements(ast.Module([stmt], []), in_functions=in_functions)
        else:
            yield from import_statements(node, in_functions=in_functions)


def parse(path: Path) -> ast.Module:
    """The file's syntax tree. CPython 3.11 keeps the AST constructor's recursion depth in state shared
    by the threads, so a compile() in another thread at the same moment (a thread an earlier test left
    running) can make `ast.parse` fail with "AST constructor recursion depth mismatch" (CPython
    gh-106905); the file is then parsed again."""
    source = path.read_text()
    for attempt in range(5):
        try:
            return ast.parse(source, str(path))
        except SystemError:
            if attempt == 4:
                raise
    raise AssertionError("unreachable")


def imports_of(name: str, path: Path, modules: dict[str, Path], *, in_functions: bool = True) -> set[str]:
    """The modules of the package that `name` imports (at module level only unless `in_functions`)."""
    tree = parse(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in import_statements(tree, in_functions=in_functions):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            targets = []
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                targets.append(sub if sub in modules else base)
        found.update(t for t in targets if t in modules and t != name)
    return found


def import_graph(*, in_functions: bool = True) -> dict[str, set[str]]:
    modules = all_modules()
    return {name: imports_of(name, p, modules, in_functions=in_functions) for name, p in modules.items()}


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One circle through each knot of modules, as a closed path."""
    return [_circle_in(graph, group) for group in knots(graph)]


def knots(graph: dict[str, set[str]]) -> list[set[str]]:
    """The groups of modules that each reach one another (strongly connected, Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(group)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return groups


def _circle_in(graph: dict[str, set[str]], group: set[str]) -> list[str]:
    """A shortest closed path from the group's first module back to itself, inside the group."""
    start = min(group)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph[v] & group):
                if w == start:
                    return [*paths[v], start]
                if w not in paths:
                    paths[w] = [*paths[v], w]
                    nxt.append(w)
        frontier = nxt
    raise AssertionError(f"no circle in {group}")  # a strongly connected group always has one


def _in_part(name: str, part: str) -> bool:
    if part == "shashki":
        return True
    if part == "top level":
        return name.count(".") <= 1 and name.split(".")[-1] not in ("rules", "engine", "server", "web")
    return name == f"shashki.{part}" or name.startswith(f"shashki.{part}.")


PARTS = ["rules", "engine", "top level", "server", "shashki"]


@pytest.mark.parametrize("part", PARTS)
def test_no_import_circle(part):
    sub = {
        name: {w for w in deps if _in_part(w, part)}
        for name, deps in import_graph().items()
        if _in_part(name, part)
    }
    found = [(_circle_in(sub, group), sorted(group)) for group in knots(sub)]
    assert not found, "import circle(s): " + "; ".join(
        f"{' -> '.join(circle)} (tied together: {', '.join(group)})" for circle, group in found
    )


@pytest.mark.parametrize(
    ("part", "above"),
    [("rules", ("engine", "server", "cli", "clitools")), ("engine", ("server", "cli"))],
    ids=["rules", "engine"],
)
def test_lower_layers_do_not_import_higher_ones(part, above):
    """ARCHITECTURE.md: rules, then the engine, then the server and the command line."""
    wrong = {
        f"{name} -> {w}"
        for name, deps in import_graph().items()
        if _in_part(name, part)
        for w in deps
        if any(w == f"shashki.{a}" or w.startswith(f"shashki.{a}.") for a in above)
    }
    assert not wrong, f"{part} imports a higher layer: {sorted(wrong)}"


def test_rules_modules_import_at_the_top_only():
    """The rules layer hides no dependency in a function: what it imports is said at its top."""
    modules = all_modules()
    hidden = {}
    for name, path in modules.items():
        if _in_part(name, "rules"):
            inside = imports_of(name, path, modules) - imports_of(name, path, modules, in_functions=False)
            if inside:
                hidden[name] = sorted(inside)
    assert not hidden, f"imports inside functions: {hidden}"


def test_the_circle_finder_names_a_circle_and_passes_a_tree():
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert find_cycles({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []


def test_imports_under_type_checking_are_not_edges_and_those_in_functions_are(tmp_path):
    source = (
        "from typing import TYPE_CHECKING\n"
        "import shashki.rules.board\n"
        "if TYPE_CHECKING:\n    from shashki.rules import game\n"
        "def f():\n    from shashki.rules import pdn\n"
        "from shashki.rules import fen, Position\n"
    )
    path = tmp_path / "m.py"
    path.write_text(source)
    modules = all_modules()
    top = {"shashki.rules.board", "shashki.rules.fen", "shashki.rules"}
    assert imports_of("x.m", path, modules, in_functions=False) == top
    assert imports_of("x.m", path, modules) == top | {"shashki.rules.pdn"}
