"""The `shashki` command.

    shashki perft DEPTH [--variant KEY] [--fen FEN] [--all-paths] [--divide] [--bulk]
    shashki moves [--variant KEY] [--fen FEN] [--json] [--batch]
    shashki pdn check FILE|-  [--variant KEY]
    shashki serve [--host 127.0.0.1] [--port 8000] [--data DIR] [--trusted-proxies ADDRS]
    shashki play [--variant KEY] [--level N] [--color white|black]
    shashki analyse [--variant KEY] [--fen FEN] [--depth D | --time S]
    shashki hub
    shashki tablebase build [--pieces N]
    shashki tablebase compress [--pieces 5] [--keep]
    shashki demo

The default variant everywhere is russian-giveaway. Mistakes in how the command is called (an unknown
variant, a bad FEN, a bad depth, an unknown option, a missing file) print ONE line on stderr,
`error: ...`, and exit with code 2. `pdn check` exits with 1 when a game in the file is faulty.

New commands are functions decorated with `@app.command()` (or a sub-app added with `app.add_typer`);
they raise `CliError` for a one-line error and return an exit code (or None for 0).
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator
from typing import IO, Any

import typer

from shashki.clitools import FEN_HELP, VARIANT_HELP, CliError, board_text, position_of, variant_of
from shashki.rules.errors import FenError, PdnError
from shashki.rules.position import Move, Position
from shashki.rules.variant import DEFAULT_VARIANT_KEY, Variant
from shashki.server import cli as server_cli
from shashki.server.puzzles.cli import puzzles_app

app = typer.Typer(
    name="shashki",
    help="Shashki: a draughts server built around Russian giveaway (poddavki).",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
pdn_app = typer.Typer(help="Read and check PDN game files.", no_args_is_help=True, rich_markup_mode=None)
app.add_typer(pdn_app, name="pdn")


def _register_engine_commands() -> None:
    # The computer player's commands live with it (shashki/engine/cli.py).
    from shashki.engine import cli as engine_cli

    app.command("play")(engine_cli.play)
    app.command("analyse")(engine_cli.analyse)
    app.command("hub")(engine_cli.hub)
    app.command("dxp")(engine_cli.dxp)
    app.add_typer(engine_cli.tablebase_app, name="tablebase")
    app.add_typer(engine_cli.engine_app, name="engine")


_register_engine_commands()
app.command("serve")(server_cli.serve)  # shashki/server/cli.py
app.command("worker")(server_cli.worker)
app.add_typer(puzzles_app, name="puzzles")  # shashki/server/puzzles/cli.py


# Click's exception classes, found through typer (which may bundle its own copy of click).
_ClickException: Any = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")


# ------------------------------------------------------------------------------------------------
# Shared helpers


def _labels(variant: Variant) -> dict[int, str]:
    """Square label of every bit: algebraic names or numbers as text (notation.square_label)."""
    from shashki.rules.notation import square_label

    return {bit: square_label(variant, bit) for bit in variant.board.rows}


def _sorted_moves(variant: Variant, moves: list[Move]) -> list[Move]:
    """Moves in a stable reading order: by the squares of their paths (numbers or names)."""
    board = variant.board
    if variant.algebraic:
        names = board.names
        return sorted(moves, key=lambda m: tuple(names[b] for b in m.path))
    numbers = board.numbers
    return sorted(moves, key=lambda m: tuple(numbers[b] for b in m.path))


def _move_object(move: Move, variant: Variant, labels: dict[int, str]) -> dict[str, object]:
    return {
        "move": move.notation(variant),
        "path": [labels[b] for b in move.path],
        "captured": [labels[b] for b in move.captured],
    }


# ------------------------------------------------------------------------------------------------
# perft


@app.command()
def perft(
    depth: str = typer.Argument(..., metavar="DEPTH", help="Plies to count, 1 or more."),
    variant: str = typer.Option(DEFAULT_VARIANT_KEY, "--variant", metavar="KEY", help=VARIANT_HELP),
    fen: str | None = typer.Option(None, "--fen", metavar="FEN", help=FEN_HELP),
    all_paths: bool = typer.Option(
        False, "--all-paths", help="Count every capture route (default: distinct moves)."
    ),
    divide: bool = typer.Option(
        False, "--divide", help="First print each root move with its count at DEPTH."
    ),
    bulk: bool = typer.Option(False, "--bulk", help="Count the last ply without playing it."),
) -> None:
    """Count the leaves of the move tree: one line `depth nodes seconds` per depth 1..DEPTH."""
    from shashki.rules import perft as perft_module

    try:
        max_depth = int(depth.strip())
    except ValueError:
        raise CliError(f"depth must be a whole number of plies, 1 or more, not {depth!r}") from None
    if max_depth < 1:
        raise CliError(f"depth must be 1 or more, not {max_depth}")
    v = variant_of(variant)
    pos = position_of(v, fen)
    out = sys.stdout
    if divide:
        for move_text, count in perft_module.divide(pos, max_depth, all_paths=all_paths, bulk=bulk):
            out.write(f"{move_text} {count}\n")
        out.flush()
    for d in range(1, max_depth + 1):
        started = time.perf_counter()
        nodes = perft_module.perft(pos, d, all_paths=all_paths, bulk=bulk)
        seconds = time.perf_counter() - started
        out.write(f"{d} {nodes} {seconds:.3f}\n")
        out.flush()


# ------------------------------------------------------------------------------------------------
# moves


@app.command()
def moves(
    variant: str = typer.Option(DEFAULT_VARIANT_KEY, "--variant", metavar="KEY", help=VARIANT_HELP),
    fen: str | None = typer.Option(None, "--fen", metavar="FEN", help=FEN_HELP),
    as_json: bool = typer.Option(
        False, "--json", help='One JSON object per move: {"move", "path", "captured"}.'
    ),
    batch: bool = typer.Option(
        False,
        "--batch",
        help='Read one FEN per line from stdin; print a JSON array of moves (or {"error": ...}) per line.',
    ),
) -> None:
    """The legal moves of a position (the start by default), one per line in the variant's notation."""
    v = variant_of(variant)
    if batch:
        if fen is not None:
            raise CliError("--batch reads its positions from stdin; leave out --fen")
        _moves_batch(v, sys.stdin, sys.stdout)
        return
    pos = position_of(v, fen)
    legal = _sorted_moves(v, pos.legal_moves())
    if as_json:
        labels = _labels(v)
        lines = [json.dumps(_move_object(m, v, labels)) for m in legal]
    else:
        lines = [m.notation(v) for m in legal]
    sys.stdout.write("".join(line + "\n" for line in lines))


