"""Property tests of the tournament rules against independent oracles.

- Swiss: in random events (random sizes, rounds, results and withdrawals), every round is compared with a
  brute force over every possible pairing of the same players: ours pairs as many players as any, gives as
  few second byes as any, and breaks the absolute colour rule (three same colours in a row, a difference over
  2) as rarely as any. So nobody meets twice, gets a second bye or a third colour in a row unless it is
  unavoidable.
- Round robin: every pair meets exactly once (twice, with colours reversed), nobody plays twice in a round,
  and each player's whites and blacks differ by at most 1.
- Arena: every sheet's total equals a recomputation from the game list written independently of the
  sheet code.
"""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shashki.rules import Color
from shashki.server.tournaments.arena import (
    ArenaGame,
    ArenaPlayer,
    ArenaRules,
    arena_sheet,
    arena_standings,
)
from shashki.server.tournaments.arena_pairing import Waiting, last_opponents, pair_wave
from shashki.server.tournaments.roundrobin import round_robin_rounds
from shashki.server.tournaments.swiss import Bye, ByeKind, SwissGame, SwissPlayer, pair_round

W, B = Color.WHITE, Color.BLACK
RESULTS = st.sampled_from([W, B, None])


# ------------------------------------------------------------------------------------------------
# Swiss against a brute force


def _history(games):
    seq: dict[int, list[Color]] = {}
    for g in sorted(games, key=lambda g: g.round):
        seq.setdefault(g.white, []).append(W)
        seq.setdefault(g.black, []).append(B)
    return seq


def _breaks_colour_rule(past: list[Color], colour: Color) -> bool:
    seq = past + [colour]
    return abs(seq.count(W) - seq.count(B)) > 2 or (len(seq) >= 3 and seq[-1] == seq[-2] == seq[-3])


def _pair_violations(a, b, seq) -> int:
    sa, sb = seq.get(a, []), seq.get(b, [])
    return min(_breaks_colour_rule(sa, W) + _breaks_colour_rule(sb, B),
               _breaks_colour_rule(sa, B) + _breaks_colour_rule(sb, W))


def _matchings(nodes, allowed):
    """Every matching (not only perfect ones) of `nodes` using `allowed` pairs."""
    if not nodes:
        yield []
        return
    first, rest = nodes[0], nodes[1:]
    yield from _matchings(rest, allowed)  # first left out
    for k, other in enumerate(rest):
        if frozenset((first, other)) in allowed:
            for m in _matchings(rest[:k] + rest[k + 1:], allowed):
                yield [(first, other)] + m


def _best_possible(active, games, byes):
    """min over all pairings of (-pairs made, second byes, absolute colour violations); the bye is a node."""
    met = {frozenset((g.white, g.black)) for g in games}
    had_bye = {b.player for b in byes if b.kind is ByeKind.PAIRING}
    seq = _history(games)
    nodes = list(active) + (["bye"] if len(active) % 2 else [])
    allowed = {frozenset((a, b)) for i, a in enumerate(nodes) for b in nodes[i + 1:]
               if "bye" in (a, b) or frozenset((a, b)) not in met}
    best = None
    for m in _matchings(nodes, allowed):
        key = _key(m, had_bye, seq)
        best = key if best is None or key < best else best
    return best


def _key(pairs, had_bye, seq):
    repeats_of_bye = sum(1 for a, b in pairs if "bye" in (a, b) and (a if b == "bye" else b) in had_bye)
    violations = sum(_pair_violations(a, b, seq) for a, b in pairs if "bye" not in (a, b))
    return (-len(pairs), repeats_of_bye, violations)


