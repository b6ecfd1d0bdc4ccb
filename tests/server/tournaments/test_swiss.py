"""Swiss pairing: the FIDE Dutch priorities on the awkward cases (odd numbers, everyone drawn, one player
winning everything, the last rounds, tiny and shrinking events, late joiners)."""

from __future__ import annotations

import random
from itertools import combinations

from shashki.rules import Color
from shashki.server.tournaments.swiss import (
    Bye,
    ByeKind,
    SwissGame,
    SwissPlayer,
    can_late_join,
    late_join_bye,
    pair_round,
)

W, B = Color.WHITE, Color.BLACK


def field(n: int) -> list[SwissPlayer]:
    """n players, player 1 the highest rated."""
    return [SwissPlayer(i, 2500 - 10 * i) for i in range(1, n + 1)]


def play(players, rounds, result, games=None, byes=None):
    """Pair and play `rounds` rounds; `result(round, white, black)` gives the winner or None."""
    games, byes = list(games or []), list(byes or [])
    first = max([g.round for g in games] + [b.round for b in byes] + [0]) + 1
    for r in range(first, first + rounds):
        paired = pair_round(players, games, byes, r)
        if paired.bye is not None:
            byes.append(Bye(r, paired.bye, ByeKind.PAIRING))
        games += [SwissGame(r, w, b, result(r, w, b)) for w, b in paired.pairings]
    return games, byes


def meetings(games):
    return [frozenset((g.white, g.black)) for g in games]


def colours(games):
    seq: dict[int, str] = {}
    for g in sorted(games, key=lambda g: g.round):
        seq[g.white] = seq.get(g.white, "") + "W"
        seq[g.black] = seq.get(g.black, "") + "B"
    return seq


def assert_colour_rule(games):
    for player, seq in colours(games).items():
        assert "WWW" not in seq and "BBB" not in seq, (player, seq)
        assert abs(seq.count("W") - seq.count("B")) <= 2, (player, seq)


def test_round_one_pairs_the_top_half_against_the_bottom_half_with_alternating_colours():
    paired = pair_round(field(8), [], [], 1)
    assert paired.pairings == ((1, 5), (6, 2), (3, 7), (8, 4))
    assert paired.bye is None and paired.unpaired == ()


def test_round_two_transposes_the_bottom_half_so_that_everyone_gets_the_other_colour():
    # Round 1: 1-5, 6-2, 3-7, 8-4, the higher rated winning. In the winners' group the ideal 1-3, 2-4 would
    # give 1 and 3 (both white) or 2 and 4 (both black) the same colour again; transposing S2 (3 <-> 4) grants
    # every preference; likewise 5-8, 6-7 among the losers (C.04.3 C.12 before the order of B.2, D.1).
    games, _ = play(field(8), 1, lambda r, w, b: W if w < b else B)
    assert pair_round(field(8), games, [], 2).pairings == ((4, 1), (2, 3), (5, 8), (7, 6))


def test_the_odd_player_out_is_the_lowest_ranked_and_gets_one_point():
    paired = pair_round(field(7), [], [], 1)
    assert paired.bye == 7
    assert len(paired.pairings) == 3


def test_nobody_gets_a_second_bye_while_someone_else_can_take_it():
    games, byes = play(field(5), 5, lambda r, w, b: None)
    assert sorted(b.player for b in byes) == [1, 2, 3, 4, 5]


def test_everyone_drawing_eight_players_meet_everyone_once_in_seven_rounds():
    games, _ = play(field(8), 7, lambda r, w, b: None)
    pairs = meetings(games)
    assert len(pairs) == len(set(pairs)) == 28
    assert_colour_rule(games)


def test_one_player_winning_everything_meets_the_best_scores_and_nobody_twice():
    rng = random.Random(5)

    def result(r, w, b):
        if 1 in (w, b):
            return W if w == 1 else B
        return rng.choice([W, B, None])

    players = field(16)
    games, byes = [], []
    for r in range(1, 6):
        scores = _scores(games, byes)
        paired = pair_round(players, games, byes, r)
        opponent = next(b if w == 1 else w for w, b in paired.pairings if 1 in (w, b))
        others = [scores.get(p.id, 0) for p in players if p.id != 1]
        if r > 1:
            assert scores.get(opponent, 0) == max(others)  # the leader meets the next best score
        games += [SwissGame(r, w, b, result(r, w, b)) for w, b in paired.pairings]
    assert len(set(meetings(games))) == len(games)
    assert_colour_rule(games)


