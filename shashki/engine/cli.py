"""The engine's commands for the `shashki` command line: `play`, `analyse`, `hub` and `dxp`.

They are plain typer command functions (and the `tablebase` and `engine` sub-apps; `engine book build`
writes an opening book, shashki/engine/book_build.py); `shashki/cli.py` registers them:

    from shashki.engine import cli as engine_cli
    app.command("play")(engine_cli.play)
    app.command("analyse")(engine_cli.analyse)
    app.command("hub")(engine_cli.hub)
    app.command("dxp")(engine_cli.dxp)
    app.add_typer(engine_cli.tablebase_app, name="tablebase")
    app.add_typer(engine_cli.engine_app, name="engine")

Mistakes in how they are called raise `CliError` (one `error:` line, exit code 2).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

import typer

from shashki.clitools import FEN_HELP, VARIANT_HELP, CliError, board_text, position_of, variant_of
from shashki.engine.engine import Engine
from shashki.engine.search import WIN_BOUND, Limit, Line
from shashki.rules.errors import IllegalMove
from shashki.rules.position import Position
from shashki.rules.variant import DEFAULT_VARIANT_KEY

if TYPE_CHECKING:
    from rich.progress import Progress


def format_score(score: int) -> str:
    """`+0.35` (men), or `win in 7` / `loss in 4` (plies) for a forced end of the game."""
    from shashki.engine.search import WIN

    if score >= WIN_BOUND:
        return f"win in {WIN - score}"
    if score <= -WIN_BOUND:
        return f"loss in {WIN + score}"
    return f"{score / 100:+.2f}"


def format_line(line: Line, position: Position) -> str:
    """One analysis line: depth, score, nodes, nodes per second, principal variation in notation."""
    variant = position.variant
    pv = []
    pos = position
    for move in line.pv:
        if move not in pos.legal_moves():
            break
        pv.append(move.notation(variant))
        pos = pos.play(move)
    return (
        f"depth {line.depth:>2}  score {format_score(line.score):>11}  nodes {line.nodes:>10,}  "
        f"nps {line.nps:>9,}  time {line.seconds:6.2f}s  pv {' '.join(pv)}"
    )


def analyse(
    variant: str = typer.Option(DEFAULT_VARIANT_KEY, "--variant", metavar="KEY", help=VARIANT_HELP),
    fen: str | None = typer.Option(None, "--fen", metavar="FEN", help=FEN_HELP),
    depth: int | None = typer.Option(None, "--depth", min=1, max=100, help="Search this many plies."),
    seconds: float | None = typer.Option(None, "--time", min=0.01, help="Search this many seconds."),
    lines: int = typer.Option(1, "--lines", min=1, max=50,
                              help="The best N moves, each with its line (multi-PV), best first."),
) -> None:
    """Analyse a position: one line per iteration (depth, score, nodes, nodes/s, best line); with
    --lines N, the N best moves once the search ends, each with its own line."""
    if depth is not None and seconds is not None:
        raise CliError("give --depth or --time, not both")
    v = variant_of(variant)
    pos = position_of(v, fen)
    if not pos.legal_moves():
        side = pos.side_to_move.value
        result = "wins" if v.giveaway else "loses"
        typer.echo(f"no legal move: {side} {result}")
        return
    limit = Limit(depth=depth) if depth is not None else Limit(time=seconds or 5.0)
    if lines > 1:
        for rank, line in enumerate(Engine().lines(pos, limit, lines), 1):
            typer.echo(f"{rank:>2}. {format_line(line, pos)}")
        return
    for line in Engine().analyse(pos, limit):
        typer.echo(format_line(line, pos))


def hub() -> None:
    """Speak the Hub protocol (Scan, Hub GUI, pydraughts' HubEngine) on standard input and output."""
    from shashki.engine.hub import run

    run(sys.stdin, sys.stdout)


def dxp(
    initiator: bool = typer.Option(False, "--initiator", help="Ask for a game instead of waiting for one."),
    host: str = typer.Option("127.0.0.1", "--host", help="Where to listen, or the Follower to connect to."),
    port: int = typer.Option(27531, "--port", min=0, max=65535, help="DXP's port is 27531."),
    color: str = typer.Option("white", "--color", metavar="white|black", help="The engine's side."),
    minutes: int = typer.Option(10, "--minutes", min=0, max=999, help="Minutes a side (--initiator)."),
    moves: int = typer.Option(0, "--moves", min=0, max=999, help="Moves in that time, 0 = all."),
    fen: str | None = typer.Option(None, "--fen", metavar="FEN", help="Start position (--initiator)."),
    variant: str = typer.Option("international", "--variant", metavar="KEY", help="A 10x10 variant."),
    seconds: float | None = typer.Option(None, "--time", min=0.01, help="Seconds a move, not the clock."),
    once: bool = typer.Option(False, "--once", help="As Follower, play one connection and exit."),
) -> None:
    """Play International draughts over DXP (DamExchange), as Follower (default) or Initiator."""
    from shashki.engine import dxp as dxp_module
    from shashki.rules.variant import Color

    v = variant_of(variant)
    if v.board.size != 10:
        raise CliError(f"DXP is played on the 10x10 board; {v.key} is not")
    if color not in ("white", "black"):
        raise CliError(f"--color is white or black, not {color!r}")
    options: dict = {"variant": v, "log": lambda text: typer.echo(text, err=True)}
    if seconds is not None:
        options["limit"] = Limit(time=seconds)
    if initiator:
        start = position_of(v, fen) if fen else None
        side = Color(color)
        dxp_module.initiate(host, port, color=side, minutes=minutes, moves=moves, start=start, **options)
    else:
        ready = lambda p: typer.echo(f"DXP Follower listening on {host}:{p}", err=True)  # noqa: E731
        dxp_module.follow(host, port, once=once, ready=ready, **options)


def play(
    variant: str = typer.Option(DEFAULT_VARIANT_KEY, "--variant", metavar="KEY", help=VARIANT_HELP),
    level: int = typer.Option(4, "--level", min=1, max=8, help="The engine's level, 1 (beginner) to 8."),
    color: str = typer.Option("white", "--color", metavar="white|black", help="The colour you play."),
    fen: str | None = typer.Option(None, "--fen", metavar="FEN", help=FEN_HELP),
    seconds: float = typer.Option(2.0, "--time", min=0.05, help="The engine's time per move, at level 8."),
) -> None:
    """Play a game against the engine in the terminal. Type moves in notation; `quit` to stop."""
    from rich.console import Console

    from shashki.rules.game import Game

    if color not in ("white", "black"):
        raise CliError(f"--color must be white or black, not {color!r}")
    v = variant_of(variant)
    game = Game(v, position_of(v, fen))
    engine = Engine(level=level)
    console = Console(highlight=False)
    console.print(f"[bold]{v.name}[/bold], level {level}; you play {color}.")
    console.print(board_text(game.position))
    while not game.is_over:
        pos = game.position
        if pos.side_to_move.value == color:
            try:
                text = console.input(f"[bold]{color}[/bold] to move> ").strip()
            except EOFError:
                text = "quit"
            if text in ("quit", "resign", "exit"):
                console.print("You resign.")
                return
            try:
                move = game.play(text)
            except IllegalMove as exc:
                console.print(f"[red]{exc.message}[/red]")
                if exc.legal:
                    console.print("Legal moves: " + ", ".join(exc.legal))
                continue
            console.print(f"You play {move.notation(v)}")
        else:
            result = engine.play(game, Limit(time=seconds))
            assert result.move is not None  # the game goes on, so there is a legal move
            move = game.play(result.move)
            console.print(f"The engine plays [bold]{move.notation(v)}[/bold] ({format_score(result.score)})")
        console.print(board_text(game.position))
    outcome = game.outcome
    assert outcome is not None  # the loop ends when the game does
    console.print(f"Game over: {outcome.result} ({outcome.reason})")


tablebase_app = typer.Typer(help="Endgame tables for Russian giveaway and Russian.", no_args_is_help=True,
                            rich_markup_mode=None)


def _table_progress() -> tuple[Progress, Callable[[str, int, int], None]]:
    """A rich progress display and its callback: a bar for each stage (build, compression) of each table."""
    from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

    bar = Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.percentage:>5.1f}%"),
                   TimeElapsedColumn())
    tasks: dict[str, TaskID] = {}

    def progress(stage: str, done: int, total: int) -> None:
        if stage not in tasks:
            tasks[stage] = bar.add_task(stage, total=total)
        bar.update(tasks[stage], completed=done)

    return bar, progress


