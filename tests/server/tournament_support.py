"""Shared by the tournament API tests: a server whose directors tick fast, and the calls the tests make."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta

import pytest

from .helpers import Player, Server, eventually

FAST_DIRECTOR = {"SHASHKI_TOURNAMENT_TICK_SECONDS": "0.1", "SHASHKI_LIMIT_TOURNAMENT_ACTIONS": "1000/1",
                 "SHASHKI_LIMIT_TOURNAMENTS": "1000/1"}


@pytest.fixture(scope="module")
def tserver(tmp_path_factory):
    server = Server(tmp_path_factory.mktemp("tournaments"), FAST_DIRECTOR).start()
    yield server
    server.stop()


@pytest.fixture
def people(tserver):
    made: list[Player] = []

    def make(n: int = 1, *, bot: bool = False) -> list[Player]:
        made.extend(Player(tserver, bot=bot) for _ in range(n))
        return made[-n:]

    yield make
    for p in made:
        p.close()


def now_iso(seconds: float = 0) -> str:
    return (datetime.now(UTC) + timedelta(seconds=seconds)).isoformat()


def create(player: Player, system: str = "arena", **body) -> dict:
    defaults = {"name": f"Test {system}", "system": system, "variant": "russian-giveaway",
                "clock": {"initial": 60, "increment": 0}, "starts_at": now_iso(), "rated": False}
    if system == "arena":
        defaults["minutes"] = 30
    if system == "swiss":
        defaults["rounds"] = 3
    r = player.post("/api/tournaments", {**defaults, **body})
    assert r.status_code == 201, r.text
    return r.json()


def join(player: Player, tid: str, **body) -> dict:
    r = player.post(f"/api/tournaments/{tid}/join", body)
    assert r.status_code == 200, r.text
    return r.json()


def show(player: Player, tid: str) -> dict:
    r = player.http.get(f"/api/tournaments/{tid}")
    assert r.status_code == 200, r.text
    return r.json()


def my_game(player: Player, tid: str, *, other_than: set[str] = frozenset(), timeout: float = 8) -> str:
    """Wait until `player` is paired in a game not in `other_than`; its id."""
    t = eventually(lambda: show(player, tid), lambda t: t["me"]["game"] not in (None, *other_than), timeout)
    assert t["me"]["game"] not in (None, *other_than), t
    return t["me"]["game"]


def game(player: Player, gid: str) -> dict:
    return player.http.get(f"/api/games/{gid}").json()["game"]


def resign(player: Player, gid: str) -> None:
    r = player.post(f"/api/games/{gid}/resign")
    assert r.status_code == 200, r.text


def play_plies(white: Player, black: Player, gid: str, plies: int) -> None:
    """Play `plies` legal moves (the first legal move each time)."""
    for _ in range(plies):
        state = game(white, gid)
        mover = white if state["side_to_move"] == "white" else black
        move = {"move": state["legal_moves"][0]["move"], "ply": state["ply"]}
        r = mover.post(f"/api/games/{gid}/move", move)
        assert r.status_code == 200, r.text


def seats(t: dict, gid: str) -> tuple[str, str]:
    pairing = next(p for p in t["pairings"] if p["game"] == gid)
    return pairing["white"], pairing["black"]


def by_name(players: list[Player], name: str) -> Player:
    return next(p for p in players if p.name == name)


def move_end_to_now(server: Server, tid: str) -> None:
    """Time passes: the arena's end is set to now in its database (the server reads it on its next tick)."""
    with sqlite3.connect(server.data / "shashki.sqlite3", timeout=10) as db:
        stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
        db.execute("UPDATE tournaments SET ends_at = ? WHERE id = ?", (stamp, tid))
