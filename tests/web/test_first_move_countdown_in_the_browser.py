"""A timed game aborts itself when the side to move does not make its first move in time (the server's
`FirstMoveTimer`); as on lichess, the page says so under that side's clock, counting down — "58 seconds to
play the first move" — to both players and to spectators, until each side has moved.
"""

from __future__ import annotations

import re

from server.helpers import Player

from .helpers import PHONE, assert_accessible, wait_for_turn

COUNTDOWN = re.compile(r"^(\d+) seconds? to play the first move$")
WAIT_SECONDS = 60  # the server's default first_move_seconds (the tests' server keeps it)


def seconds_shown(page, color: str) -> int:
    text = page.locator(f'.player-bar [data-first-move="{color}"]').inner_text().strip()
    found = COUNTDOWN.match(text)
    assert found, text
    return int(found.group(1))


def test_the_side_to_moves_time_for_its_first_move_counts_down_for_everyone(pages, server, artifacts):
    white, black, watcher = Player(server), Player(server), Player(server)
    game = white.challenge(black, time_control={"minutes": 5, "increment": 3})
    gid = game["id"]
    mine = pages(f"/game/{gid}", player=white)
    theirs = pages(f"/game/{gid}", player=black)
    watching = pages(f"/game/{gid}", player=watcher, viewport=PHONE)
    wait_for_turn(mine)
    for page in (mine, theirs, watching):
        page.wait_for_selector('.player-bar [data-first-move="white"]')
        assert WAIT_SECONDS - 15 <= seconds_shown(page, "white") <= WAIT_SECONDS
        assert page.locator('[data-first-move="black"]').count() == 0
    # Under White's clock: below the board for White, above it for Black.
    assert mine.locator('.player-bar.bottom [data-first-move="white"]').count() == 1
    assert theirs.locator('.player-bar.top [data-first-move="white"]').count() == 1
    # It counts down between the server's states.
    before = seconds_shown(watching, "white")
    watching.wait_for_timeout(2200)
    assert seconds_shown(watching, "white") <= before - 2
    watching.screenshot(path=str(artifacts / "first-move-countdown-phone.png"))
    assert_accessible(mine, "a game waiting for its first move")

    # White moves: Black's first move has the whole wait again; once both have moved, nothing is shown.
    assert white.post(f"/api/games/{gid}/move", {"move": "c3-d4", "ply": 0}).status_code == 200
    for page in (mine, theirs, watching):
        page.wait_for_selector('.player-bar [data-first-move="black"]')
        assert WAIT_SECONDS - 15 <= seconds_shown(page, "black") <= WAIT_SECONDS
        assert page.locator('[data-first-move="white"]').count() == 0
    assert black.post(f"/api/games/{gid}/move", {"move": "f6-g5", "ply": 1}).status_code == 200
    for page in (mine, theirs, watching):
        page.wait_for_selector(".player-bar .clock.running")
        assert page.locator("[data-first-move]").count() == 0
    for player in (white, black, watcher):
        player.close()


def test_the_countdown_is_said_in_the_players_language_and_not_shown_without_a_clock(pages, server):
    white, black = Player(server), Player(server)
    timed = white.challenge(black, time_control={"minutes": 3, "increment": 2})
    page = pages(f"/game/{timed['id']}", player=black, language="ru")
    page.wait_for_selector('.player-bar [data-first-move="white"]')
    text = page.locator('[data-first-move="white"]').inner_text()
    assert re.fullmatch(r"\d+ с на первый ход", text.strip()), text
    untimed = white.challenge(black)
    page = pages(f"/game/{untimed['id']}", player=white)
    wait_for_turn(page)
    page.wait_for_timeout(300)
    assert page.locator("[data-first-move]").count() == 0
    white.close()
    black.close()


def test_the_board_does_not_move_when_the_countdown_comes_and_goes(pages, server):
    """The countdown sits beside the clock in the bar's one row: the board stays put when it appears and
    disappears, on a wide screen and on a phone, in the language of the longest text."""
    white, black = Player(server), Player(server)
    game = white.challenge(black, time_control={"minutes": 3, "increment": 2})
    gid = game["id"]
    mine = pages(f"/game/{gid}", player=white)
    theirs = pages(f"/game/{gid}", player=black, viewport=PHONE, language="vi")

    def board_tops():
        return [round(page.locator("svg.board").bounding_box()["y"], 1) for page in (mine, theirs)]

    for page in (mine, theirs):
        page.wait_for_selector('.player-bar [data-first-move="white"]')
    start = board_tops()
    assert white.post(f"/api/games/{gid}/move", {"move": "c3-d4", "ply": 0}).status_code == 200
    for page in (mine, theirs):
        page.wait_for_selector('.player-bar [data-first-move="black"]')
    assert board_tops() == start
    assert black.post(f"/api/games/{gid}/move", {"move": "f6-g5", "ply": 1}).status_code == 200
    for page in (mine, theirs):
        page.wait_for_selector(".player-bar .clock.running")
        assert page.locator("[data-first-move]").count() == 0
    assert board_tops() == start
    white.close()
    black.close()
