"""The search's move order: the hash move first, then captures by what they take, or quiet moves by
killer and history.

`shashki.engine.alphabeta.Core` keeps one `MoveOrder` for its searches and asks it at every node; it is
compiled with it (setup.py), so every value here is a plain int or a packed `vec[i64]` (librt): killers
a flat list and history a packed vector, both indexed by the move's (from, to) squares, and the keys of
the node at each ply in a region of one packed vector, written and sorted there without a list or a
boxed int per node.
"""

from __future__ import annotations

from typing import Final

from librt.vecs import vec
from mypy_extensions import i64

from shashki.engine.evaluation import popcount
from shashki.rules.position import Move, Position

# Move order keys: the sort key above, 1023 - the move's index below (a stable order among equals).
ORDER_BITS: Final = 10
ORDER_MASK: Final = (1 << ORDER_BITS) - 1
ORDER_SLOTS: Final = 1 << ORDER_BITS  # a ply's room in `MoveOrder.keys`: the most moves the keys tell apart
_KILLER_1: Final = 1 << 40
_KILLER_2: Final = 1 << 39


class MoveOrder:
    """What the search has learned about its moves (killers, history) and the keys it sorts them by."""

    def __init__(self, max_ply: int) -> None:
        # Killers (two a ply) and history are indexed by the move's (from, to) squares: bit indices
        # below `span`.
        self.span = 64
        self.history: vec[i64] = vec[i64]([0] * (2 * 64 * 64))  # packed (librt): read and added unboxed
        self.killers: list[int] = [0] * (2 * (max_ply + 2))
        # The move order keys of the node at each ply, at ply * ORDER_SLOTS.
        self.keys: vec[i64] = vec[i64]([0] * (max_ply * ORDER_SLOTS))

    def set_variant(self, span: int) -> None:
        """A new variant (squares below `span`): forget the order learned."""
        self.span = span
        self.history = vec[i64]([0] * (2 * span * span))

    def new_search(self) -> None:
        """Killers are forgotten; history is aged, so that the last search's order counts but does not
        dominate."""
        killers = self.killers
        for i in range(len(killers)):
            killers[i] = 0
        scores = self.history
        for i in range(len(scores)):
            scores[i] >>= 2

    def reward(self, move: Move, depth: int, ply: int, white: bool) -> None:
        """A quiet move that refuted a position: a killer at its ply, and history for its squares."""
        span = self.span
        k = move.start * span + move.end + 1
        killers = self.killers
        slot = 2 * ply
        if killers[slot] != k:
            killers[slot + 1] = killers[slot]
            killers[slot] = k
        self.history[(span * span if white else 0) + k - 1] += depth * depth

    def order(self, pos: Position, moves: list[Move], hash_index: int, ply: int) -> list[int]:
        """The indices of `moves` in the order to search them: the hash move, then captures by the
        number of pieces taken (kings counted double), or quiet moves: killers, then by history."""
        n = len(moves)
        self.fill_keys(pos, moves, ply, 0)
        keys = [int(self.keys[i]) for i in range(n)]
        keys.sort(reverse=True)
        for i in range(n):  # the sort keys become the move indices, in place
            keys[i] = ORDER_MASK - (keys[i] & ORDER_MASK)
        if 0 <= hash_index < n and keys[0] != hash_index:
            keys.remove(hash_index)
            keys.insert(0, hash_index)
        return keys

    def fill_keys(self, pos: Position, moves: list[Move], ply: int, base: i64) -> None:
        """The sort key of each move (see `order`), at `keys[base + i]`: its worth above, 1023 - its
        index below."""
        n = len(moves)
        keys = self.keys
        if moves[0].capture_mask:
            kings = pos.kings
            for i in range(n):
                m = moves[i]
                taken = len(m.captured) + popcount(m.capture_mask & kings)
                keys[base + i] = (taken << ORDER_BITS) | (ORDER_MASK - i)
        else:
            span = self.span
            slot = 2 * ply
            killers = self.killers
            first = killers[slot] if slot < len(killers) else -1
            second = killers[slot + 1] if slot < len(killers) else -1
            history = self.history
            side = span * span if pos.white_to_move else 0
            for i in range(n):
                m = moves[i]
                k = m.start * span + m.end + 1
                if k == first:
                    value = _KILLER_1
                elif k == second:
                    value = _KILLER_2
                else:
                    value = history[side + k - 1]
                keys[base + i] = (value << ORDER_BITS) | (ORDER_MASK - i)


def sort_rest(keys: vec[i64], base: i64, n: i64, first: int) -> None:
    """The sort keys of `fill_keys` at `keys[base:base + n]` become, in place, the indices of the moves
    after `first` in `order`'s order (the same order: the keys sorted, the first move taken out), at
    `keys[base:base + n - 1]`. An insertion sort: a node has a handful of moves."""
    keys[base + first] = -1  # below every key (they are not negative): sorted last, left out
    end = base + n
    for a in range(base + 1, end):
        key = keys[a]
        b = a - 1
        while b >= base and keys[b] < key:
            keys[b + 1] = keys[b]
            b -= 1
        keys[b + 1] = key
    for a in range(base, end - 1):
        keys[a] = ORDER_MASK - (keys[a] & ORDER_MASK)
