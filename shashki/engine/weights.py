"""The evaluation's weights: what each feature is worth, hand-set or fitted, and the files they ship in.

Every weight is a named field of a frozen dataclass whose defaults are hand-set; weights fitted to
self-play by `benchmarks/tune_evaluation.py` (and pattern weights by `benchmarks/tune_patterns.py`) ship
one file per variant family (`FAMILIES`, `PARENT`), beside this module. The evaluation that uses them is
`shashki.engine.evaluation`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from functools import cache
from pathlib import Path

from shashki.rules.variant import Variant

# The variant families that share one weights file (issue 15 point 3), by the family's name.
FAMILIES: dict[str, tuple[str, ...]] = {
    "giveaway": ("russian-giveaway", "brazilian-giveaway", "pool-giveaway"),
    # Men capturing forwards only, one-square kings: the giveaway family's weights as they were before
    # its pattern weights, with which these two did not play better (benchmarks/tune_patterns.py).
    "english-giveaway": ("english-giveaway", "italian-giveaway"),
    "international-giveaway": ("international-giveaway",),
    # Pool is Russian draughts but for a man crowned in a capture, which stops there: it plays better
    # with the Russian weights than with the hand-set ones (benchmarks/tune_evaluation.py --check-shipped).
    "russian": ("russian", "brazilian", "pool"),
    "international": ("international",),
    "english": ("english", "italian"),  # one-square kings, men capture forwards only
}
_FAMILY_OF = {key: name for name, keys in FAMILIES.items() for key in keys}
# A family without a file of its own plays with its nearest family's: international giveaway with the 8x8
# giveaway's (its own fits lost to those). Else the hand-set weights.
PARENT: dict[str, str] = {"international-giveaway": "giveaway"}


def family_of(variant: Variant) -> str | None:
    """The name of the variant's family, or None (a variant in none plays with the hand-set weights)."""
    return _FAMILY_OF.get(variant.key)


def family_file(name: str) -> Path:
    """Where a family's fitted weights ship (next to this module)."""
    return Path(__file__).with_name(f"{name.replace('-', '_')}_weights.json")


# The features, in the order of `Evaluator.features` and of the weights' fields.
FEATURES = ("man", "king", "advance", "back_row", "centre", "mobility", "hanging",
            "main_diagonal", "near_crown", "backed", "imbalance", "runaway", "edge")
EXTRA = FEATURES[7:]


@dataclass(frozen=True)
class DraughtsWeights:
    """Ordinary draughts (no legal move loses). Positive = good for the side that has it."""

    man: int = 100
    king: int = 300  # a flying king; one-square kings are worth less (see `short_king`)
    short_king: int = 160  # English and Italian kings move one square
    advance: int = 3  # per row a man has advanced
    back_row: int = 6  # per man still guarding the own back row (stops the opponent's promotion)
    centre: int = 4  # per man in the central squares
    mobility: int = 2  # per quiet step available to men, and per free square next to a king
    hanging: int = -12  # per capture the opponent could make if it were to move
    main_diagonal: int = 0  # per king on the long diagonal (a1-h8)
    near_crown: int = 0  # per man one step from crowning with a free square to crown on
    backed: int = 0  # per man with an own piece diagonally behind it
    imbalance: int = 0  # per man more on one wing (left or right half of the board) than on the other
    # per man past the middle of the board with no opposing piece on any square it could step to on its
    # way to the crowning row (nothing there can stop it but a king)
    runaway: int = 0
    edge: int = 0  # per man on an edge file (the first or last column)
    patterns: tuple[int, ...] = ()  # the weights of men's patterns over board regions (patterns.py), or none

    @classmethod
    def shipped(cls, variant: Variant) -> DraughtsWeights:
        """The tuned weights of the variant's family, or the defaults (no family, or no file)."""
        return cls.from_dict(_family_data(variant) or {})

    @classmethod
    def from_dict(cls, data: dict) -> DraughtsWeights:
        return cls(**_known(cls, data))


@dataclass(frozen=True)
class GiveawayWeights:
    """Giveaway (no legal move wins). Each weight is the worth of one unit of the feature to the side
    that has it, in hundredths of a man: a negative `man` means every man still to give away is a cost."""

    man: int = -100
    king: int = -250  # kings are hard to lose: the opponent can keep away from a flying king
    advance: int = 2  # tempo: per row a man has advanced
    back_row: int = 0
    centre: int = 0
    mobility: int = -3  # fewer moves is nearer to having none (a win)
    hanging: int = 15  # per capture the opponent could be forced to make (our pieces it can take)
    main_diagonal: int = 0
    near_crown: int = 0
    backed: int = 0
    imbalance: int = 0
    runaway: int = 0
    edge: int = 0
    patterns: tuple[int, ...] = ()

    @classmethod
    def shipped(cls, variant: Variant) -> GiveawayWeights:
        """The tuned weights of the variant's family, or the defaults (no family, or no file)."""
        return cls.from_dict(_family_data(variant) or {})

    @classmethod
    def from_dict(cls, data: dict) -> GiveawayWeights:
        return cls(**_known(cls, data))


Weights = DraughtsWeights | GiveawayWeights


def _known(kind: type, data: dict) -> dict:
    """The weights of `data` that `kind` has (a file may hold names an older or newer build has not)."""
    names = {f.name for f in fields(kind)}
    return {k: _ints(v) if k == "patterns" else int(v) for k, v in data.items() if k in names}


def _ints(values) -> tuple[int, ...]:
    return values if isinstance(values, tuple) else tuple(map(int, values))


def _family_data(variant: Variant) -> dict | None:
    """The weights in the file of the variant's family (or of its `PARENT`), or None."""
    name = family_of(variant)
    while name is not None:
        data = _shipped(family_file(name))
        if data is not None:
            return data
        name = PARENT.get(name)
    return None


@cache
def _shipped(path: Path) -> dict | None:
    """The weights in a shipped file (with its patterns' weights, if it has them), or None if it is
    missing or unreadable."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    weights = dict(data.get("weights", data))
    if "patterns" in data:
        weights["patterns"] = tuple(map(int, data["patterns"]["values"]))  # read once, shared as it is
    return weights


def shipped_weights(variant: Variant) -> Weights:
    """The weights the engine plays a variant with by default."""
    return GiveawayWeights.shipped(variant) if variant.giveaway else DraughtsWeights.shipped(variant)
