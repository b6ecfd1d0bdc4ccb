"""Round robins: the FIDE Berger tables, once or twice round (FIDE Handbook C.05, Annex 1 "Berger Tables for
Round-Robin Tournaments").

Players are numbered 1..n by the draw (the service orders them; by rating is usual). With an odd number of
players a dummy takes number n + 1: whoever is paired with it has a free round (C.05 Annex 1: "If there is an
odd number of players, the player who would play the highest number ... has a free round").

The tables: in round 1, 1 plays n, 2 plays n-1, and so on; the highest number n stays in place while the
others turn by n/2 places each round; n has white in the even rounds and black in the odd ones, and in every
other pair
the player listed first has white. For 6 players this gives FIDE's printed table::

    Rd 1: 1-6, 2-5, 3-4    Rd 2: 6-4, 5-3, 1-2    Rd 3: 2-6, 3-1, 4-5
    Rd 4: 6-5, 1-4, 2-3    Rd 5: 3-6, 4-2, 5-1

>>> berger_table(4)
[[(1, 4), (2, 3)], [(4, 3), (1, 2)], [(2, 4), (3, 1)]]

A double round robin plays the cycle twice, the second time with colours reversed; FIDE (C.05 Annex 1)
recommends reversing the order of the first cycle's last two rounds, so that nobody has the same colour three
times in a row across the join of the cycles (player n would otherwise).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


def berger_table(n: int) -> list[list[tuple[int, int]]]:
    """The rounds of FIDE's Berger table for `n` players (n even, n >= 2): pairs (white, black) of numbers
    1..n, board order (the pair with the highest number first)."""
    if n < 2 or n % 2:
        raise ValueError("Berger tables are for an even number of players (add a dummy for odd numbers)")
    rounds = []
    others = n - 1
    for r in range(n - 1):
        order = [(r * (n // 2) + i) % others + 1 for i in range(others)]
        first = (n, order[0]) if r % 2 else (order[0], n)
        pairs = [first] + [(order[i], order[others - i]) for i in range(1, n // 2)]
        rounds.append(pairs)
    return rounds


@dataclass(frozen=True)
class RoundRobinRound:
    """One round: (white, black) player ids in board order, and the player with a free round (odd numbers)."""

    number: int
    pairings: tuple[tuple[int, int], ...]
    bye: int | None = None


def round_robin_rounds(players: Sequence[int], double: bool = False) -> list[RoundRobinRound]:
    """Every round of a round robin between `players` (ids in drawing order: players[0] is number 1).

    >>> [r.pairings for r in round_robin_rounds([10, 20, 30])]
    [((20, 30),), ((10, 20),), ((30, 10),)]
    >>> [r.bye for r in round_robin_rounds([10, 20, 30])]
    [10, 30, 20]
    """
    if len(set(players)) != len(players):
        raise ValueError("a player appears twice")
    if len(players) < 2:
        return []
    n = len(players) + len(players) % 2
    table = berger_table(n)
    if double and len(table) >= 2:
        table = table[:-2] + [table[-1], table[-2]]
    cycles = [table] + ([[[(b, w) for w, b in pairs] for pairs in table]] if double else [])
    result: list[RoundRobinRound] = []
    for cycle in cycles:
        for pairs in cycle:
            games, bye = [], None
            for w, b in pairs:
                if n > len(players) and n in (w, b):
                    bye = players[(b if w == n else w) - 1]
                else:
                    games.append((players[w - 1], players[b - 1]))
            result.append(RoundRobinRound(len(result) + 1, tuple(games), bye))
    return result
