"""The tournament pages draw what the server sends them, in a real browser, with the server's answers fixed.

These tests give the page the tournament contract's shapes (TOURNAMENT-CONTRACT.md: T, Standing, Pairing)
through Playwright's request and WebSocket routing, so that each drawing rule is checked on its own and
at once: the standings and their pages, an arena's streak flame, a Swiss's tie-breaks and rounds, the small
boards of the running games, the podium, the password of a private tournament, a player sent to their
game when paired, and a phone-sized screen. Whole tournaments played on the real server are in
test_tournaments_in_the_browser.py.
"""

from __future__ import annotations

import json
import re

import httpx
from playwright.sync_api import expect
from server.helpers import Player

from .helpers import PHONE

START_FEN = "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"


def standing(rank: int, name: str, score: float, **extra) -> dict:
    return {
        "rank": rank,
        "user": name,
        "rating": 1500 + 10 * rank,
        "score": score,
        "games": 4,
        "wins": 2,
        "draws": 0,
        "losses": 2,
        "sheet": "2 0 2 0",
        "streak": False,
        "performance": 1520,
        "tiebreaks": None,
        "paused": False,
        "withdrawn": False,
        **extra,
    }


def tournament(tid: str, **extra) -> dict:
    return {
        "id": tid,
        "name": f"Test {tid}",
        "system": "arena",
        "variant": "russian-giveaway",
        "clock": {"initial": 180, "increment": 2},
        "rated": True,
        "status": "started",
        "starts_at": "2026-01-01T10:00:00Z",
        "ends_at": "2026-01-01T10:30:00Z",
        "seconds_to_start": None,
        "seconds_left": 600,
        "round": 3,
        "rounds": None,
        "created_by": "organiser",
        "private": False,
        "conditions": {},
        "players": 2,
        "me": None,
        "standings": [],
        "pairings": [],
        "podium": [],
        **extra,
    }


def serve(page, tours: dict[str, dict], extra_routes: dict | None = None) -> dict:
    """Answer the tournaments API from `tours` and hold each tournament socket; returns {id: socket}."""
    sockets: dict = {}
    requests: list = []

    def answer(route):
        request = route.request
        path = request.url.split("://", 1)[1].split("/", 1)[1]
        path = "/" + path
        requests.append((request.method, path, request.post_data))
        for pattern, body in (extra_routes or {}).items():
            if re.fullmatch(pattern, path):
                return route.fulfill(json=body(request) if callable(body) else body)
        if path == "/api/tournaments":
            groups = {"created": [], "started": [], "finished": []}
            for tour in tours.values():
                groups[tour["status"]].append(tour)
            return route.fulfill(json=groups)
        m = re.fullmatch(r"/api/tournaments/(\w+)", path)
        if m and m.group(1) in tours:
            return route.fulfill(json=tours[m.group(1)])
        return route.fulfill(
            status=404, json={"error": {"code": "not_found", "message": "no such tournament"}}
        )

    def on_socket(ws):
        tid = ws.url.rsplit("/", 1)[1]
        sockets[tid] = ws
        if tid in tours:
            ws.send(json.dumps({"type": "tournament", "tournament": tours[tid]}))

    page.route(re.compile(r".*/api/tournaments.*"), answer)
    page.route_web_socket(re.compile(r".*/ws/tournaments/.*"), on_socket)
    sockets["_requests"] = requests
    return sockets


