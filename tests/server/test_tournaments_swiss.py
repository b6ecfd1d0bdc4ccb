"""Swiss events and round robins through the API (issue 13, points 2, 3, 6): rounds follow each other as
their games end, nobody meets anyone twice, the odd player out gets a one-point bye at most once, a player
who withdraws is not paired again, a round robin plays every pair once; bots may join these (not arenas),
and nobody can withdraw someone else."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from itertools import combinations

from websockets.sync.client import connect

from . import tournament_support as ts
from .helpers import eventually
from .tournament_support import create, join, show

people, tserver = ts.people, ts.tserver  # the fixtures


def round_pairings(player, tid: str, number: int) -> list[dict]:
    """Round `number`'s pairings, once its games exist."""

    def get():
        return player.http.get(f"/api/tournaments/{tid}/pairings", params={"round": number}).json()

    found = eventually(get, lambda r: r["pairings"] and all(p["bye"] or p["game"] for p in r["pairings"]), 8)
    assert found["round"] == number and found["pairings"], found
    return found["pairings"]


def finish(round_games: list[dict], players: dict) -> None:
    """White resigns every game of the round: black wins."""
    for p in round_games:
        if not p["bye"]:
            ts.resign(players[p["white"]], p["game"])


def test_a_swiss_plays_its_rounds_with_one_bye_each_and_no_pair_twice(people):
    a, b, c = people(3)
    players = {p.name: p for p in (a, b, c)}
    tid = create(a, "swiss", rounds=3, starts_at=ts.now_iso(1.5))["id"]
    for p in players.values():
        join(p, tid)
    met, byes = set(), []
    for number in (1, 2, 3):
        pairings = round_pairings(a, tid, number)
        games = [p for p in pairings if not p["bye"]]
        assert len(games) == 1 and len(pairings) == 2
        byes += [p["white"] for p in pairings if p["bye"]]
        pair = frozenset((games[0]["white"], games[0]["black"]))
        assert pair not in met
        met.add(pair)
        assert ts.game(a, games[0]["game"])["tournament"] == tid
        # Each player's own "me" names the game they play now (none for the one with the bye).
        for name, player in players.items():
            mine = show(player, tid)["me"]["game"]
            playing = name in (games[0]["white"], games[0]["black"])
            assert mine == (games[0]["game"] if playing else None), (name, mine)
        finish(pairings, players)
    assert sorted(byes) == sorted(players)  # each had the bye once
    t = eventually(lambda: show(a, tid), lambda t: t["status"] == "finished")
    assert t["status"] == "finished" and t["round"] == 3
    results = a.http.get(f"/api/tournaments/{tid}/results").json()["players"]
    # Each won one game (as black) and had a bye: 2 points each; the tie-breaks are there.
    assert [s["score"] for s in results] == [2.0, 2.0, 2.0]
    assert all(s["tiebreaks"]["buchholz"] is not None for s in results)
    assert a.http.get(f"/api/tournaments/{tid}/games.pdn").text.count("[Event ") == 3


def test_a_player_who_withdraws_is_not_paired_again_and_keeps_their_results(people):
    a, b, c, d = people(4)
    players = {p.name: p for p in (a, b, c, d)}
    tid = create(a, "swiss", rounds=2, starts_at=ts.now_iso(1.5))["id"]
    for p in players.values():
        join(p, tid)
    first = round_pairings(a, tid, 1)
    assert len(first) == 2 and not any(p["bye"] for p in first)
    leaver = players[first[0]["black"]]
    # Someone else cannot withdraw them: the route acts on the caller's own entry only.
    stranger = people(1)[0]
    assert stranger.post(f"/api/tournaments/{tid}/withdraw").status_code == 409
    assert leaver.post(f"/api/tournaments/{tid}/withdraw").json()["me"]["withdrawn"] is True
    finish(first, players)
    second = round_pairings(a, tid, 2)
    assert leaver.name not in {n for p in second for n in (p["white"], p["black"])}
    assert sum(p["bye"] for p in second) == 1  # three players left: one bye
    rows = {s["user"]: s for s in a.http.get(f"/api/tournaments/{tid}/results").json()["players"]}
    assert rows[leaver.name]["withdrawn"] is True and rows[leaver.name]["score"] == 1.0


def test_a_round_robin_plays_every_pair_once(people):
    group = people(4)
    players = {p.name: p for p in group}
    tid = create(group[0], "roundrobin", starts_at=ts.now_iso(1.5))["id"]
    for p in group:
        join(p, tid)
    pairs = []
    for number in (1, 2, 3):
        pairings = round_pairings(group[0], tid, number)
        assert len(pairings) == 2
        pairs += [frozenset((p["white"], p["black"])) for p in pairings]
        finish(pairings, players)
    assert sorted(map(sorted, pairs)) == sorted(map(sorted, map(frozenset, combinations(players, 2))))
    t = eventually(lambda: show(group[0], tid), lambda t: t["status"] == "finished")
    assert t["rounds"] == 3 and len(t["podium"]) == 3
    assert group[0].post(f"/api/tournaments/{tid}/join").status_code == 409  # over


