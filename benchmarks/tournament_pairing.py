"""Tournament pairing speed (issue 13): a Swiss round and an arena wave with 1,000 players.

    python benchmarks/tournament_pairing.py [--players 1000] [--rounds 4] [--repeat 3] [--seed 1]

Swiss: `--players` players (ratings drawn from 1000-2400) play `--rounds` rounds paired by
`shashki.server.tournaments.swiss.pair_round`, with results drawn from their rating difference (Elo
expectation, a quarter of the games drawn), so that the next round has realistic score groups, colour
histories and opponents to avoid; then the next round's pairing is timed. Arena: the same number of players
have each played a few games (random opponents, results as above); all of them wait at once and one
`pair_wave` is timed, with the standings it needs (`arena_standings`) timed apart. A Swiss round of
`swiss.SMALL_EVENT` players (paired by one matching over everyone, no slices) is timed too.

Each figure is the best of `--repeat` runs (wall clock, and this process's CPU time), printed beside its goal
("well under a second") and beside a reference measured in the same run on the same players: a naive greedy
pairing (down the standings, each player with the next one they have not met, no colours, no matching), which
is about the least any pairing must do. The ratio (of CPU times) says what the priorities cost.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from shashki.rules import Color  # noqa: E402
from shashki.server.tournaments.arena import (  # noqa: E402
    ArenaGame,
    ArenaPlayer,
    arena_standings,
)
from shashki.server.tournaments.arena_pairing import Waiting, last_opponents, pair_wave  # noqa: E402
from shashki.server.tournaments.swiss import (  # noqa: E402
    SMALL_EVENT,
    Bye,
    ByeKind,
    SwissGame,
    SwissPlayer,
    pair_round,
)

GOAL_SECONDS = 1.0


def result(rng: random.Random, white_rating: int, black_rating: int) -> Color | None:
    expected = 1 / (1 + 10 ** ((black_rating - white_rating) / 400))
    if rng.random() < 0.25:
        return None
    return Color.WHITE if rng.random() < expected else Color.BLACK


def best_of(repeat: int, run) -> tuple[float, object]:
    """The best wall-clock time of `repeat` runs, and the last run's value."""
    times, value = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        value = run()
        times.append(time.perf_counter() - start)
    return min(times), value


def cpu_of(repeat: int, run) -> float:
    """The best CPU time of this process over `repeat` runs: what the pairing costs when other processes share
    the machine (the wall-clock figure then includes their turns)."""
    times = []
    for _ in range(repeat):
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return min(times)


def greedy(order: list[int], met: set[frozenset[int]]) -> list[tuple[int, int]]:
    """The reference: down the list, each free player with the next free one they have not met."""
    free, pairs = list(order), []
    while len(free) >= 2:
        a = free.pop(0)
        for k, b in enumerate(free):
            if frozenset((a, b)) not in met:
                pairs.append((a, free.pop(k)))
                break
    return pairs


def swiss(players_count: int, rounds: int, repeat: int, rng: random.Random) -> None:
    players = [SwissPlayer(i, rng.randint(1000, 2400)) for i in range(1, players_count + 1)]
    rating = {p.id: p.rating for p in players}
    games: list[SwissGame] = []
    byes: list[Bye] = []
    for r in range(1, rounds + 1):
        paired = pair_round(players, games, byes, r)
        if paired.bye is not None:
            byes.append(Bye(r, paired.bye, ByeKind.PAIRING))
        games += [SwissGame(r, w, b, result(rng, rating[w], rating[b])) for w, b in paired.pairings]
    seconds, paired = best_of(repeat, lambda: pair_round(players, games, byes, rounds + 1))
    cpu = cpu_of(repeat, lambda: pair_round(players, games, byes, rounds + 1))
    score = {p.id: 0.0 for p in players}
    for g in games:
        score[g.white] += {None: 0.5, Color.WHITE: 1.0, Color.BLACK: 0.0}[g.winner]
        score[g.black] += {None: 0.5, Color.WHITE: 0.0, Color.BLACK: 1.0}[g.winner]
    met = {frozenset((g.white, g.black)) for g in games}
    order = sorted(score, key=lambda p: (-score[p], -rating[p]))
    reference = cpu_of(repeat, lambda: greedy(order, met))
    groups = len(set(score.values()))
    floats = sum(1 for w, b in paired.pairings if score[w] != score[b])
    print(f"Swiss round {rounds + 1}, {players_count} players ({groups} score groups): "
          f"{seconds * 1000:8.1f} ms (CPU {cpu * 1000:.1f} ms)   goal < {GOAL_SECONDS * 1000:.0f} ms   "
          f"greedy reference CPU {reference * 1000:.2f} ms (x{cpu / max(reference, 1e-6):.0f})")
    print(f"    {len(paired.pairings)} pairs, bye {paired.bye}, unpaired {len(paired.unpaired)}, "
          f"{floats} pairs across score groups, repeats "
          f"{sum(1 for w, b in paired.pairings if frozenset((w, b)) in met)}")


def arena(players_count: int, games_each: int, repeat: int, rng: random.Random) -> None:
    players = [ArenaPlayer(i, rng.randint(1000, 2400)) for i in range(players_count)]
    rating = {p.id: p.rating for p in players}
    games: list[ArenaGame] = []
    for _ in range(games_each):
        order = [p.id for p in players]
        rng.shuffle(order)
        for k in range(0, len(order) - 1, 2):
            w, b = order[k], order[k + 1]
            games.append(ArenaGame(w, b, result(rng, rating[w], rating[b]), rng.randint(10, 120),
                                   white_rating=rating[w], black_rating=rating[b]))
    standing_seconds, standings = best_of(repeat, lambda: arena_standings(players, games))
    waiting = [Waiting(p.id, float(rng.random())) for p in players]
    seconds, pairs = best_of(repeat, lambda: pair_wave(waiting, standings, games, rng=random.Random(0)))
    cpu = cpu_of(repeat, lambda: pair_wave(waiting, standings, games, rng=random.Random(0)))
    last = last_opponents(games)
    met = {frozenset((a, b)) for a, b in last.items()}
    order = [s.player for s in standings]
    reference = cpu_of(repeat, lambda: greedy(order, met))
    print(f"Arena wave, {players_count} waiting after {games_each} games each:      "
          f"{seconds * 1000:8.1f} ms (CPU {cpu * 1000:.1f} ms)   goal < {GOAL_SECONDS * 1000:.0f} ms   "
          f"greedy reference CPU {reference * 1000:.2f} ms (x{cpu / max(reference, 1e-6):.0f})")
    print(f"    {len(pairs)} pairs; the standings it reads took {standing_seconds * 1000:.1f} ms "
          f"({len(games)} games)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=4, help="Swiss rounds played before the timed one")
    parser.add_argument("--games", type=int, default=4, help="arena games each before the timed wave")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    import networkx  # noqa: F401  (imported once here, not inside the first timed run)

    swiss(args.players, args.rounds, args.repeat, random.Random(args.seed))
    # Up to swiss.SMALL_EVENT players, one matching over everyone (no slices): the costliest single matching.
    swiss(SMALL_EVENT, args.rounds, args.repeat, random.Random(args.seed))
    arena(args.players, args.games, args.repeat, random.Random(args.seed))


if __name__ == "__main__":
    main()
