"""The browser client: its static files and the page addresses that all answer with its one HTML page.

The client (shashki/web: plain ES modules, SVG and CSS, no build step) routes itself from the address:
`/` the lobby, `/game/{id}` a game (played, watched or replayed), `/@/{username}` a player's profile,
`/rules` and `/rules/{variant}` the rules pages, `/settings` the looks (theme, board, pieces),
`/challenge/{link}` a challenge by link, `/analysis` the analysis board, `/puzzles`, `/puzzles/{id}` and
`/puzzles/history` the puzzle trainer and the player's attempts, `/tournaments` the
tournaments and `/tournament/{id}` one of them, `/simuls` the simultaneous exhibitions and `/simul/{id}`
one of them, `/tv` and `/tv/{variant}` the best game in play,
`/leaderboard`, `/leaderboard/{variant}` and `/leaderboard/{variant}/{speed}` the best players. Its
files are served under `/static/`.

Two small read-only answers exist for the client alone, so that it never computes rules itself:
`/web/variants.json` describes each variant's board, notation and rule parameters (for drawing the board
and the rules pages), and `/api/games/{id}/positions` gives the position after every ply of a game (for
going back and forth through its moves), replayed by `shashki.rules`.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse, JSONResponse
from starlette.staticfiles import StaticFiles

from shashki.rules import VARIANTS, get_variant
from shashki.server.http.deps import Games

WEB_DIR = Path(__file__).resolve().parents[2] / "web"
PAGES = (
    "/", "/game/{game_id}", "/@/{username}", "/rules", "/rules/{variant}", "/settings", "/challenge/{link}",
    "/analysis", "/tournaments", "/tournament/{tournament_id}", "/tv", "/tv/{variant}",
    "/simuls", "/simul/{simul_id}",  # the simultaneous exhibitions (web/js/simuls.js, simul.js)
    "/puzzles", "/puzzles/{puzzle_id}",  # the puzzle trainer and /puzzles/history (web/js/puzzle*.js)
    "/leaderboard", "/leaderboard/{variant}", "/leaderboard/{variant}/{speed}",  # web/js/leaderboard.js
)
# The files change with the server, not on their own: browsers revalidate (ETag) instead of guessing.
NO_CACHE = {"Cache-Control": "no-cache"}

router = APIRouter()


class WebFiles(StaticFiles):
    async def get_response(self, path: str, scope):
        response = await super().get_response(path, scope)
        response.headers.update(NO_CACHE)
        return response


async def page() -> FileResponse:
    return FileResponse(WEB_DIR / "index.html", headers=NO_CACHE)


# Where the API and the files live: a missing address there is answered in JSON (or plainly), never with
# the page.
NOT_PAGES = ("/api/", "/ws/", "/static/", "/web/", "/health", "/metrics", "/docs", "/openapi", "/redoc")


def not_found_page(method: str, path: str, accept: str) -> FileResponse | None:
    """A browser asking for an address that is no page (a mistyped `/lobby`, `/login`): the client's page,
    with status 404, which routes itself to its "not found" view in the player's language, as lichess
    answers; None for the API, the files and any client that does not ask for HTML."""
    if method not in ("GET", "HEAD") or path.startswith(NOT_PAGES) or "text/html" not in accept:
        return None
    return FileResponse(WEB_DIR / "index.html", status_code=404, headers=NO_CACHE)


for _path in PAGES:
    router.add_api_route(_path, page, methods=["GET", "HEAD"], include_in_schema=False)


@cache
def variants_json() -> dict:
    def describe(v) -> dict:
        board = v.board
        return {
            "key": v.key,
            "name": v.name,
            "aliases": list(v.aliases),
            "board_size": v.board_size,
            "squares": board.squares,
            "men_per_side": v.men_per_side,
            "mirrored": v.mirrored,
            "algebraic": v.algebraic,
            "capture_separator": v.capture_separator,
            "first_player": v.first_player.value,
            "giveaway": v.giveaway,
            "men_capture_backward": v.men_capture_backward,
            "flying_kings": v.flying_kings,
            "precedence": v.precedence.value,
            "promotion_in_capture": v.promotion_in_capture.value,
            "men_capture_kings": v.men_capture_kings,
            "draw_rules": [rule.value for rule in v.draw_rules],
            "options": sorted(v.options),
            "game_type": v.game_type,
        }

    return {"default": get_variant().key, "variants": [describe(v) for v in VARIANTS.values()]}


@router.get("/web/variants.json", include_in_schema=False)
async def variants() -> JSONResponse:
    return JSONResponse(variants_json(), headers=NO_CACHE)


@router.get(
    "/api/games/{game_id}/positions",
    tags=["games"],
    summary="The position (FEN) before the first move and after every move of a game",
)
async def positions(game_id: str, games: Games) -> dict:
    # The game as the games store holds it: replayed once from its moves (`games.replay`) when loaded.
    live = await games.fresh(game_id)
    fens = [position.fen() for position in live.rules.positions]
    return {"id": game_id, "variant": live.record.variant, "moves": list(live.notations), "fens": fens}


def install(app: FastAPI) -> None:
    """Serve the browser client from `app`: its pages, its files and its two read-only answers."""
    app.include_router(router)
    app.mount("/static", WebFiles(directory=WEB_DIR), name="web")