def _table_files(key: str) -> str:
    """The built tables of a variant in the tables directory, with their sizes."""
    from shashki.engine.tablebase import data_dir

    found = sorted(data_dir().glob(f"{key}-[0-9]*.*"))
    return ", ".join(f"{path.name} {path.stat().st_size / 1e6:,.1f} MB" for path in found
                     if path.suffix in (".bin", ".shtb"))


def _table_key(variant: str) -> str:
    from shashki.engine.tablebase import VARIANT_KEYS

    key = variant_of(variant).key
    if key not in VARIANT_KEYS:
        raise CliError(f"endgame tables exist for {', '.join(VARIANT_KEYS)}, not {key}")
    return key


@tablebase_app.command("build")
def tablebase_build(
    pieces: int = typer.Option(5, "--pieces", min=1, max=5, help="Build the tables up to this many pieces."),
    rebuild: bool = typer.Option(False, "--rebuild", help="Build again tables already written or shipped."),
    variant: str = typer.Option("russian-giveaway", "--variant", metavar="KEY",
                                help="russian-giveaway (the default) or russian."),
) -> None:
    """Build the endgame tables of Russian giveaway (or, with --variant russian, of Russian draughts) into
    $SHASHKI_TABLEBASE_DIR (else $SHASHKI_DATA/tablebases).

    Up to 4 pieces they ship with the package (4 pieces rebuild in about 16 s of CPU); 5 pieces are 412
    million positions, built in about 6 minutes of CPU with 0.47 GB of memory and written block-compressed
    (55-65 MB, a few seconds more). A raw 5-piece table of the old format found there is compressed, not
    built again (see `shashki tablebase compress`)."""
    import time

    from shashki.engine.tablebase import Tablebase, TableFileError, data_dir

    key = _table_key(variant)
    start = time.perf_counter()
    bar, progress = _table_progress()
    with bar:
        try:
            table = Tablebase.build(pieces, progress=progress, reuse=not rebuild, variant_key=key)
        except OSError as error:
            raise CliError(f"cannot write the tables into {data_dir()} ({error.strerror or error}): set "
                           "SHASHKI_TABLEBASE_DIR (or SHASHKI_DATA) to a directory you can write") from None
        except TableFileError as error:
            raise CliError(str(error)) from None
    size = sum(len(t) for t in table.tables)
    typer.echo(f"{key} tables up to {pieces} pieces: {size:,} entries, {time.perf_counter() - start:.1f} s; "
               f"in {data_dir()}: {_table_files(key) or 'none (all shipped)'}")


