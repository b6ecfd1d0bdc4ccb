"""Seeks on two server processes sharing PostgreSQL (test_scaled_out.py has the set-up): two compatible
seeks posted at the same moment, one to each process, start one game (the processes match seeks one at
a time: `Database.lock_for_transaction`)."""

from __future__ import annotations

from .helpers import Player, at_once
from .test_scaled_out import two_servers  # noqa: F401 (the fixture; skips without PostgreSQL and Redis)

# A clock of this test alone on the shared database: no other test's open seek has it.
SCALED_CLOCK = {"minutes": 11, "increment": 9}


def test_two_compatible_seeks_posted_at_once_to_two_processes_start_one_game(two_servers):  # noqa: F811
    a, b = two_servers
    body = {"variant": "russian-giveaway", "time_control": SCALED_CLOCK}
    for _ in range(5):
        x, y = Player(a), Player(b)
        answers = at_once(*[lambda p=p: p.post("/api/seeks", body) for p in (x, y)])
        assert all(r.status_code == 200 for r in answers), [r.text for r in answers]
        games = [r.json()["game"] for r in answers if r.json()["game"] is not None]
        assert len(games) == 1, [r.json() for r in answers]
        assert {games[0]["white"]["username"], games[0]["black"]["username"]} == {x.name, y.name}
        x.close()
        y.close()
