"""Whole games played in a real browser: two players who meet in the lobby, and a player against the computer.

Every move is entered the way a player enters it, by clicking squares on the board; a multi-capture is
clicked square by square, and between the clicks the pieces already jumped stay on the board as ghosts
(the Turkish strike, RULES.md §2.8).
"""

from __future__ import annotations

import re

import httpx
import pytest
from game_lines import GIVEAWAY_WIN_FOR_WHITE  # tests/game_lines.py
from playwright.sync_api import expect

from .helpers import (
    DESKTOP,
    PHONE,
    click_square,
    game_id,
    new_name,
    register,
    squares_of,
    wait_for_ply,
    wait_for_turn,
)

pytestmark = pytest.mark.slow

WHITE_WINS_NO_MOVES = "White wins — no moves left: in giveaway the player who cannot move wins"


def play_by_clicking(page, move: str) -> None:
    """Click the move's squares one by one; in the middle of a capture, check the jumped pieces are ghosts."""
    path = squares_of(move)
    capture = ":" in move
    for i, square in enumerate(path):
        click_square(page, square)
        if capture and 0 < i < len(path) - 1:
            # Still the player's move: the piece stands on the square reached, the jumped ones are ghosts.
            page.wait_for_selector(f'svg.board [data-piece="{square}"]')
            assert page.locator("svg.board .piece.ghost").count() == i
            assert page.locator("#hint").inner_text().strip()


def test_two_players_meet_in_the_lobby_and_play_a_giveaway_game_to_a_win_by_no_legal_move(pages, artifacts):
    white_name, black_name = new_name("white"), new_name("black")
    white = pages("/")
    black = pages("/")
    register(white, white_name)
    register(black, black_name)

    # White opens a game in the lobby; Black sees it appear live and accepts it.
    white.select_option("#seek-variant", "russian-giveaway")
    white.select_option("#seek-time", "10+0")
    white.select_option("#seek-color", "white")
    white.check("#seek-rated")
    white.click("#seek-form button[type=submit]")
    white.wait_for_selector("#waiting:not([hidden])")
    seek_row = black.locator(f'#seeks tr[data-user="{white_name}"]')
    seek_row.wait_for()
    black.screenshot(path=str(artifacts / "lobby.png"))
    seek_row.locator("button.accept-seek").click()
    gid = game_id(black)
    assert game_id(white) == gid, "the seek's owner is taken to the game that started"
    white.wait_for_selector('.game-page[data-color="white"]')
    black.wait_for_selector('.game-page[data-color="black"]')

    # A move the rules refuse is answered with the server's reason, and changes nothing.
    wait_for_turn(white)
    white.fill("#move-text", "c3-c5")
    white.press("#move-text", "Enter")
    white.wait_for_selector("#move-error:not([hidden])")
    assert white.locator("#move-error").inner_text().strip()
    assert white.locator("#moves li.ply").count() == 0

    players = {"white": white, "black": black}
    for ply, move in enumerate(GIVEAWAY_WIN_FOR_WHITE):
        mover = players["white" if ply % 2 == 0 else "black"]
        wait_for_turn(mover)
        if move.count(":") > 1:
            # Capture is compulsory: the pieces that must capture are marked.
            assert (
                mover.locator(f'svg.board .piece.must-capture[data-piece="{squares_of(move)[0]}"]').count()
                == 1
            )
        play_by_clicking(mover, move)
        for page in players.values():
            wait_for_ply(page, ply + 1)
        if ply == 11:
            black.screenshot(path=str(artifacts / "game.png"))
            black.set_viewport_size(PHONE)
            black.screenshot(path=str(artifacts / "game-phone.png"), full_page=True)
            black.set_viewport_size(DESKTOP)

    for page in players.values():
        page.wait_for_selector("#result:not([hidden])")
        assert WHITE_WINS_NO_MOVES in page.locator("#result").inner_text()
        moves = page.locator("#moves li.ply").all_inner_texts()
        assert [m.strip() for m in moves] == GIVEAWAY_WIN_FOR_WHITE
    assert "You win!" in white.locator("#result").inner_text()
    assert white.locator("#rating-diffs").inner_text().strip(), "a rated game shows the rating changes"

    # The players talk in the chat; the game's PDN can be downloaded.
    white.fill("#chat-text", "good game")
    white.press("#chat-text", "Enter")
    black.wait_for_selector("#chat-lines li:has-text('good game')")
    with black.expect_download() as download:
        black.click("#pdn")
    pdn = download.value.path().read_text()
    assert '[Result "1-0"]' in pdn and "e5:c3:a5" in pdn
    white.screenshot(path=str(artifacts / "game-finished.png"))

    # Going back through the game shows earlier positions: the start position has 24 pieces.
    black.click('[data-nav="first"]')
    expect(black.locator("svg.board [data-piece]")).to_have_count(24)
    black.click('#moves li.ply[data-ply="4"]')
    black.wait_for_selector('svg.board [data-piece="a5"][data-color="black"]')

    # The winner's profile lists the game and the rating it won.
    white.goto(white.url.split("/game/")[0] + f"/@/{white_name}")
    white.wait_for_selector(f'#profile-games li[data-game-id="{gid}"]')
    assert white.locator('#ratings .rating[data-variant="russian-giveaway"][data-speed="rapid"]').count() == 1
    white.screenshot(path=str(artifacts / "profile.png"))

    # A rematch: offered by one, accepted by the other, and both are taken to the new game.
    white.go_back()
    white.wait_for_selector("#result:not([hidden])")
    white.click("#rematch")
    black.click("#rematch-accept")
    black.wait_for_url(lambda url: gid not in url and "/game/" in url)
    white.wait_for_url(lambda url: gid not in url and "/game/" in url)
    assert white.url == black.url
    # Colours are swapped: the loser now has White.
    black.wait_for_selector('.game-page[data-color="white"]')