def test_bots_join_swiss_events_but_not_arenas(people):
    person, bot = people(1)[0], people(1, bot=True)[0]
    token = bot.token("bot:play")
    auth = {"Authorization": f"Bearer {token}"}
    arena = create(person)["id"]
    swiss = create(person, "swiss", starts_at=ts.now_iso(60))["id"]
    r = bot.http.post(f"/api/tournaments/{arena}/join", json={}, headers=auth)
    assert r.status_code == 403 and r.json()["error"]["code"] == "bots_not_allowed", r.text
    r = bot.http.post(f"/api/tournaments/{swiss}/join", json={}, headers=auth)
    assert r.status_code == 200 and r.json()["me"]["joined"] is True
    # A token that may only read cannot join.
    reader = {"Authorization": f"Bearer {person.token('read')}"}
    assert person.http.post(f"/api/tournaments/{swiss}/join", json={}, headers=reader).status_code == 403
    # Bot tokens read the list and the standings.
    assert bot.http.get("/api/tournaments", headers=auth).status_code == 200
    standings = bot.http.get(f"/api/tournaments/{swiss}/standings", headers=auth).json()
    assert [s["user"] for s in standings["players"]] == [bot.name] and standings["pages"] == 1


def test_creation_is_checked_and_private_tournaments_need_their_password(people):
    a, b = people(2)
    base = {"name": "X", "system": "arena", "clock": {"initial": 60, "increment": 0}, "minutes": 30}
    for body, code in [
        (base, "bad_name"),
        ({**base, "name": "Fine", "system": "ladder"}, "bad_system"),
        ({**base, "name": "Fine", "variant": "chess"}, "unknown_variant"),
        ({**base, "name": "Fine", "clock": {"initial": 0.1, "increment": 0}}, "clock_too_short"),
        ({**base, "name": "Fine", "starts_at": ts.now_iso(-3600)}, "start_in_past"),
        ({**base, "name": "Fine", "minutes": 0}, "bad_duration"),
        ({**base, "name": "Fine", "system": "swiss"}, "bad_rounds"),
        # The server's name is its own events' (an audit: a player's arena passed for an official one).
        ({**base, "name": "SHASHKI Official Championship"}, "reserved_name"),
    ]:
        r = a.post("/api/tournaments", body)
        assert r.status_code == 400 and r.json()["error"]["code"] == code, (body, r.text)
    private = create(a, password="sesame", min_rating=1000)
    assert private["private"] is True and private["conditions"]["min_rating"] == 1000
    r = b.post(f"/api/tournaments/{private['id']}/join", {"password": "wrong"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "wrong_password"
    assert join(b, private["id"], password="sesame")["me"]["joined"] is True
    strict = create(a, min_games=5)
    r = b.post(f"/api/tournaments/{strict['id']}/join")
    assert r.status_code == 403 and r.json()["error"]["code"] == "condition_games"
    # A start given in another zone is the same moment, shown in UTC.
    later = datetime.now(UTC).replace(microsecond=0) + timedelta(hours=1)
    zoned = create(a, starts_at=later.astimezone(timezone(timedelta(hours=5))).isoformat())
    assert zoned["starts_at"] == later.isoformat().replace("+00:00", "Z")
    listed = a.http.get("/api/tournaments").json()
    assert {private["id"], strict["id"]} <= {t["id"] for t in listed["created"] + listed["started"]}


def test_the_socket_sends_the_tournament_and_tells_each_player_of_their_game(people, tserver):
    a, b = people(2)
    tid = create(a, starts_at=ts.now_iso(3))["id"]
    cookie = {"Cookie": f"shashki_session={a.http.cookies.get('shashki_session')}"}
    with connect(f"{tserver.ws_url}/ws/tournaments/{tid}", additional_headers=cookie, open_timeout=5) as ws:
        first = json.loads(ws.recv(timeout=5))
        assert first["type"] == "tournament" and first["tournament"]["id"] == tid
        assert first["tournament"]["me"]["joined"] is False
        join(a, tid)
        join(b, tid)
        seen = []
        while not any(m["type"] == "paired" for m in seen):
            seen.append(json.loads(ws.recv(timeout=8)))
        paired = next(m for m in seen if m["type"] == "paired")
        assert paired == {"type": "paired", "game": ts.my_game(a, tid)}
        states = [m["tournament"] for m in seen if m["type"] == "tournament"]
        assert any(s["me"]["joined"] for s in states)
    with connect(f"{tserver.ws_url}/ws/tournaments/nosuch") as ws:
        assert json.loads(ws.recv(timeout=5))["error"]["code"] == "no_such_tournament"
