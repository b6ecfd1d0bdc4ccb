"""lidraughts' move strings, to and from rules `Move`s.

A move string is lidraughts' "UCI" form of a move: the square numbers of the variant's numbering, two
digits each, concatenated — the start square, then every square the piece lands on. A simple move is
`3227`; a capture jumping from 42 over 37 and 28 to 31 and 22 is `423122`. In a game's `moves` a capture
is listed jump by jump, one entry per jump (`4231 3122`), as lidraughts lists them and as its clients
(lidraughts-bot) read them: each entry is then four digits.

A move string names a legal move through the rules' one resolver, `Position.move_by_path`: the whole
route, or its start and end when only one legal capture joins them. lidraughts' clients also send a
capture jump by jump, one request per jump (`4231`, then `3122`): a jump that begins a legal capture without
finishing it is kept (`PendingJumps`) until the jumps that follow complete it — in this process, or in
Redis when the server has several processes, since each jump may reach another one.

>>> from shashki.rules import Game
>>> game = Game("russian-giveaway")
>>> [move_string(game.variant, game.play(text)) for text in ("c3-d4", "f6-e5", "d4:f6")]
['2218', '1115', '1811']
>>> game = Game("russian-giveaway", "B:W17,18:B15")
>>> jump_strings(game.variant, game.play("e5:c3:a5"))
['1522', '2213']
>>> jumps = PendingJumps()
>>> game = Game("russian-giveaway", "B:W17,18:B15")
>>> jumps.resolve(game.position, ("g1", "bot"), 0, "1522")  # the first jump: kept
(None, False)
>>> move, _ = jumps.resolve(game.position, ("g1", "bot"), 0, "2213")
>>> move.notation(game.variant)
'e5:c3:a5'
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from shashki.rules import IllegalMove, Move, Position, Variant
from shashki.server.errors import Invalid
from shashki.server.games.replay import new_game


def move_string(variant: Variant, move: Move) -> str:
    """A move in lidraughts' form: every square of its path, two digits each."""
    return "".join(f"{variant.board.number(bit):02d}" for bit in move.path)


def jump_strings(variant: Variant, move: Move) -> list[str]:
    """A move as a game's `moves` lists it: one four-digit entry per step (a capture jump by jump)."""
    numbers = [variant.board.number(bit) for bit in move.path]
    return [f"{a:02d}{b:02d}" for a, b in zip(numbers, numbers[1:], strict=False)]


def squares_of(variant: Variant, text: str) -> list[int]:
    """The bits of a move string's squares; Invalid unless it is pairs of digits naming squares."""
    if not (text.isascii() and text.isdigit()) or len(text) % 2 or len(text) < 4:
        raise Invalid("malformed", f"{text!r} is not a move: square numbers, two digits each, e.g. 3227.")
    numbers = [int(text[i : i + 2]) for i in range(0, len(text), 2)]
    board = variant.board
    if not all(1 <= n <= board.squares for n in numbers):
        raise Invalid("malformed", f"{text!r}: squares are numbered 1 to {board.squares} here.")
    return [board.bit_of_number(n) for n in numbers]


class MoveStrings:
    """A game's moves as lidraughts lists them (captures jump by jump), kept up to date from the
    notations of its states."""

    def __init__(self, variant: str, double_diagonal: bool, fen: str | None) -> None:
        self.terms = (variant, double_diagonal, fen)
        self._start()

    def _start(self) -> None:
        self.game = new_game(*self.terms)
        self.strings: list[str] = []
        self.notations: list[str] = []  # the moves read so far (a capture adds one string per jump)
        self.last = ""  # the last move whole (lidraughts' `lastMove`)

    @property
    def played(self) -> int:
        return len(self.notations)

    def update(self, notations: list[str]) -> list[str]:
        if notations[: self.played] != self.notations:
            self._start()  # moves taken back (games/takeback.py): read again from the start
        for notation in notations[self.played :]:
            move = self.game.play(notation)
            self.strings.extend(jump_strings(self.game.variant, move))
            self.last = move_string(self.game.variant, move)
            self.notations.append(notation)
        return self.strings


@dataclass
class Jumps:
    """The first jumps of a capture sent jump by jump, at one ply of one game, by one player."""

    ply: int
    path: list[int] = field(default_factory=list)
    offering_draw: bool = False  # a draw offer sent with one of the jumps goes with the whole move


class PendingJumps:
    """Captures being sent jump by jump, per (game, player), kept until complete.

    `resolve` works on this process's map. With `redis_url`, a request brings the key's jumps in from
    Redis first (`load`, taking them out) and puts what is left pending back (`save`, for `ttl` seconds),
    so the next jump may go to any process.
    """

    def __init__(self, redis_url: str | None = None, *, prefix: str = "shashki:jumps:", ttl: int = 600):
        self._pending: dict[tuple[str, object], Jumps] = {}
        self._redis: Any = None
        if redis_url:
            import redis.asyncio as redis

            self._redis = redis.from_url(redis_url, client_name="shashki-jumps")
        self.prefix = prefix
        self.ttl = ttl

    def _name(self, key: tuple[str, object]) -> str:
        return f"{self.prefix}{key[0]}:{key[1]}"

    async def load(self, key: tuple[str, object]) -> None:
        """Take the key's pending jumps out of Redis into this process (nothing to do without Redis)."""
        if self._redis is None:
            return
        raw = await self._redis.getdel(self._name(key))
        if raw is not None:
            self._pending[key] = Jumps(**json.loads(raw))

    async def save(self, key: tuple[str, object]) -> None:
        """Put the key's jumps still pending back into Redis, for whichever process gets the next one."""
        if self._redis is None:
            return
        pending = self._pending.pop(key, None)
        if pending is not None:
            await self._redis.set(self._name(key), json.dumps(asdict(pending)), ex=self.ttl)

    async def close(self) -> None:
        if self._redis is not None:
            await self._redis.aclose()

    def resolve(
        self, position: Position, key: tuple[str, object], ply: int, text: str, *, offering_draw: bool = False
    ) -> tuple[Move | None, bool]:
        """The legal move the move string names (joined to the jumps kept for `key` at this ply), or None
        for a jump that begins a capture (kept); and whether a draw offer goes with it (sent with any of
        its jumps). Invalid with the rules' reason and the legal moves when the squares name no move.
        """
        variant = position.variant
        path = squares_of(variant, text)
        pending = self._pending.pop(key, None)
        if pending is not None and pending.ply == ply and path[0] == pending.path[-1]:
            path = pending.path + path[1:]
            offering_draw = offering_draw or pending.offering_draw
        legal_keys = {m.key for m in position.legal_moves()}
        routes = [m for m in position.capture_routes() if m.key in legal_keys]
        # As on lidraughts, squares that make the first jumps of a legal capture are those jumps (kept
        # until the capture is complete), even when they could also name a whole capture by its ends.
        if not any(list(m.path) == path for m in routes) and any(
            len(m.path) > len(path) and list(m.path[: len(path)]) == path for m in routes
        ):
            self._pending[key] = Jumps(ply, path, offering_draw)
            return None, offering_draw
        try:
            return position.move_by_path(path), offering_draw
        except IllegalMove as refusal:
            if refusal.code == "ambiguous":
                routes = [m for m in routes if m.path[0] == path[0] and m.path[-1] == path[-1]]
                message = "Several captures join these squares: send every landing square."
            else:
                message = refusal.message
            legal = list(dict.fromkeys(move_string(variant, m) for m in routes))
            raise Invalid(refusal.code, message, legal=legal) from None
