"""Short visits in a real browser: the language switch, the boards of every variant, the rules pages, the
lobby's lists as the server gives and pushes them.

These run by default (a few seconds); the whole games are in test_play_in_the_browser.py, marked slow.
"""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import expect
from server.helpers import Player

from shashki.server.lobby import QUICK_PAIRING

from .conftest import TIMEOUT_MS
from .helpers import DESKTOP, PHONE


def test_the_language_switch_translates_the_page_and_is_remembered(pages, artifacts):
    page = pages("/")
    assert page.locator("#quick h2").inner_text() == "Quick pairing"
    page.select_option("#language", "ru")
    page.wait_for_selector("#quick h2:text-is('Быстрая игра')")
    assert page.evaluate("document.documentElement.lang") == "ru"
    assert page.locator("#login-button").inner_text() == "Войти"
    # Remembered: a new visit starts in Russian.
    page.reload()
    page.wait_for_selector("body[data-ready]")
    assert page.locator("#language").input_value() == "ru"
    assert page.locator("#nav a").first.inner_text() == "Играть"
    page.select_option("#language", "vi")
    page.wait_for_selector("#quick h2:text-is('Ghép cặp nhanh')")
    page.goto(page.url.rsplit("/", 1)[0] + "/rules/russian-giveaway")
    page.wait_for_selector("article.rules h1")
    assert page.locator("article.rules h1").inner_text().startswith("Cờ thua")
    page.set_viewport_size(PHONE)
    page.screenshot(path=str(artifacts / "rules-vi-phone.png"))


def test_every_variant_board_is_drawn_with_its_squares_and_notation(pages):
    page = pages("/rules")
    for key, dark_squares, first_label in [
        ("russian-giveaway", 32, "b8"),
        ("international", 50, "1"),
        ("english", 32, "1"),
        ("italian", 32, "1"),
    ]:
        page.goto(f"{page.url.split('/rules')[0]}/rules/{key}")
        board = page.locator('figure[data-diagram="start"] svg.board')
        board.wait_for()
        assert board.locator("[data-square]").count() == dark_squares
        assert board.locator("[data-piece]").count() == (40 if dark_squares == 50 else 24)
        # The first square of the numbering is on the top row as White sees the board; on the Italian
        # board (mirrored: a1 is light) it is the top-left corner itself.
        top = board.locator(f'[data-square="{first_label}"]')
        assert top.get_attribute("y") == "0"
        assert top.get_attribute("x") == ("0" if key == "italian" else "100")


def test_the_poddavki_rules_page_shows_its_diagrams_with_the_moves_of_rules_md(pages, artifacts):
    page = pages("/rules/poddavki")
    page.wait_for_url("**/rules/russian-giveaway")
    for section in ["compulsory", "free-choice", "turkish-strike", "landing", "promotion", "double-diagonal"]:
        assert page.locator(f"section#{section} figure svg.board").count() == 1, section
    # The Turkish strike diagram: the king's two complete captures, drawn as two arrows.
    assert page.locator('figure[data-diagram="turkish"] polyline.arrow').count() == 2
    assert "b2:f6:d8:a5" in page.locator('figure[data-diagram="turkish"] figcaption').inner_text()
    page.locator("section#turkish-strike").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "rules.png"))


def test_the_lobby_offers_the_servers_presets_and_shows_games_starting_without_reloading(pages, server):
    page = pages("/")
    presets = page.locator("#quick button.preset")
    assert presets.evaluate_all("els => els.map(e => e.dataset.preset)") == list(QUICK_PAIRING)
    assert page.locator('#quick button[data-preset="3+2"] small').inner_text() == "Blitz"
    # Two players start a game elsewhere: the lobby's channel brings it to the list of games being played.
    white, black = Player(server), Player(server)
    game = white.challenge(black)
    page.wait_for_selector(f'#watch:not([hidden]) li[data-game-id="{game["id"]}"]')
    assert white.name in page.locator(f'#watch li[data-game-id="{game["id"]}"]').inner_text()
    # A seek is listed with its player's rating in its variant and speed, "?" while provisional.
    seek = white.post("/api/seeks", {"time_control": {"minutes": 7.5, "increment": 0}}).json()["seek"]
    row = page.locator(f'#seeks tr[data-seek-id="{seek["id"]}"]')
    expect(row.locator("td.rating")).to_have_text("1500?")
    white.http.delete(f"/api/seeks/{seek['id']}")
    white.close()
    black.close()


# Each form of the lobby that offers a clock, the address it posts to, and where the answer holds the clock.
CUSTOM_CLOCK_FORMS = {
    "seek": ("/api/seeks", lambda data: data["seek"]["time_control"]),
    "challenge": ("/api/challenges", lambda data: data["challenge"]["time_control"]),
    "friend": ("/api/challenges/open", lambda data: data["challenge"]["time_control"]),
    "computer": ("/api/computer-games", lambda data: data["game"]["clocks"]),
}


@pytest.mark.parametrize("form", list(CUSTOM_CLOCK_FORMS))
def test_a_custom_clock_chosen_in_a_lobby_form_is_the_clock_of_what_it_creates(pages, server, form):
    # "Custom…" once fell through to the presets' "m+i" parsing and posted {"minutes": null}: a 400.
    address, clock_of = CUSTOM_CLOCK_FORMS[form]
    player, opponent = Player(server), Player(server)
    page = pages("/", player=player)
    page.click(f'[data-tab="{form}"]')
    if form == "challenge":
        page.fill("#challenge-username", opponent.name)
    page.select_option(f"#{form}-time", "custom")
    page.fill(f"#{form}-form input[name=minutes]", "0.5")
    page.fill(f"#{form}-form input[name=increment]", "0")

    def posted(response) -> bool:
        return response.request.method == "POST" and response.url == server.url + address

    with page.expect_response(posted) as answer:
        page.click(f"#{form}-form button[type=submit]")
    response = answer.value
    assert response.ok, f"{response.status} {response.text()}"
    assert response.request.post_data_json["time_control"] == {"minutes": 0.5, "increment": 0}
    data = response.json()
    if form == "computer":
        assert clock_of(data)["initial_ms"] == 30_000 and clock_of(data)["increment_ms"] == 0
    else:
        assert clock_of(data) == {"minutes": 0.5, "increment": 0}
    if form == "seek":  # not left in the lobby of the other tests
        player.http.delete(f"/api/seeks/{data['seek']['id']}")
    player.close()
    opponent.close()