def test_a_game_against_the_computer_is_played_through_the_page(pages, server):
    page = pages("/")
    register(page, new_name("human"))
    page.click('[data-tab="computer"]')
    page.select_option("#computer-variant", "russian-giveaway")
    page.select_option("#computer-level", "1")
    page.select_option("#computer-color", "white")
    page.select_option("#computer-time", "unlimited")
    page.click("#computer-form button[type=submit]")
    gid = game_id(page)
    page.wait_for_selector('.game-page[data-color="white"]')

    # The first move typed on the keyboard, as a player may: the move box takes it.
    wait_for_turn(page)
    page.keyboard.type("c3-d4")
    assert page.locator("#move-text").input_value() == "c3-d4"
    page.keyboard.press("Enter")
    wait_for_ply(page, 1)
    assert page.locator('#moves li.ply[data-ply="1"]').inner_text().strip() == "c3-d4"

    for _ in range(200):
        state = httpx.get(f"{server.url}/api/games/{gid}").json()["game"]
        if state["status"] != "started":
            break
        if state["side_to_move"] != "white":
            wait_for_ply(page, state["ply"] + 1)
            continue
        wait_for_turn(page)
        # The longest move on offer: multi-captures exercise the square-by-square entry most.
        move = max(state["legal_moves"], key=lambda m: len(m["path"]))
        for square in move["path"]:
            click_square(page, square)
        wait_for_ply(page, state["ply"] + 1)
    else:
        pytest.fail("the game against the computer did not end in 200 turns")

    page.wait_for_selector("#result:not([hidden])")
    final = httpx.get(f"{server.url}/api/games/{gid}").json()["game"]
    assert final["status"] == "finished" and final["reason"]
    assert page.locator("#result").inner_text().strip()
    assert len(final["moves"]) == page.locator("#moves li.ply").count()


def another_game(page, previous: str) -> str:
    """The id of the game the page is taken to, once it has left game `previous`."""
    page.wait_for_url(re.compile(rf"/game/(?!{previous}$)[A-Za-z0-9]+$"))
    return page.url.rsplit("/", 1)[1]


def challenge(challenger, name: str, time: str = "unlimited") -> None:
    challenger.goto("/".join(challenger.url.split("/", 3)[:3]) + "/")
    challenger.wait_for_selector("body[data-ready]")
    challenger.click('[data-tab="challenge"]')
    challenger.fill("#challenge-username", name)
    challenger.select_option("#challenge-time", time)
    challenger.select_option("#challenge-color", "white")
    challenger.click("#challenge-form button[type=submit]")


PENDING_CHALLENGES = "async () => (await (await fetch('/api/challenges')).json()).in.map((c) => c.id)"


