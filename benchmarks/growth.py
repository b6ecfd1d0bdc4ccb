"""What the benchmarks of reads as the history grows share (notifications.py, puzzle_reads.py,
player_reads.py): the timer, and the report — each size's figures beside their references, then how
much each grew from the first size to the last."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence

from rich.console import Console
from rich.table import Table


async def timed(call: Callable[[], Awaitable[object]], repeat: int) -> float:
    """Microseconds a call, the best of three rounds of `repeat`."""
    best = float("inf")
    for _ in range(3):
        began = time.perf_counter()
        for _ in range(repeat):
            await call()
        best = min(best, (time.perf_counter() - began) / repeat)
    return best * 1e6


def report(
    console: Console,
    title: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[float]],
    unit: str,
    growths: Sequence[tuple[str, int, int]],
) -> None:
    """A table of `rows` (the size, then the figures in microseconds, under `columns`), and a line saying
    how much each read of `growths` (its name, its column, its reference's column) grew with the size."""
    table = Table(title=title)
    for column in columns:
        table.add_column(column, justify="right")
    for size, *figures in rows:
        table.add_row(f"{size:,}", *(f"{f:,.0f}" for f in figures))
    console.print(table)
    first, last = rows[0], rows[-1]
    grew = ", ".join(
        f"{name} {last[mine] / first[mine]:.1f}x (reference {last[theirs] / first[theirs]:.1f}x)"
        for name, mine, theirs in growths
    )
    console.print(f"from {first[0]:,} to {last[0]:,} {unit}: {grew}")