def _moves_batch(variant: Variant, stdin: IO[str], stdout: IO[str]) -> None:
    """One output line per input line, written in bulk; interactive callers get each chunk's answers
    as soon as it is read (the output is flushed after every chunk of input)."""
    labels = _labels(variant)
    sep = variant.capture_separator  # the notation of Move.notation, without a call per move
    dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
    cache: dict[str, str] = {}
    for chunk in _input_chunks(stdin):
        out = []
        for raw in chunk:
            fen = raw.strip()
            answer = cache.get(fen)
            if answer is None:
                if not fen:
                    answer = dumps({"error": "empty line: expected a FEN"})
                else:
                    try:
                        pos = Position.from_fen(fen, variant)
                    except FenError as exc:
                        answer = dumps({"error": f"bad FEN: {exc.message}"})
                    else:
                        objects = []
                        for m in _sorted_moves(variant, pos.legal_moves()):
                            path = [labels[b] for b in m.path]
                            objects.append(
                                {
                                    "move": (sep if m.capture_mask else "-").join(path),
                                    "path": path,
                                    "captured": [labels[b] for b in m.captured],
                                }
                            )
                        answer = dumps(objects)
                if len(cache) < 100_000:
                    cache[fen] = answer
            out.append(answer)
        out.append("")
        stdout.write("\n".join(out))
        stdout.flush()