def accept_from_notice(page) -> None:
    """Accept, from the notice at the top of the page, the one challenge pending for the page's player once
    the server has it (the notice may still show an older one until the new one's news arrives)."""
    for _ in range(100):
        pending = page.evaluate(PENDING_CHALLENGES)
        if pending:
            break
        page.wait_for_timeout(100)
    assert len(pending) == 1, pending
    page.click(f"#notice[data-challenge-id='{pending[0]}'] #notice-accept")


def test_challenges_are_answered_in_the_lobby_and_games_end_by_abort_resignation_and_claim(pages):
    alice_name, bob_name = new_name("alice"), new_name("bob")
    alice, bob = pages("/"), pages("/")
    register(alice, alice_name)
    register(bob, bob_name)

    # Declined with a reason, which the challenger is told.
    challenge(alice, bob_name)
    incoming = bob.locator("#challenges-in li").first
    incoming.wait_for()
    assert alice_name in incoming.inner_text()
    incoming.locator("select.decline-reason").select_option("later")
    incoming.locator("button.decline-challenge").click()
    alice.wait_for_selector("#toast.show:has-text('Not now')")

    # Accepted: both are taken to the game, which Alice aborts before anyone has moved.
    challenge(alice, bob_name)
    bob.locator("#challenges-in button.accept-challenge").first.click()
    gid = game_id(bob)
    assert game_id(alice) == gid
    alice.wait_for_selector("#abort")
    assert alice.locator("#offer-draw").count() == 0  # before each side has moved: abort, no draw
    alice.click("#abort")
    for page in (alice, bob):
        page.wait_for_selector("#result:not([hidden])")
        assert "aborted" in page.locator("#result").inner_text()

    # Resignation. Bob, on the page of the aborted game, is shown the new challenge there and accepts it.
    challenge(alice, bob_name)
    accept_from_notice(bob)
    new = another_game(bob, gid)
    assert another_game(alice, gid) == new
    gid = new
    wait_for_turn(alice)
    play_by_clicking(alice, "c3-d4")
    wait_for_turn(bob)
    play_by_clicking(bob, "f6-g5")
    wait_for_ply(bob, 2)  # each side has moved: no more abort, but resignation (and a draw may be offered)
    bob.wait_for_selector("#offer-draw")
    bob.once("dialog", lambda dialog: dialog.accept())
    bob.click("#resign")
    alice.wait_for_selector("#result:not([hidden])")
    assert "White wins — Black resigned" in alice.locator("#result").inner_text()

    # Claiming victory once the opponent has gone on their own turn (the test server waits 0.5 s), in a
    # game with a clock (one without is played at leisure: no claim).
    challenge(alice, bob_name, time="5+3")
    accept_from_notice(bob)
    new = another_game(bob, gid)
    assert another_game(alice, gid) == new
    gid = new
    wait_for_turn(alice)
    play_by_clicking(alice, "c3-d4")
    wait_for_turn(bob)
    play_by_clicking(bob, "f6-g5")
    wait_for_turn(alice)
    play_by_clicking(alice, "b2-c3")  # a claim comes once each side has moved (before, an abort)
    wait_for_ply(bob, 3)
    bob.context.close()
    alice.wait_for_selector("#claim-draw")  # lichess's other button: calling it a draw
    alice.click("#claim-victory")
    alice.wait_for_selector("#result:not([hidden])")
    assert "White wins — Black left the game" in alice.locator("#result").inner_text()


def two_players_in_a_game(pages):
    """Alice and Bob registered, Bob's acceptance of Alice's challenge taking both to the game: (alice's
    page, bob's page, the game's id)."""
    alice_name, bob_name = new_name("alice"), new_name("bob")
    alice, bob = pages("/"), pages("/")
    register(alice, alice_name)
    register(bob, bob_name)
    challenge(alice, bob_name)
    bob.locator("#challenges-in button.accept-challenge").first.click()
    gid = game_id(bob)
    assert game_id(alice) == gid
    return alice, bob, gid


def test_spectators_watch_a_game_and_the_players_see_how_many(pages):
    alice, bob, gid = two_players_in_a_game(pages)
    assert alice.locator("#spectators").is_hidden()  # nobody watching: nothing shown
    watcher = pages(f"/game/{gid}")  # not logged in: a spectator
    alice.wait_for_selector("#spectators:has-text('1 watching')")
    wait_for_turn(alice)
    play_by_clicking(alice, "c3-d4")
    wait_for_ply(watcher, 1)  # the spectator sees the move live
    watcher.context.close()
    alice.wait_for_selector("#spectators", state="hidden")


