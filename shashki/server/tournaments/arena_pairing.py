"""Arena pairing: who plays whom among the players waiting, with which colours, and when a paused player may
come back, as lichess runs it (lila `arena/PairingSystem.scala`, `arena/AntmaPairing.scala`,
`ColorHistory.scala`, `WaitingUsers.scala`, `Pause.scala`). Pure rules, no I/O: the service calls `pair_wave`
whenever players are waiting (lila does every few seconds) and starts the games it returns.

>>> from shashki.server.tournaments.arena import ArenaPlayer, arena_standings
>>> standings = arena_standings([ArenaPlayer(i, 2000 - i) for i in range(1, 5)], [])
>>> sorted(sorted(pair) for pair in pair_wave([Waiting(p, 0.0) for p in (1, 2, 3, 4)], standings, []))
[[1, 2], [3, 4]]
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from shashki.rules import Color
from shashki.server.tournaments.arena import ArenaGame, ArenaStanding

# ------------------------------------------------------------------------------------------------
# Colour history (lila ColorHistory.scala)


MAX_STRIKE = 3  # lila `AntmaPairing.maxStrike`


@dataclass(frozen=True)
class ColorHistory:
    """`strike`: games in a row with the same colour (positive white, negative black); `balance`: whites minus
    blacks (lila `ColorHistory`)."""

    strike: int = 0
    balance: int = 0

    def then(self, color: Color) -> ColorHistory:
        if color is Color.WHITE:
            return ColorHistory(max(self.strike + 1, 1), self.balance + 1)
        return ColorHistory(min(self.strike - 1, -1), self.balance - 1)

    def could_play(self, other: ColorHistory) -> bool:
        """lila `couldPlay`: not both with `MAX_STRIKE` games of the same colour in a row."""
        return ((self.strike > -MAX_STRIKE or other.strike > -MAX_STRIKE)
                and (self.strike < MAX_STRIKE or other.strike < MAX_STRIKE))

    def gets_white_against(self, other: ColorHistory) -> bool | None:
        """lila `firstGetsWhite`: the lower (strike, balance) takes white; None when equal (the draw
        decides)."""
        mine, theirs = (self.strike, self.balance), (other.strike, other.balance)
        return None if mine == theirs else mine < theirs


def color_histories(games: Iterable[ArenaGame]) -> dict[int, ColorHistory]:
    histories: dict[int, ColorHistory] = {}
    for g in games:
        histories[g.white] = histories.get(g.white, ColorHistory()).then(Color.WHITE)
        histories[g.black] = histories.get(g.black, ColorHistory()).then(Color.BLACK)
    return histories


def last_opponents(games: Iterable[ArenaGame]) -> dict[int, int]:
    """Each player's most recent opponent (lila `PairingRepo.lastOpponents`); games in order of pairing."""
    last: dict[int, int] = {}
    for g in games:
        last[g.white], last[g.black] = g.black, g.white
    return last


# ------------------------------------------------------------------------------------------------
# Pauses (lila Pause.scala)


PAUSE_MEMORY_SECONDS = 20 * 60  # lila: "After 20 minutes without any pause, the delay is reinitialized"


def rejoin_delay(pause_times: Sequence[float], now: float, clock_limit: int, clock_increment: int) -> float:
    """Seconds a paused player must still wait before being paired again (0: at once), lila `Pause`:
    "The first pause results in a delay of 10 seconds. Next delays durations increase linearly as
    `pauses * gameTotalTime / 15` ... with maximum of 120 seconds. After 20 minutes without any pause, the
    delay is reinitialized to 10s." The estimated game time is limit + 40 x increment (lila
    `Clock.Config.estimateTotalSeconds`). `pause_times` are the player's pauses, oldest first.

    >>> rejoin_delay([100.0], 105.0, 300, 0)
    5.0
    >>> rejoin_delay([0.0, 100.0], 100.0, 300, 0)   # second pause in 5+0: 300 / 15 = 20 s
    20.0
    """
    if not pause_times:
        return 0.0
    pauses = 1
    for earlier, later in zip(reversed(pause_times[:-1]), reversed(pause_times[1:]), strict=True):
        if later - earlier >= PAUSE_MEMORY_SECONDS:
            break
        pauses += 1
    base = (clock_limit + 40 * clock_increment) // 15
    delay = min(max(base * (pauses - 1), 10), 120)
    remaining = pause_times[-1] + delay - now
    return remaining if remaining > 1 else 0.0  # lila: `(seconds > 1).option(...)`


# ------------------------------------------------------------------------------------------------
# Pairing waves (lila arena/PairingSystem.scala, AntmaPairing.scala)


@dataclass(frozen=True)
class Waiting:
    """A player waiting for a game; `since` orders the arrivals (lila `WaitingUsers.hash`)."""

    player: int
    since: float


MAX_GROUP_SIZE = 40  # lila pairs groups of up to 100 with its Scala matcher, lidraughts 44; see pair_wave
_Pair = tuple[int, int]


@dataclass
class _Ranked:
    player: int
    rank: int
    rating: int
    colors: ColorHistory = field(default_factory=ColorHistory)


