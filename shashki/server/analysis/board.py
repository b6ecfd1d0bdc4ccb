"""The analysis board's positions: a variant, a FEN and moves played from it, set up through the rules and
described as clients receive them (the legal moves in the game state's shape, the outcome, and the
endgame tables' verdict where they apply).

Nothing here computes rules: `Game` sets up and plays, `Position.legal_moves` lists the moves (through
`games.view.legal_moves_of`, the one JSON shape of legal moves), and a wrong FEN or move is refused with
the rules' own message.
"""

from __future__ import annotations

from typing import Any

from shashki.rules import (
    FenError,
    Game,
    IllegalMove,
    Outcome,
    Position,
    UnavailableOption,
    UnknownVariant,
    get_variant,
)
from shashki.rules.notation import square_label
from shashki.server.errors import Invalid
from shashki.server.games.view import legal_moves_of

MAX_MOVES = 600  # plies accepted with a position: longer than any real game


def setup(variant: str | None, fen: str | None = None, moves: list[str] | tuple[str, ...] = (), *,
          double_diagonal: bool = False) -> Game:
    """The game from `fen` (or the variant's start) with `moves` played; Invalid saying what is wrong."""
    try:
        rules = get_variant(variant, double_diagonal=double_diagonal)
    except (UnknownVariant, UnavailableOption) as exc:
        raise Invalid("unknown_variant", str(exc)) from None
    try:
        game = Game(rules, fen.strip() if fen and fen.strip() else None)
    except FenError as exc:
        raise Invalid("bad_fen", f"This FEN cannot be read: {exc.message}", fen=fen) from None
    if len(moves) > MAX_MOVES:
        raise Invalid("too_many_moves", f"At most {MAX_MOVES} moves are analysed from a position.")
    for ply, move in enumerate(moves):
        try:
            game.play(move)
        except IllegalMove as exc:
            raise Invalid("illegal_move", f"Move {ply + 1} ({move}) is not legal: {exc.message}", ply=ply + 1,
                          move=move, legal=exc.legal) from None
    return game


def outcome_json(outcome: Outcome | None) -> dict[str, Any] | None:
    if outcome is None:
        return None
    winner = outcome.winner.value if outcome.winner is not None else None
    return {"result": outcome.result, "winner": winner, "reason": outcome.reason}


def tablebase_json(position: Position) -> dict[str, Any] | None:
    """The endgame tables' result for the side to move (Russian giveaway and Russian with few pieces),
    else None.

    Only the plain rule sets: the tables do not know the double-diagonal convention (RULES.md §3). The
    Russian tables know no draw by count (FMJD-64 7.2.4-7.2.8): a win longer than the counts allow,
    counted afresh from this position as in a game set up from it (`counts.fresh_bound`, what the engine
    believes), is marked `"counts": "may_draw"` — the rules may draw it before it is won.
    """
    from shashki.engine.counts import fresh_bound
    from shashki.engine.tablebase import default_tablebase, has_tables

    variant = position.variant
    if not has_tables(variant):
        return None
    probe = default_tablebase(variant.key).probe(position)
    if probe is None:
        return None
    result, plies = probe
    mover = position.side_to_move
    if result == 0:
        return {"result": "draw", "winner": None, "plies": 0}
    winner = mover if result > 0 else mover.other
    body: dict[str, Any] = {"result": "win" if result > 0 else "loss", "winner": winner.value, "plies": plies,
                            "moves": (plies + 1) // 2}
    if not variant.giveaway and plies > fresh_bound(position):
        body["counts"] = "may_draw"
    return body


def position_json(position: Position, ply: int = 0, outcome: Outcome | None = None) -> dict[str, Any]:
    """A position as the analysis board shows it and plays on from it (`outcome`: the game ended there)."""
    legal = legal_moves_of(position) if outcome is None else ()
    return {
        "variant": position.variant.key,
        "double_diagonal": position.variant.double_diagonal,
        "fen": position.fen(),
        "side_to_move": position.side_to_move.value,
        "ply": ply,
        "legal_moves": [m.as_dict() for m in legal],
        "outcome": outcome_json(outcome),
        "tablebase": tablebase_json(position),
    }


def game_json(game: Game) -> dict[str, Any]:
    """The position a game has reached, with the moves that led there from its start."""
    variant = game.variant
    last = game.moves[-1] if game.moves else None
    return {
        **position_json(game.position, game.ply, game.outcome),
        "start_fen": game.start.fen(),
        "moves": game.notations(),
        "last_move": [square_label(variant, b) for b in last.path] if last else [],
    }
