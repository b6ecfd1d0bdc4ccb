"""The game page without a mouse, and what a screen reader is told.

The board is a grid: Tab reaches it, the arrow keys go square by square, Enter or Space picks a piece and
each square of its move; every square has a name ("c3, white man"). Moves can also be typed, the move box
completing a beginning that only one legal move has. The opponent's moves and the result are said in a
live region. The player's own clock turns red under ten seconds and ticks.
"""

from __future__ import annotations

import httpx
import pytest
from server.helpers import Player

from .helpers import wait_for_ply, wait_for_turn


def computer_game(server, **terms) -> tuple[Player, str]:
    """A new player's game with White against the computer at level 1."""
    player = Player(server)
    r = player.post(
        "/api/computer-games", {"level": 1, "color": "white", "variant": "russian-giveaway", **terms}
    )
    assert r.status_code == 201, r.text
    return player, r.json()["game"]["id"]


def state(server, gid: str) -> dict:
    return httpx.get(f"{server.url}/api/games/{gid}").json()["game"]


def focused_cell(page) -> tuple[int, int]:
    cell = page.locator("svg.board rect:focus")
    return int(cell.get_attribute("data-row")), int(cell.get_attribute("data-col"))


def tab_to_the_board(page) -> None:
    for _ in range(80):
        page.keyboard.press("Tab")
        # The board's one tab stop is a square: never the <svg> itself, where no key would work.
        assert page.evaluate("document.activeElement.tagName.toLowerCase()") != "svg"
        if page.locator("svg.board rect:focus").count():
            return
    pytest.fail("Tab never reached the board")


def go_to(page, square: str) -> None:
    """Walk the focus to `square` with the arrow keys (White at the bottom: row 0 is the top)."""
    target = page.locator(f'svg.board [data-square="{square}"]')
    row, col = int(target.get_attribute("data-row")), int(target.get_attribute("data-col"))
    here_row, here_col = focused_cell(page)
    for _ in range(abs(row - here_row)):
        page.keyboard.press("ArrowDown" if row > here_row else "ArrowUp")
    for _ in range(abs(col - here_col)):
        page.keyboard.press("ArrowRight" if col > here_col else "ArrowLeft")
    assert focused_cell(page) == (row, col)


def test_the_squares_are_a_grid_of_named_cells_with_one_tab_stop(pages, server, artifacts):
    player, gid = computer_game(server)
    page = pages(f"/game/{gid}", player=player)
    wait_for_turn(page)
    assert page.locator("svg.board [role=grid]").count() == 1
    assert page.locator("svg.board [role=row]").count() == 8
    assert page.locator("svg.board [role=gridcell]").count() == 64
    assert page.locator('svg.board [role=gridcell][tabindex="0"]').count() == 1
    assert (
        page.locator('svg.board [data-square="c3"]').get_attribute("aria-label") == "c3, white man, can move"
    )
    assert page.locator('svg.board [data-square="b6"]').get_attribute("aria-label") == "b6, black man"
    assert page.locator('svg.board [data-square="d4"]').get_attribute("aria-label") == "d4"
    page.fill("#move-text", "c3-d4")
    page.press("#move-text", "Enter")
    wait_for_ply(page, 2)
    tab_to_the_board(page)
    # A ring shows the square focused; the arrows move it square by square.
    assert page.locator("svg.board .focus-ring").count() == 1
    start = focused_cell(page)
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowRight")
    assert focused_cell(page) == (start[0] - 1, start[1] + 1)
    assert page.locator("svg.board .focus-ring").count() == 1
    page.screenshot(path=str(artifacts / "keyboard-focus.png"))
    # On the board the arrows do not step back through the game's moves, as they do elsewhere on the page.
    page.keyboard.press("ArrowLeft")
    assert "history" not in page.locator(".game-page").get_attribute("class")
    page.locator("#flip").focus()
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector(".game-page.history")
    player.close()


def test_f_turns_the_board_round_and_the_focus_stays_on_the_square(pages, server):
    """`f` on the board's grid (squares named by numbers, so `f` begins no move) flips the board; the focus
    stays on the same square, now seen elsewhere, and the arrows still move it on the board."""
    player, gid = computer_game(server, variant="international")
    page = pages(f"/game/{gid}", player=player)
    wait_for_turn(page)
    tab_to_the_board(page)
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowRight")  # a dark square, one row up
    cell = page.locator("svg.board rect:focus")
    square, before = cell.get_attribute("data-square"), cell.bounding_box()
    assert square
    page.keyboard.press("f")
    page.locator(".player-bar.bottom[data-color='black']").wait_for()  # turned round
    cell = page.locator("svg.board rect:focus")
    assert cell.count() == 1, "the focus left the board"
    assert cell.get_attribute("data-square") == square
    assert cell.bounding_box()["y"] != before["y"]
    assert page.locator("svg.board .focus-ring").count() == 1
    row, col = focused_cell(page)
    page.keyboard.press("ArrowUp")  # up as the board is now seen: a row of the board down
    assert focused_cell(page) == (row + 1, col)
    assert "history" not in page.locator(".game-page").get_attribute("class")
    player.close()


