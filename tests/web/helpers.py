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
