"""The next puzzle's draw, and the counts of the themes page, read as far as they show (issue 11: no
read that grows with the history; puzzles are made from the server's games, so their collection grows
with it).

Puzzles are filed by variant, theme (every theme of a puzzle, and `any`) and rating band (`BAND` rating
points: band 30 holds 1500-1549) in `puzzle_themes`, and counted per band in `puzzle_counts`; both
change with the puzzles, in the transaction that adds a puzzle or moves its rating across a band
(`add`, `rerated`). A draw for a player rated r:

- reads the counts of the bands that the window r ± `WINDOW` reaches (a row per band) and picks a band
  at random, each as likely as the puzzles it holds: every puzzle of the window is as likely as another
  (a band at the window's edge is taken whole: the window is r ± `WINDOW` widened to whole bands);
- within the band, reads the ids of the first `CANDIDATES` puzzles the member has not attempted from a
  random id on (puzzle ids are random hexadecimal: the point falls anywhere among them; from the band's
  first id when it falls past the last) and chooses one of them at random;
- a band without a puzzle left for the member is struck off and another picked; when the window has
  none left, the bands outside it are tried nearest first.

Each read walks an index from a point for as many rows as it keeps, plus the puzzles the member has
attempted there: it grows with the member's own attempts, never with the collection. The themes page
sums the counts: a row per variant, theme and band. The daily puzzle is chosen among a `sample` of the
variant's puzzles drawn the same way, by a generator seeded with the day.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable
from typing import Any, cast

from sqlalchemy import Table, exists, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from shashki.server.puzzles.models import PuzzleAttempt, PuzzleCount, PuzzleRow, PuzzleTheme
from shashki.server.storage.ops import Upsert, upsert_in

ANY = "any"  # the theme of every puzzle
WINDOW = 150  # rating points either side of the player's
BAND = 50  # rating points a band
# Puzzles read from the drawn point of a band, one of them chosen: a puzzle's chance follows the gaps
# between the ids before it, evened out over this many (within ±20% of the band's average or so).
CANDIDATES = 32

T = PuzzleTheme
C = PuzzleCount
COUNTS = cast(Table, PuzzleCount.__table__)


def band_of(rating: float) -> int:
    return int(rating // BAND)


def themes_of(stored: str) -> list[str]:
    """The themes of a puzzle's row (`,a,b,`)."""
    return [t for t in stored.split(",") if t]


