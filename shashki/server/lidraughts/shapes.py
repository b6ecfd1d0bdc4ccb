"""The conventions of lidraughts (and lichess before it) that the server speaks to bots, scripts and
exports: variant objects and keys, speed names, game status names, user objects, time controls.

Variants. lidraughts' clients build their own board from the `variant` object of a game: lidraughts-bot
hands `variant.name` (lower-cased) to pydraughts, which knows `standard`/`from position`, `antidraughts`,
`russian`, `brazilian`, `english` and `italian` (and lidraughts' frisian, frysk!, breakthrough, turkish);
any other name gives a 10×10 board. So each of our variants is sent under the name whose board and moves
pydraughts plays exactly: lidraughts' own names where lidraughts has the game, the base variant's name for
a giveaway form (the moves are the same; `key` still tells them apart, and a bot's challenge filter reads
`key`). Pool checkers, whose moves pydraughts does not know, keeps its own name: a bot declines it by not
listing `pool` (docs/bot-api.md).

>>> variant_json("international")["key"], variant_key("standard")
('standard', 'international')
>>> variant_json("russian-giveaway")["name"], variant_json("russian-giveaway")["key"]
('Russian', 'russian-giveaway')
>>> variant_json("international", "W:W31:B1")["key"], variant_json("international", "W:W31-50:B1-20")["key"]
('fromPosition', 'standard')
"""

from __future__ import annotations

from typing import Any, Protocol

from shashki.rules import DrawRule, Position, RulesError, UnknownVariant, Variant, get_variant
from shashki.server.errors import Invalid

# Our variants that lidraughts also plays, under its keys, names and short names (lidraughts' "standard"
# is international draughts, "antidraughts" its giveaway form).
LIDRAUGHTS_VARIANTS = {
    "international": ("standard", "Standard", "Std"),
    "international-giveaway": ("antidraughts", "Antidraughts", "Anti"),
    "russian": ("russian", "Russian", "Rus"),
    "brazilian": ("brazilian", "Brazilian", "Bra"),
}
# The name pydraughts (hence lidraughts-bot) builds the right board from, for our other variants.
PYDRAUGHTS_NAMES = {
    "english": "English",
    "italian": "Italian",
    "russian-giveaway": "Russian",
    "brazilian-giveaway": "Brazilian",
    "english-giveaway": "English",
    "italian-giveaway": "Italian",
}
FROM_LIDRAUGHTS = {key: ours for ours, (key, _, _) in LIDRAUGHTS_VARIANTS.items()}
# lidraughts creates an international game from a set-up position as variant "fromPosition".
FROM_LIDRAUGHTS["fromPosition"] = "international"
# lidraughts' fromPosition variant (modules/draughts/.../variant/FromPosition.scala): international rules,
# PDN GameType 99. Only international games from a position are shown so; lidraughts keeps Russian and
# Brazilian games from a position under their own variant (modules/challenge/.../Challenge.scala).
FROM_POSITION = {"key": "fromPosition", "name": "From Position", "short": "FEN", "gameType": 99}

# Game status names (lidraughts' Status): how a game ended, from our reasons.
STATUS_OF_REASON = {
    "no-legal-move": "mate",  # lidraughts keeps chess's name for "the side to move has no move"
    "resignation": "resign",
    "time": "outoftime",
    "abandonment": "timeout",  # the opponent left and victory was claimed
    "aborted": "aborted",
}
# A draw the rules made (threefold repetition, a variant's count: a DrawRule) is lidraughts' `variantEnd`
# without a winner; `draw` is kept for agreement. Why: lidraughts-bot 1.2.0, once its own board is over,
# answers a final `draw` by calling `Game.is_fifty_moves()`, which pydraughts 0.5.7 (its pin) lacks; the
# game's process then fails, is retried for ten minutes and never frees the bot's game slot, so the bot
# accepts no challenge again. Its boards end by repetition or a count, never by agreement.
RULE_DRAWS = frozenset(rule.value for rule in DrawRule)
# lidraughts' numeric status ids, for the `status` objects of gameStart and gameFinish events.
STATUS_IDS = {
    "started": 20, "aborted": 25, "mate": 30, "resign": 31, "timeout": 33, "draw": 34, "outoftime": 35,
    "variantEnd": 60,
}
CHALLENGE_STATUS = {
    "pending": "created", "accepted": "accepted", "declined": "declined", "cancelled": "canceled"
}
# The far end of a clock for a game without one, as lichess reports untimed games.
NO_CLOCK_MS = 2147483647


