"""Standings of Swiss events and round robins, with the tie-breaks issue 13 asks for, in its order: Buchholz,
Buchholz cut 1, Sonneborn-Berger, number of wins, direct encounter (FIDE Handbook C.07 "Tie-Break
Regulations", 2024: BH 8.1, BH-C1 8.2/14.1, SB 9.1, WON 7.2, DE 6).

Unplayed rounds follow FIDE C.07 Article 16 (the "dummy opponent" of the 2023 regulations, replacing the 2009
"virtual opponent"):

- a player's own unplayed round (the pairing-allocated bye, a late-join bye, a round missed by joining late or
  after withdrawing) counts in their Buchholz as a game against a dummy opponent with the player's own final
  score (16.4), and in their Sonneborn-Berger as that score times the points the round gave them;
- in the opponents' scores used by Buchholz and Sonneborn-Berger, every voluntarily unplayed round of an
  opponent (a late-join bye, a missed round: FIDE 16.2 "VUR") counts as a draw (16.3); the pairing-allocated
  bye keeps its point;
- Buchholz cut 1 removes a voluntarily unplayed round of the player first, if there is one (16.5), else the
  lowest contribution (14.1).

A double forfeit (a round robin's game between two players who both withdrew) is no game: 0 points for
each, not a draw; in a Swiss event's records an unplayed round of each (voluntary).

While a Swiss round is in play, the tie-breaks are those after the last complete round (`completed`).

"Number of wins" counts games won over the board (FIDE WON, 7.2), not byes nor forfeits. Direct encounter
(6) applies among the players still tied on everything before it: when all of them have met, the points
they scored against each other; otherwise it does not separate them.

Round robins rank by points, Sonneborn-Berger, wins and direct encounter (Buchholz says nothing there:
everyone meets everyone). Scores are in points (a win 1, a draw 0.5).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import NamedTuple

from shashki.rules import Color
from shashki.server.tournaments.swiss import Bye, ByeKind, SwissGame, SwissPlayer


@dataclass(frozen=True)
class Standing:
    rank: int
    player: int
    points: float
    buchholz: float | None
    buchholz_cut1: float | None
    sonneborn_berger: float
    wins: int
    direct_encounter: float | None  # None: not applied (nobody tied, or the tied players have not all met)


@dataclass
class _Record:
    points: float = 0.0
    games: list[tuple[int, float]] = field(default_factory=list)  # (opponent, points scored), played games
    unplayed: list[tuple[float, bool]] = field(default_factory=list)  # (points, voluntary), one per round
    wins: int = 0

    @property
    def voluntary_points(self) -> float:
        return sum(p for p, voluntary in self.unplayed if voluntary)

    @property
    def voluntary_rounds(self) -> int:
        return sum(1 for _, voluntary in self.unplayed if voluntary)


def _records(players: Iterable[SwissPlayer], games: Iterable[SwissGame], byes: Iterable[Bye],
             rounds: int | None) -> dict[int, _Record]:
    """Each player's results up to round `rounds` (None: every game given, and no round counts as missed)."""
    records = {p.id: _Record() for p in players}
    seen: dict[int, set[int]] = {p: set() for p in records}
    for g in games:
        if rounds is not None and g.round > rounds:
            continue
        if g.double_forfeit:  # neither played: 0 points each, an unplayed round of each (16), not a game
            for me in (g.white, g.black):
                if me in records:
                    records[me].unplayed.append((0.0, True))
                    seen[me].add(g.round)
            continue
        white = {None: 0.5, Color.WHITE: 1.0, Color.BLACK: 0.0}[g.winner]
        for me, other, pts in ((g.white, g.black, white), (g.black, g.white, 1.0 - white)):
            if me in records:
                records[me].games.append((other, pts))
                records[me].points += pts
                records[me].wins += pts == 1.0 and g.played  # over the board (WON 7.2), not by forfeit
                seen[me].add(g.round)
    for b in byes:
        if (rounds is not None and b.round > rounds) or b.player not in records:
            continue
        pts = b.half_points / 2
        records[b.player].unplayed.append((pts, b.kind is not ByeKind.PAIRING))
        records[b.player].points += pts
        seen[b.player].add(b.round)
    for p, rec in records.items():  # rounds with neither a game nor a bye: absent, 0 points, voluntary
        rec.unplayed += [(0.0, True)] * max(0, (rounds or 0) - len(seen[p]))
    return records