def index_rows(puzzles: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The `puzzle_themes` rows of puzzles given as `puzzles` rows (id, variant, themes, rating)."""
    return [
        {"puzzle_id": p["id"], "theme": theme, "variant": p["variant"], "band": band_of(p["rating"])}
        for p in puzzles
        for theme in (ANY, *themes_of(p["themes"]))
    ]


async def _count(s: AsyncSession, changes: Counter) -> None:
    """Add to the counts, keys in order (two transactions changing the same two rows take them in the
    same order: no deadlock on PostgreSQL)."""
    keys = sorted(key for key, n in changes.items() if n)
    rows = [{"variant": v, "theme": t, "band": b, "count": changes[v, t, b]} for v, t, b in keys]
    await upsert_in(s, Upsert(COUNTS, rows, ("variant", "theme", "band"), ("count",)))


async def add(s: AsyncSession, puzzles: list[dict[str, Any]]) -> None:
    """The draw's rows and the counts of puzzles just inserted (`puzzles` rows), in their transaction."""
    if not puzzles:
        return
    rows = index_rows(puzzles)
    await s.execute(insert(PuzzleTheme), rows)
    await _count(s, Counter((row["variant"], row["theme"], row["band"]) for row in rows))


async def rerated(s: AsyncSession, puzzle_id: str, before: float, after: float) -> None:
    """A puzzle's rating moved from `before` to `after` (in the transaction that moves it): when it
    crosses into another band, its rows and the counts follow."""
    old, new = band_of(before), band_of(after)
    if old == new:
        return
    filed = (await s.execute(select(T.variant, T.theme).where(T.puzzle_id == puzzle_id))).all()
    await s.execute(update(PuzzleTheme).where(T.puzzle_id == puzzle_id).values(band=new))
    changes: Counter = Counter()
    for variant, theme in filed:
        changes[(variant, theme, old)] -= 1
        changes[(variant, theme, new)] += 1
    await _count(s, changes)


async def counts(s: AsyncSession, variant: str) -> tuple[list[tuple[str, int]], dict[str, int]]:
    """Every variant's count of puzzles, in the variants' order, and the variant's count per theme."""
    variants = await s.execute(
        select(C.variant, func.sum(C.count)).where(C.theme == ANY).group_by(C.variant).order_by(C.variant)
    )
    themes = await s.execute(
        select(C.theme, func.sum(C.count)).where(C.variant == variant, C.theme != ANY).group_by(C.theme)
    )
    return [(v, int(n)) for v, n in variants if n], {t: int(n) for t, n in themes if n}


async def _bands(s: AsyncSession, variant: str, theme: str) -> dict[int, int]:
    """The bands of a variant and theme holding puzzles, with their counts."""
    counted = select(C.band, C.count).where(C.variant == variant, C.theme == theme, C.count > 0)
    return {band: n for band, n in (await s.execute(counted)).all()}


async def draw(
    s: AsyncSession, rng: random.Random, variant: str, theme: str, member_id: int | None, rating: float
) -> PuzzleRow | None:
    """A puzzle of `variant` and `theme` near `rating` not attempted by the member, at random; None when
    the variant has none of the theme left for them."""
    bands = await _bands(s, variant, theme)
    lo, hi = band_of(rating - WINDOW), band_of(rating + WINDOW)
    window = {band: n for band, n in bands.items() if lo <= band <= hi}
    while window:
        band = rng.choices(list(window), weights=list(window.values()))[0]
        found = await _in_band(s, rng, variant, theme, band, member_id)
        if found:
            return await s.get(PuzzleRow, rng.choice(found))
        del window[band]
    home = band_of(rating)
    for band in sorted((b for b in bands if not lo <= b <= hi), key=lambda b: (abs(b - home), b)):
        found = await _in_band(s, rng, variant, theme, band, member_id)
        if found:
            return await s.get(PuzzleRow, rng.choice(found))
    return None


async def sample(
    s: AsyncSession, rng: random.Random, variant: str, ratings: tuple[float, float], draws: int
) -> list[str]:
    """Ids of puzzles of `variant` at random, as many as `draws` draws give: each from a random point of
    a band picked by its count among those within `ratings` (among all when none is)."""
    bands = await _bands(s, variant, ANY)
    lo, hi = band_of(ratings[0]), band_of(ratings[1])
    bands = {band: n for band, n in bands.items() if lo <= band <= hi} or bands
    found: list[str] = []
    for _ in range(draws if bands else 0):
        band = rng.choices(list(bands), weights=list(bands.values()))[0]
        found += await _in_band(s, rng, variant, ANY, band, None)
    return found


async def _in_band(
    s: AsyncSession, rng: random.Random, variant: str, theme: str, band: int, member_id: int | None
) -> list[str]:
    """The ids of the first `CANDIDATES` puzzles of the band the member has not attempted, from a random
    id on."""
    query = select(T.puzzle_id).where(T.variant == variant, T.theme == theme, T.band == band)
    if member_id is not None:
        tried = select(PuzzleAttempt.id).where(
            PuzzleAttempt.user_id == member_id, PuzzleAttempt.puzzle_id == T.puzzle_id
        )
        query = query.where(~exists(tried))
    point = f"{rng.getrandbits(40):010x}"
    found = list(await s.scalars(query.where(T.puzzle_id >= point).order_by(T.puzzle_id).limit(CANDIDATES)))
    if len(found) < CANDIDATES:  # past the band's last id: on from its first
        more = query.where(T.puzzle_id < point).order_by(T.puzzle_id).limit(CANDIDATES - len(found))
        found += await s.scalars(more)
    return found
