"""Arenas through the API (issue 13, point 1): players are paired as soon as they wait, re-paired as soon as
their game ends, scored by the arena sheet (2 a win, streaks doubling after two wins, berserk), may pause and
come back, and a game still running at the end counts."""

from __future__ import annotations

import json
import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor

from websockets.sync.client import connect

from . import tournament_support as ts
from .helpers import eventually
from .tournament_support import (
    by_name,
    create,
    game,
    join,
    move_end_to_now,
    my_game,
    play_plies,
    resign,
    seats,
    show,
)

people, tserver = ts.people, ts.tserver  # the fixtures


def test_an_arena_pairs_its_players_and_pairs_them_again_when_their_game_ends(people):
    a, b, c, d = people(4)
    tid = create(a)["id"]
    for p in (a, b, c, d):
        join(p, tid)
    first = {p.name: my_game(p, tid) for p in (a, b, c, d)}
    assert len(set(first.values())) == 2  # two games, every player in one
    assert game(a, first[a.name])["tournament"] == tid
    t = show(a, tid)
    assert t["status"] == "started" and t["players"] == 4
    white_name, black_name = seats(t, first[a.name])
    white, black = by_name([a, b, c, d], white_name), by_name([a, b, c, d], black_name)
    resign(white, first[a.name])
    # Both are paired again at once (with the two others when their game ends, or with each other: two
    # waiting, the last opponent is refused, so they wait for the others).
    others = [p for p in (a, b, c, d) if p not in (white, black)]
    resign(others[0], first[others[0].name])
    again = {p.name: my_game(p, tid, other_than=set(first.values())) for p in (a, b, c, d)}
    assert len(set(again.values())) == 2
    assert all(set(seats(show(a, tid), g)) != {white_name, black_name} for g in again.values())
    standings = {s["user"]: s for s in show(a, tid)["standings"]}
    assert standings[black_name]["score"] == 2 and standings[white_name]["score"] == 0
    assert standings[black_name]["sheet"] == "2" and standings[black_name]["wins"] == 1


def test_a_streak_doubles_the_points_after_two_wins_and_berserk_adds_one(people):
    winner, loser = people(2)
    tid = create(winner)["id"]
    join(winner, tid)
    join(loser, tid)
    played: set[str] = set()
    for _ in range(2):  # two wins: 2 + 2, then on fire
        gid = my_game(winner, tid, other_than=played)
        played.add(gid)
        resign(loser, gid)
    gid = my_game(winner, tid, other_than=played)
    played.add(gid)
    # Berserk before the first move halves the berserker's clock; the opponent's stays whole.
    r = winner.post(f"/api/tournaments/{tid}/berserk", {"game": gid})
    assert r.status_code == 200 and r.json() == {"ok": True}, r.text
    clocks = game(winner, gid)["clocks"]
    mine = "white_ms" if game(winner, gid)["white"]["username"] == winner.name else "black_ms"
    theirs = "black_ms" if mine == "white_ms" else "white_ms"
    assert clocks[mine] == 30_000 and clocks[theirs] == 60_000
    # The opponent cannot berserk for you, nor in someone else's game.
    assert loser.post(f"/api/tournaments/{tid}/berserk", {"game": "nosuchgm"}).status_code == 403
    white, black = (winner, loser) if mine == "white_ms" else (loser, winner)
    play_plies(white, black, gid, 14)  # berserk counts from 14 plies (7 moves)
    resign(loser, gid)
    row = eventually(lambda: show(winner, tid)["standings"][0], lambda s: s["games"] == 3)
    assert row["user"] == winner.name
    assert row["sheet"] == "2 2 5" and row["score"] == 9 and row["streak"] is True  # 4 on fire + 1 berserk
    # After the first move, berserk is refused.
    gid = my_game(winner, tid, other_than=played)
    state = game(winner, gid)
    mover = winner if state["white"]["username"] == winner.name else loser
    mover.post(f"/api/games/{gid}/move", {"move": state["legal_moves"][0]["move"], "ply": 0})
    if mover is winner:
        assert winner.post(f"/api/tournaments/{tid}/berserk", {"game": gid}).status_code == 409


def test_berserk_sent_several_times_at_once_halves_the_clock_once(people, tserver):
    a, b = people(2)
    tid = create(a)["id"]
    join(a, tid)
    join(b, tid)
    gid = my_game(a, tid)
    mine = "white_ms" if game(a, gid)["white"]["username"] == a.name else "black_ms"
    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(lambda _: a.post(f"/api/tournaments/{tid}/berserk", {"game": gid}), range(6)))
    assert all(r.status_code == 200 for r in answers), [r.text for r in answers]
    assert game(a, gid)["clocks"][mine] == 30_000  # 60 s halved once, not 15 or 7.5
    again = a.post(f"/api/tournaments/{tid}/berserk", {"game": gid})
    assert again.status_code == 200 and game(a, gid)["clocks"][mine] == 30_000
    with sqlite3.connect(tserver.data / "shashki.sqlite3", timeout=10) as db:
        (count,) = db.execute(
            "SELECT berserks FROM tournament_players WHERE tournament_id = ? AND user_id = ?", (tid, a.id)
        ).fetchone()
    assert count == 1


