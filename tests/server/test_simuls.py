"""Simultaneous exhibitions through a real server (shashki/server/simuls): announced, asked to play, the
host's answers, started (one casual game each, the host's colour and extra time), followed live, finished
when the last game ends; refused with their reasons; made once whatever races or a restart try."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime

import websockets.sync.client as ws_client

from shashki.server.simuls import SimulTerms

from .helpers import Player, Server, at_once, eventually
from .test_anonymous_play import Visitor

TERMS = {"name": "Evening simul", "variant": "russian-giveaway", "clock": {"initial": 300, "increment": 5}}


def announce(host, **terms) -> dict:
    r = host.post("/api/simuls", TERMS | terms)
    assert r.status_code == 201, r.text
    return r.json()


def code(response) -> tuple[int, str]:
    return response.status_code, response.json()["error"]["code"]


def ok(response) -> dict:
    assert response.status_code == 200, response.text
    return response.json()


def shown(player, simul_id: str) -> dict:
    return ok(player.http.get(f"/api/simuls/{simul_id}"))


def test_a_host_plays_each_accepted_player_at_once_and_the_simul_ends_with_its_last_game(players):
    host, anna, boris, carl = players(), players(), players(), players()
    simul = announce(host, host_color="white", host_extra_minutes=2)
    sid = simul["id"]
    assert (simul["status"], simul["host"]["username"], simul["players"]) == ("created", host.name, [])
    for p in (anna, boris, carl):
        ok(p.post(f"/api/simuls/{sid}/join"))
    ok(carl.post(f"/api/simuls/{sid}/join"))  # asking twice is asking once
    assert [p["username"] for p in shown(host, sid)["players"]] == [anna.name, boris.name, carl.name]
    assert sid in [s["id"] for s in ok(anna.http.get("/api/simuls"))["created"]]
    ok(host.post(f"/api/simuls/{sid}/accept/{anna.name}"))
    ok(host.post(f"/api/simuls/{sid}/accept/{boris.name}"))
    started = ok(host.post(f"/api/simuls/{sid}/start"))
    assert started["status"] == "started"
    # Carl, never accepted, is let go; Anna and Boris each have a game, Black against the host's White.
    games = {p["username"]: p for p in started["players"]}
    assert set(games) == {anna.name, boris.name}
    for name, p in games.items():
        game = ok(host.http.get(f"/api/games/{p['game']}"))["game"]
        assert (game["white"]["username"], game["black"]["username"]) == (host.name, name)
        assert game["rated"] is False and game["simul"] == sid
        # The host's clock starts with the two extra minutes; the player's with the simul's five.
        assert (game["clocks"]["white_ms"], game["clocks"]["black_ms"]) == (420_000, 300_000)
        assert p["board"]["fen"] == game["fen"] and p["color"] == "black"
    assert code(carl.post(f"/api/simuls/{sid}/join")) == (409, "simul_started")
    assert sid in [s["id"] for s in ok(carl.http.get("/api/simuls"))["started"]]
    # Anna resigns; Boris draws: the host's score counts each as it ends, and the simul ends with the last.
    anna_game, boris_game = games[anna.name]["game"], games[boris.name]["game"]
    ok(host.post(f"/api/games/{anna_game}/move", {"move": "c3-d4", "ply": 0}))
    ok(anna.post(f"/api/games/{anna_game}/move", {"move": "f6-g5", "ply": 1}))
    ok(anna.post(f"/api/games/{anna_game}/resign"))
    after_one = eventually(lambda: shown(host, sid), lambda s: s["score"]["won"] == 1)
    assert after_one["score"] == {"won": 1, "drawn": 0, "lost": 0, "playing": 1}
    assert after_one["status"] == "started"
    ok(host.post(f"/api/games/{boris_game}/move", {"move": "c3-d4", "ply": 0}))
    ok(boris.post(f"/api/games/{boris_game}/move", {"move": "f6-g5", "ply": 1}))
    ok(boris.post(f"/api/games/{boris_game}/draw/offer"))
    ok(host.post(f"/api/games/{boris_game}/draw/accept"))
    done = eventually(lambda: shown(host, sid), lambda s: s["status"] == "finished")
    assert done["status"] == "finished" and done["finished_at"]
    assert done["score"] == {"won": 1, "drawn": 1, "lost": 0, "playing": 0}
    assert {p["username"]: p["outcome"] for p in done["players"]} == {anna.name: "lost", boris.name: "drawn"}
    assert sid in [s["id"] for s in ok(host.http.get("/api/simuls"))["finished"]]
    # A simul's game has no rematch; the host may announce another simul now.
    assert code(anna.post(f"/api/games/{anna_game}/rematch")) == (409, "simul_game")
    announce(host)


def test_the_host_answers_and_only_the_host(players):
    host, anna, other = players(), players(), players()
    sid = announce(host)["id"]
    ok(anna.post(f"/api/simuls/{sid}/join"))
    for action in (f"accept/{anna.name}", f"remove/{anna.name}", "start", "cancel"):
        assert code(other.post(f"/api/simuls/{sid}/{action}")) == (403, "not_your_simul"), action
    assert code(host.post(f"/api/simuls/{sid}/start")) == (409, "no_players")
    assert code(host.post(f"/api/simuls/{sid}/accept/{other.name}")) == (404, "no_such_player")
    ok(host.post(f"/api/simuls/{sid}/accept/{anna.name}"))
    assert shown(host, sid)["players"][0]["accepted"] is True
    ok(host.post(f"/api/simuls/{sid}/unaccept/{anna.name}"))
    assert shown(host, sid)["players"][0]["accepted"] is False
    ok(host.post(f"/api/simuls/{sid}/remove/{anna.name}"))
    assert shown(host, sid)["players"] == []
    ok(anna.post(f"/api/simuls/{sid}/join"))
    ok(anna.post(f"/api/simuls/{sid}/withdraw"))
    assert shown(host, sid)["players"] == []
    assert code(host.post(f"/api/simuls/{sid}/join")) == (409, "own_simul")
    # One simul at a time; a cancelled one is over and takes nobody.
    assert code(host.post("/api/simuls", TERMS)) == (409, "simul_exists")
    assert ok(host.post(f"/api/simuls/{sid}/cancel"))["status"] == "cancelled"
    assert code(anna.post(f"/api/simuls/{sid}/join")) == (409, "simul_cancelled")
    assert code(host.post(f"/api/simuls/{sid}/start")) == (409, "simul_cancelled")
    assert sid not in [s["id"] for part in ok(anna.http.get("/api/simuls")).values() for s in part]


def test_who_may_not_take_part_and_terms_that_are_refused(players, server):
    host, bot, blocked = players(), players(bot=True), players()
    visitor = Visitor(server)
    try:
        assert code(visitor.post("/api/simuls", TERMS)) == (403, "account_required")
        assert code(bot.post("/api/simuls", TERMS)) == (403, "bot_account")
        for terms, refused in (
            ({"clock": {"initial": 0.2, "increment": 0}}, "clock_too_short"),  # the tests allow 0.5 s
            ({"variant": "chess"}, "unknown_variant"),
            ({"host_color": "green"}, "bad_color"),
            ({"name": " "}, "bad_name"),
        ):
            assert code(host.post("/api/simuls", TERMS | terms)) == (400, refused), terms
        assert host.post("/api/simuls", TERMS | {"host_extra_minutes": 61}).status_code == 400  # bounds
        sid = announce(host)["id"]
        assert code(visitor.post(f"/api/simuls/{sid}/join")) == (403, "account_required")
        assert code(bot.post(f"/api/simuls/{sid}/join")) == (403, "bot_account")
        assert host.post(f"/api/rel/block/{blocked.name}").status_code == 200
        assert code(blocked.post(f"/api/simuls/{sid}/join")) == (403, "blocked")
        assert code(host.post("/api/simuls/nosuchsim/start")) == (404, "no_such_simul")
        assert host.http.get("/api/simuls/nosuchsim").status_code == 404
        ok(host.post(f"/api/simuls/{sid}/cancel"))
    finally:
        visitor.close()


def test_starting_twice_at_once_makes_one_game_each(players):
    host, anna, boris = players(), players(), players()
    sid = announce(host, host_color="random")["id"]
    for p in (anna, boris):
        ok(p.post(f"/api/simuls/{sid}/join"))
        ok(host.post(f"/api/simuls/{sid}/accept/{p.name}"))
    answers = at_once(*(lambda: host.post(f"/api/simuls/{sid}/start") for _ in range(3)))
    assert sorted(r.status_code for r in answers) == [200, 409, 409]
    simul = shown(host, sid)
    ids = [p["game"] for p in simul["players"]]
    assert len(set(ids)) == 2 and all(ids)
    for p in simul["players"]:
        game = ok(host.http.get(f"/api/games/{p['game']}"))["game"]
        assert {game["white"]["username"], game["black"]["username"]} == {host.name, p["username"]}
        assert game[p["color"]]["username"] == p["username"]
        ok(host.post(f"/api/games/{p['game']}/abort"))
    ended = eventually(lambda: shown(host, sid), lambda s: s["status"] == "finished")
    assert [p["outcome"] for p in ended["players"]] == ["aborted", "aborted"]
    assert ended["score"] == {"won": 0, "drawn": 0, "lost": 0, "playing": 0}


def test_the_simul_socket_sends_the_simul_and_each_games_board(players, server):
    host, anna = players(), players()
    sid = announce(host)["id"]
    cookie = f"shashki_session={anna.http.cookies['shashki_session']}"
    with ws_client.connect(f"{server.ws_url}/ws/simuls/{sid}", additional_headers={"Cookie": cookie}) as sock:
        first = _receive(sock, "simul")
        assert first["simul"]["id"] == sid and first["simul"]["status"] == "created"
        ok(anna.post(f"/api/simuls/{sid}/join"))
        assert _receive(sock, "simul")["simul"]["players"][0]["username"] == anna.name
        ok(host.post(f"/api/simuls/{sid}/accept/{anna.name}"))
        ok(host.post(f"/api/simuls/{sid}/start"))
        game_id = shown(host, sid)["players"][0]["game"]
        ok(host.post(f"/api/games/{game_id}/move", {"move": "c3-d4", "ply": 0}))
        board = _receive(sock, "board", lambda e: e["board"]["ply"] == 1)["board"]
        assert (board["game"], board["last_move"], board["side_to_move"]) == (game_id, "c3-d4", "black")
    ok(host.post(f"/api/games/{game_id}/abort"))


def _receive(sock, kind: str, accept=lambda event: True) -> dict:
    import json

    deadline = datetime.now(UTC).timestamp() + 5
    while datetime.now(UTC).timestamp() < deadline:
        event = json.loads(sock.recv(timeout=5))
        if event.get("type") == kind and accept(event):
            return event
    raise AssertionError(f"no {kind} event")


def test_a_server_stopped_while_starting_a_simul_makes_the_missing_games_when_it_starts_again(tmp_path):
    server = Server(tmp_path / "data").start()
    try:
        host, anna, boris = (Player(server) for _ in range(3))
        sid = announce(host)["id"]
        for p in (anna, boris):
            ok(p.post(f"/api/simuls/{sid}/join"))
            ok(host.post(f"/api/simuls/{sid}/accept/{p.name}"))
        server.kill()
        # As if the process had stopped between the simul's start and its games: started, no game made.
        with sqlite3.connect(server.data / "shashki.sqlite3") as db:
            db.execute("UPDATE simuls SET status = 'started', started_at = created_at WHERE id = ?", (sid,))
        server.start()
        for p in (host, anna, boris):
            p.login()
        simul = shown(host, sid)
        assert simul["status"] == "started" and all(p["game"] for p in simul["players"])
        # Started once more (a second restart): the same games, none more.
        server.kill()
        server.start()
        assert [p["game"] for p in shown(host, sid)["players"]] == [p["game"] for p in simul["players"]]
        for p in (host, anna, boris):
            p.close()
    finally:
        server.stop()


def test_a_host_announcing_two_simuls_at_once_hosts_one(players):
    host = players()
    answers = at_once(*(lambda: host.post("/api/simuls", TERMS) for _ in range(4)))
    assert sorted(r.status_code for r in answers) == [201, 409, 409, 409]
    hosted = [s for part in ok(host.http.get("/api/simuls")).values() for s in part
              if s["host"]["username"] == host.name]  # fmt: skip
    assert len(hosted) == 1
    ok(host.post(f"/api/simuls/{hosted[0]['id']}/cancel"))


def test_the_hosts_answers_racing_with_the_start_leave_every_player_a_game_or_none(players):
    """Found by an audit: a player put back among those waiting as the simul started kept a place without
    a game, and the simul never ended (its host locked out of hosting another)."""
    host, anna, boris = players(), players(), players()
    sid = announce(host)["id"]
    for p in (anna, boris):
        ok(p.post(f"/api/simuls/{sid}/join"))
        ok(host.post(f"/api/simuls/{sid}/accept/{p.name}"))
    start, unaccept = at_once(
        lambda: host.post(f"/api/simuls/{sid}/start"),
        lambda: host.post(f"/api/simuls/{sid}/unaccept/{boris.name}"),
    )
    assert start.status_code == 200
    assert unaccept.status_code in (200, 409)
    simul = shown(host, sid)
    assert all(p["accepted"] and p["game"] for p in simul["players"]), simul["players"]
    for p in simul["players"]:
        ok(host.post(f"/api/games/{p['game']}/abort"))
    assert eventually(lambda: shown(host, sid), lambda s: s["status"] == "finished")["status"] == "finished"


def test_the_limits_hold_when_players_join_and_are_accepted_at_once(tmp_path, monkeypatch):
    """Found by an audit: requests sent at once each counted the others' places as free (108 asking where
    100 may, 58 accepted where 50 may)."""
    import asyncio

    from shashki.server.accounts import AccountService
    from shashki.server.events import InProcessBus
    from shashki.server.games.computer import RandomOpponent
    from shashki.server.games.service import GameService
    from shashki.server.simuls import SimulService
    from shashki.server.simuls import service as simul_service
    from shashki.server.storage import Database

    monkeypatch.setattr(simul_service, "MAX_APPLICANTS", 4)
    monkeypatch.setattr(simul_service, "MAX_PLAYERS", 2)

    async def run():
        db = await Database(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}").open()
        bus = InProcessBus()
        accounts = AccountService(db, argon2_memory_kib=1024, argon2_time_cost=1)
        games = GameService(db, bus, engine=RandomOpponent(), accounts=accounts)
        simuls = SimulService(db, games, accounts, bus, min_clock_ms=1000)
        try:
            host, *others = [await accounts.register(f"s{i}", "correct horse battery") for i in range(8)]
            sid = (await simuls.create(host, SimulTerms("Limits", "russian", 60_000, 0)))["id"]
            joined = await asyncio.gather(*(simuls.join(u, sid) for u in others), return_exceptions=True)
            entered = [p["username"] for p in (await simuls.get(sid))["players"]]
            answers = await asyncio.gather(
                *(simuls.accept(host, sid, name) for name in entered), return_exceptions=True
            )
            accepted = sum(p["accepted"] for p in (await simuls.get(sid))["players"])
            return joined, entered, answers, accepted
        finally:
            await games.close()
            await db.close()

    joined, entered, answers, accepted = asyncio.run(run())
    assert len(entered) == 4 and sum(isinstance(j, Exception) for j in joined) == 3
    assert accepted == 2 and sum(isinstance(a, Exception) for a in answers) == 2


def test_a_name_or_text_with_control_or_invisible_characters_is_refused(players):
    host = players()
    for name in ("ab\x00\x01\x1b[31mred", "\u200b\u200b\u200b", "\u202eevil name"):
        assert code(host.post("/api/simuls", TERMS | {"name": name})) == (400, "bad_name"), repr(name)
    assert code(host.post("/api/simuls", TERMS | {"text": "bell\x07"})) == (400, "bad_text")
    # Nor a name that would pass for the server's own event (an audit).
    assert code(host.post("/api/simuls", TERMS | {"name": "shashki simul"})) == (400, "reserved_name")
    sid = announce(host, text="Two lines:\nwelcome, all")["id"]
    assert shown(host, sid)["text"] == "Two lines:\nwelcome, all"
    ok(host.post(f"/api/simuls/{sid}/cancel"))


def test_an_account_closing_cancels_the_simul_it_hosts_and_withdraws_its_requests(players):
    """Found by an audit: the closing hook was given the account where it expected its id, failed (logged
    only), and the closed account's simul stayed announced for good, its request in another simul
    accepted and played against an account that never logs in again."""
    from .helpers import PASSWORD

    host, anna, other_host = players(), players(), players()
    sid = announce(host)["id"]
    other = announce(other_host, name="Another simul")["id"]
    ok(anna.post(f"/api/simuls/{sid}/join"))
    ok(host.post(f"/api/simuls/{other}/join"))
    ok(host.post("/api/account/close", {"password": PASSWORD}))
    assert shown(anna, sid)["status"] == "cancelled"
    assert shown(anna, other)["players"] == []
