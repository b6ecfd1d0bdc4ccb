"""What the history says about each player of a Swiss event, and the colours of a pair, for
`shashki.server.tournaments.swiss`: a player's colour preference (FIDE Handbook C.04.3 A.6), the absolute
colour rule (C.04.1 f), the allocation of the colours of a pair (C.04.3 E), and what an allocation costs
the pairing's weights.

Pure rules, no I/O. Scores count half points as integers (a win 2, a draw 1).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from shashki.rules import Color


@dataclass
class PlayerRecord:
    """A player as the pairing of a round sees them: the score, colours, opponents and byes of the rounds
    before (`swiss._states` makes them) and their place in the pairing order."""

    id: int
    rating: int
    number: int  # pairing number: 1 for the highest rating (FIDE C.04.2 B: initial order)
    score: int = 0  # half points
    colors: list[Color] = field(default_factory=list)  # of the games played, in round order
    color_in: dict[int, Color] = field(default_factory=dict)  # round -> colour played
    opponents: set[int] = field(default_factory=set)
    had_pairing_bye: bool = False
    rank: int = 0  # position in the pairing order (score, then pairing number), 0 first

    # The cached properties are read once the history is complete (`swiss._states`): a pairing reads them
    # thousands of times.
    @cached_property
    def color_difference(self) -> int:
        return sum(1 if c is Color.WHITE else -1 for c in self.colors)

    @cached_property
    def preference(self) -> tuple[Color | None, int]:
        """FIDE C.04.3 A.6: (colour, strength) with strength 3 absolute, 2 strong, 1 mild, 0 none."""
        diff = self.color_difference
        if not self.colors:
            return None, 0
        last = self.colors[-1]
        if diff > 1 or diff < -1 or (len(self.colors) >= 2 and self.colors[-2] is last):
            if diff > 1 or diff < -1:
                return (Color.BLACK if diff > 0 else Color.WHITE), 3
            return last.other, 3
        if diff != 0:
            return (Color.BLACK if diff > 0 else Color.WHITE), 2
        return last.other, 1

    def violates(self, color: Color) -> bool:
        """C.04.1 f: the colour difference would pass 2, or the same colour would come three times in a
        row."""
        return self._violations[color]

    @cached_property
    def _violations(self) -> dict[Color, bool]:
        result = {}
        for color in Color:
            diff = self.color_difference + (1 if color is Color.WHITE else -1)
            three = len(self.colors) >= 2 and self.colors[-1] is color and self.colors[-2] is color
            result[color] = abs(diff) > 2 or three
        return result


def allocate_colors(a: PlayerRecord, b: PlayerRecord) -> tuple[PlayerRecord, PlayerRecord]:
    """(white, black) for a pair, FIDE C.04.3 E: E.1 grant both preferences; E.2 grant the stronger one
    (between two absolute ones, the larger colour difference); E.3 alternate the colours of the most recent
    round in which they had different colours; E.4 grant the higher-ranked player's preference; E.5 with no
    preference at all, the higher-ranked player takes white if their pairing number is odd (so that round 1
    alternates down the boards). The absolute rule comes first: an allocation that breaks it is used only if
    the other does too."""
    high, low = (a, b) if a.rank < b.rank else (b, a)
    chosen = _preferred(high, low)
    other = (chosen[1], chosen[0])
    if _violations(*chosen) > _violations(*other):
        return other
    return chosen


def _violations(white: PlayerRecord, black: PlayerRecord) -> int:
    return int(white.violates(Color.WHITE)) + int(black.violates(Color.BLACK))


def _preferred(high: PlayerRecord, low: PlayerRecord) -> tuple[PlayerRecord, PlayerRecord]:
    (hc, hs), (lc, ls) = high.preference, low.preference
    if hc is None and lc is None:
        return (high, low) if high.number % 2 else (low, high)
    if hc is None or lc is None or hc is not lc:  # E.1 (or the only preference there is)
        if hc is not None:
            return (high, low) if hc is Color.WHITE else (low, high)
        return (low, high) if lc is Color.WHITE else (high, low)
    if hs != ls or (hs == 3 and abs(high.color_difference) != abs(low.color_difference)):  # E.2
        stronger = high if (hs, abs(high.color_difference)) > (ls, abs(low.color_difference)) else low
        weaker = low if stronger is high else high
        return (stronger, weaker) if hc is Color.WHITE else (weaker, stronger)
    for r in sorted(high.color_in.keys() & low.color_in.keys(), reverse=True):  # E.3
        if high.color_in[r] is not low.color_in[r]:
            return (low, high) if high.color_in[r] is Color.WHITE else (high, low)
    return (high, low) if hc is Color.WHITE else (low, high)  # E.4


def pair_costs(a: PlayerRecord, b: PlayerRecord) -> tuple[int, int, int]:
    """(absolute colour violations, players denied their colour preference, of whom with a strong or
    absolute one) of the better of the two colour allocations."""
    best = None
    for white, black in ((a, b), (b, a)):
        given = ((white, Color.WHITE), (black, Color.BLACK))
        denied = [p for p, c in given if p.preference[0] not in (None, c)]
        strong = sum(1 for p in denied if p.preference[1] >= 2)
        cost = (_violations(white, black), len(denied), strong)
        best = cost if best is None or cost < best else best
    assert best is not None
    return best
