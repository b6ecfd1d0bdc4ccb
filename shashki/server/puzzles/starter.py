"""The starter set: puzzles shipped with the package (`data/<variant>.jsonl.gz`, JSON lines of
`generate.Puzzle`), stored by `PuzzleService.ensure_starter_set` (the default variant's at start, another
variant's when first asked for); the file's name is its variant's key."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

DATA = Path(__file__).with_name("data")


def starter_files() -> list[Path]:
    """The shipped puzzle files, one per variant."""
    return sorted(DATA.glob("*.jsonl.gz"))


def starter_file(variant: str) -> Path:
    """The shipped puzzles of a variant (the file may not exist: no puzzles shipped for it)."""
    return DATA / f"{variant}.jsonl.gz"


def starter_variants() -> list[str]:
    """The variants with shipped puzzles."""
    return [path.name.removesuffix(".jsonl.gz") for path in starter_files()]


def open_text(path: Path, mode: str = "rt") -> IO[str]:
    """A JSON-lines file, gzipped when its name ends in .gz."""
    if path.suffix == ".gz":
        return gzip.open(path, mode, encoding="utf-8")  # type: ignore[return-value]
    return open(path, mode[0], encoding="utf-8")


def read_puzzles(path: Path) -> Iterator[dict[str, Any]]:
    with open_text(path) as lines:
        for line in lines:
            if line.strip():
                yield json.loads(line)