@pytest.mark.slow
def test_a_game_is_played_to_its_result_with_the_keyboard_alone(pages, server):
    player, gid = computer_game(server)
    page = pages(f"/game/{gid}", player=player)
    wait_for_turn(page)
    tab_to_the_board(page)
    for turn in range(150):
        game = state(server, gid)
        if game["status"] != "started":
            break
        if game["side_to_move"] != "white":
            wait_for_ply(page, game["ply"] + 1)
            continue
        wait_for_turn(page)
        # The longest move on offer: a multi-capture is picked square by square.
        move = max(game["legal_moves"], key=lambda m: len(m["path"]))
        for i, square in enumerate(move["path"]):
            go_to(page, square)
            page.keyboard.press("Enter" if (turn + i) % 2 == 0 else " ")
        wait_for_ply(page, game["ply"] + 1)
    else:
        pytest.fail("the game against the computer did not end in 150 turns")
    page.wait_for_selector("#result:not([hidden])")
    final = state(server, gid)
    assert final["status"] == "finished"
    assert page.locator("#moves li.ply").count() == len(final["moves"])
    # The result is said in the live region.
    result = page.locator("#result strong").inner_text().strip()
    assert result in page.locator("#announce").inner_text()
    player.close()


def test_a_typed_beginning_lists_its_moves_and_a_unique_one_is_completed_and_played(pages, server, artifacts):
    player, gid = computer_game(server)
    page = pages(f"/game/{gid}", player=player)
    wait_for_turn(page)
    page.fill("#move-text", "c3")
    page.press("#move-text", "3")  # an input event; "c33" begins no move: nothing listed
    assert page.locator("#move-candidates .candidate").count() == 0
    page.fill("#move-text", "")
    page.type("#move-text", "c3")
    page.screenshot(path=str(artifacts / "move-completion.png"))
    assert sorted(page.locator("#move-candidates .candidate").all_inner_texts()) == ["c3-b4", "c3-d4"]
    page.fill("#move-text", "")
    page.type("#move-text", "a3")
    assert "a3-b4" in page.locator("#move-candidates").inner_text()
    page.press("#move-text", "Tab")
    wait_for_ply(page, 1)
    assert page.locator('#moves li.ply[data-ply="1"]').inner_text().strip() == "a3-b4"
    assert page.locator("#move-text").input_value() == ""

    # The computer's answer is said in the live region, with the player's turn.
    wait_for_ply(page, 2)
    reply = state(server, gid)["moves"][1]
    page.wait_for_selector(f"#announce:has-text('Black played {reply}.')")
    assert "Your turn" in page.locator("#announce").inner_text()

    # Enter plays the one move a beginning names; a beginning naming none is sent as typed (and refused).
    game = state(server, gid)
    starts = [m["path"][0] for m in game["legal_moves"]]
    single = next((m for m in game["legal_moves"] if starts.count(m["path"][0]) == 1), None)
    if single is not None:
        wait_for_turn(page)
        page.type("#move-text", single["path"][0])
        page.press("#move-text", "Enter")
        wait_for_ply(page, 3)
        assert page.locator('#moves li.ply[data-ply="3"]').inner_text().strip() == single["move"]
    player.close()


def test_the_players_own_clock_turns_red_and_ticks_under_ten_seconds(pages, server, artifacts):
    # 15 seconds each; the clocks start once each side has moved.
    player, gid = computer_game(server, time_control={"minutes": 0.25, "increment": 0})
    page = pages(f"/game/{gid}", player=player)
    wait_for_turn(page)
    page.fill("#move-text", "c3-d4")
    page.press("#move-text", "Enter")
    wait_for_ply(page, 2)
    clock = page.locator('.clock[data-clock="white"]')
    assert "critical" not in clock.get_attribute("class")
    page.wait_for_selector('.clock.critical[data-clock="white"]', timeout=12000)
    page.screenshot(path=str(artifacts / "clock-critical.png"))
    assert page.locator('.clock.critical[data-clock="black"]').count() == 0
    # A warning, then a tick each second.
    page.wait_for_selector("html[data-sound=tick]", timeout=4000)
    # Muted, no sound is played any more; the choice is remembered.
    page.click("#sound")
    assert page.locator("#sound").get_attribute("aria-pressed") == "false"
    played = page.locator("html").get_attribute("data-sounds")
    page.wait_for_timeout(1500)
    assert page.locator("html").get_attribute("data-sounds") == played
    page.reload()
    page.wait_for_selector("#sound")
    assert page.locator("#sound").get_attribute("aria-pressed") == "false"
    player.close()
