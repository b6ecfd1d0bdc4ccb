"""A simulated arena through the real server (issue 13): scripted players, pairing delays.

    python benchmarks/tournament_arena.py [--players 200] [--minutes 2] [--think 0.2-1.0] [--resign 0.04]
                                          [--clock 60+0] [--seed 1] [--json out.json]

The server (`python -m shashki.server`, SQLite in a temporary directory) runs on a free loopback port with
the settings a benchmark needs (load.py's `SERVER_ENV`: many accounts from one address, cheap argon2, no
request limits) and a director tick of 1 s (the default). Setup, not measured: `--players` accounts with a
`board:play` token each, one arena of `--minutes` starting when they have all joined.

Each player keeps the tournament socket `/ws/tournaments/{id}` open, as the tournament page does. On
`{"type": "paired"}` it opens `/ws/games/{id}` and plays: after a think time drawn from `--think` it sends a
random legal move, or resigns with probability `--resign` per move (so that many games end and many
re-pairings happen); when the game is over it closes the game socket and waits for its next pairing. Nobody
pauses. At the end of the arena the players finish (resign) the games still running; the script waits for the
arena to finish.

Figures: games started and finished, the pairing delay — from a player seeing their game end (the final state
on the game socket) to receiving their next `paired` message — p50/p95/max, the delay of the first pairing
after the start, and as the reference measured in the same run, under the same load, the move acknowledgement
latency (a move sent on the game socket → its `ack`): what the server takes to answer any player action. The
director pairs on its tick or at once when a game ends in its process; the difference between the two
figures is what waiting for the pairing wave costs. The server's CPU and peak memory and the load generator's
CPU say which side was the limit.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from load import SERVER_ENV, ServerProcess, percentile, server_log_problems, tail  # noqa: E402

PASSWORD = "arena benchmark password"
ENV = {
    **SERVER_ENV,
    "SHASHKI_SOCKETS_PER_ADDRESS": "100000",
    "SHASHKI_LIMIT_SOCKET_MESSAGES": "100000/1",
    "SHASHKI_API_REQUESTS_PER_MINUTE": "100000000",
    "SHASHKI_LIMIT_TOURNAMENT_ACTIONS": "1000000/1",
    "SHASHKI_MIN_CLOCK_SECONDS": "15",
}


@dataclass
class Figures:
    pairing_delays: list[float] = field(default_factory=list)
    first_pairings: list[float] = field(default_factory=list)
    acks: list[float] = field(default_factory=list)
    started: int = 0
    finished: int = 0
    errors: dict[str, int] = field(default_factory=dict)

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1


class Bench:
    def __init__(self, options, url: str) -> None:
        self.o = options
        self.url = url
        self.ws = url.replace("http://", "ws://")
        self.rng = random.Random(options.seed)
        self.f = Figures()
        self.ending = asyncio.Event()
        self.start_time = 0.0
        low, high = (float(x) for x in options.think.split("-"))
        self.think = (low, high)

    async def account(self, i: int) -> str:
        """A new account and a `board:play` token (a client of its own: the session cookie is its own)."""
        import httpx

        name = f"arena{i}_{self.o.seed}"
        async with httpx.AsyncClient(base_url=self.url, timeout=60) as client:
            r = await client.post("/api/auth/register", json={"username": name, "password": PASSWORD})
            assert r.status_code == 201, r.text
            r = await client.post("/api/auth/login", json={"username": name, "password": PASSWORD})
            csrf = r.json()["csrf_token"]
            r = await client.post(
                "/api/account/tokens", json={"scopes": ["board:play"]}, headers={"X-CSRF-Token": csrf}
            )
            assert r.status_code == 201, r.text
            return r.json()["token"]

    async def player(self, token: str, tid: str) -> None:
        """One player: the tournament socket is read all the time (as a page does, and so that its
        pings are answered), its `paired` messages queued for the task that plays the games."""
        from websockets.asyncio.client import connect

        headers = {"Authorization": f"Bearer {token}"}
        paired: asyncio.Queue[tuple[str, float] | None] = asyncio.Queue()
        playing = asyncio.create_task(self.games(paired, headers))
        try:
            async with connect(
                f"{self.ws}/ws/tournaments/{tid}", additional_headers=headers, max_size=None, open_timeout=60
            ) as sock:
                async for raw in sock:
                    message = json.loads(raw)
                    if message.get("type") == "paired":
                        paired.put_nowait((message["game"], time.monotonic()))
                    elif (
                        message.get("type") == "tournament" and message["tournament"]["status"] == "finished"
                    ):
                        break
        except Exception as error:  # a socket lost is counted, not fatal to the run
            self.f.error(type(error).__name__)
        paired.put_nowait(None)
        await playing

    async def games(self, paired: asyncio.Queue, headers: dict) -> None:
        ended_at: float | None = None
        while (item := await paired.get()) is not None:
            game_id, at = item
            if ended_at is None:
                self.f.first_pairings.append(at - self.start_time)
            else:
                self.f.pairing_delays.append(at - ended_at)
            self.f.started += 1
            try:
                await self.play(game_id, headers)
            except Exception as error:
                self.f.error(type(error).__name__)
            ended_at = time.monotonic()

    async def play(self, game_id: str, headers: dict) -> None:
        from websockets.asyncio.client import connect

        async with connect(
            f"{self.ws}/ws/games/{game_id}", additional_headers=headers, max_size=None, open_timeout=60
        ) as sock:
            me: str | None = None
            held: dict | None = None  # the last state (a patch applies to it)
            sent: dict[int, float] = {}
            ids = iter(range(1, 100000))
            moving = False
            async for raw in sock:
                message = json.loads(raw)
                kind = message.get("type")
                if kind == "ack" and message.get("id") in sent:
                    self.f.acks.append(time.monotonic() - sent.pop(message["id"]))
                    moving = False
                    continue
                if kind == "error":
                    self.f.error(message.get("error", {}).get("code", "error"))
                    moving = False
                    continue
                if kind == "patch" and held is not None and held["seq"] == message["from"]:
                    # What changed since the state held; a patch that does not follow it asks for all.
                    message = {"game": {**held, **message["set"], "moves": held["moves"] + message["append"]}}
                elif kind == "patch":
                    await sock.send(json.dumps({"type": "resync"}))
                    continue
                elif kind != "state":
                    continue
                game = held = message["game"]
                if me is None:
                    me = await self.whoami(game, headers)
                if game["status"] != "started":
                    if me == "white":
                        self.f.finished += 1
                    return
                if game["side_to_move"] != me or moving:
                    continue
                moving = True
                await asyncio.sleep(self.rng.uniform(*self.think))
                request = next(ids)
                if self.ending.is_set() or self.rng.random() < self.o.resign:
                    await sock.send(json.dumps({"type": "resign", "id": request}))
                    continue
                move = self.rng.choice(game["legal_moves"])["move"]
                sent[request] = time.monotonic()
                await sock.send(json.dumps({"type": "move", "move": move, "ply": game["ply"], "id": request}))

    async def whoami(self, game: dict, headers: dict) -> str:
        key = headers["Authorization"]
        if key not in self._names:
            r = await self.http.get("/api/account", headers=headers)
            self._names[key] = r.json()["user"]["id"]
        return "white" if game["white"].get("id") == self._names[key] else "black"

    async def run(self) -> dict:
        import httpx

        self._names: dict[str, int] = {}
        limits = httpx.Limits(max_connections=50)
        async with httpx.AsyncClient(base_url=self.url, timeout=60, limits=limits) as client:
            self.http = client
            tokens = []
            for start in range(0, self.o.players, 25):
                tokens += await asyncio.gather(
                    *(self.account(i) for i in range(start, min(start + 25, self.o.players)))
                )
            creator = {"Authorization": f"Bearer {tokens[0]}"}
            initial, increment = (float(x) for x in self.o.clock.split("+"))
            starts = datetime.now(UTC) + timedelta(seconds=30)
            r = await client.post(
                "/api/tournaments",
                headers=creator,
                json={
                    "name": "Benchmark arena",
                    "system": "arena",
                    "variant": "russian-giveaway",
                    "clock": {"initial": initial, "increment": increment},
                    "minutes": self.o.minutes,
                    "starts_at": starts.isoformat(),
                    "rated": True,
                },
            )
            assert r.status_code == 201, r.text
            tid = r.json()["id"]
            for start in range(0, len(tokens), 25):
                await asyncio.gather(
                    *(
                        client.post(
                            f"/api/tournaments/{tid}/join", json={}, headers={"Authorization": f"Bearer {t}"}
                        )
                        for t in tokens[start : start + 25]
                    )
                )
            for t in tokens:
                self._names[f"Bearer {t}"] = (
                    await client.get("/api/account", headers={"Authorization": f"Bearer {t}"})
                ).json()["user"]["id"]
            players = [asyncio.create_task(self.player(t, tid)) for t in tokens]
            wait = (starts - datetime.now(UTC)).total_seconds()
            print(f"setup done; the arena starts in {wait:.0f} s and lasts {self.o.minutes} min", flush=True)
            await asyncio.sleep(max(0.0, wait))
            self.start_time = time.monotonic()
            await asyncio.sleep(self.o.minutes * 60)
            self.ending.set()
            done, pending = await asyncio.wait(players, timeout=120)
            for task in pending:
                task.cancel()
            final = (await client.get(f"/api/tournaments/{tid}")).json()
        return {
            "tournament": tid,
            "status": final["status"],
            "podium": [(s["user"], s["score"], s["games"]) for s in final["standings"][:3]],
            "unfinished_players": len(pending),
        }


def show(name: str, values: list[float]) -> str:
    if not values:
        return f"{name}: none"
    ms = [v * 1000 for v in values]
    return (
        f"{name}: n={len(ms)} p50={percentile(ms, 50):.0f} ms p95={percentile(ms, 95):.0f} ms "
        f"max={max(ms):.0f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--minutes", type=int, default=2)
    parser.add_argument("--think", default="0.2-1.0", help="seconds between a state and the move, low-high")
    parser.add_argument(
        "--resign", type=float, default=0.04, help="probability of resigning instead of a move"
    )
    parser.add_argument("--clock", default="60+0", help="seconds+increment")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path)
    options = parser.parse_args()
    import psutil

    with tempfile.TemporaryDirectory(prefix="shashki-arena-") as data:
        log = Path(data) / "server.log"
        env = {**os.environ, **ENV}
        env.pop("DATABASE_URL", None)
        env.pop("REDIS_URL", None)
        server = ServerProcess([sys.executable, "-m", "shashki.server", "--data", data], env, log).start()
        me = psutil.Process()
        try:
            bench = Bench(options, server.url)
            cpu0, mine0, wall0 = server.cpu_seconds(), me.cpu_times(), time.monotonic()
            outcome = asyncio.run(bench.run())
            wall = time.monotonic() - wall0
            cpu = server.cpu_seconds() - cpu0
            mine1 = me.cpu_times()
            server.sample_memory()
        finally:
            server.stop()
        problems = server_log_problems(log)
        if problems:
            print(tail(log, 40))
    f = bench.f
    print(
        f"arena: {options.players} players, {options.minutes} min, clock {options.clock}, think "
        f"{options.think} s, resign {options.resign} a move; tournament {outcome['status']}"
    )
    print(
        f"games started {f.started}, finished {f.finished}; players unfinished at the end "
        f"{outcome['unfinished_players']}; podium {outcome['podium']}"
    )
    print(show("pairing delay (game end seen -> next 'paired')", f.pairing_delays))
    print(show("first pairing after the start", f.first_pairings))
    print(show("reference: move ack latency, same run", f.acks))
    print(
        f"server CPU {cpu / wall:.2f} cores over {wall:.0f} s (setup included), peak memory "
        f"{server.peak_rss / 2**20:.0f} MiB; load generator CPU "
        f"{(mine1.user + mine1.system - mine0.user - mine0.system) / wall:.2f} cores; "
        f"errors {f.errors or 'none'}; server log problems {problems}"
    )
    if options.json:
        options.json.write_text(json.dumps({"figures": f.__dict__, "outcome": outcome}, default=str))


if __name__ == "__main__":
    main()
