"""The analysis board over HTTP and its WebSocket. No account is needed for any of it.

- `POST /api/analysis/position` — a variant, a FEN (or the start) and moves played from it: the position
  reached with its legal moves (the game state's shape), outcome and endgame-table result; a bad FEN or
  move is a 400 naming it.
- `POST /api/analysis/lines` — the engine's best lines for such a position at the end of the budget
  (the polled form); `/ws/analysis` streams them as they deepen:
  the client sends `{"type": "analyse", "id": 1, "variant": ..., "fen": ..., "moves": [...], "lines": 3,
  "seconds": 5}` and receives `{"type": "lines", "id": 1, "fen": ..., "depth": d, "lines": [...],
  "done": false}` after each depth, the last with `"done": true`. A new `analyse` replaces the one
  running; `{"type": "stop"}` ends it.
- `POST /api/analysis/pdn` — a PDN text's games as trees of positions (see server/analysis/pdn_import.py).

Searches are limited per client address (`analyses`) and, for a logged-in player, per account too
(`analyses_per_account`); imports per address (`pdn_imports`): shashki/server/limits.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from fastapi import APIRouter, Depends, Request, Response, WebSocket, WebSocketDisconnect
from pydantic import BaseModel, Field, ValidationError

from shashki.server.accounts import Actor
from shashki.server.errors import Invalid, ServiceError
from shashki.server.http.auth import optional_actor
from shashki.server.http.deps import Accounts, Analysis, Limits
from shashki.server.http.errors import service_error_body
from shashki.server.http.frames import receive_message
from shashki.server.http.sender import Sender
from shashki.server.http.socket_life import _accept
from shashki.server.http.throttle import client_address, per_address
from shashki.server.limits import Limiter

log = logging.getLogger(__name__)
router = APIRouter(tags=["analysis"])


class PositionBody(BaseModel):
    variant: str | None = Field(None, max_length=40, description="Variant key; the default when absent")
    fen: str | None = Field(None, max_length=400, description="Start position; the variant's when absent")
    moves: list[str] = Field(default_factory=list, max_length=600, description="Moves played from the FEN")
    double_diagonal: bool = False


class LinesBody(PositionBody):
    lines: int = Field(3, ge=1, le=20, description="How many moves to analyse (multi-PV)")
    seconds: float = Field(3.0, gt=0, le=60, description="The time budget (cut to the server's longest)")


class PdnBody(BaseModel):
    pdn: str = Field(max_length=60_000, description="PDN text: one game or many")
    variant: str | None = Field(None, max_length=40, description="Variant of games without a variant tag")


async def count_search(limits: Limiter, address: str, actor: Actor | None) -> None:
    """One engine search: counted for the address, and for the account when there is one."""
    await limits.hit("analyses", address, "analyses")
    if actor is not None:
        await limits.hit("analyses_per_account", str(actor.id), "analyses")


@router.post("/api/analysis/position", summary="A position with its legal moves (no account needed)")
async def position(body: PositionBody, analysis: Analysis) -> dict:
    return analysis.position(body.variant, body.fen, body.moves, body.double_diagonal)


@router.post("/api/analysis/lines", summary="The engine's best lines for a position (multi-PV)")
async def lines(body: LinesBody, analysis: Analysis, limits: Limits, request: Request,
                actor: Actor | None = Depends(optional_actor)) -> dict:
    analysis.check_request(body.lines, body.seconds)
    game = analysis.game(body.variant, body.fen, body.moves, body.double_diagonal)
    await count_search(limits, client_address(request), actor)
    last: dict[str, Any] = {}
    async for report in analysis.lines(game, body.lines, body.seconds):
        last = report
    return {"fen": game.position.fen(), **last}


@router.post("/api/analysis/pdn", summary="Import PDN: each game as a tree of positions",
             dependencies=[Depends(per_address("pdn_imports", "PDN imports"))])
async def import_pdn(body: PdnBody, analysis: Analysis) -> Response:
    return Response(await analysis.import_pdn(body.pdn, body.variant), media_type="application/json")


@router.websocket("/ws/analysis")
async def analysis_socket(websocket: WebSocket, accounts: Accounts, analysis: Analysis, limits: Limits
                          ) -> None:
    accepted, actor = await _accept(websocket, accounts)
    if not accepted:
        return
    send = Sender(websocket)
    address = websocket.client.host if websocket.client else ""
    running: asyncio.Task | None = None

    async def run(message: dict) -> None:
        request_id = message.get("id")
        try:
            body = LinesBody.model_validate({k: v for k, v in message.items() if k not in ("type", "id")})
            analysis.check_request(body.lines, body.seconds)
            game = analysis.game(body.variant, body.fen, body.moves, body.double_diagonal)
            await count_search(limits, address, actor)
            fen = game.position.fen()
            async for report in analysis.lines(game, body.lines, body.seconds):
                await send({"type": "lines", "id": request_id, "fen": fen, **report})
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            await send({"type": "error", "id": request_id,
                        "error": {"code": "bad_message", "message": f"{where}: {first['msg']}"}})
        except ServiceError as error:
            await send(service_error_body(error) | {"type": "error", "id": request_id})

    async def stop() -> None:
        nonlocal running
        if running is not None:
            running.cancel()
            with contextlib.suppress(BaseException):
                await running
            running = None

    try:
        while True:
            message = await receive_message(websocket, send)
            kind = message.get("type")
            if kind == "analyse":
                await stop()
                running = asyncio.create_task(run(message))
            elif kind == "stop":
                await stop()
            elif kind == "ping":
                await send({"type": "pong", "id": message.get("id")})
            else:
                error = Invalid("bad_message", f"Unknown message type {kind!r}.")
                await send(service_error_body(error) | {"type": "error", "id": message.get("id")})
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        await stop()
