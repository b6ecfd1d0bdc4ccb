"""PDN 3.0: writing games (RULES.md §5), and the result tokens both the writer and the reader know.

`shashki.rules.pdn` reads PDN and re-exports `write_game` and `normalize_result` from here.

>>> from shashki.rules import Game
>>> game = Game.replay(["c3-d4", "f6-e5"], "russian")
>>> write_game(game).splitlines()[-1]
'1. c3-d4 f6-e5 *'
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from shashki.rules.errors import PdnError
from shashki.rules.game import Game
from shashki.rules.position import Position

# Both result styles, mapped to the chess style that Outcome.result uses. "0-0" (both sides lose, as
# after a double forfeit) has no chess-style equivalent and is kept as it is.
RESULTS: dict[str, str] = {
    "1-0": "1-0",
    "0-1": "0-1",
    "1/2-1/2": "1/2-1/2",
    "½-½": "1/2-1/2",
    "*": "*",
    "2-0": "1-0",
    "0-2": "0-1",
    "1-1": "1/2-1/2",
    "0-0": "0-0",
}

SEVEN_TAG_ROSTER: tuple[tuple[str, str], ...] = (
    ("Event", "?"),
    ("Site", "?"),
    ("Date", "????.??.??"),
    ("Round", "?"),
    ("White", "?"),
    ("Black", "?"),
    ("Result", "*"),
)
# Tags write_game places itself, after the Seven Tag Roster.
_SETUP_TAGS = ("GameType", "Variant", "Options", "FEN")

_LINE_WIDTH = 80


def normalize_result(text: str | None) -> str | None:
    """The chess-style result (`1-0`, `0-1`, `1/2-1/2`, `*`, or `0-0`) of a result token, else None.

    >>> normalize_result("2-0"), normalize_result("1-1"), normalize_result("e3-f4")
    ('1-0', '1/2-1/2', None)
    """
    if text is None:
        return None
    return RESULTS.get(text.strip())


def write_game(
    game: Game, tags: Mapping[str, str] | None = None, comments: Mapping[int, str] | None = None
) -> str:
    """The game as PDN text: tags, then the numbered moves in the variant's notation, then the result.

    Tags come in the Seven Tag Roster order (Event, Site, Date, Round, White, Black, Result; "?" for
    those not given), then GameType, Variant, Options (when a rule option is on) and FEN (when the game
    did not start from the variant's start position), then any other tags given, in their order.
    The result is the game's outcome; for a game without one, a valid `Result` among `tags` (a result
    decided off the board, say), else `*`. Movetext lines are at most 80 characters (a comment, kept
    whole, may run longer). `comments[ply]` is written in braces after that ply's move (the computer's
    analysis, say); a move of the second player after a comment takes its number again (`12...`).
    """
    given = dict(tags or {})
    variant = game.variant
    if game.outcome is not None:
        result = game.outcome.result
    else:
        result = normalize_result(given.get("Result")) or "*"
    out = []
    for name, default in SEVEN_TAG_ROSTER:
        value = result if name == "Result" else given.get(name, default)
        out.append(_tag(name, value))
    out.append(_tag("GameType", str(variant.game_type)))
    out.append(_tag("Variant", variant.key))
    if variant.double_diagonal:
        out.append(_tag("Options", "double-diagonal"))
    start = game.start
    if start != Position.start(variant):
        out.append(_tag("FEN", start.fen()))
    roster = {name for name, _ in SEVEN_TAG_ROSTER}
    for name, value in given.items():
        if name not in roster and name not in _SETUP_TAGS:
            out.append(_tag(name, value))
    return "\n".join(out) + "\n\n" + "\n".join(_movetext(game, result, comments or {})) + "\n"


def _tag(name: str, value: object) -> str:
    if not re.fullmatch(r"[A-Za-z0-9_]+", name):
        raise PdnError(f"tag name {name!r} must be letters, digits and _ only")
    text = " ".join(str(value).split())  # one line
    text = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'[{name} "{text}"]'


def _movetext(game: Game, result: str, comments: Mapping[int, str]) -> list[str]:
    variant = game.variant
    offset = 0 if game.start.side_to_move is variant.first_player else 1
    units: list[str] = []
    for ply, move in enumerate(game.moves):
        at = ply + offset
        number = at // 2 + 1
        text = move.notation(variant)
        if at % 2 == 0:
            units.append(f"{number}. {text}")
        elif ply == 0 or (ply - 1) in comments:
            units.append(f"{number}... {text}")
        else:
            units.append(text)
        if ply in comments:
            units.append("{" + " ".join(comments[ply].replace("}", ")").split()) + "}")
    units.append(result)
    lines: list[str] = []
    current = ""
    for unit in units:
        if current and len(current) + 1 + len(unit) > _LINE_WIDTH:
            lines.append(current)
            current = unit
        else:
            current = f"{current} {unit}" if current else unit
    lines.append(current)
    return lines

