"""What a player does in the page, in the words of the tests."""

from __future__ import annotations

import re
import uuid

PASSWORD = "correct horse battery"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}  # a phone-sized screen


def new_name(prefix: str = "w") -> str:
    return f"{prefix}_{uuid.uuid4().hex[:10]}"


def register(page, name: str) -> None:
    """Register through the lobby's form; the page logs in at once and shows the name in the header."""
    page.fill("#username", name)
    page.fill("#password", PASSWORD)
    page.click("#register-button")
    page.wait_for_selector(f'#account .me[data-username="{name}"]')


def squares_of(move: str) -> list[str]:
    """The squares a move names, in order: `e5:c3:a5` -> e5, c3, a5."""
    return [s for s in re.split(r"[-x:]", move) if s]


def click_square(page, square: str) -> None:
    page.click(f'svg.board [data-square="{square}"]')


def plies_shown(page) -> int:
    return page.locator("#moves li.ply").count()


def wait_for_ply(page, ply: int) -> None:
    # A locator's wait, not wait_for_function: the pages' Content-Security-Policy (no 'unsafe-eval')
    # refuses the eval that Playwright's predicates given as text run in the page.
    if ply > 0:
        page.locator("#moves li.ply").nth(ply - 1).wait_for(state="attached")


def wait_for_turn(page) -> None:
    """Until the board offers the player pieces to move (the server's legal moves have arrived)."""
    page.wait_for_selector("svg.board .piece.movable, svg.board .piece.must-capture")


def game_id(page) -> str:
    page.wait_for_url(re.compile(r"/game/[A-Za-z0-9]+$"))
    return page.url.rsplit("/", 1)[1]


# -- accessibility ------------------------------------------------------------------------------------

PHONE_SMALL = {"width": 375, "height": 667}  # the smallest phone the pages are drawn for (issue 16)
DESKTOP_LAPTOP = {"width": 1280, "height": 800}
# axe-core's impacts that fail a page (issue 16: "no serious violations"); minor and moderate are reported.
FAILING_IMPACTS = ("serious", "critical")


def accessibility_violations(page, impacts=FAILING_IMPACTS) -> list[dict]:
    """axe-core's violations of `page` as it is now, of the given impacts.

    axe-core comes inside the axe-playwright-python package (pyproject.toml's test extras) and is injected
    into the page by Playwright itself, so nothing is downloaded and the pages' Content-Security-Policy
    (no inline script) is not loosened.
    """
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page, options={"resultTypes": ["violations"]})
    return [v for v in results.response["violations"] if v.get("impact") in impacts]


def describe_violations(violations: list[dict]) -> str:
    """One line per rule and element: what is wrong, where, and the rule's help page."""
    lines = []
    for v in violations:
        lines.append(f"[{v['impact']}] {v['id']}: {v['help']} ({v['helpUrl']})")
        for node in v["nodes"][:8]:
            summary = (node.get("failureSummary") or "").replace("\n", " ")
            lines.append(f"    at {' '.join(map(str, node['target']))}: {summary[:300]}")
    return "\n".join(lines)


def assert_accessible(page, where: str = "") -> None:
    """Fail when axe-core finds a serious or critical violation on `page`; the message says which rule,
    which elements and why (other helpers' tests call this on their own pages)."""
    violations = accessibility_violations(page)
    assert not violations, f"accessibility of {where or page.url}:\n{describe_violations(violations)}"
