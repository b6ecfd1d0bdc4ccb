"""What the browser client offers that the server defines, in one read-only answer: `GET /api/meta`.

The client fetches it once when it starts (shashki/web/js/meta.js) instead of keeping copies of the
server's lists: the quick-pairing presets with their speed (the lobby's `QUICK_PAIRING`, the ratings'
`speed_of`), the reasons a person may decline a challenge for (the lobby's `DECLINE_REASONS`), the
computer's levels (the engine's `LEVELS`) and the variants (the same description as `/web/variants.json`:
boards, notation and rule parameters, for drawing and for the rules pages).
"""

from __future__ import annotations

from functools import cache

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from shashki.engine import LEVELS
from shashki.server.http.pages import NO_CACHE, variants_json
from shashki.server.lobby import DECLINE_REASONS, QUICK_PAIRING
from shashki.server.ratings.speed import speed_of

router = APIRouter(prefix="/api", tags=["service"])

# The two reasons about bots answer challenges through the Bot API, as lila offers people every reason
# but these (its `DeclineReason.allExceptBot`); the lobby's decline menu lists the others.
BOT_DECLINE_REASONS = ("no_bot", "only_bot")


@cache
def meta_json() -> dict:
    return {
        "quick_pairing": [
            {
                "preset": name,
                "minutes": clock.minutes,
                "increment": clock.increment,
                "speed": speed_of(clock.initial_ms, clock.increment_ms),
            }
            for name, clock in QUICK_PAIRING.items()
        ],
        "decline_reasons": [reason for reason in DECLINE_REASONS if reason not in BOT_DECLINE_REASONS],
        "levels": list(LEVELS),
        "variants": variants_json(),
    }


@router.get(
    "/meta",
    summary="The server's lists the client offers: quick-pairing presets, decline reasons, levels, variants",
)
async def meta() -> JSONResponse:
    # Revalidated like the client's files: the lists change with the server, not on their own.
    return JSONResponse(meta_json(), headers=NO_CACHE)
