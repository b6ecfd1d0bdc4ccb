"""The conventions of lidraughts (and lichess before it) that the server speaks to bots, scripts and
exports: variant keys, speed names, game status names, user objects and move strings.

Move strings are lidraughts' "UCI" form of a move: the square numbers of the variant's numbering, two
digits each, concatenated — the start square, then every square the piece lands on. A simple move is
`3227`; a capture jumping from 42 over 37 and 28 to 31 and 22 is `423122`. In a game's `moves` a capture
is listed jump by jump, one entry per jump (`4231 3122`), as lidraughts lists them and as its clients
(lidraughts-bot) read them: each entry is then four digits.

>>> from shashki.rules import Game
>>> game = Game("russian-giveaway")
>>> [move_string(game.variant, game.play(text)) for text in ("c3-d4", "f6-e5", "d4:f6")]
['2218', '1115', '1811']
>>> game = Game("russian-giveaway", "B:W17,18:B15")
>>> jump_strings(game.variant, game.play("e5:c3:a5"))
['1522', '2213']
>>> variant_json("international"), variant_key("standard")
({'key': 'standard', 'name': 'Standard', 'short': 'Std'}, 'international')
"""

from __future__ import annotations

from shashki.rules import UnknownVariant, get_variant
from shashki.server.errors import Invalid

# Our variants that lidraughts also plays, under its keys and names (lidraughts' "standard" is
# international draughts, "antidraughts" its giveaway form). The others keep our keys.
LIDRAUGHTS_VARIANTS = {
    "international": ("standard", "Standard", "Std"),
    "international-giveaway": ("antidraughts", "Antidraughts", "Anti"),
    "russian": ("russian", "Russian", "Rus"),
    "brazilian": ("brazilian", "Brazilian", "Bra"),
}
FROM_LIDRAUGHTS = {key: ours for ours, (key, _, _) in LIDRAUGHTS_VARIANTS.items()}
# lidraughts creates a game from a set-up position as variant "fromPosition" (international rules).
FROM_LIDRAUGHTS["fromPosition"] = "international"

# Game status names (lidraughts' Status): how a game ended, from our reasons.
STATUS_OF_REASON = {
    "no-legal-move": "mate",  # lidraughts keeps chess's name for "the side to move has no move"
    "resignation": "resign",
    "time": "outoftime",
    "abandonment": "timeout",  # the opponent left and victory was claimed
    "aborted": "aborted",
}
# The far end of a clock for a game without one, as lichess reports untimed games.
NO_CLOCK_MS = 2147483647


def variant_key(name: str) -> str:
    """Our variant key for a lidraughts key or any of ours."""
    try:
        return get_variant(FROM_LIDRAUGHTS.get(name, name)).key
    except UnknownVariant as e:
        raise Invalid("unknown_variant", str(e)) from None


def variant_json(key: str) -> dict:
    if key in LIDRAUGHTS_VARIANTS:
        lkey, name, short = LIDRAUGHTS_VARIANTS[key]
        return {"key": lkey, "name": name, "short": short}
    variant = get_variant(key)
    return {"key": variant.key, "name": variant.name, "short": "".join(w[0] for w in key.split("-")).upper()}


def status_name(status: str, reason: str | None) -> str:
    """lidraughts' status of a game: started, aborted, mate, resign, outoftime, timeout or draw."""
    if status == "started":
        return "started"
    if status == "aborted":
        return "aborted"
    return STATUS_OF_REASON.get(reason or "", "draw")


def speed_title(speed: str) -> str:
    return speed[:1].upper() + speed[1:]


def user_json(user, rating: dict | None = None) -> dict:
    """A lidraughts light user: id (the lower-cased name), name, title (BOT for bots), rating."""
    out = {"id": user.username_key, "name": user.username, "title": "BOT" if user.is_bot else None}
    if rating is not None:
        out["rating"] = rating["rating"]
        out["provisional"] = rating["provisional"]
    return out


def move_string(variant, move) -> str:
    """A move in lidraughts' form: every square of its path, two digits each."""
    return "".join(f"{variant.board.number(bit):02d}" for bit in move.path)


def jump_strings(variant, move) -> list[str]:
    """A move as a game's `moves` lists it: one four-digit entry per step (a capture jump by jump)."""
    numbers = [variant.board.number(bit) for bit in move.path]
    return [f"{a:02d}{b:02d}" for a, b in zip(numbers, numbers[1:], strict=False)]


def squares_of(variant, text: str) -> list[int]:
    """The bits of a move string's squares; Invalid unless it is pairs of digits naming squares."""
    if not text.isdigit() or len(text) % 2 or len(text) < 4:
        raise Invalid("malformed", f"{text!r} is not a move: square numbers, two digits each, e.g. 3227.")
    numbers = [int(text[i : i + 2]) for i in range(0, len(text), 2)]
    board = variant.board
    if not all(1 <= n <= board.squares for n in numbers):
        raise Invalid("malformed", f"{text!r}: squares are numbered 1 to {board.squares} here.")
    return [board.bit_of_number(n) for n in numbers]
