"""Spectators watch a game live, and the players see how many are watching."""

from __future__ import annotations

from .helpers import GameSocket


def test_players_see_the_number_of_spectators_come_and_go(players, server):
    white, black, watcher = players(), players(), players()
    game = white.challenge(black)
    sockets = [white.socket(game["id"]), black.socket(game["id"])]

    def spectators_become(n):
        return lambda m: m.get("type") == "presence" and m.get("spectators") == n

    anonymous = GameSocket(server, game["id"])  # anyone may watch, logged in or not
    sockets[0].wait(spectators_become(1))
    logged_in = watcher.socket(game["id"])
    sockets[0].wait(spectators_become(2))
    # A spectator sees the moves as they are played.
    assert sockets[0].move("c3-d4", ply=0)["type"] == "ack"
    anonymous.wait_state(lambda g: g["moves"] == ["c3-d4"])
    logged_in.close()
    sockets[1].wait(spectators_become(1))
    anonymous.close()
    sockets[1].wait(spectators_become(0))
    for s in sockets:
        s.close()
