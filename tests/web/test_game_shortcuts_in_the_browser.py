"""The game page's keyboard shortcuts, as lichess has them: ← and → step through the moves, ↑ or Home go to
the start, ↓ or End to the current position, f turns the board round. Never while typing in a field (the
move box, the chat); on the board itself the arrows move its focus square by square (test_keyboard_in_the_
browser.py). In the player's own game of a variant whose squares have letters, a letter begins a typed
move (f6-e5): there f goes to the move box; in a game with numbered squares it flips the board.
"""

from __future__ import annotations

from server.helpers import Player

from .helpers import wait_for_ply, wait_for_turn

MOVES = ["c3-d4", "f6-g5", "b2-c3", "g7-f6"]


def played_game(server, variant: str = "russian-giveaway", moves=MOVES) -> tuple[Player, Player, str]:
    """A game between two new players, White first, with `moves` played; White to move next."""
    white, black = Player(server), Player(server)
    game = white.challenge(black, variant=variant)
    for ply, move in enumerate(moves):
        mover = white if ply % 2 == 0 else black
        r = mover.post(f"/api/games/{game['id']}/move", {"move": move, "ply": ply})
        assert r.status_code == 200, r.text
    return white, black, game["id"]


def viewed_ply(page) -> int | None:
    """The ply whose position the board shows: None for the live one."""
    if "history" not in page.locator(".game-page").get_attribute("class"):
        return None
    current = page.locator("#moves li.ply.current")
    return int(current.get_attribute("data-ply")) if current.count() else 0


def shows(page, ply: int | None) -> bool:
    """Wait until the board shows the position after `ply` (None: the live one); an earlier position is
    drawn once the game's positions have come (`BoardController.drawBoard`)."""
    if ply is None:
        page.wait_for_selector(".game-page:not(.history)")
    elif ply == 0:
        page.wait_for_selector(".game-page.history #moves:not(:has(li.current))")
    else:
        page.wait_for_selector(f'.game-page.history #moves li.ply.current[data-ply="{ply}"]')
    return viewed_ply(page) == ply


def still_live(page) -> bool:
    """After a key that must not step through the game: the live position, its last move marked."""
    page.wait_for_timeout(300)  # what a key would have started (the positions' fetch) has come by now
    last = page.locator("#moves li.ply").count()
    return viewed_ply(page) is None and page.locator(f'#moves li.ply.current[data-ply="{last}"]').count() == 1


def bottom_color(page) -> str:
    return page.locator(".player-bar.bottom").get_attribute("data-color")


def test_the_arrows_step_through_the_moves_and_up_and_down_go_to_the_start_and_the_end(pages, server):
    white, black, gid = played_game(server)
    page = pages(f"/game/{gid}", player=white)
    wait_for_turn(page)
    assert viewed_ply(page) is None
    page.keyboard.press("ArrowLeft")
    assert shows(page, 3)
    page.keyboard.press("ArrowUp")
    assert shows(page, 0)
    page.keyboard.press("ArrowRight")
    assert shows(page, 1)
    page.keyboard.press("ArrowDown")
    assert shows(page, None)
    page.keyboard.press("Home")
    assert shows(page, 0)
    page.keyboard.press("End")
    assert shows(page, None)
    # The page does not scroll with ↑ and ↓: the keys are the game's.
    assert page.evaluate("window.scrollY") == 0

    # Not while typing: in the move box the arrows move the caret and f is a letter of the move.
    page.fill("#move-text", "f")
    page.press("#move-text", "ArrowUp")
    page.press("#move-text", "f")
    assert still_live(page) and bottom_color(page) == "white"
    page.fill("#move-text", "")
    # On the board the arrows move its focus, not through the game.
    page.locator('svg.board [role=gridcell][tabindex="0"]').focus()
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowLeft")
    assert still_live(page)
    # In the player's own game, with squares named by letters, f begins a typed move (f-file).
    page.locator("#flip").focus()
    page.keyboard.press("f")
    assert page.evaluate("document.activeElement.id") == "move-text"
    assert bottom_color(page) == "white"
    white.close()
    black.close()


def test_f_flips_the_board_for_a_spectator_but_not_while_typing_in_the_chat(pages, server):
    white, black, gid = played_game(server)
    watcher = Player(server)
    page = pages(f"/game/{gid}", player=watcher)
    wait_for_ply(page, len(MOVES))
    assert bottom_color(page) == "white"
    c3 = page.locator('svg.board [data-square="c3"]')
    y_white = c3.get_attribute("y")
    page.keyboard.press("f")
    page.wait_for_selector('.player-bar.bottom[data-color="black"]')
    assert c3.get_attribute("y") != y_white  # the board itself turned round, not only the bars
    page.keyboard.press("F")
    page.wait_for_selector('.player-bar.bottom[data-color="white"]')
    # Ctrl+F is the browser's (find in page), not a flip.
    page.keyboard.press("Control+f")
    page.wait_for_timeout(200)
    assert bottom_color(page) == "white"
    chat = page.locator("#chat-text")
    chat.wait_for()
    chat.click()
    page.keyboard.type("fine")
    page.keyboard.press("ArrowLeft")
    assert chat.input_value() == "fine"
    assert bottom_color(page) == "white" and still_live(page)
    # The arrows work for a spectator too.
    page.locator("#flip").focus()
    page.keyboard.press("ArrowUp")
    assert shows(page, 0)
    for player in (white, black, watcher):
        player.close()


def test_f_flips_the_players_own_board_where_squares_are_numbered(pages, server):
    white, black, gid = played_game(server, variant="international", moves=["32-28"])
    page = pages(f"/game/{gid}", player=black)
    wait_for_turn(page)
    assert bottom_color(page) == "black"
    page.locator("#flip").focus()
    page.keyboard.press("f")
    page.wait_for_selector('.player-bar.bottom[data-color="white"]')
    assert page.locator("#move-text").input_value() == ""
    # A digit still begins a typed move.
    page.keyboard.press("1")
    assert page.evaluate("document.activeElement.id") == "move-text"
    white.close()
    black.close()
