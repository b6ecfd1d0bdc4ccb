"""The Hub protocol (version 2, the text protocol of Scan 3.1 and the Hub GUI) on standard input/output.

The GUI (or a client library such as pydraughts' `HubEngine`) and the engine exchange lines of a command
word followed by `name=value` pairs (values with spaces in double quotes):

    GUI                                   engine
    hub                                   id name=Shashki version=... author=...
                                          param name=variant value=russian-giveaway type=enum values="..."
                                          wait
    set-param name=variant value=russian
    init                                  ready
    ping                                  pong
    new-game
    pos [start] [pos=<hub position>] [moves="<move> <move> ..."]
    level [depth=N] [nodes=N] [move-time=S] [time=S] [inc=S] [moves=N] [infinite]
    go [think|ponder|analyze]             info depth=.. mean-depth=.. score=.. nodes=.. time=.. pv="..."
                                          ... one info per iteration ...
                                          done move=<move> [ponder=<move>]
    stop                                  (the search ends at once with its `done`)
    ponder-hit, quit

Positions, moves and scores are written as `shashki.engine.hub_notation` says (`32-28`, `28x19x23`); the
search runs in a thread of its own (`shashki.engine.hub_search`).

`go ponder` searches the position after the opponent's expected move (the `ponder=` of our last `done`)
on the opponent's time: the `level`'s time for the move is not spent until `ponder-hit` (the opponent
played it), and counts from then, the search going on from where it is; `stop` ends it at once (the
opponent played another move). A `level` `depth`, `nodes` or `move-time` of 0 or less is refused with an
`error` line (the level before stands), never taken for "no limit"; a `time` of 0 or less is a clock that
has run out, and the engine moves at once (pydraughts sends one: it takes the increment off the clock
first).

Lines are read as the protocol says: `name=value` arguments, a value in double quotes when it holds a
space, bare words as flags. One leniency: a `set-param` whose unquoted value is followed by bare words
takes them as the rest of the value, since pydraughts' `HubEngine.setoption` does not quote
(`set-param name=variant value=russian giveaway (poddavki)` sets "russian giveaway (poddavki)").

Variants (`set-param name=variant`): every key and alias of `shashki.rules` (`russian-giveaway` by
default), every variant's name (`Russian giveaway (poddavki)`, any case), Scan's names `normal`
(International) and `losing` (International giveaway), and the names pydraughts and lidraughts-bot send
(`standard`, `american`). Any other name is answered with an `error` line and leaves the session without
a variant (`pos` and `go` then answer `error`) rather than playing some default game. `time` is the
clock *before* this move's increment is added (as Scan and pydraughts count it).

Two more parameters, for lidraughts-bot: `giveaway` (`true`/`false`, before or after the variant) plays
the giveaway form of the variant named, since the server names a giveaway game after its base variant
(docs/bot-api.md) and the client hands that name on; `initial-time`, the game's starting clock that
lidraughts-bot sets for every game, is accepted and unused (`level` carries the clock of each move).
`go` in a position without a legal move (lidraughts-bot ponders the end of a game) answers
`done move=0-0`, pydraughts' null move, since pydraughts cannot read Scan's bare `done`.

Square numbers (RULES.md §1): the hub position and, by default, the moves number the squares as
RULES.md does, which is pydraughts' internal numbering and what lidraughts-bot (pydraughts 0.5) sends.
pydraughts 0.6's `Board` sends the position in that numbering but the moves in each variant's own one
(Russian and Brazilian count from a1; English swaps the colours of its position and so numbers its
moves 33 - n); `set-param name=move-numbering value=pydraughts` reads and writes moves that way.

Run it with `python -m shashki.engine.hub` (or the `shashki hub` command).
"""

from __future__ import annotations

import math
import re
import sys
import threading
from collections.abc import Callable
from typing import TextIO

from shashki import __version__ as _version
from shashki.engine.engine import Engine
from shashki.engine.hub_notation import (
    hub_move,
    hub_position,
    hub_score,
    parse_hub_move,
    parse_hub_position,
)
from shashki.engine.hub_search import HubSearch
from shashki.engine.search import Limit
from shashki.rules.position import Position
from shashki.rules.variant import VARIANTS, UnknownVariant, Variant, get_variant

__all__ = [  # the notation is re-exported: GUIs and tests import it from here
    "HubSession",
    "hub_move",
    "hub_position",
    "hub_score",
    "hub_variant",
    "parse_arguments",
    "parse_hub_move",
    "parse_hub_position",
    "run",
]

NAME = "Shashki"
AUTHOR = "Shashki authors"
# Names other programs use for our variants: Scan's (Hub protocol) and those pydraughts and lidraughts-bot
# send (pydraughts reads "american" as English; lidraughts calls International "standard").
CLIENT_NAMES = {
    "normal": "international",
    "losing": "international-giveaway",
    "standard": "international",
    "american": "english",
}
MOVE_NUMBERINGS = ("hub", "pydraughts")


