"""Arena tournaments: scoring and standings, as lichess and lidraughts run them (pairing waves and pauses:
`arena_pairing`).

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

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
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
