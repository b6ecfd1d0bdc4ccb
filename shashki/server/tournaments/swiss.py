"""Swiss tournaments: who plays whom in the next round, with which colours, and who gets the bye.

Pure rules, no I/O. The pairing is a maximum-weight, maximum-cardinality matching (networkx's blossom
algorithm) whose edge weights put the FIDE Dutch system's criteria (FIDE Handbook C.04.1 "Basic rules for
Swiss systems", C.04.3 "FIDE (Dutch) System") in their order of priority, each level outweighing everything
below it:

1. no pair meets twice (C.04.1 a): such pairs get no edge at all;
2. nobody receives the pairing-allocated bye twice (C.04.1 d), where avoidable;
3. the absolute colour rule (C.04.1 f, C.04.3 A.6 a): no player's whites and blacks differ by more than 2, and
   nobody gets the same colour three times in a row, where avoidable;
4. score differences: the squared difference (in half points) of each pair's scores, so that as few and as
   small floats as possible are made; the bye goes to the lowest score group (C.04.3 A.3, C.2 and C.7: the
   bye is treated as an opponent two half points below the lowest score);
5. colour preferences (C.04.3 C.12, C.13): as few players as possible denied their preference, then as few
   denied a strong one;
6. the Dutch order (C.04.3 B.2): within a score group the top half meets the bottom half in order (1 v n/2+1,
   2 v n/2+2, ...), a float goes from the bottom of the higher group to the top of the lower one, and the bye
   to the lowest-ranked player. The cost is the distance from that ideal, which approximates the Dutch
   system's exact order of transpositions and exchanges.

`maxcardinality=True` makes the matching pair everyone it can first. Players who cannot be paired at all
without a repeat (only possible near the end of a small event, when everyone has met) are returned as
`unpaired`: they sit the round out, and the service may end the tournament (as lichess does "when all
possible pairings have been played").

networkx's matching is O(n³) Python (about 0.1 s for 64 players in a late round); larger events are paired
score group by score group in slices (see `_pair_large`), which keeps the priorities above inside each slice.

Scores here count half points as integers (a win 2, a draw 1); `standings.Standing` shows them as points.

What the rounds before say about each player and the colour rules (preferences, the absolute rule, the
allocation of a pair's colours) are `swiss_colors`; this module reads the history and makes the matching.

>>> players = [SwissPlayer(i, 2000 - 10 * i) for i in range(1, 5)]
>>> pair_round(players, [], [], 1).pairings   # round 1: 1 v 3 (1 white), 4 v 2 (2 black)
((1, 3), (4, 2))
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

from shashki.rules import Color
from shashki.server.tournaments.swiss_colors import PlayerRecord, allocate_colors, pair_costs


@dataclass(frozen=True)
class SwissPlayer:
    """A registered player. `withdrawn` players are not paired any more (they keep their results)."""

    id: int
    rating: int
    withdrawn: bool = False


@dataclass(frozen=True)
class SwissGame:
    """A game of round `round`; `winner` None is a draw; `played` False for a game won by forfeit (a
    round robin's game against a player who withdrew), which no tie-break counts as won over the board.
    `double_forfeit`: neither player played (a round robin's game between two players who both withdrew,
    winner None, stored "0-0"): no draw but a loss for both, 0 points each, and no game over the board (FIDE
    C.07 16: an unplayed round of each)."""

    round: int
    white: int
    black: int
    winner: Color | None
    played: bool = True
    double_forfeit: bool = False

    @property
    def points(self) -> tuple[int, int]:
        """(White's, Black's) half points: a win 2, a draw 1, a double forfeit nothing for either."""
        if self.double_forfeit:
            return 0, 0
        return {None: (1, 1), Color.WHITE: (2, 0), Color.BLACK: (0, 2)}[self.winner]


class ByeKind(Enum):
    PAIRING = "pairing"  # the odd player out: 1 point (lichess "a bye worth one point"; FIDE C.04.1 c)
    LATE_JOIN = "late-join"  # lichess: "Late joiners get a single bye, even if they missed several rounds"


@dataclass(frozen=True)
class Bye:
    round: int
    player: int
    kind: ByeKind

    @property
    def half_points(self) -> int:
        """A pairing-allocated bye is worth a win (1 point), a late-join bye half a point (lichess Swiss
        FAQ)."""
        return 2 if self.kind is ByeKind.PAIRING else 1


def can_late_join(rounds_started: int, rounds: int) -> bool:
    """lichess Swiss FAQ: players may join "until more than half the rounds have started; for example in a
    11-rounds swiss players can join before round 6 starts and in a 12-rounds before round 7 starts".

    >>> can_late_join(5, 11), can_late_join(6, 11), can_late_join(6, 12)
    (True, False, True)
    """
    return rounds_started <= rounds // 2


def late_join_bye(player: int, rounds_started: int) -> Bye | None:
    """The single half-point bye of a player joining after the start (lichess), marked on the last round they
    missed; None for a player who joins before round 1."""
    return Bye(rounds_started, player, ByeKind.LATE_JOIN) if rounds_started >= 1 else None


@dataclass(frozen=True)
class SwissRound:
    """The pairings of a round in board order, (white, black); the bye; the players who could not be
    paired."""

    pairings: tuple[tuple[int, int], ...]
    bye: int | None
    unpaired: tuple[int, ...] = ()


# ------------------------------------------------------------------------------------------------
# What the history says about each player (`swiss_colors.PlayerRecord`)


def _states(players: Iterable[SwissPlayer], games: Iterable[SwissGame], byes: Iterable[Bye],
            round_number: int) -> list[PlayerRecord]:
    everyone = sorted(players, key=lambda p: (-p.rating, p.id))
    states = {p.id: PlayerRecord(p.id, p.rating, n + 1) for n, p in enumerate(everyone)}
    for g in sorted(games, key=lambda g: g.round):
        if g.round >= round_number:
            continue
        white, black = states.get(g.white), states.get(g.black)
        points = g.points
        for state, color, other, pts in ((white, Color.WHITE, g.black, points[0]),
                                         (black, Color.BLACK, g.white, points[1])):
            if state is not None:
                state.score += pts
                state.opponents.add(other)
                if not g.double_forfeit:  # nobody sat at that board: no colour played
                    state.colors.append(color)
                    state.color_in[g.round] = color
    for b in byes:
        if b.round < round_number and b.player in states:
            states[b.player].score += b.half_points
            states[b.player].had_pairing_bye |= b.kind is ByeKind.PAIRING
    active = {p.id for p in everyone if not p.withdrawn}
    ordered = sorted((s for s in states.values() if s.id in active), key=lambda s: (-s.score, s.number))
    for rank, s in enumerate(ordered):
        s.rank = rank
    return ordered


# ------------------------------------------------------------------------------------------------
# The matching


BYE = -1  # the bye's node in the graph
# What a matching makes: the pairs, the player given the bye, the players left unpaired.
Matching = tuple[list[tuple[PlayerRecord, PlayerRecord]], PlayerRecord | None, list[PlayerRecord]]
SMALL_EVENT = 64  # up to this many players, one matching over everyone (about 0.1 s at 64)


def _order_cost(a: PlayerRecord, b: PlayerRecord, size: dict[int, int], place: dict[int, int]) -> int:
    """Distance from the Dutch ideal (C.04.3 B.2): S1[i] v S2[i] within a group (a transposition of S2 costs
    its distance, an exchange between the halves more); across groups, the lowest of the higher group against
    the highest of the lower one. `size` is each score group's size, `place` each player's place in it."""
    if a.rank > b.rank:
        a, b = b, a
    if a.score == b.score:
        n, half = size[a.score], size[a.score] // 2
        transposition = abs((place[b.id] - place[a.id]) - half)
        # Two players of the same half: an exchange between S1 and S2, which the Dutch system tries only after
        # every transposition of S2 (C.04.3 D.1, D.2), so it costs more than all transpositions together.
        exchange = place[a.id] >= half or place[b.id] < half
        return transposition + (half * n if exchange else 0)
    return (size[a.score] - 1 - place[a.id]) + place[b.id]


def _ideal(states: list[PlayerRecord]) -> list[tuple[PlayerRecord, PlayerRecord]] | None:
    """The Dutch ideal S1[i] v S2[i] of one even score group, if it has no repeat and every player gets their
    colour preference: then it is what the matching would return (every cost level at 0)."""
    if len(states) % 2 or len({s.score for s in states}) != 1:
        return None
    half = len(states) // 2
    pairs = list(zip(states[:half], states[half:], strict=True))
    for a, b in pairs:
        if b.id in a.opponents or pair_costs(a, b) != (0, 0, 0):
            return None
    return pairs


def _match(states: list[PlayerRecord], with_bye: bool, strict: bool) -> Matching:
    """One matching over `states` with the weights of the module docstring. `strict` leaves out the pairs that
    break the absolute colour rule (used for the slices of a large event, whose leftovers float down)."""
    import networkx as nx

    by_rank = sorted(states, key=lambda s: s.rank)
    if strict and not with_bye and (ideal := _ideal(by_rank)) is not None:
        return ideal, None, []
    size: dict[int, int] = {}
    place: dict[int, int] = {}
    for s in by_rank:
        place[s.id] = size.get(s.score, 0)
        size[s.score] = place[s.id] + 1
    lowest = min((s.score for s in states), default=0)
    edges: dict[tuple[int, int], tuple[int, int, int, int, int, int]] = {}
    for i, a in enumerate(by_rank):
        for b in by_rank[i + 1:]:
            if b.id in a.opponents:
                continue
            violations, denied, strong = pair_costs(a, b)
            if strict and violations:
                continue
            order = _order_cost(a, b, size, place)
            edges[a.id, b.id] = (0, violations, (a.score - b.score) ** 2, denied, strong, order)
    if with_bye:
        for n, s in enumerate(reversed(by_rank)):
            edges[s.id, BYE] = (int(s.had_pairing_bye), 0, (s.score - lowest + 2) ** 2, 0, 0, n)
    if not edges:
        return [], None, list(states)
    pairs = len(states) // 2 + 1
    weights = {k: 0 for k in edges}
    scale = 1
    for level in range(5, -1, -1):
        top = max(cost[level] for cost in edges.values())
        for k, cost in edges.items():
            weights[k] += cost[level] * scale
        scale *= top * pairs + 1
    graph: nx.Graph[int] = nx.Graph()
    for (u, v), w in weights.items():
        graph.add_edge(u, v, weight=scale - w)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    by_id = {s.id: s for s in states}
    result, bye, matched = [], None, set()
    for u, v in matching:
        if BYE in (u, v):
            bye = by_id[u if v == BYE else v]
            matched.add(bye.id)
        else:
            result.append((by_id[u], by_id[v]))
            matched.update((u, v))
    return result, bye, [s for s in states if s.id not in matched]


def pair_round(players: Sequence[SwissPlayer], games: Sequence[SwissGame], byes: Sequence[Bye],
               round_number: int) -> SwissRound:
    """The pairings of round `round_number` (1 for the first) from the games and byes of the earlier rounds.

    Every player not withdrawn is paired; with an odd number, one gets the bye (a `Bye(round_number, id,
    ByeKind.PAIRING)` for the service to store)."""
    states = _states(players, games, byes, round_number)
    if len(states) <= SMALL_EVENT:
        pairs, bye, unpaired = _match(states, len(states) % 2 == 1, strict=False)
    else:
        pairs, bye, unpaired = _pair_large(states)
    board = sorted(pairs, key=lambda p: (-max(p[0].score, p[1].score), min(p[0].rank, p[1].rank)))
    colored = [allocate_colors(a, b) for a, b in board]
    return SwissRound(tuple((w.id, b.id) for w, b in colored), bye.id if bye else None,
                      tuple(s.id for s in sorted(unpaired, key=lambda s: s.rank)))


REPAIR_WIDTH = 64  # how many of the lowest paired players the repair may reopen for the absolute rules
SLICE = 16  # players per matching in a large event: 8 of the top half and the 8 they face in the bottom half


def _pair_large(states: list[PlayerRecord]) -> Matching:
    """Large events, score group by score group from the top (the Dutch brackets, C.04.3 A.3). A bracket (the
    group and the players floating down into it) is cut into slices that each hold the S1 players i..i+7 and
    the S2 players i..i+7 they face in the Dutch order, so every ideal pair lies inside one slice; each slice
    is matched without repeats and without breaking the absolute colour rule, and its leftovers join the next
    slice, then the next group (they float down). Whoever is left at the bottom is paired, together with the
    lowest pairs made so far, by the full matching of `_match` (bye included), widened until it succeeds:
    this is where the last groups' repeats and colours are repaired."""
    groups: dict[int, list[PlayerRecord]] = {}
    for s in states:
        groups.setdefault(s.score, []).append(s)
    pairs: list[tuple[PlayerRecord, PlayerRecord]] = []
    carry: list[PlayerRecord] = []
    for score in sorted(groups, reverse=True):
        bracket = carry + groups[score]
        half = len(bracket) // 2
        if len(bracket) <= SLICE:
            slices = [bracket]
        else:
            top, bottom = bracket[:half], bracket[half:]
            step = SLICE // 2
            slices = [top[k:k + step] + bottom[k:min(k + step, half)] for k in range(0, half, step)]
            slices[-1] += bottom[half:]
        carry = []
        for piece in slices:
            made, _, left = _match(carry + piece, False, strict=True)
            pairs += made
            carry = sorted(left, key=lambda s: s.rank)
    if not carry:
        return pairs, None, []
    width = SLICE
    while True:
        pairs.sort(key=lambda p: min(p[0].rank, p[1].rank))
        reopened = [s for p in pairs[len(pairs) - width // 2:] for s in p] if width // 2 < len(pairs) else \
            [s for p in pairs for s in p]
        kept = pairs[:len(pairs) - len(reopened) // 2]
        pool = sorted(carry + reopened, key=lambda s: s.rank)
        made, bye, left = _match(pool, len(pool) % 2 == 1, strict=False)
        clean = all(pair_costs(a, b)[0] == 0 for a, b in made) and not (bye and bye.had_pairing_bye)
        # A colour break or a second bye that the bottom `REPAIR_WIDTH` players cannot avoid is accepted (the
        # matching's cost grows as the cube of its size); players left without any opponent are not.
        if (not left and (clean or width >= REPAIR_WIDTH)) or len(kept) == 0:
            return kept + made, bye, left
        width *= 2
