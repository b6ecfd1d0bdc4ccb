"""Arena tournaments: scoring, standings, pairing waves and pauses, as lichess and lidraughts run them.

Pure rules, no I/O: the tournament service hands these functions the games it stored and the players waiting,
and stores what they return. Every rule cites the lila source it follows (lichess-org/lila,
`modules/tournament/src/main/arena/ArenaSheet.scala`, `Pairing.scala`, `arena/PairingSystem.scala`,
`arena/AntmaPairing.scala`, `ColorHistory.scala`, `WaitingUsers.scala`, `Pause.scala`, `Player.scala`,
`TournamentApi.scala`) and the arena FAQ lichess shows on every arena page ("How are scores calculated?",
"Arena Berserk", "Other important rules"). Lidraughts (RoepStoep/lidraughts) runs the same sheet with the same
ply limits; its only difference is that it predates the draw-streak rule, which is therefore a parameter here.

Scoring, one finished game at a time, for each player (lila `Sheet.addResult`):

- a win 2, a draw 1, a loss 0;
- after two wins in a row the player is "on fire": every further game is doubled (a win 4, a draw 2) until a
  game that is not a win; the streak can be switched off per tournament (`ArenaRules.streaks`);
- a draw before ply 20 ("drawing the game within the first 10 moves") gives neither player anything;
- a draw that continues a draw streak (the player's previous non-loss result was a draw: "the draw streak can
  only be broken by a win, not a loss or a draw") gives nothing unless the game lasted `draw_streak_min_plies`
  (lichess: 30 moves in standard chess);
- berserk adds one point to a win if the game lasted at least 14 plies ("at least 7 moves").

A game still running when the arena's time ends counts here as soon as it finishes (issue 13 decides so;
lichess does not count it): scoring is per finished game and this module has no clock.

>>> W, B = Color.WHITE, Color.BLACK
>>> games = [ArenaGame(1, 2, W, 40), ArenaGame(1, 3, W, 40), ArenaGame(4, 1, None, 40)]
>>> sheet = arena_sheet(1, games)
>>> [e.points for e in sheet.entries], sheet.total   # two wins, then a draw on fire: 2 + 2 + (2 x 1)
([2, 2, 2], 6)
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum

from shashki.rules import Color


@dataclass(frozen=True)
class ArenaRules:
    """The parameters of one arena's scoring (lila `Pairing.scala`, `ArenaSheet.scala`)."""

    streaks: bool = True  # lila `Streakable`: "After 2 wins, consecutive wins grant 4 points instead of 2"
    berserk: bool = True  # lila `berserkable`: "Let players halve their clock time to gain an extra point"
    quick_draw_plies: int = 20  # lila `Pairing.quickDraw`: a draw with fewer plies scores 0 for both
    berserk_min_plies: int = 14  # lila `Pairing.notSoQuickFinish`: berserk counts from 14 plies (7 moves)
    # lila `Pairing.longGame`: 60 plies (30 moves) for standard chess; lidraughts has no draw-streak rule
    # (None switches it off).
    draw_streak_min_plies: int | None = 60


@dataclass(frozen=True)
class ArenaGame:
    """One finished arena game. `winner` None is a draw; `plies` is the number of half-moves played.

    The ratings are the players' ratings when the game started (for the performance tie-break, lila
    `TournamentApi.performanceOf`)."""

    white: int
    black: int
    winner: Color | None
    plies: int
    white_berserk: bool = False
    black_berserk: bool = False
    white_rating: int = 1500
    black_rating: int = 1500

    def color_of(self, player: int) -> Color:
        return Color.WHITE if player == self.white else Color.BLACK

    def opponent_of(self, player: int) -> int:
        return self.black if player == self.white else self.white


class Outcome(Enum):
    """A player's result in one game, as the sheet shows it (lila `Sheet.Result`)."""

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"
    QUICK_DRAW = "quick-draw"  # lila `Result.DQ`: drawn within `quick_draw_plies`


class Flag(Enum):
    """How a sheet entry counts (lila `Sheet.Flag`)."""

    NULL = 0  # a draw in a draw streak, too short to count: 0 points
    NORMAL = 1
    STREAK_STARTER = 2  # a win that began a streak (both first wins of a streak carry it)
    DOUBLE = 3  # on fire: the game's points are doubled


@dataclass(frozen=True)
class SheetEntry:
    """One game on a player's sheet."""

    outcome: Outcome
    flag: Flag
    berserk: bool  # the player berserked
    berserk_valid: bool  # ... and the game was long enough for the bonus to count

    @property
    def points(self) -> int:
        """lila `Sheet.Score.value`: 4/2 for a win, 2/1/0 for a draw, 0 for a loss, +1 for a valid berserk
        win."""
        if self.outcome is Outcome.WIN:
            base = 4 if self.flag is Flag.DOUBLE else 2
            return base + (1 if self.berserk_valid else 0)
        if self.outcome is Outcome.DRAW:
            return {Flag.DOUBLE: 2, Flag.NULL: 0}.get(self.flag, 1)
        return 0


@dataclass(frozen=True)
class Sheet:
    """A player's results in order of play, their total and whether they are on fire now."""

    entries: tuple[SheetEntry, ...]
    total: int
    on_fire: bool


def _on_fire(entries: Sequence[SheetEntry]) -> bool:
    """lila `Sheet.isOnFire`: the last two results are wins."""
    return len(entries) >= 2 and all(e.outcome is Outcome.WIN for e in entries[-2:])


