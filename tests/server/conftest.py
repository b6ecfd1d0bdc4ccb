"""Fixtures of the server tests: one real server for the session, players made on demand."""

from __future__ import annotations

import pytest

from .helpers import Player, Server


@pytest.fixture(scope="session")
def server(tmp_path_factory) -> Server:
    server = Server(tmp_path_factory.mktemp("server")).start()
    yield server
    server.stop()


@pytest.fixture
def players(server):
    made: list[Player] = []

    def make(name: str | None = None, *, bot: bool = False) -> Player:
        made.append(Player(server, name, bot=bot))
        return made[-1]

    yield make
    for player in made:
        player.close()