def hub_variant(name: str) -> Variant:
    """The variant a client names (see the module docstring); UnknownVariant when none of ours."""
    text = name.strip()
    lowered = text.lower()
    if lowered in CLIENT_NAMES:
        return get_variant(CLIENT_NAMES[lowered])
    for variant in VARIANTS.values():
        if lowered == variant.name.lower():
            return variant
    return get_variant(text)  # keys and aliases; UnknownVariant otherwise


_ARGUMENT = re.compile(r'\s*([^\s=]+)(?:=(?:"([^"]*)"|(\S*)))?')


def parse_arguments(args: str, *, value_runs_on: bool = False) -> dict[str, str]:
    """The `name=value` arguments of a line (Hub protocol 2, "general syntax"): a value in double quotes
    may hold spaces and `=`; a bare word is a flag, mapped to "". With `value_runs_on`, bare words after
    an unquoted `value=` continue that value (a client that did not quote it, see the module docstring).

    >>> parse_arguments('name=variant value="russian giveaway (poddavki)"')
    {'name': 'variant', 'value': 'russian giveaway (poddavki)'}
    >>> parse_arguments('start moves="32-28 19-23" infinite')
    {'start': '', 'moves': '32-28 19-23', 'infinite': ''}
    """
    result: dict[str, str] = {}
    last_unquoted = None
    for m in _ARGUMENT.finditer(args):
        name, quoted, plain = m.group(1), m.group(2), m.group(3)
        if quoted is None and plain is None and value_runs_on and last_unquoted is not None:
            result[last_unquoted] += " " + name
            continue
        result[name] = quoted if quoted is not None else (plain or "")
        last_unquoted = name if plain is not None and name == "value" else None
    return result


# ------------------------------------------------------------------------------------------------
# The session


