"""PDN 3.0: reading and writing games (RULES.md §5).

Reading is tolerant of what real files contain: several games in one file, tag pairs, move numbers
(`1.`, `1...`, `1.c3-d4`), comments (`{...}`, `;` to the end of the line, `%` escape lines), variations
`( ... )` however deeply nested, NAGs (`$1`) and move strength marks (`!?`), and results in the chess
style (`1-0`, `0-1`, `1/2-1/2`, `*`) and the draughts style (`2-0`, `0-2`, `1-1`, `0-0`). Comments and
variations are skipped: a `PdnGame` is the tags, the main line's move texts and the result.

Moves are not checked while reading; `PdnGame.replay()` plays them through `Game.play`, that is through
the one notation parser, and reports the first illegal move with the game's index and the move number.

Which variant a game is played in: the `Variant` tag (our variant key, e.g. `russian-giveaway`) wins;
otherwise the `GameType` tag (20 International, 21 English, 22 Italian, 23 Pool, 25 Russian,
26 Brazilian); otherwise the default given to the reader (russian-giveaway unless told). A `FEN` tag
sets up the start position. Our extension tag `Options "double-diagonal"` switches on that rule set.

>>> games = read_games('[GameType "25"]\\n1. c3-d4 {a comment} f6-e5 (f6-g5) 2. d4:f6 g7:e5 1-0')
>>> games[0].moves, games[0].result
(['c3-d4', 'f6-e5', 'd4:f6', 'g7:e5'], '1-0')
>>> print(write_game(games[0].replay(), {"Event": "Demo"}))  # doctest: +NORMALIZE_WHITESPACE
[Event "Demo"]
[Site "?"]
[Date "????.??.??"]
[Round "?"]
[White "?"]
[Black "?"]
[Result "*"]
[GameType "25"]
[Variant "russian"]
<BLANKLINE>
1. c3-d4 f6-e5 2. d4:f6 g7:e5 *
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from shashki.rules.errors import FenError, IllegalMove, PdnError
from shashki.rules.game import Game
from shashki.rules.position import Position
from shashki.rules.variant import DEFAULT_VARIANT_KEY, VARIANTS, UnknownVariant, Variant, get_variant

__all__ = [
    "GAME_TYPES",
    "IllegalPdnMove",
    "PdnGame",
    "iter_games",
    "normalize_result",
    "read_games",
    "write_game",
]

# PDN GameType numbers of the variants we play (RULES.md §5); the giveaway forms share their base's.
GAME_TYPES: dict[int, str] = {v.game_type: v.key for v in VARIANTS.values() if not v.giveaway}

# Both result styles, mapped to the chess style that Outcome.result uses. "0-0" (both sides lose, as
# after a double forfeit) has no chess-style equivalent and is kept as it is.
_RESULTS: dict[str, str] = {
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
_TAG = re.compile(r'\[\s*([A-Za-z0-9_]+)\s*"((?:[^"\\]|\\.)*)"\s*\]')
_TOKEN = re.compile(r"[^\s{}()\[\];]+")
_MOVE_NUMBER = re.compile(r"(\d+)\.+")
_STRENGTH = re.compile(r"[!?]+$")
_NAG = re.compile(r"\$\d+")


def normalize_result(text: str | None) -> str | None:
    """The chess-style result (`1-0`, `0-1`, `1/2-1/2`, `*`, or `0-0`) of a result token, else None.

    >>> normalize_result("2-0"), normalize_result("1-1"), normalize_result("e3-f4")
    ('1-0', '1/2-1/2', None)
    """
    if text is None:
        return None
    return _RESULTS.get(text.strip())


class IllegalPdnMove(PdnError):
    """A game of a PDN text with an illegal move: which game, which move, and why (the IllegalMove)."""

    def __init__(self, game_index: int, move_number: int, ply: int, move_text: str, illegal: IllegalMove,
                 *, black_to_move: bool = False) -> None:
        dots = "..." if black_to_move else "."
        super().__init__(
            f"game {game_index}: illegal move {move_number}{dots} {move_text}: {illegal.message}",
            game_index=game_index,
            move_number=move_number,
            code="illegal_move",
        )
        self.ply = ply
        self.move_text = move_text
        self.illegal = illegal
        self.reason = illegal.message
        self._black_to_move = black_to_move

    def __reduce__(self):
        # Picklable (the server's process pool may hand errors back); the IllegalMove goes as its fields.
        illegal = (self.illegal.code, self.illegal.message, self.illegal.legal)
        args = (self.game_index, self.move_number, self.ply, self.move_text, illegal)
        return (_illegal_pdn_move, (*args, self._black_to_move))


def _illegal_pdn_move(game_index, move_number, ply, move_text, illegal, black_to_move):
    return IllegalPdnMove(game_index, move_number, ply, move_text, IllegalMove(*illegal),
                          black_to_move=black_to_move)


@dataclass
class PdnGame:
    """One game read from a PDN text: its tags, the main line's move texts and its result.

    `index` counts the games of the text from 1; `line` is the line the game starts on. `result` is
    the game's result in chess style (see `normalize_result`): the movetext's termination marker, or
    the `Result` tag when the movetext has none, or `*`.
    """

    index: int
    tags: dict[str, str] = field(default_factory=dict)
    moves: list[str] = field(default_factory=list)
    result: str = "*"
    line: int = 1
    default_variant: str = DEFAULT_VARIANT_KEY

    @property
    def variant(self) -> Variant:
        """The game's variant: the Variant tag, else the GameType tag, else the reader's default."""
        return _variant_of(self.tags, self.index, self.default_variant)

    @property
    def fen(self) -> str | None:
        fen = self.tags.get("FEN", "").strip()
        return fen or None

    def replay(self) -> Game:
        """Play the game's moves from its start; PdnError (IllegalPdnMove for a move) on the first fault."""
        variant = self.variant
        try:
            game = Game(variant, self.fen)
        except (FenError, UnknownVariant, ValueError) as exc:
            raise PdnError(f"game {self.index}: bad FEN tag {self.fen!r}: {exc}", game_index=self.index,
                           code="bad_fen") from None
        # Move numbers count from the variant's first player (White, or Black in English and Pool).
        offset = 0 if game.start.side_to_move is variant.first_player else 1
        for ply, text in enumerate(self.moves):
            try:
                game.play(text)
            except IllegalMove as exc:
                number = (ply + offset) // 2 + 1
                second = (ply + offset) % 2 == 1
                raise IllegalPdnMove(self.index, number, ply + 1, text, exc, black_to_move=second) from None
        return game


