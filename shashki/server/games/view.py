"""The state of a game as its clients see it: built once per change (`build_view`), then turned into the
JSON the browser, the live channel and the Bot API read (`GameView.to_json`). A state carries the whole
game, legal moves included, so that a client never computes rules itself; after a change, a client that
holds the state before it gets only what changed (`state_patch`: the moves added, the clocks, the next
legal moves — issue 11), never the whole game again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from shashki.rules import Color, Move, Position, Variant
from shashki.rules.notation import square_label
from shashki.server.games.clock import CLOCK_STARTS_AT_PLY
from shashki.server.games.live import LiveGame, Player
from shashki.server.games.models import GameStatus


@dataclass(frozen=True, slots=True)
class LegalMove:
    """A legal move: its notation, every square it lands on (start first), the squares it captures."""

    move: str
    path: tuple[str, ...]
    captures: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"move": self.move, "path": list(self.path), "captures": list(self.captures)}


def legal_moves_of(position: Position) -> tuple[LegalMove, ...]:
    """The legal moves of `position` as clients receive them (the game state, the analysis board)."""
    return _as_legal_moves(_legal(position)[0])


def _as_legal_moves(as_json: list[dict[str, Any]]) -> tuple[LegalMove, ...]:
    return tuple(LegalMove(m["move"], tuple(m["path"]), tuple(m["captures"])) for m in as_json)


def move_named(position: Position, text: str) -> Move | None:
    """The legal move of `position` whose notation is exactly `text` (what the board and the Bot API send),
    found in the cache below; None for anything else, which the rules' parser then reads (liberal
    notation, and the reason of a refusal)."""
    return _legal(position)[1].get(text)


# The legal moves of the positions seen lately, as their JSON and by their notations: a position's moves
# depend on the position alone (its pieces, the side to move, the variant's rules: `Position.__eq__`), so
# every state of it — each move's, each socket's first, each resync — and the move played from it reuse
# them (issue 11); so does its FEN. Bounded: emptied when full, refilled by the positions in play. An
# entry holds as few objects as it can (the JSON's dicts and lists, no `LegalMove` made ahead, which
# `legal_moves_of` makes when asked): under load nearly every move reaches a new position, and its entry
# outlives the young generations of the garbage collector, which walks each of its objects.
_Legal = tuple[list[dict[str, Any]], dict[str, Move], str]  # the JSON, the moves by notation, the FEN
_LEGAL_CACHE: dict[Position, _Legal] = {}
LEGAL_CACHE_SIZE = 20_000


def _legal(position: Position) -> _Legal:
    found = _LEGAL_CACHE.get(position)
    if found is None:
        labels, separator = _labels(position.variant)
        as_json = []
        named = {}
        for m in position.legal_moves():
            path = [labels[b] for b in m.path]
            # Move.notation's text, from the labels: the path joined by "-", or by the variant's
            # capture separator for a capture.
            text = (separator if m.capture_mask else "-").join(path)
            as_json.append({"move": text, "path": path, "captures": [labels[b] for b in m.captured]})
            named[text] = m
        found = as_json, named, position.fen()
        if len(_LEGAL_CACHE) >= LEGAL_CACHE_SIZE:
            _LEGAL_CACHE.clear()
        _LEGAL_CACHE[position] = found
    return found


_LABELS: dict[Variant, tuple[tuple[str, ...], str]] = {}


def _labels(variant: Variant) -> tuple[tuple[str, ...], str]:
    """Every square's label in the variant's notation, indexed by its bit (`square_label`), and the
    capture separator: made once per variant (issue 11: the labels were a third of a state's making)."""
    found = _LABELS.get(variant)
    if found is None:
        board = variant.board
        size = max(board.bits) + 1
        labels = tuple(square_label(variant, b) if b in board.bits else "" for b in range(size))
        found = _LABELS[variant] = labels, variant.capture_separator
    return found


@dataclass(frozen=True, slots=True)
class ClockView:
    white_ms: int
    black_ms: int
    initial_ms: int
    increment_ms: int
    running: Color | None  # the side whose clock runs
    # An arena's berserk, (white, black): that side's clock was halved and it has no increment.
    berserk: tuple[bool, bool] = (False, False)

    def as_dict(self) -> dict[str, Any]:
        return {
            "white_ms": self.white_ms,
            "black_ms": self.black_ms,
            "initial_ms": self.initial_ms,
            "increment_ms": self.increment_ms,
            "running": None if self.running is None else self.running.value,
            "berserk": {"white": self.berserk[0], "black": self.berserk[1]},
        }



@dataclass(frozen=True, slots=True)
class DaysView:
    """A correspondence game's time: days per move, and while it is played the side to move's deadline
    and the time left to it (the page counts down from `remaining_ms`; `deadline` is ISO 8601, UTC)."""

    days_per_move: int
    deadline: datetime | None
    remaining_ms: int | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "days_per_move": self.days_per_move,
            "deadline": None if self.deadline is None else self.deadline.isoformat(),
            "remaining_ms": self.remaining_ms,
        }


