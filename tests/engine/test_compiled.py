"""The engine's compiled helpers count as Python does (the compiled build counts bits with shifts)."""

from __future__ import annotations

import random

from shashki.engine.evaluation import popcount
from shashki.rules import get_variant
from shashki.rules.position import popcount64


def test_popcount_counts_the_pieces_of_every_board_size():
    rng = random.Random(15)
    masks = [get_variant(key).board.mask for key in ("russian", "international")]
    samples = [0, 1, (1 << 60) - 1] + [rng.getrandbits(60) for _ in range(2000)]
    samples += [rng.getrandbits(60) & mask for mask in masks for _ in range(500)]
    for bb in samples:
        assert popcount(bb) == popcount64(bb) == bb.bit_count(), hex(bb)
