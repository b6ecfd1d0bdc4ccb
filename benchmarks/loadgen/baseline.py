"""The bare baseline: the least a durable game server must do per move, to compare Shashki with."""

from __future__ import annotations

import contextlib
import itertools
import json
import time
import uuid
from pathlib import Path

# Module level: FastAPI resolves the baseline's annotations (strings, by the __future__ import) here.
from fastapi import FastAPI, Request, Response, WebSocket, WebSocketDisconnect
from fastapi.responses import JSONResponse

STATE_PADDING = 2048  # bytes of the baseline's state message, about Shashki's state early in a game


def baseline_app(data: Path):
    """FastAPI app doing per move one SQLite INSERT + commit, an ack, and a ~2 KB state to the opponent."""
    import sqlite3

    data.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(data / "baseline.sqlite3", isolation_level=None, check_same_thread=False)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("CREATE TABLE IF NOT EXISTS moves (game_id TEXT, ply INTEGER, notation TEXT, played_at REAL)")
    app = FastAPI()
    users: dict[str, int] = {}
    tokens: dict[str, str] = {}
    challenges: dict[int, tuple[str, str]] = {}
    games: dict[str, dict] = {}
    numbers = itertools.count(1)

    def user_of(request) -> str | None:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        return tokens.get(token)

    @app.get("/health")
    async def health() -> dict:
        return {"status": "ok"}

    @app.post("/api/auth/register", status_code=201)
    async def register(request: Request) -> dict:
        body = await request.json()
        users[body["username"]] = next(numbers)
        return {"user": {"id": users[body["username"]], "username": body["username"]}}

    @app.post("/api/auth/login")
    async def login(request: Request, response: Response) -> dict:
        body = await request.json()
        response.set_cookie("session", body["username"])
        return {"csrf_token": "x"}

    @app.post("/api/account/tokens", status_code=201)
    async def token(request: Request) -> dict:
        value = uuid.uuid4().hex
        tokens[value] = request.cookies["session"]
        return {"token": value}

    @app.post("/api/challenges", status_code=201)
    async def challenge(request: Request) -> dict:
        body = await request.json()
        number = next(numbers)
        challenges[number] = (user_of(request), body["username"])
        return {"challenge": {"id": number}}

    @app.post("/api/challenges/{number}/accept")
    async def accept(number: int, request: Request):
        white, black = challenges.pop(number)
        if user_of(request) != black:
            return JSONResponse({"error": {"code": "not_yours"}}, status_code=403)
        game_id = uuid.uuid4().hex[:8]
        games[game_id] = {"white": white, "black": black, "moves": [], "sockets": {}}
        return {"game": {"id": game_id}}

    def state(game_id: str, game: dict) -> str:
        body = {"id": game_id, "ply": len(game["moves"]), "status": "started", "moves": game["moves"]}
        text = json.dumps({"type": "state", "seq": len(game["moves"]) + 1, "game": body})
        padding = max(0, STATE_PADDING - len(text) - 16)
        body["padding"] = "." * padding
        return json.dumps({"type": "state", "seq": len(game["moves"]) + 1, "game": body})

    @app.websocket("/ws/games/{game_id}")
    async def game_socket(websocket: WebSocket, game_id: str) -> None:
        user = user_of(websocket)
        game = games.get(game_id)
        await websocket.accept()
        if game is None or user not in (game["white"], game["black"]):
            await websocket.close(code=4404)
            return
        color = "white" if user == game["white"] else "black"
        game["sockets"][color] = websocket
        await websocket.send_text(state(game_id, game))
        try:
            while True:
                message = await websocket.receive_json()
                if message.get("type") != "move":
                    continue
                ply = len(game["moves"])
                game["moves"].append(message["move"])
                db.execute(
                    "INSERT INTO moves (game_id, ply, notation, played_at) VALUES (?, ?, ?, ?)",
                    (game_id, ply, message["move"], time.time()),
                )
                db.commit()
                await websocket.send_text(
                    json.dumps({"type": "ack", "id": message.get("id"), "ply": ply + 1, "seq": ply + 2})
                )
                opponent = game["sockets"].get("black" if color == "white" else "white")
                if opponent is not None:
                    with contextlib.suppress(Exception):
                        await opponent.send_text(state(game_id, game))
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            game["sockets"].pop(color, None)
            if not game["sockets"]:
                games.pop(game_id, None)

    return app


def serve_baseline(port: int, data: Path) -> None:
    import uvicorn

    uvicorn.run(
        baseline_app(data),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        ws_ping_interval=20,
        ws_ping_timeout=20,
    )
