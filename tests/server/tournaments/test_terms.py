"""A tournament's terms as created: a size of 0 is refused in every system (a round robin took it as
"the default size", found by an audit)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from shashki.server.errors import Invalid
from shashki.server.tournaments.terms import TournamentTerms

NOW = datetime.now(UTC)


@pytest.mark.parametrize(
    "system, extra", [("swiss", {"rounds": 3}), ("roundrobin", {}), ("arena", {"minutes": 30})]
)
def test_a_tournament_of_no_players_is_refused_in_every_system(system, extra):
    terms = TournamentTerms("Size", system, "russian-giveaway", 60, 0, starts_at=NOW, max_players=0, **extra)
    with pytest.raises(Invalid) as refused:
        terms.checked(NOW, 1000)
    assert refused.value.code == "bad_max_players"


def test_a_round_robin_without_a_size_takes_its_largest():
    terms = TournamentTerms("Size", "roundrobin", "russian-giveaway", 60, 0, starts_at=NOW).checked(NOW, 1000)
    assert terms.max_players == 20


def test_a_round_robin_larger_than_its_tables_is_refused_not_cut_silently():
    """Found by an audit: `max_players: 50` made a round robin of 20 without a word."""
    terms = TournamentTerms("Size", "roundrobin", "russian-giveaway", 60, 0, starts_at=NOW, max_players=50)
    with pytest.raises(Invalid) as refused:
        terms.checked(NOW, 1000)
    assert refused.value.code == "bad_max_players" and "20" in refused.value.message
    fits = TournamentTerms("Size", "roundrobin", "russian-giveaway", 60, 0, starts_at=NOW, max_players=8)
    assert fits.checked(NOW, 1000).max_players == 8
