"""A server killed mid-round and started again on the same SQLite file loses nothing and pairs nobody twice
(issue 13, point 7): the pairings were stored before they were announced, the games go on, and the next
round (or the next arena game) is paired once the stored games end."""

from __future__ import annotations

from . import tournament_support as ts
from .helpers import Player, Server, eventually


def test_killing_the_server_mid_round_loses_nothing_and_pairs_nobody_twice(tmp_path):
    server = Server(tmp_path / "data", ts.FAST_DIRECTOR).start()
    try:
        players = [Player(server) for _ in range(4)]
        by_name = {p.name: p for p in players}
        swiss = ts.create(players[0], "swiss", rounds=2, starts_at=ts.now_iso(1.5))["id"]
        arena = ts.create(players[0])["id"]
        for p in players:
            ts.join(p, swiss)
        for p in players[:2]:
            ts.join(p, arena)
        first = eventually(
            lambda: ts.show(players[0], swiss), lambda t: len([p for p in t["pairings"] if p["game"]]) == 2, 8
        )["pairings"]
        arena_game = ts.my_game(players[0], arena)
        server.kill()  # a crash: no shutdown hooks
        server.start()
        for p in players:
            p.login()
        after = ts.show(players[0], swiss)
        assert after["round"] == 1 and after["pairings"] == first  # the same round, the same games
        assert ts.show(players[0], arena)["me"]["game"] == arena_game
        # The stored games go on; once they end, round 2 is paired, once.
        for pairing in first:
            ts.resign(by_name[pairing["white"]], pairing["game"])
        second = eventually(
            lambda: ts.show(players[0], swiss),
            lambda t: t["round"] == 2 and all(p["game"] for p in t["pairings"]),
            8,
        )
        assert second["round"] == 2 and len(second["pairings"]) == 2
        games = [p["game"] for p in second["pairings"]]
        assert not set(games) & {p["game"] for p in first}
        met = {frozenset((p["white"], p["black"])) for p in first}
        assert all(frozenset((p["white"], p["black"])) not in met for p in second["pairings"])
        # The arena pairs nobody into a second game while the first runs.
        assert [p["game"] for p in ts.show(players[0], arena)["pairings"]] == [arena_game]
        for p in players:
            p.close()
    finally:
        server.stop()