def test_an_arena_shows_its_standings_with_streaks_its_games_on_small_boards_and_its_podium(
    pages, server, artifacts
):
    names = [f"player{i:02d}" for i in range(1, 21)]
    rows = [
        standing(i + 1, name, 40 - i, streak=(i == 0), sheet="2 4 4 0" if i == 0 else "2 0")
        for i, name in enumerate(names)
    ]
    pairings = [
        {
            "round": 3,
            "white": "player01",
            "black": "player02",
            "game": "g1",
            "status": "started",
            "result": None,
            "fen": START_FEN,
            "bye": False,
        },
        {
            "round": 3,
            "white": "player03",
            "black": "player04",
            "game": "g2",
            "status": "started",
            "result": None,
            "fen": START_FEN,
            "bye": False,
        },
        {
            "round": 3,
            "white": "player05",
            "black": "player06",
            "game": "g3",
            "status": "finished",
            "result": "1-0",
            "fen": START_FEN,
            "bye": False,
        },
    ]
    arena = tournament("arena1", players=25, standings=rows, pairings=pairings)
    second_page = {"page": 2, "pages": 2, "players": [standing(21 + i, f"late{i}", 1) for i in range(5)]}
    page = pages("/")
    sockets = serve(page, {"arena1": arena}, {r"/api/tournaments/arena1/standings\?page=2": second_page})
    page.goto(server.url + "/tournament/arena1")

    expect(page.locator("#tournament-name")).to_have_text("Test arena1")
    expect(page.locator("#standings tr.standing")).to_have_count(20)
    leader = page.locator('#standings tr[data-user="player01"]')
    expect(leader.locator(".streak")).to_have_count(1)  # the flame of a player on a streak
    expect(leader.locator(".sheet .double")).to_have_count(2)  # the two games won at double points
    expect(page.locator('#standings tr[data-user="player02"] .streak')).to_have_count(0)
    # An arena has no tie-break columns: ranks are by points alone.
    expect(page.locator("#standings th")).to_have_count(7)
    # The two games in play, each on a small board with all its pieces; none for the finished one.
    expect(page.locator("#running-games .mini-game")).to_have_count(2)
    expect(page.locator('#running-games [data-game="g1"] svg.board.mini .piece')).to_have_count(24)
    expect(page.locator('#running-games [data-game="g1"] svg.board .coord')).to_have_count(0)
    expect(page.locator('#pairings li[data-game="g3"] .result')).to_have_text("1-0")
    expect(page.locator("#tournament-countdown")).to_contain_text(re.compile(r"\d+:\d\d left"))

    page.screenshot(path=str(artifacts / "tournament-arena-drawn.png"), full_page=True)
    # 25 players: two pages of standings; the second is fetched when asked for.
    expect(page.locator("#standings-pager .page")).to_have_text("Page 1 of 2")
    page.click("#standings-next")
    expect(page.locator("#standings tr.standing")).to_have_count(5)
    expect(page.locator('#standings tr[data-user="late0"]')).to_be_visible()
    page.click("#standings-prev")
    expect(page.locator("#standings tr.standing")).to_have_count(20)

    # A change arrives over the socket: the standings are redrawn without reloading.
    swapped = [standing(1, "player02", 44, streak=True), standing(2, "player01", 42)] + rows[2:]
    sockets["arena1"].send(json.dumps({"type": "tournament", "tournament": {**arena, "standings": swapped}}))
    expect(page.locator("#standings tr.standing").first).to_have_attribute("data-user", "player02")

    # The end: the podium, the finished games, no countdown any more.
    finished = {
        **arena,
        "status": "finished",
        "seconds_left": None,
        "pairings": [],
        "standings": swapped,
        "podium": swapped[:3],
    }
    sockets["arena1"].send(json.dumps({"type": "tournament", "tournament": finished}))
    expect(page.locator("#podium li.place")).to_have_count(3)
    expect(page.locator("#podium li.first")).to_have_attribute("data-user", "player02")
    expect(page.locator("#tournament-countdown")).to_have_text("Finished")
    expect(page.locator("#running-games .mini-game")).to_have_count(0)


def test_a_swiss_shows_its_tie_breaks_and_the_pairings_of_earlier_rounds(pages, server):
    tiebreaks = {"buchholz": 7.5, "buchholz_cut1": 6, "sonneborn_berger": 5.25, "wins": 3, "direct": 0}
    rows = [
        standing(1, "anna", 3.5, tiebreaks=tiebreaks, sheet="1 1 ½ 1"),
        standing(2, "boris", 3, tiebreaks=tiebreaks),
    ]
    now = [
        {
            "round": 4,
            "white": "anna",
            "black": "boris",
            "game": "s4",
            "status": "started",
            "result": None,
            "fen": START_FEN,
            "bye": False,
        }
    ]
    earlier = {
        "round": 3,
        "pairings": [
            {
                "round": 3,
                "white": "boris",
                "black": "anna",
                "game": "s3",
                "status": "finished",
                "result": "1/2-1/2",
                "fen": START_FEN,
                "bye": False,
            }
        ],
    }
    swiss = tournament(
        "swiss1", system="swiss", round=4, rounds=5, seconds_left=None, standings=rows, pairings=now
    )
    page = pages("/")
    serve(page, {"swiss1": swiss}, {r"/api/tournaments/swiss1/pairings\?round=3": earlier})
    page.goto(server.url + "/tournament/swiss1")

    expect(page.locator("#tournament-countdown")).to_have_text("Round 4 of 5")
    expect(page.locator("#standings th")).to_have_count(11)
    anna = page.locator('#standings tr[data-user="anna"]')
    expect(anna.locator("td.score")).to_have_text("3½")
    expect(anna.locator("td").nth(7)).to_have_text("7½")  # Buchholz
    expect(anna.locator("td").nth(9)).to_have_text("5.25")  # Sonneborn-Berger
    expect(page.locator("#round-shown")).to_have_text("Round 4")
    page.click("#round-prev")
    expect(page.locator("#round-shown")).to_have_text("Round 3")
    expect(page.locator('#pairings li[data-game="s3"] .result')).to_have_text("½-½")
    page.click("#round-next")
    expect(page.locator('#pairings li[data-game="s4"]')).to_have_count(1)


