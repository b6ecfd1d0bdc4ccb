"""Who may enter a tournament (`tournaments/conditions.py`): every refusal with its code, and the
entrants who meet every condition let in."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from shashki.server.errors import Conflict, Forbidden
from shashki.server.tournaments.conditions import check_conditions
from shashki.server.tournaments.state import ARENA, CREATED, ROUNDROBIN, STARTED, SWISS


class Ratings:
    def __init__(self, rating: int, games: int) -> None:
        self.mine = {"rating": rating, "games": games}
        self.asked: list[tuple] = []

    async def for_players(self, ids, variant, speed):
        self.asked.append((tuple(ids), variant, speed))
        return {i: self.mine for i in ids}


def snapshot(*, players: int = 0, withdrawn: int = 0, **tournament) -> SimpleNamespace:
    fields = {
        "max_players": None, "status": CREATED, "system": ARENA, "round": 0, "rounds": None,
        "min_rating": None, "min_games": None, "variant": "russian", "clock_initial_ms": 180_000,
        "clock_increment_ms": 2_000,
    }  # fmt: skip
    fields.update(tournament)
    entries = [SimpleNamespace(withdrawn=i < withdrawn) for i in range(players)]
    return SimpleNamespace(tournament=SimpleNamespace(**fields), players=entries)


def check(snap, ratings=None) -> str | None:
    """The code of the refusal, or None when the entry is allowed."""
    try:
        asyncio.run(check_conditions(snap, SimpleNamespace(id=7), ratings or Ratings(1500, 0)))
    except (Conflict, Forbidden) as refused:
        return refused.code
    return None


def test_a_full_tournament_refuses_and_withdrawn_players_leave_room():
    assert check(snapshot(max_players=2, players=2)) == "tournament_full"
    assert check(snapshot(max_players=2, players=3, withdrawn=2)) is None


@pytest.mark.parametrize(
    ("system", "round_", "rounds", "code"),
    [
        (ROUNDROBIN, 1, 5, "already_started"),
        (SWISS, 1, 7, None),  # late entry allowed in the first half
        (SWISS, 5, 7, "too_late"),
        (ARENA, 0, None, None),
    ],
)
def test_a_started_tournament_lets_in_only_where_its_system_allows(system, round_, rounds, code):
    assert check(snapshot(status=STARTED, system=system, round=round_, rounds=rounds)) == code


def test_the_rating_and_games_conditions_read_the_variant_and_speed_rating():
    ratings = Ratings(1450, 3)
    assert check(snapshot(min_rating=1500), ratings) == "condition_rating"
    assert check(snapshot(min_rating=1450), ratings) is None
    assert check(snapshot(min_games=4), ratings) == "condition_games"
    assert check(snapshot(min_games=3, min_rating=1400), ratings) is None
    assert ratings.asked[0] == ((7,), "russian", "blitz")
    unasked = Ratings(1500, 0)
    assert check(snapshot(), unasked) is None and unasked.asked == []
