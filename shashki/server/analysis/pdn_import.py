"""PDN import for the analysis board: a PDN text (one or many games) read by the one PDN reader
(`shashki.rules.pdn`) and each game's tree — main line, variations, comments — played through the rules
(`shashki.rules.pdn_tree`), with each position as the board shows it (FEN, legal moves, outcome).

A game's tree is sent flat, as `nodes`: its positions in pre-order (the root first; a node's main
continuation before its variations), each naming its `parent` by index (None for the root). A nested
tree would nest as deep as the game is long, past what a JSON encoder (or the client's reader) allows.

A text that cannot be read at all is refused (`Invalid`, naming the line). A game with an illegal move or
a bad set-up is listed with its `error` (naming the game, the move and the line it is on); the other games
of the text still open.
"""

from __future__ import annotations

from typing import Any

import orjson

from shashki.rules import PdnError
from shashki.rules.notation import square_label
from shashki.rules.pdn import IllegalPdnMove, PdnGame, read_games
from shashki.rules.pdn_tree import PdnNode, play_tree
from shashki.server.analysis.board import position_json
from shashki.server.errors import Invalid

MAX_GAMES = 200
MAX_NODES = 20_000  # positions in one import, all games together (each carries its legal moves)


def import_pdn(text: str, default_variant: str | None = None) -> dict[str, Any]:
    """`{"games": [...]}`: each game's tags, variant, result and tree (`nodes`), or its error."""
    try:
        games = read_games(text, **({"default_variant": default_variant} if default_variant else {}))
    except PdnError as exc:
        raise Invalid("bad_pdn", f"This PDN cannot be read: {exc.message}") from None
    if not games:
        raise Invalid("no_games", "This text holds no PDN game.")
    if len(games) > MAX_GAMES:
        raise Invalid("too_many_games", f"At most {MAX_GAMES} games are imported at once.")
    budget = [MAX_NODES]
    return {"games": [_game_json(game, budget) for game in games]}


def import_json(text: str, default_variant: str | None = None) -> bytes | tuple[str, str]:
    """`import_pdn`'s answer as JSON, or the (code, message) of its refusal: what a worker process sends
    back (an exception with a code would not survive the trip whole)."""
    try:
        return orjson.dumps(import_pdn(text, default_variant))
    except Invalid as exc:
        return exc.code, exc.message


def _game_json(pdn: PdnGame, budget: list[int]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "index": pdn.index,
        "line": pdn.line,
        "tags": pdn.tags,
        "result": pdn.result,
        "variant": None,
        "nodes": None,
        "error": None,
    }
    try:
        variant = pdn.variant
        out["variant"] = variant.key
        out["double_diagonal"] = variant.double_diagonal
        root = play_tree(pdn)
    except IllegalPdnMove as exc:
        out["error"] = {"code": exc.code, "message": exc.message, "game": exc.game_index, "line": exc.line,
                        "move": exc.move_text, "move_number": exc.move_number, "reason": exc.reason}
        return out
    except PdnError as exc:
        out["error"] = {"code": exc.code, "message": exc.message, "game": pdn.index, "line": pdn.line}
        return out
    out["nodes"] = _nodes_json(root, budget)
    return out


def _nodes_json(root: PdnNode, budget: list[int]) -> list[dict[str, Any]]:
    """The tree under `root` in pre-order, each node with its parent's index (no recursion: a game's
    main line is as long as the game)."""
    nodes: list[dict[str, Any]] = []
    todo: list[tuple[PdnNode, int | None]] = [(root, None)]
    while todo:
        node, parent = todo.pop()
        budget[0] -= 1
        if budget[0] < 0:
            raise Invalid("too_many_positions", f"At most {MAX_NODES} positions are imported at once.")
        variant = node.position.variant
        out = position_json(node.position, node.ply, node.outcome)
        out.update(
            parent=parent,
            move=node.notation,
            path=[square_label(variant, b) for b in node.move.path] if node.move else [],
            comment=node.comment,
            before=node.before,
            marks=node.marks,
        )
        todo.extend((child, len(nodes)) for child in reversed(node.children))
        nodes.append(out)
    return nodes