def test_joining_a_private_tournament_asks_for_its_password_and_a_paired_player_is_sent_to_the_game(
    pages, server
):
    player = Player(server)
    private = tournament(
        "priv1",
        status="created",
        seconds_to_start=90,
        seconds_left=None,
        private=True,
        me={"joined": False, "paused": False, "withdrawn": False, "game": None},
    )
    joined = {
        **private,
        "players": 3,
        "me": {"joined": True, "paused": False, "withdrawn": False, "game": None},
    }
    page = pages("/", player=player)
    sockets = serve(page, {"priv1": private}, {r"/api/tournaments/priv1/join": joined})
    page.goto(server.url + "/tournament/priv1")

    expect(page.locator("#tournament-countdown")).to_contain_text(re.compile(r"Starts in 1:[23]\d"))
    page.click("#tournament-join")
    page.fill("#tournament-join-password", "open sesame")
    page.press("#tournament-join-password", "Enter")
    expect(page.locator("#tournament-joined")).to_be_visible()
    expect(page.locator("#tournament-withdraw")).to_be_visible()
    posted = [
        body for method, path, body in sockets["_requests"] if method == "POST" and path.endswith("/join")
    ]
    assert posted and json.loads(posted[0]) == {"password": "open sesame"}

    sockets["priv1"].send(json.dumps({"type": "paired", "game": "abc123"}))
    page.wait_for_url(re.compile(r"/game/abc123$"))
    player.close()


def test_the_tournament_pages_fit_a_phone_screen(pages, server, artifacts):
    tiebreaks = {"buchholz": 17.5, "buchholz_cut1": 16, "sonneborn_berger": 15.25, "wins": 3, "direct": 0}
    rows = [
        standing(
            i, f"a_rather_long_player_name_{i}", 10 - i, tiebreaks=tiebreaks, sheet="1 1 0 ½ 1 0 1 1 0 1"
        )
        for i in range(1, 9)
    ]
    swiss = tournament(
        "phone1", system="swiss", round=4, rounds=9, seconds_left=None, standings=rows, players=8
    )
    page = pages("/", viewport=PHONE)
    serve(page, {"phone1": swiss})
    for path in ("/tournament/phone1", "/tournaments"):
        page.goto(server.url + path)
        page.wait_for_selector("body[data-ready]")
        page.locator("#tournament-name, #tournaments-started").first.wait_for()
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= PHONE["width"], f"{path} is {width} px wide on a {PHONE['width']} px screen"
        page.screenshot(
            path=str(artifacts / f"tournament-phone-{path.strip('/').replace('/', '-')}.png"), full_page=True
        )
    # The wide standings scroll inside their card instead of widening the page.
    page.goto(server.url + "/tournament/phone1")
    page.locator("#standings tr.standing").first.wait_for()
    scroll = page.locator(".table-scroll")
    assert scroll.evaluate("el => el.scrollWidth > el.clientWidth")