@st.composite
def swiss_events(draw):
    n = draw(st.integers(2, 8))
    rounds = draw(st.integers(1, n + 1))
    withdrawals = draw(st.dictionaries(st.integers(1, n), st.integers(1, rounds), max_size=n // 2))
    return n, rounds, withdrawals


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(swiss_events(), st.data())
def test_swiss_rounds_are_as_good_as_the_best_possible_pairing_on_the_absolute_rules(event, data):
    n, rounds, withdrawals = event
    ratings = data.draw(st.lists(st.integers(1000, 2500), min_size=n, max_size=n))
    games, byes = [], []
    for r in range(1, rounds + 1):
        players = [SwissPlayer(i + 1, ratings[i], withdrawn=withdrawals.get(i + 1, rounds + 1) <= r)
                   for i in range(n)]
        active = [p.id for p in players if not p.withdrawn]
        paired = pair_round(players, games, byes, r)
        made = [tuple(p) for p in paired.pairings] + ([(paired.bye, "bye")] if paired.bye else [])
        everyone = [p for pair in made for p in pair if p != "bye"] + list(paired.unpaired)
        assert sorted(everyone) == sorted(active)  # each active player once: paired, bye or unpaired
        met = {frozenset((g.white, g.black)) for g in games}
        assert not any(frozenset(p) in met for p in paired.pairings)  # never a repeat
        had_bye = {b.player for b in byes if b.kind is ByeKind.PAIRING}
        seq = _history(games)
        ours = (-len(made), _key(made, had_bye, seq)[1],
                sum(_breaks_colour_rule(seq.get(w, []), W) + _breaks_colour_rule(seq.get(b, []), B)
                    for w, b in paired.pairings))
        assert ours == _best_possible(active, games, byes)
        if paired.bye is not None:
            byes.append(Bye(r, paired.bye, ByeKind.PAIRING))
        games += [SwissGame(r, w, b, data.draw(RESULTS)) for w, b in paired.pairings]


# ------------------------------------------------------------------------------------------------
# Round robin


@given(st.integers(2, 16), st.booleans())
def test_round_robins_meet_every_pair_the_right_number_of_times_with_balanced_colours(n, double):
    players = list(range(100, 100 + n))
    rounds = round_robin_rounds(players, double=double)
    cycles = 2 if double else 1
    assert len(rounds) == cycles * (n - 1 + n % 2)
    meetings = Counter(frozenset(p) for r in rounds for p in r.pairings)
    assert set(meetings) == {frozenset((a, b)) for a in players for b in players if a < b}
    assert set(meetings.values()) == {cycles}
    whites, blacks = Counter(), Counter()
    for r in rounds:
        seated = [p for pair in r.pairings for p in pair] + ([r.bye] if r.bye is not None else [])
        assert sorted(seated) == players if n % 2 == 0 or r.bye is not None else False
        for w, b in r.pairings:
            whites[w] += 1
            blacks[b] += 1
    assert all(abs(whites[p] - blacks[p]) <= 1 for p in players)
    if double:
        colours = {}
        for r in rounds:
            for w, b in r.pairings:
                colours.setdefault(frozenset((w, b)), []).append(w)
        assert all(len(set(ws)) == 2 for ws in colours.values())  # colours reversed in the second meeting
    assert Counter(r.bye for r in rounds if r.bye is not None) == (
        Counter({p: cycles for p in players}) if n % 2 else Counter())


# ------------------------------------------------------------------------------------------------
# Arena against a recomputation


def _recompute(player, games, rules):
    """The lichess arena rules from the FAQ, as a small state machine over the player's games."""
    total, wins_in_a_row, drawing = 0, 0, False
    for g in games:
        if player not in (g.white, g.black):
            continue
        mine = W if g.white == player else B
        berserk = rules.berserk and (g.white_berserk if mine is W else g.black_berserk)
        fire = rules.streaks and wins_in_a_row >= 2
        if g.winner is None:
            if g.plies < 20:
                pts = 0
            elif fire:
                pts = 2
            elif drawing and g.plies < (rules.draw_streak_min_plies or 0):
                pts = 0
            else:
                pts = 1
            wins_in_a_row, drawing = 0, True
        elif g.winner is mine:
            pts = (4 if fire else 2) + (1 if berserk and g.plies >= 14 else 0)
            wins_in_a_row, drawing = wins_in_a_row + 1, False
        else:
            pts, wins_in_a_row = 0, 0
        total += pts
    return total


arena_games = st.lists(
    st.builds(lambda pair, winner, plies, wb, bb: ArenaGame(pair[0], pair[1], winner, plies, wb, bb),
              st.sampled_from([(a, b) for a in range(1, 5) for b in range(1, 5) if a != b]),
              RESULTS, st.integers(0, 120), st.booleans(), st.booleans()),
    max_size=40)
arena_rules = st.builds(ArenaRules, streaks=st.booleans(), berserk=st.booleans(),
                        draw_streak_min_plies=st.sampled_from([None, 60, 40]))


@given(arena_games, arena_rules)
def test_arena_scores_equal_a_recomputation_from_the_games(games, rules):
    for player in range(1, 5):
        assert arena_sheet(player, games, rules).total == _recompute(player, games, rules)
    standings = arena_standings([ArenaPlayer(p, 1500) for p in range(1, 5)], games, rules)
    assert [s.score for s in standings] == sorted((s.score for s in standings), reverse=True)


@given(st.lists(st.tuples(st.integers(0, 19), st.integers(0, 19)), max_size=60),
       st.sets(st.integers(0, 19), min_size=2), st.randoms(use_true_random=False))
def test_arena_waves_pair_each_waiting_player_once_and_never_with_their_last_opponent(pairs, waiting, rng):
    games = [ArenaGame(a, b, None, 40) for a, b in pairs if a != b]
    standings = arena_standings([ArenaPlayer(p, 1500 + p) for p in range(20)], games)
    made = pair_wave([Waiting(p, float(p)) for p in waiting], standings, games, active_players=20, rng=rng)
    seated = [p for pair in made for p in pair]
    assert len(seated) == len(set(seated)) and set(seated) <= waiting
    last = last_opponents(games)
    assert all(last.get(a) != b and last.get(b) != a for a, b in made)


@settings(max_examples=8, deadline=None)
@given(st.integers(65, 130), st.integers(1, 7), st.randoms(use_true_random=False))
def test_large_swiss_events_seat_everyone_once_and_keep_the_absolute_rules(n, rounds, rng):
    players = [SwissPlayer(i, rng.randint(1000, 2500)) for i in range(1, n + 1)]
    games, byes = [], []
    for r in range(1, rounds + 1):
        paired = pair_round(players, games, byes, r)
        seated = [p for pair in paired.pairings for p in pair] + ([paired.bye] if paired.bye else [])
        assert sorted(seated) == list(range(1, n + 1))
        if paired.bye is not None:
            assert paired.bye not in {b.player for b in byes}
            byes.append(Bye(r, paired.bye, ByeKind.PAIRING))
        seq = _history(games)
        assert not any(_breaks_colour_rule(seq.get(w, []), W) or _breaks_colour_rule(seq.get(b, []), B)
                       for w, b in paired.pairings)
        games += [SwissGame(r, w, b, rng.choice([W, B, None])) for w, b in paired.pairings]
    assert len({frozenset((g.white, g.black)) for g in games}) == len(games)
