"""A simultaneous exhibition in a real browser (shashki/web/js/simuls.js, simul.js, simul-widgets.js).

A host announces a simul from the form on /simuls; two players ask to play from its page, the host accepts
both and starts it; each player is taken to their game, whose page leads back to the simul and offers no
rematch; the simul's page shows a small board for every game, marks the boards where the host is to move,
and follows each game live (a move made through the HTTP API redraws its board on the host's page). The
list on /simuls follows it from waiting to being played to finished, and both pages pass axe-core.
"""

from __future__ import annotations

import re

from playwright.sync_api import expect
from server.helpers import Player, eventually

from .helpers import assert_accessible


def game_of(player: Player, sid: str) -> str:
    """The player's game in the simul, once made (the host's start makes them one after another)."""

    def entry() -> dict:
        simul = player.http.get(f"/api/simuls/{sid}").json()
        return next(p for p in simul["players"] if p["username"] == player.name)

    game = eventually(entry, lambda p: p["game"])["game"]
    assert game, f"{player.name} has no game in simul {sid}"
    return game


def test_a_simul_announced_joined_accepted_started_and_followed_live(pages, server, artifacts):
    host, anna, boris = Player(server), Player(server), Player(server)
    lister = pages("/simuls")  # a visitor's list, kept open: it follows the simul by itself
    expect(lister.locator("#simul-create-card")).to_contain_text("Log in to host a simul")

    # The host announces the simul from the form and lands on its page.
    page = pages("/simuls", player=host)
    page.fill("#simul-name-input", "Evening simul")
    page.select_option("#simul-variant", "russian-giveaway")
    page.fill("#simul-clock-minutes", "10")
    page.fill("#simul-clock-increment", "5")
    page.fill("#simul-extra-minutes", "2")
    page.select_option("#simul-color", "white")
    page.fill("#simul-text-input", "Two boards, one host.")
    assert_accessible(page, "the simuls page with its form")
    page.click("#simul-create")
    page.wait_for_url(re.compile(r"/simul/[A-Za-z0-9]+$"))
    sid = page.url.rsplit("/", 1)[1]
    expect(page.locator("#simul-name")).to_have_text("Evening simul")
    expect(page.locator("#simul-terms")).to_contain_text("10+5")
    expect(page.locator("#simul-terms")).to_contain_text("host +2 min")
    expect(page.locator("#simul-text")).to_have_text("Two boards, one host.")
    expect(page.locator("#simul-start")).to_be_visible()
    expect(lister.locator(f'#simuls-created li[data-simul-id="{sid}"]')).to_contain_text("Evening simul")

    # Two players ask to play from the page; the host sees them come, and accepts both.
    players = {}
    for p in (anna, boris):
        players[p.name] = pages(f"/simul/{sid}", player=p)
        players[p.name].click("#simul-join")
        expect(players[p.name].locator("#simul-joined")).to_contain_text("asked to play")
        page.locator(f'#simul-applicants li[data-user="{p.name}"]').wait_for()
    expect(players[anna.name].locator("#simul-join")).to_have_count(0)
    for p in (anna, boris):
        page.click(f'#simul-applicants li[data-user="{p.name}"] .simul-accept')
        page.locator(f'#simul-accepted li[data-user="{p.name}"]').wait_for()
    expect(players[anna.name].locator("#simul-joined")).to_contain_text("accepted you")
    expect(players[anna.name].locator(f'#simul-accepted li[data-user="{anna.name}"]')).to_be_visible()
    page.screenshot(path=str(artifacts / "simul-waiting.png"))
    assert_accessible(page, "the host's simul page, waiting for its start")
    assert_accessible(players[anna.name], "a player's simul page, waiting for its start")

    # The host starts it: each player is taken to their game (black against the host's white).
    page.click("#simul-start")
    anna_page = players[anna.name]
    anna_page.wait_for_url(re.compile(r"/game/[A-Za-z0-9]+$"))
    anna_game, boris_game = game_of(anna, sid), game_of(boris, sid)
    assert anna_page.url.endswith(f"/game/{anna_game}")
    anna_page.wait_for_selector('.game-page[data-color="black"]')
    expect(anna_page.locator("#back-to-simul")).to_have_attribute("href", f"/simul/{sid}")
    expect(anna_page.locator("#back-to-simul")).to_contain_text("Evening simul")
    expect(lister.locator(f'#simuls-started li[data-simul-id="{sid}"]')).to_be_visible()

    # The player goes back to the simul by the game's link: a small board for each game.
    anna_page.click("#back-to-simul")
    anna_page.wait_for_selector(f'.simul-page[data-simul-id="{sid}"][data-status="started"]')
    expect(anna_page.locator("#simul-boards .simul-game svg.board.mini")).to_have_count(2)
    expect(anna_page.locator("#simul-my-game")).to_have_attribute("href", f"/game/{anna_game}")
    expect(anna_page.locator(".simul-game.host-turn")).to_have_count(0)  # marked for the host alone

    # The host's page stayed on the simul as its games started (feed.js), and shows every board, the host
    # to move on each, marked; a move in Anna's game redraws her board there, live.
    host_page = page
    assert host_page.url.endswith(f"/simul/{sid}")
    boards = host_page.locator("#simul-boards .simul-game")
    expect(boards).to_have_count(2)
    expect(host_page.locator(".simul-game.host-turn")).to_have_count(2)
    expect(host_page.locator("#simul-your-turn")).to_contain_text("Your move on 2 boards")
    expect(host_page.locator("#simul-score")).to_contain_text("2 playing")
    anna_board = host_page.locator(f'.simul-game[data-game="{anna_game}"]')
    expect(anna_board).to_have_attribute("href", f"/game/{anna_game}")
    expect(anna_board.locator('.simul-clock[data-color="white"]')).to_have_text(re.compile(r"^1[12]:\d\d$"))
    assert host.post(f"/api/games/{anna_game}/move", {"move": "c3-d4", "ply": 0}).status_code == 200
    expect(anna_board).to_have_attribute("data-ply", "1")
    expect(anna_board.locator("rect.mark.last")).to_have_count(2)  # c3 and d4
    expect(anna_board).not_to_have_class(re.compile(r"\bhost-turn\b"))
    expect(host_page.locator("#simul-your-turn")).to_contain_text("Your move on 1 board")
    # The board the host is to move on comes first.
    expect(boards.first).to_have_attribute("data-game", boris_game)
    expect(anna_page.locator(f'.simul-game[data-game="{anna_game}"]')).to_have_attribute("data-ply", "1")
    assert anna.post(f"/api/games/{anna_game}/move", {"move": "f6-g5", "ply": 1}).status_code == 200
    expect(anna_board).to_have_class(re.compile(r"\bhost-turn\b"))
    host_page.screenshot(path=str(artifacts / "simul-host.png"))
    assert_accessible(host_page, "the host's simul page, its games in play")
    assert_accessible(lister, "the simuls list")

    # Anna resigns: her board says so, the host's score counts it, and her game offers no rematch.
    assert anna.post(f"/api/games/{anna_game}/resign").status_code == 200
    expect(anna_board).to_have_attribute("data-outcome", "lost")
    expect(anna_board.locator(".outcome")).to_have_text(f"{anna.name} lost")  # whose result it is
    expect(host_page.locator("#simul-score")).to_have_attribute("data-won", "1")
    anna_page.goto(f"{server.url}/game/{anna_game}")
    anna_page.wait_for_selector("#result:not([hidden])")
    anna_page.wait_for_selector("#analyse")
    expect(anna_page.locator("#rematch")).to_have_count(0)
    expect(anna_page.locator("#new-opponent")).to_have_count(0)

    # Boris's game ends too: the simul is over, on its page and in the list.
    assert boris.post(f"/api/games/{boris_game}/abort").status_code == 200
    host_page.wait_for_selector('.simul-page[data-status="finished"]')
    expect(host_page.locator("#simul-status")).to_contain_text("Finished")
    expect(lister.locator(f'#simuls-finished li[data-simul-id="{sid}"]')).to_be_visible()
    for p in (host, anna, boris):
        p.close()