def pair_wave(waiting: Sequence[Waiting], standings: Sequence[ArenaStanding], games: Sequence[ArenaGame], *,
              recently_started: bool = False, active_players: int | None = None,
              rng: random.Random | None = None) -> list[_Pair]:
    """One pairing wave: the (white, black) games to start now among the players waiting.

    lila `PairingSystem.createPairings`: with an odd number waiting, the latest arrival waits for the next
    wave (`WaitingUsers.evenNumber`), unless that leaves nobody to pair, when everyone is tried. Just after
    the start, players are paired down the ranking (which is by rating then), in pairs, with random colours
    (`initialPairings`). Later, the best-ranked waiting players are paired by a maximum-weight matching
    (`AntmaPairing`): a pair costs |rank a - rank b| x rank factor + |rating a - rating b|, where the rank
    factor runs from 2000 at the top to 300 at the bottom (`rankFactorFor`, so that leaders meet leaders),
    and two players may not meet if either was the other's last opponent, or if both have played three games
    in a row with the same colour (`ColorHistory.couldPlay`). When the arena has only two active players,
    they may meet again (`duelScore`). lila matches two groups of up to 100 and pairs the next six groups by
    rank proximity; here the groups hold `MAX_GROUP_SIZE` (networkx's matching is Python, lila's is Scala)
    and proximity pairs everyone else, still never with the last opponent (lila's proximity pairs do not
    check it). Colours: the player with the lower (strike, balance) colour history takes white
    (`ColorHistory.firstGetsWhite`), equal ones by lot.

    `standings` is `arena_standings(...)` of every player (withdrawn or paused players are simply not
    waiting); `games` are every game paired so far, finished or running, in the order they were paired (a
    running game's `winner` is ignored here); `active_players` is the number of players not withdrawn nor
    paused.
    """
    rng = rng or random.Random(0)
    rank = {s.player: s for s in standings}
    present = [w for w in waiting if w.player in rank]
    if len(present) < 2:
        return []
    everyone = {w.player for w in present}
    if len(present) % 2:
        latest = max(present, key=lambda w: (w.since, w.player)).player
        even = everyone - {latest}
    else:
        even = everyone
    histories = color_histories(games)
    last = last_opponents(games)
    active = active_players if active_players is not None else len(standings)
    pairs = _make_pairs(even, rank, histories, last, recently_started, active, rng)
    if not pairs and len(present) % 2:
        pairs = _make_pairs(everyone, rank, histories, last, recently_started, active, rng)
    return pairs


def _make_pairs(players: set[int], rank: Mapping[int, ArenaStanding],
                histories: Mapping[int, ColorHistory], last: Mapping[int, int], recently_started: bool,
                active: int, rng: random.Random) -> list[_Pair]:
    ranked = sorted((_Ranked(p, rank[p].rank, rank[p].rating, histories.get(p, ColorHistory()))
                     for p in players), key=lambda r: r.rank)
    if recently_started:
        pairs = [(ranked[i], ranked[i + 1]) for i in range(0, len(ranked) - 1, 2)]
        return [(a.player, b.player) if rng.random() < 0.5 else (b.player, a.player) for a, b in pairs]
    if len(ranked) <= MAX_GROUP_SIZE:
        matched = _best_pairs(ranked, last, active == 2)
    else:
        group = min(len(ranked) // 4 * 2, MAX_GROUP_SIZE)  # lila: "make sure groupSize is even with / 4 * 2"
        matched = (_best_pairs(ranked[:group], last, False)
                   + _best_pairs(ranked[group:2 * group], last, False)
                   + _proximity_pairs(ranked[2 * group:], last))
    return [_with_colors(a, b, rng) for a, b in matched]


def _just_played(a: int, b: int, last: Mapping[int, int]) -> bool:
    return last.get(a) == b or last.get(b) == a


def _best_pairs(ranked: list[_Ranked], last: Mapping[int, int], duel: bool) -> list[tuple[_Ranked, _Ranked]]:
    """lila `AntmaPairing`: the minimum-cost maximum-cardinality matching of the group."""
    import networkx as nx

    if len(ranked) < 2:
        return []
    max_rank = max(r.rank for r in ranked)
    graph: nx.Graph[int] = nx.Graph()
    costs = {}
    for i, a in enumerate(ranked):
        for j in range(i + 1, len(ranked)):
            b = ranked[j]
            if duel:
                costs[i, j] = 1
                continue
            if _just_played(a.player, b.player, last) or not a.colors.could_play(b.colors):
                continue
            factor = 300 + 1700 * (max_rank - min(a.rank, b.rank)) // max_rank
            costs[i, j] = abs(a.rank - b.rank) * factor + abs(a.rating - b.rating)
    if not costs:
        return []
    ceiling = max(costs.values()) + 1
    for (i, j), cost in costs.items():
        graph.add_edge(i, j, weight=ceiling - cost)  # networkx maximises: the cheapest pairs weigh most
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    return sorted(((ranked[min(i, j)], ranked[max(i, j)]) for i, j in matching), key=lambda p: p[0].rank)


def _proximity_pairs(ranked: list[_Ranked], last: Mapping[int, int]) -> list[tuple[_Ranked, _Ranked]]:
    """lila `proximityPairings`: neighbours in the ranking, two by two; a player's last opponent is skipped
    for the next of the following three (and the skipped one waits for its own turn)."""
    pairs = []
    free = list(ranked)
    while len(free) >= 2:
        a = free.pop(0)
        for k in range(min(3, len(free))):
            b = free[k]
            if not _just_played(a.player, b.player, last) and a.colors.could_play(b.colors):
                pairs.append((a, free.pop(k)))
                break
    return pairs


def _with_colors(a: _Ranked, b: _Ranked, rng: random.Random) -> _Pair:
    first_white = a.colors.gets_white_against(b.colors)
    if first_white is None:
        first_white = rng.random() < 0.5
    return (a.player, b.player) if first_white else (b.player, a.player)