def _variant_of(tags: Mapping[str, str], index: int, default: str) -> Variant:
    options = {o.strip().lower() for o in tags.get("Options", "").replace(",", " ").split()}
    double_diagonal = "double-diagonal" in options
    name = tags.get("Variant", "").strip()
    try:
        if name:
            return get_variant(name, double_diagonal=double_diagonal)
        game_type = tags.get("GameType", "").strip()
        if game_type:
            # GameType may carry more fields after the number: "20,W,10,10,N2,0".
            head = game_type.split(",")[0].strip()
            key = GAME_TYPES.get(int(head)) if head.isdigit() else None
            if key is None:
                known = ", ".join(f"{n} {VARIANTS[k].name}" for n, k in sorted(GAME_TYPES.items()))
                raise PdnError(
                    f"game {index}: GameType {game_type!r} is not a variant we play (known: {known})",
                    game_index=index, code="unknown_variant")
            return get_variant(key, double_diagonal=double_diagonal)
        return get_variant(default, double_diagonal=double_diagonal)
    except UnknownVariant as exc:
        raise PdnError(f"game {index}: {exc}", game_index=index, code="unknown_variant") from None
    except ValueError as exc:  # an option the variant does not offer
        if isinstance(exc, PdnError):
            raise
        raise PdnError(f"game {index}: {exc}", game_index=index, code="unknown_variant") from None


# ------------------------------------------------------------------------------------------------
# Reading


def read_games(text: str, *, default_variant: str = DEFAULT_VARIANT_KEY) -> list[PdnGame]:
    """Every game of a PDN text; PdnError (with the line) when the text cannot be read."""
    return list(iter_games(text.splitlines(), default_variant=default_variant))