def _in_draw_streak(entries: Sequence[SheetEntry]) -> bool:
    """lila `Sheet.isDrawStreak`: walking back over losses, the last other result is a draw (quick or not)."""
    for entry in reversed(entries):
        if entry.outcome is Outcome.WIN:
            return False
        if entry.outcome in (Outcome.DRAW, Outcome.QUICK_DRAW):
            return True
    return False


def add_result(entries: list[SheetEntry], player: int, game: ArenaGame, rules: ArenaRules) -> None:
    """Append `game` to `player`'s sheet `entries` (oldest first), as lila `Sheet.addResult` does."""
    berserked = rules.berserk and (game.white_berserk if game.white == player else game.black_berserk)
    valid = berserked and game.plies >= rules.berserk_min_plies
    streaks = rules.streaks
    if game.winner is None:
        if game.plies < rules.quick_draw_plies:
            entry = SheetEntry(Outcome.QUICK_DRAW, Flag.NORMAL, berserked, valid)
        elif streaks and _on_fire(entries):
            entry = SheetEntry(Outcome.DRAW, Flag.DOUBLE, berserked, valid)
        elif (rules.draw_streak_min_plies is not None and game.plies < rules.draw_streak_min_plies
              and _in_draw_streak(entries)):
            entry = SheetEntry(Outcome.DRAW, Flag.NULL, berserked, valid)
        else:
            entry = SheetEntry(Outcome.DRAW, Flag.NORMAL, berserked, valid)
    elif game.color_of(player) is game.winner:
        if not streaks:
            flag = Flag.NORMAL
        elif _on_fire(entries):
            flag = Flag.DOUBLE
        else:
            flag = Flag.STREAK_STARTER
        entry = SheetEntry(Outcome.WIN, flag, berserked, valid)
    else:
        entry = SheetEntry(Outcome.LOSS, Flag.NORMAL, berserked, valid)
    # A win marked as a streak starter stays one only if the next game is also won (lila: "update the streak
    # flag of the previous score").
    if entries and entries[-1].flag is Flag.STREAK_STARTER and entry.outcome is not Outcome.WIN:
        last = entries[-1]
        entries[-1] = SheetEntry(last.outcome, Flag.NORMAL, last.berserk, last.berserk_valid)
    entries.append(entry)


def arena_sheet(player: int, games: Iterable[ArenaGame], rules: ArenaRules = ArenaRules()) -> Sheet:
    """`player`'s sheet from the finished games in the order they finished (lila `Sheet.buildFromScratch`)."""
    entries: list[SheetEntry] = []
    for game in games:
        if player in (game.white, game.black):
            add_result(entries, player, game, rules)
    return Sheet(tuple(entries), sum(e.points for e in entries), rules.streaks and _on_fire(entries))


# ------------------------------------------------------------------------------------------------
# Standings


@dataclass(frozen=True)
class ArenaPlayer:
    """A player of the arena: `rating` is their current rating; `withdrawn` is a player who left or paused."""

    id: int
    rating: int
    withdrawn: bool = False


@dataclass(frozen=True)
class ArenaStanding:
    rank: int
    player: int
    rating: int
    score: int
    sheet: Sheet
    performance: int | None  # None before the first game

    @property
    def on_fire(self) -> bool:
        return self.sheet.on_fire


PERFORMANCE_DIFF = 500  # lila `TournamentApi.performanceOf`: opponent's rating +500 for a win, -500 a loss


def performance(player: int, games: Iterable[ArenaGame]) -> int | None:
    """Tournament performance: the mean over the player's games of the opponent's rating at the start of the
    game, plus 500 for a win and minus 500 for a loss (lila `TournamentApi.performanceOf`, which keeps a
    running mean; this is the exact mean, rounded). None before the first game."""
    values = []
    for g in games:
        if player not in (g.white, g.black):
            continue
        rating = g.black_rating if player == g.white else g.white_rating
        sign = 0 if g.winner is None else (1 if g.color_of(player) is g.winner else -1)
        values.append(rating + PERFORMANCE_DIFF * sign)
    return round(sum(values) / len(values)) if values else None


def arena_standings(players: Iterable[ArenaPlayer], games: Sequence[ArenaGame],
                    rules: ArenaRules = ArenaRules()) -> list[ArenaStanding]:
    """Everyone ranked by score, ties broken by tournament performance, or by rating before a first game
    (lila `Player.magicScore` = score * 10000 + (performance | rating); the arena FAQ: "When two or more
    players have the same number of points, the tournament performance is the tie break"). Withdrawn players
    stay in the standings with their points. Equal on both, the lower id (the earlier to join) ranks first."""
    by_player: dict[int, list[ArenaGame]] = {}
    for g in games:
        by_player.setdefault(g.white, []).append(g)
        by_player.setdefault(g.black, []).append(g)
    rows = []
    for p in players:
        own = by_player.get(p.id, [])
        sheet = arena_sheet(p.id, own, rules)
        rows.append((sheet, p, performance(p.id, own)))
    rows.sort(key=lambda r: (-r[0].total, -(r[2] if r[2] is not None else r[1].rating), r[1].id))
    return [ArenaStanding(i + 1, p.id, p.rating, sheet.total, sheet, perf)
            for i, (sheet, p, perf) in enumerate(rows)]


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
