#!/usr/bin/env python3
"""Record the example session of docs/bot-api.md from a real server, so that it is never edited by hand.

It starts `python -m shashki.server` on a free port with a throw-away data directory, registers a bot and
a person, plays a short Russian giveaway game through the Bot and Board APIs (a challenge, a move with a
draw offer, a refused move, a capture sent jump by jump, a chat line, a resignation), asks for the
players' status and the PDN, and writes every request with its answer and every stream line between the
markers `<!-- session:begin -->` and `<!-- session:end -->` of the document.

    .venv/bin/python scripts/record-bot-session.py [docs/bot-api.md]
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

BEGIN, END = "<!-- session:begin -->", "<!-- session:end -->"
B = "$B"
PASSWORD = "correct horse battery"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Recorder:
    def __init__(self, url: str) -> None:
        self.url = url
        self.out: list[str] = []

    def say(self, text: str) -> None:
        self.out.append(text.rstrip("\n") + "\n")

    def block(self, kind: str, lines: list[str]) -> None:
        self.out.append(f"```{kind}\n" + "\n".join(lines) + "\n```\n")

    def call(self, method: str, path: str, token_name: str, token: str, form: dict | None = None,
             params: dict | None = None) -> httpx.Response:
        headers = {"Authorization": f"Bearer {token}"}
        r = httpx.request(method, self.url + path, headers=headers, data=form, params=params, timeout=10)
        query = "?" + "&".join(f"{k}={v}" for k, v in params.items()) if params else ""
        target = f'"{B}{path}{query}"' if query else f"{B}{path}"
        command = f"curl -s -X {method} {target} -H \"Authorization: Bearer ${token_name}\""
        for key, value in (form or {}).items():
            command += f" -d {key}={value}" if " " not in str(value) else f" -d \"{key}={value}\""
        self.block("sh", [command])
        self.block("json", [r.text.strip()])
        return r


class Lines(threading.Thread):
    """An NDJSON stream read in the background, its non-empty lines kept."""

    def __init__(self, url: str, token: str) -> None:
        super().__init__(daemon=True)
        self.url, self.token = url, token
        self.lines: list[str] = []
        self.opened = threading.Event()

    def run(self) -> None:
        headers = {"Authorization": f"Bearer {self.token}"}
        try:
            with httpx.stream("GET", self.url, headers=headers, timeout=None) as r:
                self.opened.set()
                for line in r.iter_lines():
                    if line.strip():
                        self.lines.append(line)
        except httpx.HTTPError:
            pass  # the server stopped at the end of the session

    def wait_for(self, text: str, timeout: float = 10) -> None:
        deadline = time.monotonic() + timeout
        while not any(text in line for line in self.lines):
            if time.monotonic() > deadline:
                raise RuntimeError(f"no line with {text!r} in {self.url}: {self.lines}")
            time.sleep(0.02)


def session(url: str) -> list[str]:
    rec = Recorder(url)
    for name, bot in (("Gizmo", True), ("anna", False)):
        account = {"username": name, "password": PASSWORD, "bot": bot}
        r = httpx.post(url + "/api/auth/register", json=account)
        r.raise_for_status()
    tokens = {}
    for name, scope in (("Gizmo", "bot:play"), ("anna", "board:play")):
        with httpx.Client(base_url=url) as client:
            login = client.post("/api/auth/login", json={"username": name, "password": PASSWORD})
            csrf = {"X-CSRF-Token": login.json()["csrf_token"]}
            made = client.post("/api/account/tokens", json={"scopes": [scope]}, headers=csrf)
            tokens[name] = made.json()["token"]
    bot, anna = tokens["Gizmo"], tokens["anna"]
    rec.say("A bot `Gizmo` and a person `anna` (both registered, tokens created from their sessions):\n")
    rec.block("sh", [f"B={url}", "BOT=shk_...   # Gizmo's token, scope bot:play",
                     "ANNA=shk_...  # anna's token, scope board:play"])
    rec.say("The bot listens to its events:\n")
    rec.block("sh", [f'curl -sN {B}/api/stream/event -H "Authorization: Bearer $BOT"'])
    events = Lines(url + "/api/stream/event", bot)
    events.start()
    events.opened.wait(10)
    rec.say("anna challenges it to a rated 5+3 game of Russian giveaway, with White:\n")
    made = rec.call("POST", "/api/challenge/Gizmo", "ANNA", anna, {
        "rated": "true", "clock.limit": "300", "clock.increment": "3", "color": "white",
        "variant": "russian-giveaway"})
    challenge_id = made.json()["id"]
    events.wait_for('"type":"challenge"')
    rec.say("The bot's event stream shows the challenge; the bot accepts it, and the game starts:\n")
    rec.call("POST", f"/api/challenge/{challenge_id}/accept", "BOT", bot)
    events.wait_for('"type":"gameStart"')
    rec.block("json", events.lines)
    game_id = json.loads(events.lines[-1])["game"]["id"]
    rec.say("The bot follows the game:\n")
    rec.block("sh", [f'curl -sN {B}/api/bot/game/stream/{game_id} -H "Authorization: Bearer $BOT"'])
    game = Lines(url + f"/api/bot/game/stream/{game_id}", bot)
    game.start()
    game.wait_for('"type":"gameFull"')
    time.sleep(0.2)  # the stream has counted the bot as connected
    rec.say("anna plays `c3-b4` (`2217`), the bot `d6-e5` (`1015`); anna plays `e3-d4` (`2318`) offering a "
            "draw with it. The bot tries `1518`, is told that a capture is compulsory, and takes `e5:c3:a5` "
            "jump by jump (which declines the draw), says a word, and anna resigns:\n")
    prefix = f"/api/board/game/{game_id}"
    bot_prefix = f"/api/bot/game/{game_id}"
    rec.call("POST", f"{prefix}/move/2217", "ANNA", anna)
    game.wait_for('"moves":"2217"')
    rec.call("POST", f"{bot_prefix}/move/1015", "BOT", bot)
    game.wait_for('"moves":"2217 1015"')
    rec.call("POST", f"{prefix}/move/2318", "ANNA", anna, params={"offeringDraw": "true"})
    game.wait_for('"moves":"2217 1015 2318"')
    rec.call("POST", f"{bot_prefix}/move/1518", "BOT", bot)
    rec.call("POST", f"{bot_prefix}/move/1522", "BOT", bot)
    rec.call("POST", f"{bot_prefix}/move/2213", "BOT", bot)
    game.wait_for("1522 2213")
    rec.call("POST", f"{bot_prefix}/chat", "BOT", bot, {"room": "player", "text": "Your move"})
    game.wait_for('"type":"chatLine"')
    rec.call("POST", f"{prefix}/resign", "ANNA", anna)
    game.wait_for('"status":"resign"')
    events.wait_for('"type":"gameFinish"')
    rec.say("The bot's game stream meanwhile (the clocks start once each side has moved; the draw offer came "
            "in the same line as its move):\n")
    rec.block("json", game.lines)
    rec.say("and its event stream ends the game:\n")
    rec.block("json", [line for line in events.lines if '"gameFinish"' in line])
    rec.say("Whether the players are online and playing (lidraughts-bot asks for its own status hourly):")
    rec.call("GET", "/api/users/status", "BOT", bot, params={"ids": "gizmo,anna"})
    pdn = httpx.get(url + f"/game/export/{game_id}").text.strip()
    rec.say(f"The game, as PDN (`curl -s {B}/game/export/{game_id}`):\n")
    rec.block("", pdn.splitlines())
    return rec.out


def main() -> None:
    doc = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent.parent / "docs" / "bot-api.md")
    port = free_port()
    env = {**os.environ, "SHASHKI_ARGON2_MEMORY_KIB": "1024", "SHASHKI_ARGON2_TIME_COST": "1"}
    env.pop("DATABASE_URL", None)
    env.pop("REDIS_URL", None)
    with tempfile.TemporaryDirectory() as data:
        server = subprocess.Popen(
            [sys.executable, "-m", "shashki.server", "--port", str(port), "--data", data],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        try:
            url = f"http://127.0.0.1:{port}"
            for _ in range(400):
                try:
                    if httpx.get(url + "/health", timeout=0.5).status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.05)
            recorded = session(url)
        finally:
            server.terminate()  # the streams still open would hold a graceful stop: kill if it lingers
            try:
                server.wait(5)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait(10)
    text = doc.read_text()
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    day = time.strftime("%Y-%m-%d")
    stamp = f"<!-- recorded by scripts/record-bot-session.py on {day}: do not edit -->\n\n"
    doc.write_text(head + BEGIN + "\n" + stamp + "\n".join(recorded) + END + tail)
    print(f"recorded {len(recorded)} blocks into {doc}")


if __name__ == "__main__":
    main()
