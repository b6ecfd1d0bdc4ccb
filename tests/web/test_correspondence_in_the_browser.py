"""A correspondence game in a real browser, across a restart of the server: two players (two browser
contexts) agree on 3 days per move in the lobby's challenge form, play with move confirmation, the server
process is killed and started again on the same database, and the game goes on where it stood, with the
same deadline. The bell in the header counts unread notifications live; the lobby lists the games where
it is the player's turn, with the time left.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect
from server.helpers import Player, Server

from .conftest import TIMEOUT_MS
from .helpers import DESKTOP, game_id, wait_for_ply, wait_for_turn
from .test_play_in_the_browser import play_by_clicking

pytestmark = pytest.mark.slow  # a long browser run with a server restart (make test-all)


@pytest.fixture
def own_server(tmp_path):
    server = Server(tmp_path / "data").start()
    yield server
    server.stop()


@pytest.fixture
def own_pages(browser, own_server):
    """Pages of `own_server` in browser contexts of their own, logged in as the given Player."""
    contexts, errors = [], []

    def open_page(player: Player, path: str = "/"):
        context = browser.new_context(viewport=DESKTOP, locale="en")
        context.set_default_timeout(TIMEOUT_MS)
        cookie = player.http.cookies.get("shashki_session")
        context.add_cookies([{"name": "shashki_session", "value": cookie, "url": own_server.url}])
        context.add_init_script("localStorage.setItem('shashki.language', 'en')")
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(f"{path}: {error}"))
        page.goto(own_server.url + path)
        page.wait_for_selector("body[data-ready]")
        return page

    yield open_page
    for context in contexts:
        context.close()
    assert not errors, f"JavaScript errors in the page: {errors}"


def confirm_move(page, move: str) -> None:
    """Play a move on the board and confirm it (correspondence games ask first)."""
    wait_for_turn(page)
    play_by_clicking(page, move)
    page.click("#move-confirm-yes")


def test_a_correspondence_game_goes_on_across_a_server_restart_with_turns_and_notifications(
    own_server, own_pages, artifacts
):
    alice, bob = Player(own_server), Player(own_server)
    white, black = own_pages(alice), own_pages(bob)

    # Alice challenges Bob to 3 days per move; Bob's bell counts the challenge at once, live.
    white.click('[data-tab="challenge"]')
    white.fill("#challenge-username", bob.name)
    white.select_option("#challenge-time", "days:3")
    white.select_option("#challenge-color", "white")
    white.click("#challenge-form button[type=submit]")
    black.wait_for_selector('#notify-bell[data-unread="1"]')
    expect(black.locator("#challenges-in li").first).to_contain_text("3 days/move")
    black.locator("#challenges-in button.accept-challenge").first.click()
    black.wait_for_selector('#notify-bell[data-unread="0"]')  # answered, the challenge waits no more
    gid = game_id(black)
    assert game_id(white) == gid
    white.wait_for_selector('.game-page[data-color="white"]')
    expect(white.locator("#game-info")).to_contain_text("3 days/move")
    expect(white.locator("#corr-time")).to_contain_text("2 d 23 h left")

    # A move waits for confirmation: cancelled, nothing is sent; confirmed, it is played.
    wait_for_turn(white)
    play_by_clicking(white, "c3-d4")
    white.click("#move-confirm-no")
    expect(white.locator("#move-confirm")).to_have_count(0)
    assert white.locator("#moves li.ply").count() == 0
    confirm_move(white, "c3-d4")
    wait_for_ply(black, 1)
    black.wait_for_selector('#notify-bell[data-unread="1"]')  # now his turn

    # The server dies and comes back on the same data; the pages reconnect by themselves.
    before = alice.http.get(f"/api/games/{gid}").json()["game"]["correspondence"]
    own_server.kill()
    own_server.start()
    after = alice.http.get(f"/api/games/{gid}").json()["game"]
    assert after["moves"] == ["c3-d4"] and after["status"] == "started"
    assert after["correspondence"]["deadline"] == before["deadline"]

    confirm_move(black, "f6-g5")
    wait_for_ply(white, 2)
    wait_for_turn(white)
    play_by_clicking(white, "g3-h4")
    white.wait_for_selector("#move-confirm")
    white.screenshot(path=str(artifacts / "correspondence-confirm.png"))
    white.click("#move-confirm-yes")
    wait_for_ply(black, 3)

    # In the lobby, Bob finds the game in his "your turn" list with the time left; Alice does not.
    black.goto(own_server.url + "/")
    black.wait_for_selector("body[data-ready]")
    turn = black.locator(f'#your-turn-list li[data-game-id="{gid}"]')
    expect(turn).to_contain_text("2 d 23 h left")
    white.goto(own_server.url + "/")
    white.wait_for_selector("body[data-ready]")
    expect(white.locator("#your-turn")).to_be_hidden()

    # Bob reads his notifications in the bell's panel and marks them all read: the count goes.
    black.click("#notify-bell")
    expect(black.locator("#notify-panel li.unread").first).to_contain_text(f"Your move against {alice.name}")
    black.click("#notify-read-all")
    black.wait_for_selector('#notify-bell[data-unread="0"]')
    expect(black.locator("#notify-count")).to_be_hidden()
    expect(black.locator("#notify-permission")).to_be_visible()  # asked only from here, never on load
    black.screenshot(path=str(artifacts / "correspondence-lobby.png"))

    # From the list, the game opens and goes on.
    black.click("#notify-bell")  # closes the panel
    turn.locator("a").click()
    black.wait_for_selector(f'.game-page[data-game-id="{gid}"]')
    state = bob.http.get(f"/api/games/{gid}").json()["game"]
    confirm_move(black, state["legal_moves"][0]["move"])
    wait_for_ply(black, 4)
    expect(black.locator("#moves li.ply")).to_have_count(4)
    alice.close()
    bob.close()