def iter_games(lines: Iterable[str], *, default_variant: str = DEFAULT_VARIANT_KEY) -> Iterator[PdnGame]:
    """The games of a PDN text given line by line (an open file will do), one at a time."""
    index = 0
    tags: dict[str, str] = {}
    moves: list[str] = []
    start_line = 0
    started = False  # the game has a tag or a move
    comment_line = 0  # line where an open {comment} started, 0 when none is open
    variation_lines: list[int] = []  # lines where the open (variations) started

    def finish(result: str | None) -> PdnGame:
        nonlocal index, tags, moves, started
        index += 1
        final = normalize_result(result) or normalize_result(tags.get("Result")) or "*"
        game = PdnGame(index, tags, moves, final, start_line or 1, default_variant)
        tags, moves, started = {}, [], False
        return game

    lineno = 0
    for lineno, raw in enumerate(lines, 1):
        if not isinstance(raw, str):
            raise PdnError(f"line {lineno}: PDN must be text", code="bad_pdn")
        line = raw.rstrip("\r\n")
        if not comment_line and line.startswith("%"):
            continue  # PGN/PDN escape line
        pos = 0
        n = len(line)
        while pos < n:
            if comment_line:
                close = line.find("}", pos)
                if close < 0:
                    break
                comment_line = 0
                pos = close + 1
                continue
            ch = line[pos]
            if ch.isspace():
                pos += 1
            elif ch == "{":
                comment_line = lineno
                pos += 1
            elif ch == ";":
                break  # comment to the end of the line
            elif ch == "(":
                variation_lines.append(lineno)
                pos += 1
            elif ch == ")":
                if variation_lines:  # a stray ")" is ignored
                    variation_lines.pop()
                pos += 1
            elif ch == "[":
                if variation_lines:
                    raise PdnError(f"line {lineno}: a tag inside a variation: the variation opened on line "
                                   f"{variation_lines[-1]} is never closed")
                m = _TAG.match(line, pos)
                if not m:
                    raise PdnError(f"line {lineno}: malformed tag pair {line[pos:pos + 60]!r}; "
                                   'write tags as [Name "value"]')
                if moves:
                    # A new tag section after movetext without a result starts the next game.
                    yield finish(None)
                if not started:
                    start_line = lineno
                    started = True
                tags[m.group(1)] = _unescape(m.group(2))
                pos = m.end()
            elif ch in "]}":
                pos += 1  # stray closing bracket: ignored
            else:
                m = _TOKEN.match(line, pos)
                if m is None:  # cannot happen: ch is none of the delimiters above
                    pos += 1
                    continue
                pos = m.end()
                if variation_lines:
                    continue
                token = m.group(0)
                if token in _RESULTS:
                    if not started:
                        start_line = lineno
                    yield finish(token)
                    continue
                move = _move_text(token)
                if move:
                    if not started:
                        start_line = lineno
                        started = True
                    moves.append(move)
    if comment_line:
        raise PdnError(f"line {comment_line}: the comment opened here is never closed with }}")
    if variation_lines:
        raise PdnError(f"line {variation_lines[-1]}: the variation opened here is never closed with )")
    if started:
        yield finish(None)


def _move_text(token: str) -> str | None:
    """The move in a movetext token, or None for move numbers, ellipses, NAGs and strength marks."""
    m = _MOVE_NUMBER.match(token)
    if m:
        token = token[m.end():]  # "12." or "12...", perhaps run into the move: "1.c3-d4"
    token = token.lstrip(".")
    token = _STRENGTH.sub("", token)
    if not token or _NAG.fullmatch(token):
        return None
    if token.isdigit() and len(token) < 4:
        return None  # a move number written without its dot; "3227" (4 digits) is a move
    return token


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


# ------------------------------------------------------------------------------------------------
# Writing


def write_game(game: Game, tags: Mapping[str, str] | None = None) -> str:
    """The game as PDN text: tags, then the numbered moves in the variant's notation, then the result.

    Tags come in the Seven Tag Roster order (Event, Site, Date, Round, White, Black, Result; "?" for
    those not given), then GameType, Variant, Options (when a rule option is on) and FEN (when the game
    did not start from the variant's start position), then any other tags given, in their order.
    The result is the game's outcome; for a game without one, a valid `Result` among `tags` (a result
    decided off the board, say), else `*`. Movetext lines are at most 80 characters.
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
    return "\n".join(out) + "\n\n" + "\n".join(_movetext(game, result)) + "\n"


def _tag(name: str, value: object) -> str:
    if not re.fullmatch(r"[A-Za-z0-9_]+", name):
        raise PdnError(f"tag name {name!r} must be letters, digits and _ only")
    text = " ".join(str(value).split())  # one line
    text = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'[{name} "{text}"]'


def _movetext(game: Game, result: str) -> list[str]:
    variant = game.variant
    offset = 0 if game.start.side_to_move is variant.first_player else 1
    units: list[str] = []
    for ply, move in enumerate(game.moves):
        at = ply + offset
        number = at // 2 + 1
        text = move.notation(variant)
        if at % 2 == 0:
            units.append(f"{number}. {text}")
        elif ply == 0:
            units.append(f"{number}... {text}")
        else:
            units.append(text)
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