def test_a_declined_draw_offer_is_told_to_the_one_who_offered_it(pages):
    """Found by an audit: the offer simply vanished from the offerer's page, its button gone, nothing said."""
    alice, bob, _ = two_players_in_a_game(pages)
    wait_for_turn(alice)
    play_by_clicking(alice, "c3-d4")
    wait_for_turn(bob)
    play_by_clicking(bob, "f6-g5")
    wait_for_ply(alice, 2)
    alice.click("#offer-draw")
    bob.click("#decline-draw")
    expect(alice.locator("#toast")).to_contain_text("declined your draw offer")


def clock_shown_ms(page, color: str) -> float:
    minutes, seconds = page.locator(f'.clock[data-clock="{color}"]').inner_text().strip().split(":")
    return int(minutes) * 60_000 + float(seconds) * 1000


def test_a_page_whose_network_went_quiet_marks_itself_offline_and_shows_the_clocks_as_they_are(pages, server):
    """Found by an audit: with the network gone for 20 s (and the opponent moving meanwhile) the page gave
    no sign of it, and once back it counted down from the clocks of a message sent 20 s before. The game
    socket pings every 3 s and is opened again when nothing comes for 7.5 s: a new socket brings the state
    as it stands now."""
    alice_name, bob_name = new_name("alice"), new_name("bob")
    alice, bob = pages("/"), pages("/")
    register(alice, alice_name)
    register(bob, bob_name)
    challenge(alice, bob_name, time="3+0")
    bob.locator("#challenges-in button.accept-challenge").first.click()
    gid = game_id(bob)
    assert game_id(alice) == gid
    for page, move, ply in ((alice, "c3-d4", 1), (bob, "f6-g5", 2)):
        wait_for_turn(page)
        play_by_clicking(page, move)
        wait_for_ply(alice, ply)
        wait_for_ply(bob, ply)
    bob.context.set_offline(True)
    wait_for_turn(alice)
    play_by_clicking(alice, "b2-c3")  # Black's clock runs on the server while Black's page hears nothing
    bob.wait_for_selector(".game-page.offline", timeout=12_000)
    bob.wait_for_timeout(3000)
    bob.context.set_offline(False)
    bob.wait_for_selector(".game-page:not(.offline)", timeout=15_000)
    wait_for_ply(bob, 3)
    bob.wait_for_timeout(1500)  # the clock redrawn from the state the new socket brought
    stored = httpx.get(f"{server.url}/api/games/{gid}").json()["game"]["clocks"]["black_ms"]
    assert abs(clock_shown_ms(bob, "black") - stored) < 2500, (clock_shown_ms(bob, "black"), stored)


def test_a_page_opened_while_the_opponent_is_gone_counts_the_claim_from_when_they_left(browser, tmp_path):
    """Found by an audit: a page (re)loaded while the opponent was gone counted the whole claim delay
    again from the reload, the state's `mover_disconnected_ms` read before the page knew its seat."""
    import time

    from tests.server.helpers import Player, Server

    other = Server(tmp_path / "claims", {"SHASHKI_DISCONNECT_CLAIM_SECONDS": "20"}).start()
    try:
        alice, bob = Player(other), Player(other)
        gid = alice.challenge(bob, time_control={"minutes": 5, "increment": 0})["id"]
        for player, move in ((alice, "c3-d4"), (bob, "f6-g5"), (alice, "b2-c3")):
            assert player.post(f"/api/games/{gid}/move", {"move": move}).status_code == 200
        time.sleep(12)  # Bob, to move, has had no page open all along
        context = browser.new_context()
        context.add_cookies([{"name": "shashki_session", "value": alice.http.cookies.get("shashki_session"),
                              "url": other.url}])  # fmt: skip
        page = context.new_page()
        page.goto(f"{other.url}/game/{gid}")
        wait = page.locator("#claim-wait")
        wait.wait_for()
        seconds = int(re.search(r"(\d+) s", wait.inner_text()).group(1))
        assert seconds <= 9, wait.inner_text()  # about 8 s left of the 20, not 20 again
        context.close()
    finally:
        other.stop()