def test_the_host_answers_from_the_page_and_cancels(pages, server):
    host, anna = Player(server), Player(server)
    r = host.post(
        "/api/simuls",
        {"name": "Cancelled simul", "variant": "russian", "clock": {"initial": 300, "increment": 3}},
    )
    assert r.status_code == 201, r.text
    sid = r.json()["id"]
    page = pages(f"/simul/{sid}", player=host)
    expect(page.locator("#simul-join")).to_have_count(0)  # the host plays every game already
    # Starting with nobody accepted is refused, in the page's words.
    page.click("#simul-start")
    expect(page.locator("#toast")).to_contain_text("Accept at least one player")
    assert anna.post(f"/api/simuls/{sid}/join").status_code == 200
    row = page.locator(f'#simul-applicants li[data-user="{anna.name}"]')
    row.locator(".simul-accept").click()
    accepted = page.locator(f'#simul-accepted li[data-user="{anna.name}"]')
    accepted.locator(".simul-unaccept").click()
    row.locator(".simul-remove").click()
    expect(page.locator("#simul-applicants li.empty")).to_be_visible()
    assert host.http.get(f"/api/simuls/{sid}").json()["players"] == []
    page.on("dialog", lambda dialog: dialog.accept())  # "Cancel this simul?" — yes
    page.click("#simul-cancel")
    expect(page.locator("#simul-status")).to_contain_text("Cancelled")
    expect(page.locator("#simul-controls button")).to_have_count(0)
    # A visitor is asked to log in; an address of no simul says there is none.
    visitor = pages(f"/simul/{sid}")
    expect(visitor.locator("#simul-name")).to_have_text("Cancelled simul")
    missing = pages("/simul/nosuchsim")
    expect(missing.locator("h1")).to_have_text("There is no such simul.")
    host.close()
    anna.close()