@tablebase_app.command("compress")
def tablebase_compress(
    pieces: int = typer.Option(5, "--pieces", min=1, max=5, help="The table to convert."),
    variant: str = typer.Option("russian-giveaway", "--variant", metavar="KEY",
                                help="russian-giveaway (the default) or russian."),
    keep: bool = typer.Option(False, "--keep", help="Keep the raw file (else removed once the new one is "
                              "checked)."),
) -> None:
    """Convert a raw table of the old format (<variant>-5.bin, a byte per position, 412 MB) into the
    block-compressed one (<variant>-5.shtb) in $SHASHKI_TABLEBASE_DIR, without building it again.

    Every block is read back and compared before the raw file is removed."""
    import time

    from shashki.engine.tablebase import TableFileError, compress, data_dir

    key = _table_key(variant)
    start = time.perf_counter()
    bar, progress = _table_progress()
    with bar:
        try:
            raw, written = compress(pieces, key, progress=progress, keep=keep)
        except FileNotFoundError:
            raise CliError(f"no raw {pieces}-piece table ({key}-{pieces}.bin) in {data_dir()}") from None
        except TableFileError as error:
            raise CliError(str(error)) from None
        except OSError as error:
            raise CliError(f"cannot write into {data_dir()} ({error.strerror or error})") from None
    typer.echo(f"{key}-{pieces}: {raw / 1e6:,.1f} MB raw -> {written / 1e6:,.1f} MB compressed "
               f"({raw / written:.1f}x), {time.perf_counter() - start:.1f} s")


engine_app = typer.Typer(help="The engine's data: opening books.", no_args_is_help=True,
                         rich_markup_mode=None)
book_app = typer.Typer(help="Opening books built from the engine's self-play.", no_args_is_help=True,
                       rich_markup_mode=None)
engine_app.add_typer(book_app, name="book")


@book_app.command("build")
def book_build(
    variant: str = typer.Option(DEFAULT_VARIANT_KEY, "--variant", metavar="KEY", help=VARIANT_HELP),
    seed: int = typer.Option(1, "--seed", help="The self-play's random seed (same seed, same book)."),
    plies: int = typer.Option(10, "--plies", min=1, max=40, help="Plies of each opening in the book."),
    games: int = typer.Option(200, "--games", min=1, max=100_000, help="Self-play openings to play."),
    depth: int = typer.Option(5, "--depth", min=1, max=20, help="Search depth that scores each move."),
    margin: int | None = typer.Option(None, "--margin", min=0,
                                      help="Keep moves this close to the best (1/100 man; default: "
                                      "200 in giveaway, 12 otherwise)."),
    most: int = typer.Option(4, "--most", min=1, max=20, help="At most this many moves a position."),
    output: str | None = typer.Option(None, "--output", metavar="FILE",
                                      help="Where to write (default: the package's book of the variant)."),
) -> None:
    """Build a variant's opening book from the engine's self-play (reproducible from --seed)."""
    import time
    from pathlib import Path

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from shashki.engine.book import book_path
    from shashki.engine.book_build import build

    v = variant_of(variant)
    if v.double_diagonal:
        raise CliError("books cover the plain rule sets, not the double-diagonal option")
    path = Path(output) if output else book_path(v)
    start = time.perf_counter()
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[positions]} positions"), TimeElapsedColumn()) as bar:
        task = bar.add_task(f"{v.key}: self-play", total=games, positions=0)

        def progress(done: int, total: int, positions: int) -> None:
            bar.update(task, completed=done, positions=positions)

        book = build(v, seed=seed, plies=plies, games=games, depth=depth, margin=margin, most=most,
                     progress=progress)
    size = book.save(path)
    moves = sum(len(m) for m in book.entries.values())
    typer.echo(f"{path}: {len(book):,} positions, {moves:,} moves, {size:,} bytes, "
               f"{time.perf_counter() - start:.1f} s")