class Account(Protocol):
    """What the shapes read of an account (the accounts domain's user row)."""

    username: str
    username_key: str
    is_bot: bool


def variant_key(name: str) -> str:
    """Our variant key for a lidraughts key or any of ours."""
    try:
        return get_variant(FROM_LIDRAUGHTS.get(name, name)).key
    except UnknownVariant as e:
        raise Invalid("unknown_variant", str(e)) from None


def variant_json(key: str, initial_fen: str | None = None) -> dict[str, Any]:
    """lidraughts' variant object: key, name, short, gameType and board (`{"key": "64", "size": [8, 8]}`)."""
    variant = get_variant(key)
    size = 10 if variant.board.squares == 50 else 8
    board = {"key": str(size * size), "size": [size, size]}
    if key == "international" and initial_fen and not is_start(variant, initial_fen):
        return {**FROM_POSITION, "board": board}
    if key in LIDRAUGHTS_VARIANTS:
        lkey, name, short = LIDRAUGHTS_VARIANTS[key]
    else:
        lkey = variant.key
        name = PYDRAUGHTS_NAMES.get(key, variant.name)
        short = "".join(w[0] for w in key.split("-")).upper()
    return {"key": lkey, "name": name, "short": short, "gameType": variant.game_type, "board": board}


def is_start(variant: Variant, fen: str) -> bool:
    """Whether a FEN is the variant's start position (lidraughts shows such a game as the variant)."""
    try:
        return Position.from_fen(fen, variant).fen() == Position.start(variant).fen()
    except RulesError:
        return False


def status_name(status: str, reason: str | None) -> str:
    """lidraughts' status of a game: started, aborted, mate, resign, outoftime, timeout, draw (agreed)
    or variantEnd (drawn by the rules, see RULE_DRAWS)."""
    if status == "started":
        return "started"
    if status == "aborted":
        return "aborted"
    if reason in RULE_DRAWS:
        return "variantEnd"
    return STATUS_OF_REASON.get(reason or "", "draw")


def speed_title(speed: str) -> str:
    return speed[:1].upper() + speed[1:]


def user_json(user: Account, rating: dict | None = None) -> dict[str, Any]:
    """A lidraughts light user: id (the lower-cased name), name, title (BOT for bots), rating."""
    title = "BOT" if user.is_bot else None
    out: dict[str, Any] = {"id": user.username_key, "name": user.username, "title": title}
    if rating is not None:
        out["rating"] = rating["rating"]
        out["provisional"] = rating["provisional"]
    return out


def time_control_json(initial_ms: int | None, increment_ms: int, days: int | None = None) -> dict[str, Any]:
    """lidraughts's `timeControl`: a clock, days per turn (a correspondence game), or unlimited."""
    if days is not None:
        return {"type": "correspondence", "daysPerTurn": days}
    if initial_ms is None:
        return {"type": "unlimited"}
    limit, increment = initial_ms // 1000, increment_ms // 1000
    minutes = initial_ms / 60_000
    shown = f"{minutes:g}" if minutes >= 1 else {0.25: "¼", 0.5: "½", 0.75: "¾"}.get(minutes, f"{minutes:g}")
    return {"type": "clock", "limit": limit, "increment": increment, "show": f"{shown}+{increment}"}


def camel(key: str) -> str:
    """lichess's decline reason keys are camelCase (tooFast); ours snake_case (too_fast)."""
    head, *rest = key.split("_")
    return head + "".join(part.capitalize() for part in rest)


def snake(key: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in key)