def test_the_lobby_lists_running_and_coming_tournaments_and_fetches_them_again_when_nudged(pages, server):
    running = tournament("run1", name="Hourly arena", scheduled=True, created_by=None)
    coming = tournament(
        "soon1", name="Daily Swiss", system="swiss", status="created", seconds_to_start=600, rounds=5
    )
    tours = {"run1": running}
    page = pages("/")
    feeds = []

    def proxy(ws):
        ws.connect_to_server()
        feeds.append(ws)

    page.route_web_socket(re.compile(r".*/ws/lobby$"), proxy)
    serve(page, tours)
    page.goto(server.url + "/")
    expect(page.locator('#lobby-tournaments li[data-tournament-id="run1"]')).to_contain_text("Hourly arena")
    # The server's own events are marked, any other shows its creator (an audit: a player's event named
    # like an official one looked the same).
    expect(page.locator('#lobby-tournaments li[data-tournament-id="run1"] .official')).to_have_count(1)
    expect(page.locator('#lobby-tournaments li[data-tournament-id="run1"] .by')).to_have_count(0)
    expect(page.locator("#nav a[href='/tournaments']")).to_have_text("Tournaments")

    # A tournament is created: the lobby channel's nudge makes the section fetch the list again.
    tours["soon1"] = coming
    feeds[-1].send(json.dumps({"type": "tournaments"}))
    item = page.locator('#lobby-tournaments li[data-tournament-id="soon1"]')
    expect(item).to_contain_text("Daily Swiss")
    expect(item.locator(".by")).to_have_text(" created by organiser")
    expect(item.locator(".official")).to_have_count(0)
    expect(item.locator(".countdown")).to_contain_text(re.compile(r"Starts in (10:00|9:5\d)"))
    item.locator("a").click()
    page.wait_for_url(re.compile(r"/tournament/soon1$"))
    expect(page.locator("#tournament-name")).to_have_text("Daily Swiss")


def test_an_arena_game_offers_berserk_before_the_first_move_and_leads_back_to_the_tournament(pages, server):
    white, black = Player(server), Player(server)
    game = white.challenge(black, variant="russian-giveaway", time_control={"minutes": 3, "increment": 2})
    state = {**server_game(server, game["id"]), "tournament": "arena1"}
    page = pages("/", player=white)
    sockets = serve(
        page, {"arena1": tournament("arena1")}, {r"/api/tournaments/arena1/berserk": {"ok": True}}
    )
    game_sockets = []

    def fake_game(ws):
        game_sockets.append(ws)
        ws.send(json.dumps({"type": "state", "seq": 1, "game": state}))

    page.route_web_socket(re.compile(rf".*/ws/games/{game['id']}$"), fake_game)
    page.goto(f"{server.url}/game/{game['id']}")
    expect(page.locator("#back-to-tournament")).to_have_attribute("href", "/tournament/arena1")
    page.click("#berserk")
    expect(page.locator("#berserk")).to_have_count(0)
    posted = [body for method, path, body in sockets["_requests"] if path.endswith("/berserk")]
    assert [json.loads(body) for body in posted] == [{"game": game["id"]}]

    # The server's next state says White went berserk: both bars show who did (an audit: the opponent saw
    # only the halved clock, and the increment named for both).
    expect(page.locator(".berserk-mark")).to_have_count(0)
    berserked = {**state, "clocks": {**state["clocks"], "white_ms": 90_000,
                                     "berserk": {"white": True, "black": False}}}  # fmt: skip
    game_sockets[-1].send(json.dumps({"type": "state", "seq": 2, "game": {**berserked, "seq": 2}}))
    expect(page.locator(".berserk-mark")).to_have_count(1)
    expect(page.locator("[data-color='white'] .berserk-mark")).to_have_count(1)

    # Another game of the arena, where White has moved: too late to berserk.
    page.goto(f"{server.url}/")
    state = {**state, "ply": 1}
    page.goto(f"{server.url}/game/{game['id']}")
    expect(page.locator("#back-to-tournament")).to_be_visible()
    expect(page.locator("#berserk")).to_have_count(0)
    # A game of no tournament shows neither.
    state = {**state, "ply": 0, "tournament": None}
    page.goto(f"{server.url}/game/{game['id']}")
    expect(page.locator(".game-page[data-color='white']")).to_be_visible()
    expect(page.locator("#game-tournament")).to_be_hidden()
    white.close()
    black.close()


def server_game(server, game_id: str) -> dict:
    """A game's JSON as the server sends it (the state the fake game socket then sends, with a tournament)."""
    return httpx.get(f"{server.url}/api/games/{game_id}").json()["game"]