def test_a_first_visit_asks_nothing_the_server_refuses(browser, server):
    """A visitor with no session yet opens the pages: no request answered 4xx or 5xx, nothing in the
    console (found by an audit: every page load asked GET /api/account and logged its 401)."""
    context = browser.new_context(viewport=DESKTOP)
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    failed: list[str] = []
    logged: list[str] = []
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page.on("console", lambda m: logged.append(m.text) if m.type in ("error", "warning") else None)
    for path in ("/", "/rules", "/analysis", "/puzzles", "/tournaments", "/simuls", "/tv"):
        page.goto(server.url + path)
        page.wait_for_selector("body[data-ready]")
        page.wait_for_load_state("networkidle")
    context.close()
    assert not failed and not logged, (failed, logged)


def test_a_player_gives_the_opponent_fifteen_seconds_from_the_game_page(pages, server):
    white, black = Player(server), Player(server)
    gid = white.challenge(black, time_control={"minutes": 1, "increment": 0})["id"]
    page = pages(f"/game/{gid}", player=white)
    page.click("#moretime")
    expect(page.locator('[data-clock="black"]')).to_contain_text("1:15")  # the opponent's clock, shown
    state = white.http.get(f"/api/games/{gid}").json()["game"]
    assert state["clocks"]["black_ms"] == 75_000 and state["clocks"]["white_ms"] == 60_000
    computer = white.post("/api/computer-games", {"level": 1, "time_control": {"minutes": 5, "increment": 0}})
    page = pages(f"/game/{computer.json()['game']['id']}", player=white)
    page.wait_for_selector("#flip")
    assert page.locator("#moretime").count() == 0  # not to the computer


def finished_game(server) -> tuple[Player, Player, str]:
    """A game of two players, each side having moved, that White resigned."""
    white, black = Player(server), Player(server)
    gid = white.challenge(black)["id"]
    assert white.post(f"/api/games/{gid}/move", {"move": "c3-d4"}).status_code == 200
    assert black.post(f"/api/games/{gid}/move", {"move": "f6-g5"}).status_code == 200
    assert white.post(f"/api/games/{gid}/resign").status_code == 200
    return white, black, gid


def test_the_black_players_analysis_opens_from_their_side(pages, server):
    """As lichess opens a game's analysis from the player's side (found by an audit: always White's)."""
    _, black, gid = finished_game(server)
    page = pages(f"/game/{gid}", player=black)
    page.click("#analyse")
    page.wait_for_url("**/analysis?**color=black**")
    page.wait_for_selector('[data-analysis="1"] [data-square="a1"]')  # the analysis board, drawn
    a1 = page.locator('[data-analysis="1"] [data-square="a1"]').bounding_box()
    h8 = page.locator('[data-analysis="1"] [data-square="h8"]').bounding_box()
    assert a1["y"] < h8["y"], (a1, h8)  # Black at the bottom: White's corner a1 at the top
    page.click("#flip")
    assert "color=black" not in page.url


def test_a_spectator_is_led_to_the_players_rematch(pages, server):
    white, black, gid = finished_game(server)
    page = pages(f"/game/{gid}")
    page.wait_for_selector("#result:not([hidden])")
    assert white.post(f"/api/games/{gid}/rematch").status_code == 200
    new = black.post(f"/api/games/{gid}/rematch").json()["game"]["id"]
    page.wait_for_selector(f'#view-rematch[href="/game/{new}"]')


def test_the_players_ratings_are_shown_beside_their_names(pages, server):
    white, black = Player(server), Player(server)
    gid = white.challenge(black, time_control={"minutes": 5, "increment": 0}, rated=True)["id"]
    page = pages(f"/game/{gid}", player=white)
    expect(page.locator('[data-rating="white"]')).to_have_text("1500?")
    expect(page.locator('[data-rating="black"]')).to_have_text("1500?")
    ratings = httpx.get(f"{server.url}/api/games/{gid}/ratings").json()
    assert ratings["ratings"]["white"] == {"rating": 1500, "provisional": True}
    assert ratings["speed"] == "blitz"
    computer = white.post("/api/computer-games", {"level": 1, "color": "white"}).json()["game"]["id"]
    page = pages(f"/game/{computer}", player=white)
    expect(page.locator('[data-rating="white"]')).to_have_text("1500?")
    assert page.locator('[data-rating="black"]').count() == 0  # the computer has none


@pytest.mark.parametrize("path", ["/nope", "/login", "/lobby", "/game/abc/white"])
def test_an_address_that_is_no_page_shows_the_not_found_page(pages, server, path):
    """Found by an audit: a mistyped address showed the API's JSON 404 as the page."""
    page = pages("/")
    response = page.goto(server.url + path)
    assert response.status == 404
    page.wait_for_selector("body[data-ready]")
    assert page.locator("h1", has_text="There is no such page.").count() == 1
    # The API, and a client that does not ask for a page, still get the JSON answer.
    for asked, accept in ((path, "application/json"), ("/api/nope", "text/html")):
        r = httpx.get(server.url + asked, headers={"Accept": accept})
        assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
