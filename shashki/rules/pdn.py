"""PDN 3.0: reading games (RULES.md §5); writing them is `shashki.rules.pdn_write` (re-exported here).

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
from shashki.rules.pdn_write import RESULTS, SEVEN_TAG_ROSTER, normalize_result, write_game
from shashki.rules.variant import DEFAULT_VARIANT_KEY, VARIANTS, UnknownVariant, Variant, get_variant

__all__ = [
    "GAME_TYPES",
    "SEVEN_TAG_ROSTER",
    "IllegalPdnMove",
    "PdnGame",
    "PdnMove",
    "iter_games",
    "normalize_result",
    "read_games",
    "write_game",
]

# PDN GameType numbers of the variants we play (RULES.md §5); the giveaway forms share their base's.
GAME_TYPES: dict[int, str] = {v.game_type: v.key for v in VARIANTS.values() if not v.giveaway}

_TAG = re.compile(r'\[\s*([A-Za-z0-9_]+)\s*"((?:[^"\\]|\\.)*)"\s*\]')
_TOKEN = re.compile(r"[^\s{}()\[\];]+")
_MOVE_NUMBER = re.compile(r"(\d+)\.+")
_STRENGTH = re.compile(r"[!?]+$")
_NAG = re.compile(r"\$\d+")


class IllegalPdnMove(PdnError):
    """A game of a PDN text with an illegal move: which game, which move, and why (the IllegalMove)."""

    def __init__(self, game_index: int, move_number: int, ply: int, move_text: str, illegal: IllegalMove,
                 *, black_to_move: bool = False, line: int | None = None) -> None:
        dots = "..." if black_to_move else "."
        where = f" on line {line}" if line is not None else ""
        super().__init__(
            f"game {game_index}: illegal move {move_number}{dots} {move_text}{where}: {illegal.message}",
            game_index=game_index,
            move_number=move_number,
            code="illegal_move",
        )
        self.ply = ply
        self.move_text = move_text
        self.illegal = illegal
        self.reason = illegal.message
        self.line = line  # the line of the PDN text the move is on, when known
        self._black_to_move = black_to_move

    def __reduce__(self):
        # Picklable (the server's process pool may hand errors back); the IllegalMove goes as its fields.
        illegal = (self.illegal.code, self.illegal.message, self.illegal.legal)
        args = (self.game_index, self.move_number, self.ply, self.move_text, illegal)
        return (_illegal_pdn_move, (*args, self._black_to_move, self.line))


def _illegal_pdn_move(game_index, move_number, ply, move_text, illegal, black_to_move, line=None):
    return IllegalPdnMove(game_index, move_number, ply, move_text, IllegalMove(*illegal),
                          black_to_move=black_to_move, line=line)


@dataclass
class PdnMove:
    """One move of a movetext as written: its text, the line it is on, the comment before it (at the
    start of a game or a variation) and after it, its marks (`!?`, `$1`), and the variations that may
    replace it — each a list of moves played instead of it, from the position before it."""

    text: str
    line: int
    comment: str = ""
    before: str = ""
    marks: list[str] = field(default_factory=list)
    variations: list[list[PdnMove]] = field(default_factory=list)


@dataclass
class PdnGame:
    """One game read from a PDN text: its tags, the main line's move texts (and, in `mainline`, the moves
    with their comments and variations) and its result.

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
    # The main line with its comments and variations (`moves` is its texts); see `pdn_tree.play_tree`.
    mainline: list[PdnMove] = field(default_factory=list)

    @property
    def variant(self) -> Variant:
        """The game's variant: the Variant tag, else the GameType tag, else the reader's default."""
        return _variant_of(self.tags, self.index, self.default_variant)

    @property
    def fen(self) -> str | None:
        fen = self.tags.get("FEN", "").strip()
        return fen or None

    def setup(self) -> Game:
        """The game at its start (the FEN tag's position, else the variant's); PdnError if it cannot be."""
        variant = self.variant
        try:
            return Game(variant, self.fen)
        except (FenError, UnknownVariant, ValueError) as exc:
            raise PdnError(f"game {self.index}: bad FEN tag {self.fen!r}: {exc}", game_index=self.index,
                           code="bad_fen") from None

    def replay(self) -> Game:
        """Play the game's moves from its start; PdnError (IllegalPdnMove for a move) on the first fault."""
        variant = self.variant
        game = self.setup()
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
    start_line = 0
    started = False  # the game has a tag or a move
    comment_line = 0  # line where an open {comment} started, 0 when none is open
    comment: list[str] = []  # the text of the open {comment}
    # The lines being read: the main line first, then each open variation with the move it replaces
    # (None for a variation before any move, which is read and dropped) and the line it opened on.
    stack: list[tuple[PdnMove | None, list[PdnMove], int]] = [(None, [], 0)]
    pending = ""  # a comment waiting for the move it comes before

    def note(text: str) -> None:
        """A comment: after the last move of the current line, or before the next one."""
        nonlocal pending
        text = " ".join(text.split())
        if not text:
            return
        line = stack[-1][1]
        if line and not pending:
            line[-1].comment = f"{line[-1].comment} {text}".strip()
        else:
            pending = f"{pending} {text}".strip()

    def finish(result: str | None) -> PdnGame:
        nonlocal index, tags, started, pending
        index += 1
        final = normalize_result(result) or normalize_result(tags.get("Result")) or "*"
        mainline = stack[0][1]
        if pending and mainline:
            mainline[-1].comment = f"{mainline[-1].comment} {pending}".strip()
        game = PdnGame(index, tags, [m.text for m in mainline], final, start_line or 1, default_variant,
                       mainline)
        tags, started, pending = {}, False, ""
        stack[:] = [(None, [], 0)]
        return game

    lineno = 0
    for lineno, raw in enumerate(lines, 1):
        if not isinstance(raw, str):
            raise PdnError(f"line {lineno}: PDN must be text", code="bad_pdn")
        line = raw.rstrip("\r\n")
        if lineno == 1:
            line = line.removeprefix("\ufeff")  # a byte-order mark, as Windows programs save UTF-8
        if not comment_line and line.startswith("%"):
            continue  # PGN/PDN escape line
        pos = 0
        n = len(line)
        while pos < n:
            if comment_line:
                close = line.find("}", pos)
                if close < 0:
                    comment.append(line[pos:])
                    break
                comment.append(line[pos:close])
                note(" ".join(comment))
                comment_line, comment = 0, []
                pos = close + 1
                continue
            ch = line[pos]
            if ch.isspace():
                pos += 1
            elif ch == "{":
                comment_line = lineno
                pos += 1
            elif ch == ";":
                note(line[pos + 1:])  # comment to the end of the line
                break
            elif ch == "(":
                current = stack[-1][1]
                stack.append((current[-1] if current else None, [], lineno))
                pending = ""
                pos += 1
            elif ch == ")":
                if len(stack) > 1:  # a stray ")" is ignored
                    replaced, variation, _ = stack.pop()
                    if pending and variation:
                        variation[-1].comment = f"{variation[-1].comment} {pending}".strip()
                    if replaced is not None and variation:
                        replaced.variations.append(variation)
                    pending = ""
                pos += 1
            elif ch == "[":
                if len(stack) > 1:
                    raise PdnError(f"line {lineno}: a tag inside a variation: the variation opened on line "
                                   f"{stack[-1][2]} is never closed")
                m = _TAG.match(line, pos)
                if not m:
                    raise PdnError(f"line {lineno}: malformed tag pair {line[pos:pos + 60]!r}; "
                                   'write tags as [Name "value"]')
                if stack[0][1]:
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
                token = m.group(0)
                if token in RESULTS:
                    if len(stack) > 1:
                        continue  # a result inside a variation ends nothing
                    if not started:
                        start_line = lineno
                    yield finish(token)
                    continue
                current = stack[-1][1]
                if _NAG.fullmatch(token) or _STRENGTH.fullmatch(token):
                    if current:
                        current[-1].marks.append(token)
                    continue
                move = _move_text(token)
                if move:
                    if not started:
                        start_line = lineno
                        started = True
                    mark = _STRENGTH.search(token)
                    current.append(PdnMove(move, lineno, before=pending,
                                           marks=[mark.group(0)] if mark else []))
                    pending = ""
    if comment_line:
        raise PdnError(f"line {comment_line}: the comment opened here is never closed with }}")
    if len(stack) > 1:
        raise PdnError(f"line {stack[-1][2]}: the variation opened here is never closed with )")
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