def _adjusted(rec: _Record) -> float:
    """An opponent's score for Buchholz and Sonneborn-Berger: voluntarily unplayed rounds as draws (16.3)."""
    return rec.points - rec.voluntary_points + 0.5 * rec.voluntary_rounds


def swiss_standings(players: Sequence[SwissPlayer], games: Sequence[SwissGame], byes: Sequence[Bye],
                    rounds: int, completed: int | None = None) -> list[Standing]:
    """The standings after `rounds` rounds (withdrawn players included, with their results).

    `completed`: how many of them are complete (every game ended; None: all `rounds`). While round `rounds`
    is being played, the points count every game ended, but the tie-breaks are those of the standings after
    the completed rounds: the round in progress is no round that anyone missed (16), and a game of it that
    ended does not yet move its players' opponents' Buchholz and Sonneborn-Berger."""
    done = rounds if completed is None else min(completed, rounds)
    records = _records(players, games, byes, done)
    points = records if done == rounds else _records(players, games, byes, rounds)
    rows: list[_Row] = []
    for p in players:
        rec = records[p.id]
        contributions = [(_adjusted(records[o]) if o in records else 0.0, False) for o, _ in rec.games]
        contributions += [(rec.points, voluntary) for _, voluntary in rec.unplayed]
        bh = sum(c for c, _ in contributions)
        if not contributions:
            cut = 0.0
        elif any(v for _, v in contributions):
            cut = bh - min(c for c, v in contributions if v)
        else:
            cut = bh - min(c for c, _ in contributions)
        sb = sum((_adjusted(records[o]) if o in records else 0.0) * pts for o, pts in rec.games)
        sb += sum(rec.points * pts for pts, _ in rec.unplayed)
        rows.append(_Row(p.id, points[p.id].points, bh, cut, sb, rec.wins))
    return _rank(rows, records)


def round_robin_standings(players: Sequence[int], games: Sequence[SwissGame]) -> list[Standing]:
    """Round robin standings: points, then Sonneborn-Berger (the points of the opponents beaten plus half
    those of the opponents drawn), wins, direct encounter. The free round of an odd round robin scores
    nothing, as does a double forfeit (two players who both withdrew: neither played)."""
    records = _records([SwissPlayer(p, 0) for p in players], games, [], rounds=None)
    rows: list[_Row] = []
    for p in players:
        rec = records[p]
        sb = sum(records[o].points * pts for o, pts in rec.games if o in records)
        rows.append(_Row(p, rec.points, None, None, sb, rec.wins))
    return _rank(rows, records)


class _Row(NamedTuple):
    player: int
    points: float
    buchholz: float | None
    buchholz_cut1: float | None
    sonneborn_berger: float
    wins: int

    def key(self) -> tuple[float, float, float, float, int]:
        """The tie-breaks before direct encounter, in their order (best first when sorted)."""
        return (-self.points, -(self.buchholz or 0), -(self.buchholz_cut1 or 0), -self.sonneborn_berger,
                -self.wins)


def _rank(rows: list[_Row], records: dict[int, _Record]) -> list[Standing]:
    ties: dict[tuple[float, float, float, float, int], list[int]] = {}
    for row in sorted(rows, key=lambda r: (r.key(), r.player)):
        ties.setdefault(row.key(), []).append(row.player)
    encounter: dict[int, float | None] = {}
    for group in ties.values():
        encounter.update(_direct_encounter(group, records))
    rows = sorted(rows, key=lambda r: (r.key(), -(encounter[r.player] or 0), r.player))
    return [Standing(i + 1, r.player, r.points, r.buchholz, r.buchholz_cut1, r.sonneborn_berger, r.wins,
                     encounter[r.player]) for i, r in enumerate(rows)]


def _direct_encounter(group: list[int], records: dict[int, _Record]) -> dict[int, float | None]:
    """FIDE C.07 6: the points each tied player scored against the others, when they have all met."""
    if len(group) < 2:
        return {group[0]: None}
    members = set(group)
    met = {(a, o) for a in group for o, _ in records[a].games if o in members}
    if any((a, b) not in met for a, b in combinations(group, 2)):
        return {p: None for p in group}
    return {p: sum(pts for o, pts in records[p].games if o in members) for p in group}