def test_a_paused_player_is_not_paired_until_they_join_again(people):
    a, b, c = people(3)
    tid = create(a)["id"]
    for p in (a, b, c):
        join(p, tid)
    gid = eventually(lambda: show(a, tid), lambda t: any(p["status"] == "started" for p in t["pairings"]))
    running = next(p for p in gid["pairings"] if p["status"] == "started")
    players = {p.name: p for p in (a, b, c)}
    white, black = players[running["white"]], players[running["black"]]
    idle = next(p for p in (a, b, c) if p not in (white, black))
    r = black.post(f"/api/tournaments/{tid}/pause")
    assert r.status_code == 200 and r.json()["me"]["paused"] is True
    resign(white, running["game"])
    # The paused player is not paired; the two others are.
    assert my_game(white, tid, other_than={running["game"]}) == my_game(idle, tid)
    assert show(black, tid)["me"]["game"] is None
    standings = {s["user"]: s for s in show(a, tid)["standings"]}
    assert standings[black.name]["paused"] is True and standings[black.name]["score"] == 2  # points stay
    back = black.post(f"/api/tournaments/{tid}/join").json()
    assert back["me"] == {"joined": True, "paused": False, "withdrawn": False, "game": None}


def test_entering_an_arena_pauses_the_player_in_their_other_arenas(people):
    """One arena at a time pairs a player, as lila's withdrawOtherTournaments (found by an audit: a player
    in two arenas was paired in both at once); coming back to the first pauses the second. A Swiss entry
    is left as it is."""
    (a,) = people(1)
    first, second = create(a)["id"], create(a)["id"]
    swiss = create(a, "swiss", rounds=3)["id"]
    join(a, swiss)
    assert join(a, first)["me"]["paused"] is False
    assert join(a, second)["me"]["paused"] is False
    assert show(a, first)["me"]["paused"] is True and show(a, swiss)["me"]["paused"] is False
    assert join(a, first)["me"]["paused"] is False
    assert show(a, second)["me"]["paused"] is True


def test_a_player_in_a_game_with_a_clock_elsewhere_is_paired_once_it_ends(people):
    """Never two games at once (found by an audit: a Swiss's game and an arena's): a player playing a game
    with a clock elsewhere waits for its end; a correspondence game does not keep them waiting."""
    a, b, c = people(3)
    elsewhere = a.challenge(c, time_control={"minutes": 5, "increment": 0})["id"]
    a.challenge(c, days=3)
    tid = create(a)["id"]
    join(a, tid)
    join(b, tid)
    time.sleep(3)  # several of the director's ticks
    assert show(a, tid)["me"]["game"] is None and show(b, tid)["me"]["game"] is None
    resign(a, elsewhere)
    assert my_game(a, tid) == my_game(b, tid)


def test_the_lists_are_told_when_players_join_or_leave(people, tserver):
    """The lobby's and /tournaments' lists show each tournament's count of players: they are nudged to
    read it again when players join or leave (found by an audit: the counts stayed 0 until a reload)."""
    a, b = people(2)
    tid = create(a)["id"]
    with connect(f"{tserver.ws_url}/ws/lobby", open_timeout=5, ping_interval=None) as lobby:

        def nudged() -> bool:
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                try:
                    if json.loads(lobby.recv(timeout=0.5)).get("type") == "tournaments":
                        return True
                except TimeoutError:
                    continue
            return False

        time.sleep(1.5)  # past the creation's own nudge
        while True:
            try:
                lobby.recv(timeout=0.3)
            except TimeoutError:
                break
        join(b, tid)
        assert nudged()
        b.post(f"/api/tournaments/{tid}/withdraw")
        assert nudged()


def test_a_game_running_when_the_arena_ends_counts_and_then_the_arena_finishes(people, tserver):
    a, b = people(2)
    tid = create(a, rated=True)["id"]
    join(a, tid)
    join(b, tid)
    gid = my_game(a, tid)
    move_end_to_now(tserver, tid)
    t = eventually(lambda: show(a, tid), lambda t: t["seconds_left"] == 0)
    assert t["status"] == "started"  # a game still runs
    white_name, _ = seats(t, gid)
    loser = a if a.name == white_name else b
    winner = b if loser is a else a
    resign(loser, gid)
    t = eventually(lambda: show(a, tid), lambda t: t["status"] == "finished")
    assert t["status"] == "finished" and t["me"]["game"] is None
    assert [s["user"] for s in t["podium"]] == [winner.name, loser.name]
    assert t["podium"][0]["score"] == 2
    # Nobody was paired after the end.
    assert [p["game"] for p in t["pairings"]] == [gid]
    # The game was rated, as any rated game: the ratings moved.
    profile = winner.http.get(f"/api/users/{winner.name}").json()
    assert any(r["games"] == 1 and r["rating"] > 1500 for r in profile["ratings"]), profile
    pdn = a.http.get(f"/api/tournaments/{tid}/games.pdn")
    assert pdn.status_code == 200 and pdn.text.count("[Event ") == 1 and gid in pdn.text