@dataclass(frozen=True, slots=True)
class GameView:
    id: str
    seq: int
    variant: str
    double_diagonal: bool
    rated: bool
    status: GameStatus
    white: Player
    black: Player
    ply: int
    side_to_move: Color
    fen: str
    initial_fen: str | None
    moves: tuple[str, ...]
    # The legal moves' JSON, shared by every state of the position (`_legal`: treat it as read-only).
    legal_json: list[dict[str, Any]]
    clocks: ClockView | None
    draw_offer: Color | None
    result: str | None
    winner: Color | None
    reason: str | None
    mover_disconnected_ms: int | None
    claim_victory_after_ms: int | None  # None: no claim in this game (no clock: games/actions.py)
    rating_diffs: tuple[int, int | None] | None  # (white, black)
    rematch_offer: Color | None
    rematch_id: str | None
    correspondence: DaysView | None = None
    tournament: str | None = None
    simul: str | None = None  # the simultaneous exhibition the game is played in (`server/simuls`)
    # The player asking to take their last move back (games/takeback.py), while the game is played.
    takeback_offer: Color | None = None
    takeback_declined: Color | None = None  # who may ask again only after the next move
    # The ply from which each side, (white, black), may offer a draw again (games/draws.py); None: now.
    draw_again_at: tuple[int | None, int | None] = (None, None)
    # A timed game's side to move that has not made its first move yet: the time left to make it before the
    # game aborts itself (`FirstMoveTimer`); lichess shows it under the clock, counting down.
    first_move_ms: int | None = None
    # The JSON, made once: the store publishes it and the mover's answer reads it (`to_json`).
    _json: dict[str, Any] | None = field(default=None, init=False, repr=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        """The state as every client reads it; made once per view (do not change what it returns)."""
        if self._json is None:
            object.__setattr__(self, "_json", self._make_json())
        assert self._json is not None
        return self._json

    @property
    def legal_moves(self) -> tuple[LegalMove, ...]:
        return _as_legal_moves(self.legal_json)

    def _make_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "seq": self.seq,
            "variant": self.variant,
            "double_diagonal": self.double_diagonal,
            "rated": self.rated,
            "status": self.status.value,
            "white": self.white.as_dict(),
            "black": self.black.as_dict(),
            "ply": self.ply,
            "side_to_move": self.side_to_move.value,
            "fen": self.fen,
            "initial_fen": self.initial_fen,
            "moves": list(self.moves),
            "legal_moves": self.legal_json,
            "clocks": None if self.clocks is None else self.clocks.as_dict(),
            "draw_offer": _name(self.draw_offer),
            "takeback_offer": _name(self.takeback_offer),
            "takeback_declined": _name(self.takeback_declined),
            "draw_again_at": {"white": self.draw_again_at[0], "black": self.draw_again_at[1]},
            "result": self.result,
            "winner": _name(self.winner),
            "reason": self.reason,
            "mover_disconnected_ms": self.mover_disconnected_ms,
            "claim_victory_after_ms": self.claim_victory_after_ms,
            "rating_diffs": (
                None
                if self.rating_diffs is None
                else {"white": self.rating_diffs[0], "black": self.rating_diffs[1]}
            ),
            "rematch": {"offer": _name(self.rematch_offer), "game_id": self.rematch_id},
            "correspondence": None if self.correspondence is None else self.correspondence.as_dict(),
            "tournament": self.tournament,
            "simul": self.simul,
            "first_move_ms": self.first_move_ms,
        }


# The fields of a state that change at nearly every change, or with the time at which a state is built (the
# clocks, the mover's absence, a correspondence game's or a first move's time left): every patch carries
# them. Every other field follows from the game's record at one seq alone — the same in every state of that
# seq, whoever built it — so a patch carries it only when it changed, and the moves only as the ones added.
ALWAYS_PATCHED = frozenset(
    (
        "seq", "ply", "side_to_move", "fen", "legal_moves", "clocks", "mover_disconnected_ms",
        "correspondence", "first_move_ms",
    )
)  # fmt: skip


