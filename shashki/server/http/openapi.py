"""The WebSocket endpoints in the OpenAPI description (`/docs`, `/openapi.json`): OpenAPI has no
WebSocket operations, so each is described as the GET that upgrades the connection."""

from __future__ import annotations

from fastapi import FastAPI

from shashki.server.http import analysis, live


def document_websockets(app: FastAPI) -> None:
    """List the WebSocket endpoints in the OpenAPI description too (OpenAPI has no WebSocket operations:
    they are described as the GET that upgrades the connection).
    """
    sockets = {
        "/ws/games/{game_id}": "One game, live: numbered states, move acks, resync; players act, all watch",
        "/ws/lobby": "The lobby, live: open seeks; for a logged-in player, challenges and games starting",
        "/ws/analysis": "The analysis board: the engine's lines for a position, deeper as they come",
        "/ws/tournaments/{tournament_id}": "One tournament, live: its state after every change; pairings",
        "/ws/simuls/{simul_id}": "One simul, live: its state after every change; each game's board",
    }
    default_openapi = app.openapi

    def openapi() -> dict:
        if app.openapi_schema:
            return app.openapi_schema
        schema = default_openapi()
        for path, summary in sockets.items():
            names = [name for name in ("game_id", "tournament_id", "simul_id") if "{" + name + "}" in path]
            parameters = [
                {"name": name, "in": "path", "required": True, "schema": {"type": "string"}} for name in names
            ]
            schema["paths"][path] = {
                "get": {
                    "tags": ["live"],
                    "summary": summary,
                    "description": analysis.__doc__ if path == "/ws/analysis" else live.__doc__,
                    "parameters": parameters,
                    "responses": {"101": {"description": "Switching to the WebSocket protocol"}},
                }
            }
        return schema

    app.openapi = openapi  # type: ignore[method-assign]  # FastAPI's documented way to extend the schema