def _scores(games, byes):
    scores: dict[int, float] = {}
    for g in games:
        white = {None: 0.5, W: 1.0, B: 0.0}[g.winner]
        scores[g.white] = scores.get(g.white, 0) + white
        scores[g.black] = scores.get(g.black, 0) + 1 - white
    for b in byes:
        scores[b.player] = scores.get(b.player, 0) + b.half_points / 2
    return scores


def test_the_last_round_of_a_six_player_swiss_of_five_rounds_repeats_nobody():
    for seed in range(12):
        draws = random.Random(seed)
        games, byes = play(field(6), 5, lambda r, w, b, draws=draws: draws.choice([W, B, None]))
        pairs = meetings(games)
        assert len(pairs) == len(set(pairs))  # (when a full round is impossible: test_properties)


def test_two_players_play_once_and_then_cannot_be_paired_again():
    games, _ = play(field(2), 1, lambda r, w, b: W)
    assert len(games) == 1
    second = pair_round(field(2), games, [], 2)
    assert second.pairings == () and set(second.unpaired) == {1, 2}


def test_three_players_each_meet_the_others_once_and_sit_out_once():
    games, byes = play(field(3), 3, lambda r, w, b: None)
    assert sorted(b.player for b in byes) == [1, 2, 3]
    assert sorted(tuple(sorted(p)) for p in meetings(games)) == [(1, 2), (1, 3), (2, 3)]


def test_withdrawn_players_are_not_paired_and_the_last_two_still_play():
    games, byes = play(field(6), 1, lambda r, w, b: W)
    met = set(meetings(games))
    remaining = next(set(p) for p in combinations(range(1, 7), 2) if frozenset(p) not in met)
    players = [SwissPlayer(p.id, p.rating, withdrawn=p.id not in remaining) for p in field(6)]
    paired = pair_round(players, games, byes, 2)
    assert len(paired.pairings) == 1 and set(paired.pairings[0]) == remaining
    assert paired.bye is None


def test_the_absolute_colour_rule_comes_before_the_score_groups():
    # After two rounds 1 and 2 lead with two whites each, 5 and 6 trail with two blacks each: pairing the
    # leaders together (and 5 with 6) would give a third same colour, so all four float to the middle group.
    games = [SwissGame(1, 1, 5, W), SwissGame(1, 2, 6, W), SwissGame(1, 4, 3, None), SwissGame(1, 7, 8, None),
             SwissGame(2, 1, 6, W), SwissGame(2, 2, 5, W), SwissGame(2, 3, 7, None), SwissGame(2, 8, 4, None)]
    paired = pair_round(field(8), games, [], 3)
    assert {1, 2} not in [set(p) for p in paired.pairings] and {5, 6} not in [set(p) for p in paired.pairings]
    assert_colour_rule(games + [SwissGame(3, w, b, None) for w, b in paired.pairings])
    assert len(set(meetings(games + [SwissGame(3, w, b, None) for w, b in paired.pairings]))) == 12


def test_a_late_joiner_gets_half_a_point_once_and_is_paired_in_the_next_round():
    players = field(6)
    games, byes = play(players, 2, lambda r, w, b: W)
    assert can_late_join(rounds_started=2, rounds=5)
    bye = late_join_bye(7, rounds_started=2)
    assert bye == Bye(2, 7, ByeKind.LATE_JOIN) and bye.half_points == 1
    paired = pair_round(players + [SwissPlayer(7, 2600)], games, byes + [bye], 3)
    assert any(7 in p for p in paired.pairings) or paired.bye == 7


def test_late_joining_closes_once_more_than_half_the_rounds_have_started():
    assert can_late_join(5, 11) and not can_late_join(6, 11)
    assert can_late_join(6, 12) and not can_late_join(7, 12)
    assert late_join_bye(3, 0) is None


def test_large_events_pair_every_player_exactly_once_without_repeats_or_colour_breaks():
    # Above SMALL_EVENT (64) players the score groups are matched in slices (swiss._pair_large).
    for n, seed in ((65, 1), (77, 2), (101, 3)):
        rng = random.Random(seed)
        players = field(n)
        games, byes = [], []
        for r in range(1, 9):
            paired = pair_round(players, games, byes, r)
            seated = [p for pair in paired.pairings for p in pair] + [paired.bye] * (paired.bye is not None)
            assert sorted(seated) == list(range(1, n + 1)) and not paired.unpaired
            if paired.bye is not None:
                byes.append(Bye(r, paired.bye, ByeKind.PAIRING))
            games += [SwissGame(r, w, b, rng.choice([W, B, None])) for w, b in paired.pairings]
        assert len(set(meetings(games))) == len(games)
        assert len({b.player for b in byes}) == len(byes) == 8
        assert_colour_rule(games)