_MISSING = object()  # a field the state before did not have: always set


def state_patch(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any] | None:
    """The change from the state `before` (seq n - 1) to `after` (seq n), as a game socket sends it:
    `{"type": "patch", "seq": n, "from": n - 1, "set": {field: value, ...}, "append": [notation, ...]}` —
    a client holding state n - 1 sets the fields of `set`, adds the notations of `append` to its `moves`,
    and holds state n. None when `after` does not follow `before` (then the whole state goes).

    >>> before = {"seq": 1, "ply": 0, "moves": [], "white": {"id": 1}, "draw_offer": None}
    >>> state_patch(before, {"seq": 2, "ply": 1, "moves": ["c3-d4"], "white": {"id": 1}, "draw_offer": None})
    {'type': 'patch', 'seq': 2, 'from': 1, 'set': {'seq': 2, 'ply': 1}, 'append': ['c3-d4']}
    """
    seq = after["seq"]
    old_moves, new_moves = before["moves"], after["moves"]
    played = len(old_moves)
    # Moves are only ever added; anything else is not the change of one seq (the same strings: cheap).
    if before["seq"] != seq - 1 or new_moves[:played] != old_moves:
        return None
    changed = {
        name: value
        for name, value in after.items()
        if name in ALWAYS_PATCHED or (name != "moves" and before.get(name, _MISSING) != value)
    }
    return {"type": "patch", "seq": seq, "from": seq - 1, "set": changed, "append": new_moves[played:]}


def _name(color: Color | None) -> str | None:
    return None if color is None else color.value


def build_view(
    live: LiveGame, now: datetime, *, gone_ms: int | None, claim_after_ms: int, first_move_ms: int = 0
) -> GameView:
    """The state of `live` at `now`; `gone_ms` is how long the side to move has been disconnected;
    `first_move_ms` how long a side has for its first move in a timed game (0: no limit)."""
    r = live.record
    position = live.rules.position
    to_move = live.to_move
    clock = live.clock()
    clocks = None
    if clock is not None and r.clock_initial_ms is not None:
        white_ms, black_ms = clock.at(now)
        clocks = ClockView(
            white_ms,
            black_ms,
            r.clock_initial_ms,
            r.clock_increment_ms,
            to_move if clock.running else None,
            (r.white_berserk, r.black_berserk),
        )
    days = None
    if r.days_per_move is not None:
        deadline = live.deadline()
        remaining = None if deadline is None else max(0, int((deadline - now).total_seconds() * 1000))
        days = DaysView(r.days_per_move, deadline, remaining)
    legal_json, _, fen = _legal(position)
    if not live.is_live:
        legal_json = []
    first_move_left = None
    if first_move_ms > 0 and clocks is not None and live.is_live and r.ply < CLOCK_STARTS_AT_PLY:
        waited_ms = (now - r.turn_started_at).total_seconds() * 1000
        first_move_left = max(0, int(first_move_ms - waited_ms))
    return GameView(
        id=r.id,
        seq=r.version,
        variant=r.variant,
        double_diagonal=r.double_diagonal,
        rated=r.rated,
        status=GameStatus(r.status),
        white=live.players[Color.WHITE],
        black=live.players[Color.BLACK],
        ply=r.ply,
        side_to_move=to_move,
        fen=fen,
        initial_fen=r.initial_fen,
        moves=tuple(live.notations),
        legal_json=legal_json,
        clocks=clocks,
        draw_offer=r.draw_offer,
        result=r.result,
        winner=r.winner,
        reason=r.reason,
        mover_disconnected_ms=gone_ms if live.is_live else None,
        claim_victory_after_ms=claim_after_ms if clocks is not None else None,
        rating_diffs=(
            (r.white_rating_diff, r.black_rating_diff) if r.white_rating_diff is not None else None
        ),
        rematch_offer=r.rematch_offer,
        rematch_id=r.rematch_id,
        correspondence=days,
        tournament=live.tournament,
        simul=r.simul_id,
        takeback_offer=r.takeback_offer if live.is_live else None,
        takeback_declined=r.takeback_declined if live.is_live else None,
        draw_again_at=(
            (live.draw_again_at(Color.WHITE), live.draw_again_at(Color.BLACK))
            if live.is_live
            else (None, None)
        ),
        first_move_ms=first_move_left,
    )
