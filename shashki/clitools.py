"""What the commands of `shashki` share: one-line errors, the variant and FEN options, the board drawing.

Used by shashki/cli.py and the engine's commands (shashki/engine/cli.py).
"""

from __future__ import annotations

from shashki.rules.errors import FenError
from shashki.rules.position import Position
from shashki.rules.variant import UnknownVariant, Variant, get_variant

VARIANT_HELP = "Variant key (russian-giveaway, russian, brazilian, international, english, italian, pool, "
VARIANT_HELP += "<key>-giveaway)."
FEN_HELP = "Start from this position (PDN FEN, e.g. W:W21,22,K5:B1,2; a1-h8 squares on 8x8)."


class CliError(Exception):
    """A mistake in how the command was called: printed as one `error:` line, exit code 2."""

    exit_code = 2


def variant_of(key: str | None) -> Variant:
    try:
        return get_variant(key)
    except UnknownVariant as exc:
        raise CliError(str(exc)) from None


def position_of(variant: Variant, fen: str | None) -> Position:
    if fen is None:
        return Position.start(variant)
    try:
        return Position.from_fen(fen, variant)
    except FenError as exc:
        raise CliError(f"bad FEN {fen!r}: {exc.message}") from None


def board_text(pos: Position):
    """The board as rich text, White at the bottom, with file letters and rank numbers."""
    from rich.text import Text

    board = pos.board
    size = board.size
    at: dict[tuple[int, int], int] = {}
    for square, row in board.rows.items():
        col = board.cols[square]
        at[(row, size - 1 - col if board.mirrored else col)] = square
    text = Text()
    for row in range(size):
        text.append(f"{size - row:>2} ")
        for col in range(size):
            bit = at.get((row, col))
            if bit is None:
                text.append("   ", style="on grey70")
                continue
            piece = pos.piece_at(bit)
            if piece is None:
                text.append(" · ", style="grey50 on grey35")
                continue
            color, king = piece
            # Distinct glyphs as well as colours, so the board reads without colour too.
            if color.value == "white":
                text.append(" ◎ " if king else " ○ ", style="bold bright_white on grey35")
            else:
                text.append(" ◉ " if king else " ● ", style="bold black on grey35")
        text.append("\n")
    text.append("   " + "".join(f" {chr(ord('a') + c)} " for c in range(size)))
    return text
