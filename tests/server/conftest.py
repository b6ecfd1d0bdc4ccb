"""Fixtures of the server tests: one real server for the session, players made on demand."""

from __future__ import annotations

import shutil

import pytest

from .helpers import Player, PrivateRedis, Server, counts_kept


@pytest.fixture(scope="session")
def server(tmp_path_factory) -> Server:
    server = Server(tmp_path_factory.mktemp("server")).start()
    yield server
    server.stop()
    # Whatever every test did to the games on this server, each player's counts kept with them
    # (games/tally.py) are still those the games themselves give.
    stored, recounted = counts_kept(server.data / "shashki.sqlite3")
    assert {user: n for user, n in stored.items() if any(n.values())} == recounted


@pytest.fixture
def players(server):
    made: list[Player] = []

    def make(name: str | None = None, *, bot: bool = False) -> Player:
        made.append(Player(server, name, bot=bot))
        return made[-1]

    yield make
    for player in made:
        player.close()


@pytest.fixture
def private_redis():
    """A Redis of this test alone (`PrivateRedis`), started, and stopped at the end."""
    if shutil.which("redis-server") is None:
        pytest.skip("needs redis-server (scripts/test-services.sh installs it)")
    redis = PrivateRedis()
    redis.start()
    yield redis
    redis.stop()
