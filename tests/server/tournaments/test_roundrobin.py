"""Round robins: FIDE's Berger tables, odd numbers, double round robins."""

from __future__ import annotations

import pytest

from shashki.server.tournaments.roundrobin import berger_table, round_robin_rounds


def test_the_berger_table_for_eight_players_is_fides():
    # FIDE Handbook C.05 Annex 1, the table for 7 or 8 players.
    assert berger_table(8) == [
        [(1, 8), (2, 7), (3, 6), (4, 5)],
        [(8, 5), (6, 4), (7, 3), (1, 2)],
        [(2, 8), (3, 1), (4, 7), (5, 6)],
        [(8, 6), (7, 5), (1, 4), (2, 3)],
        [(3, 8), (4, 2), (5, 1), (6, 7)],
        [(8, 7), (1, 6), (2, 5), (3, 4)],
        [(4, 8), (5, 3), (6, 2), (7, 1)],
    ]


def test_the_berger_table_for_six_players_is_fides():
    assert berger_table(6) == [
        [(1, 6), (2, 5), (3, 4)],
        [(6, 4), (5, 3), (1, 2)],
        [(2, 6), (3, 1), (4, 5)],
        [(6, 5), (1, 4), (2, 3)],
        [(3, 6), (4, 2), (5, 1)],
    ]


def test_berger_tables_need_an_even_number():
    with pytest.raises(ValueError):
        berger_table(5)


def test_with_an_odd_number_whoever_meets_the_dummy_has_a_free_round():
    rounds = round_robin_rounds([11, 12, 13, 14, 15])
    assert len(rounds) == 5
    assert sorted(r.bye for r in rounds) == [11, 12, 13, 14, 15]
    assert rounds[0].pairings == ((12, 15), (13, 14))  # 1 would have met the dummy (6)


def test_a_double_round_robin_repeats_the_cycle_with_colours_reversed():
    rounds = round_robin_rounds([1, 2, 3, 4], double=True)
    assert len(rounds) == 6
    first = {frozenset(p): p for r in rounds[:3] for p in r.pairings}
    for r in rounds[3:]:
        for white, black in r.pairings:
            assert first[frozenset((white, black))] == (black, white)


def test_a_double_round_robin_swaps_the_last_two_rounds_of_the_first_cycle():
    table = berger_table(4)
    rounds = round_robin_rounds([1, 2, 3, 4], double=True)
    assert [list(r.pairings) for r in rounds[:3]] == [table[0], table[2], table[1]]


def test_a_player_listed_twice_is_refused():
    with pytest.raises(ValueError):
        round_robin_rounds([1, 2, 2])