class HubSession:
    """One conversation with a GUI. `handle(line)` for each line received; output goes to `write`."""

    def __init__(self, write: Callable[[str], None], engine: Engine | None = None) -> None:
        self._write = write
        self._lock = threading.Lock()
        self.engine = engine or Engine()
        # None after a variant we do not play was asked for: no game until a known one is set.
        self.variant: Variant | None = get_variant(None)
        self.named: Variant | None = self.variant  # as set-param named it, before `giveaway`
        self.giveaway = False
        self.numbering = "hub"
        self.position: Position | None = Position.start(self.variant)
        self.history: list[int] = []
        self.limit = Limit(time=1.0)
        self.infinite = False
        self.search = HubSearch(self.engine, self.send)

    def send(self, line: str) -> None:
        with self._lock:
            self._write(line)

    def handle(self, line: str) -> bool:
        """Handle one line; False when the session should end (`quit`)."""
        command, _, args = line.strip().partition(" ")
        if not command:
            return True
        handler = getattr(self, "cmd_" + command.replace("-", "_"), None)
        if handler is None:
            self.send(f'error message="unknown command {command}"')
            return True
        try:
            return handler(args.strip()) is not False
        except ValueError as exc:
            self.send(f"error message={_quote(str(exc))}")
            return True

    # Commands ---------------------------------------------------------------------------------

    def cmd_hub(self, args: str) -> None:
        self.send(f"id name={NAME} version={_version} author={_quote(AUTHOR)}")
        aliases = [alias for v in VARIANTS.values() for alias in v.aliases]
        values = " ".join([*VARIANTS, *aliases, *CLIENT_NAMES])
        key = self.variant.key if self.variant else get_variant(None).key
        self.send(f'param name=variant value={key} type=enum values="{values}"')
        numberings = " ".join(MOVE_NUMBERINGS)
        self.send(f'param name=move-numbering value={self.numbering} type=enum values="{numberings}"')
        self.send(f"param name=giveaway value={str(self.giveaway).lower()} type=bool")
        self.send("param name=initial-time value=0 type=real")
        self.send("wait")

    def cmd_set_param(self, args: str) -> None:
        pairs = parse_arguments(args, value_runs_on=True)
        name, value = pairs.get("name"), pairs.get("value", "")
        if name == "variant":
            self.variant = self.named = self.position = None
            self.history = []
            try:
                self.named = hub_variant(value)
            except UnknownVariant:
                raise ValueError(f"unknown variant {value!r}; no game until a known one is set") from None
            self._set_variant()
        elif name == "giveaway":
            if value.lower() not in ("true", "false"):
                raise ValueError(f"giveaway is true or false, not {value!r}")
            self.giveaway = value.lower() == "true"
            if self.named is not None:
                self._set_variant()
        elif name == "move-numbering":
            if value not in MOVE_NUMBERINGS:
                raise ValueError(f"move-numbering is one of {', '.join(MOVE_NUMBERINGS)}, not {value!r}")
            self.numbering = value
        elif name == "initial-time":
            float(value)  # a number, else ValueError; the clock of each move comes with `level`
        else:
            self.send(f"error message={_quote('unknown parameter ' + pairs.get('name', ''))}")

    def cmd_init(self, args: str) -> None:
        """Ready, once the variant's endgame tables are loaded (Hub protocol 2: the engine sets up its data
        at `init`): loaded by the first search, they took its time limit's place (0.8 s of decompression
        before the search's clock started, found by an audit: a first move asked in 0.1 s took 1.2)."""
        self.engine.searcher.warm(self.variant)
        self.send("ready")

    def cmd_ping(self, args: str) -> None:
        self.send("pong")

    def cmd_new_game(self, args: str) -> None:
        self.engine.searcher.table.clear()

    def cmd_pos(self, args: str) -> None:
        pairs = parse_arguments(args)
        self.position = None  # a refused `pos` leaves no position to search, never the previous one
        variant = self._variant()
        pos = Position.start(variant)
        if "pos" in pairs:
            pos = parse_hub_position(pairs["pos"], variant)
        history = []
        for text in pairs.get("moves", "").split():
            move = parse_hub_move(pos, text, self.numbering)
            history.append(pos.hash)
            pos = pos.play(move)
        self.position, self.history = pos, history

    def cmd_level(self, args: str) -> None:
        """A depth, nodes or move-time of 0 or less is refused (an error line; the level before stands),
        never taken for "no limit"; a time (the clock) of 0 or less has run out: the engine moves at once."""
        pairs = parse_arguments(args)

        def number(name: str) -> float | None:
            if name not in pairs:
                return None
            value = float(pairs[name])
            if not math.isfinite(value):
                raise ValueError(f"{name} must be a finite number, not {pairs[name]}")
            return value

        depth, nodes = number("depth"), number("nodes")
        move_time, clock, inc = number("move-time"), number("time"), number("inc") or 0.0
        moves = number("moves")
        if clock is not None:
            # The engine adds this move's increment itself (pydraughts subtracts it first, so the time
            # sent may be below 0).
            clock = max(0.0, clock + inc)
        self.limit = Limit(  # ValueError for a depth, nodes or move-time below 1 (or 0 for the time)
            depth=int(depth) if depth is not None else None,
            nodes=int(nodes) if nodes is not None else None,
            time=move_time,
            remaining=clock,
            increment=inc,
            moves_to_go=int(moves) if moves else None,
        )
        self.infinite = "infinite" in pairs

    def cmd_go(self, args: str) -> None:
        self.cmd_stop("")  # a search still running (pondering, analysing) ends first
        if self.position is None:
            why = self._no_variant() if self.variant is None else "no position: the last pos was refused"
            self.send(f"error message={_quote(why)}")
            # Not Scan's bare `done`, which pydraughts cannot read (IndexError in the client's game
            # thread: an audit); its null move, as when the side to move has none (hub_search.py).
            self.send("done move=0-0")
            return
        mode = args.split()[0] if args else "think"
        limit = Limit() if (self.infinite or mode == "analyze") else self.limit
        self.search.start(self.position, list(self.history), limit, self.numbering, ponder=mode == "ponder")

    def cmd_stop(self, args: str) -> None:
        self.search.stop()

    def cmd_ponder_hit(self, args: str) -> None:
        """The opponent played the move expected: the pondering search goes on, its time for the move
        counting from now (nothing when not pondering)."""
        self.search.ponder_hit()

    def cmd_quit(self, args: str) -> bool:
        self.search.stop()
        return False

    def wait(self) -> None:
        """Wait for the running search to end by itself (its limit), its `done` sent."""
        self.search.wait()

    def _set_variant(self) -> None:
        assert self.named is not None
        named = self.named
        giveaway = self.giveaway and not named.key.endswith("-giveaway")
        self.variant = get_variant(f"{named.key}-giveaway") if giveaway else named
        self.position, self.history = Position.start(self.variant), []

    def _variant(self) -> Variant:
        if self.variant is None:
            raise ValueError(self._no_variant())
        return self.variant

    def _no_variant(self) -> str:
        return "no variant is set: the last one asked for is not one we play"


def _quote(text: str) -> str:
    return '"' + text.replace('"', "'") + '"'


def run(stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> None:
    """Speak the Hub protocol on stdin/stdout until `quit` or the end of the input (which stops a search
    that is still running)."""

    def write(line: str) -> None:
        stdout.write(line + "\n")
        stdout.flush()

    session = HubSession(write)
    for line in stdin:
        if not session.handle(line):
            return
    # The end of the input: "the engine should assume that the GUI has crashed and, therefore, quit as
    # directly as possible" (Hub protocol 2), so a search still running (`go analyze`, `infinite`) is
    # stopped, not waited for. It still ends with its `done`, as after `stop` or `quit`: a client that
    # closed only our input (a script piping its commands in) reads the move of the search it started.
    session.cmd_quit("")


if __name__ == "__main__":
    run()