def _input_chunks(stream: IO[str]) -> Iterator[list[str]]:
    """Lines of `stream` in chunks of whatever has arrived (fast for files, prompt for pipes)."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        fd = None
    if fd is None:
        lines = stream.read().splitlines()
        for i in range(0, len(lines), 4096):
            yield lines[i : i + 4096]
        return
    pending = b""
    while True:
        data = os.read(fd, 1 << 16)
        if not data:
            break
        pending += data
        *complete, pending = pending.split(b"\n")
        if complete:
            yield [line.decode("utf-8", "replace") for line in complete]
    if pending:
        yield [pending.decode("utf-8", "replace")]


# ------------------------------------------------------------------------------------------------
# pdn


@pdn_app.command("check")
def pdn_check(
    file: str = typer.Argument(..., metavar="FILE", help="A PDN file, or - for stdin."),
    variant: str = typer.Option(
        DEFAULT_VARIANT_KEY,
        "--variant",
        metavar="KEY",
        help="Variant of games with neither a Variant nor a GameType tag.",
    ),
) -> int:
    """Replay every game of a PDN file and print one line per game.

    \b
    `N RESULT REASON` for a game that replays:
      RESULT REASON is the outcome on the board (`1-0 no-legal-move`, `1/2-1/2 threefold-repetition`);
      for a game the rules have not ended, the recorded result with reason `recorded` (decided off the
      board: resignation, agreement, time), or `* unfinished` when none is recorded. When the outcome
      on the board differs from the recorded result, `recorded=R` follows.
    `N illegal move M MOVE: MESSAGE` for the first illegal move (M is the move number).
    `N error MESSAGE` for a game that cannot be set up (unknown variant or GameType, bad FEN).
    Exit code 1 when any game is faulty or the file cannot be read as PDN, else 0.
    """
    from shashki.rules.pdn import IllegalPdnMove, iter_games

    default = variant_of(variant).key
    if file == "-":
        stream: IO[str] = sys.stdin
    else:
        try:
            stream = open(file, encoding="utf-8-sig", errors="replace")  # noqa: SIM115 (closed below)
        except OSError as exc:
            raise CliError(f"cannot read {file}: {exc.strerror or exc}") from None
    out = sys.stdout
    faulty = False
    try:
        for game in iter_games(stream, default_variant=default):
            try:
                replayed = game.replay()
            except IllegalPdnMove as exc:
                faulty = True
                line = f"{game.index} illegal move {exc.move_number} {exc.move_text}: {exc.reason}"
            except PdnError as exc:
                faulty = True
                message = exc.message.removeprefix(f"game {game.index}: ")
                line = f"{game.index} error {message}"
            else:
                line = _check_line(game.index, replayed.outcome, game.result)
            out.write(line + "\n")
    except PdnError as exc:
        out.flush()
        sys.stderr.write(f"error: {file}: {exc.message}\n")
        return 1
    finally:
        if stream is not sys.stdin:
            stream.close()
    return 1 if faulty else 0


def _check_line(index: int, outcome, recorded: str) -> str:
    if outcome is None:
        if recorded == "*":
            return f"{index} * unfinished"
        return f"{index} {recorded} recorded"
    line = f"{index} {outcome.result} {outcome.reason}"
    if recorded not in ("*", outcome.result):
        line += f" recorded={recorded}"
    return line


# ------------------------------------------------------------------------------------------------
# demo


@app.command()
def demo() -> None:
    """Show the poddavki start, play a few moves and list the legal moves."""
    from rich.console import Console

    from shashki.rules.game import Game

    console = Console(highlight=False)
    game = Game(DEFAULT_VARIANT_KEY)
    v = game.variant
    console.print(f"[bold]{v.name}[/bold]: the side left without a move wins.\n")
    console.print(board_text(game.position))
    for text in ("c3-d4", "f6-e5", "d4:f6", "g7:e5"):
        move = game.play(text)
        who = "Black" if game.position.white_to_move else "White"
        console.print(f"\n[bold]{who}[/bold] plays {move.notation(v)}")
        console.print(board_text(game.position))
    legal = ", ".join(m.notation(v) for m in _sorted_moves(v, game.legal_moves()))
    console.print(f"\nLegal moves for {game.position.side_to_move.value}: {legal}")

    end = Game(DEFAULT_VARIANT_KEY, "W:WKg1:BKe5")
    console.print("\nA giveaway ending: White gives away its last king.")
    console.print(board_text(end.position))
    for text in ("g1-d4", "e5:c3"):
        end.play(text)
    assert end.outcome is not None  # White has no piece left: the giveaway win
    console.print(f"\nAfter g1-d4 e5:c3 White has no piece left: {end.outcome.result} ({end.outcome.reason})")
    console.print(board_text(end.position))


# ------------------------------------------------------------------------------------------------
# Entry point


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code (the console script exits with it)."""
    command = typer.main.get_command(app)
    try:
        code = command.main(args=argv, prog_name="shashki", standalone_mode=False)
    except CliError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return exc.exit_code
    except _ClickException as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # `shashki` alone: the help text
            sys.stderr.write(exc.format_message().rstrip("\n") + "\n")
            return exc.exit_code
        # Usage errors in one line, without click's boxes and usage block.
        message = " ".join(exc.format_message().split())
        option = getattr(exc, "option_name", "") or ""
        ctx = getattr(exc, "ctx", None)
        if ctx is not None and ctx.command.name == "perft" and option[1:].replace(".", "", 1).isdigit():
            message = f"depth must be 1 or more, not {option}"  # `perft -3`: click reads -3 as an option
        sys.stderr.write(f"error: {message} (see shashki --help)\n")
        return exc.exit_code
    except typer.Abort:
        sys.stderr.write("error: aborted\n")
        return 130
    except BrokenPipeError:
        # The reader went away (shashki moves | head): not an error of ours.
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115
        return 0
    finally:
        try:
            sys.stdout.flush()
        except (BrokenPipeError, ValueError):
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115
    return code if isinstance(code, int) else 0


if __name__ == "__main__":
    raise SystemExit(main())
