"""The search of a Hub session (`shashki.engine.hub`): one at a time, in a thread of its own, started by
`go` and ended by its limit, by `stop`, by `quit` or by the next `go`; it sends an `info` line per
iteration and its `done` as it ends.

The search is set up (`Engine.analyse`, which clears the engine's stop) by `start`, in the thread that
handles `go`, before its own thread runs: a `stop` handled after `go` is never lost, whether or not the
search has begun to run, so stopping is one request and a wait for the `done`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

from shashki.engine.engine import Engine
from shashki.engine.hub_notation import hub_move, hub_score
from shashki.engine.search import Limit, Line
from shashki.engine.timeman import PonderClock
from shashki.rules.position import Move, Position


class HubSearch:
    """The running search of a session, if any; its lines go to `send`."""

    def __init__(self, engine: Engine, send: Callable[[str], None]) -> None:
        self.engine = engine
        self._send = send
        self._thread: threading.Thread | None = None
        self._ponder: PonderClock | None = None  # the clock of a `go ponder` search

    def start(self, position: Position, history: list[int], limit: Limit, numbering: str, *,
              ponder: bool = False) -> None:
        """Set a search up and start it; the one before must have ended (`stop`). Pondering: the search
        goes on through the opponent's time; its own starts at `ponder_hit`."""
        self._ponder = PonderClock() if ponder else None
        lines = self.engine.analyse(position, limit, history, ponder=self._ponder)
        self._thread = threading.Thread(target=self._think, args=(position, lines, numbering))
        self._thread.daemon = True
        self._thread.start()

    def ponder_hit(self) -> None:
        """The opponent played the move expected: the pondering search goes on, its time for the move
        counting from now (nothing when not pondering)."""
        if self._ponder is not None:
            self._ponder.hit()

    def stop(self) -> None:
        """End the running search now, its `done` sent."""
        if self._thread is not None:
            self.engine.stop()
        self.wait()

    def wait(self) -> None:
        """Wait for the running search to end by itself (its limit)."""
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _think(self, position: Position, lines: Iterator[Line], numbering: str) -> None:
        variant = position.variant
        moves = position.legal_moves()
        if not moves:
            # lidraughts-bot ponders the position after its move and the reply it expects, which may
            # be the end of the game. Scan answers a bare `done` there, which pydraughts' HubEngine
            # (0.5 and 0.6) cannot read (IndexError in the client's ponder thread); `0-0` is
            # pydraughts' null move, read without complaint.
            self._send("done move=0-0")
            return
        last = None
        for line in lines:
            last = line
            pv = " ".join(hub_move(m, variant, numbering) for m in _legal_pv(position, line.pv))
            self._send(
                f"info depth={line.depth} mean-depth={line.seldepth:.2f} score={hub_score(line.score)} "
                f'nodes={line.nodes} time={line.seconds:.2f} nps={line.nps} pv="{pv}"'
            )
        best = last.pv if last is not None else (moves[0],)
        reply = f"done move={hub_move(best[0], variant, numbering)}"
        if len(best) > 1:
            reply += f" ponder={hub_move(best[1], variant, numbering)}"
        self._send(reply)


def _legal_pv(position: Position, pv: tuple[Move, ...]) -> list[Move]:
    out = []
    for move in pv:
        if move not in position.legal_moves():
            break
        out.append(move)
        position = position.play(move)
    return out
