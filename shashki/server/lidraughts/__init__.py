"""The lidraughts-compatible Bot and Board APIs: an adapter beside the domains, not one of them.

- `shapes`: lidraughts' conventions (variant objects, status names, user objects, time controls);
- `moves`: move strings to and from rules `Move`s, captures sent jump by jump;
- `facts`: what the adapter reads of the games domain, in one place;
- `views`: lidraughts' JSON of challenges, games and accounts;
- `streams`: the account's event stream and a game's stream (NDJSON lines);
- `api`: what each route asks of the domain services (`BotApi`);
- `routes`: the HTTP routes.

The shapes other packages use (exports, player pages) are importable from here.

>>> variant_key("antidraughts"), variant_json("russian-giveaway")["name"]
('international-giveaway', 'Russian')
"""

from shashki.server.lidraughts.shapes import (
    NO_CLOCK_MS,
    speed_title,
    status_name,
    user_json,
    variant_json,
    variant_key,
)

__all__ = ["NO_CLOCK_MS", "speed_title", "status_name", "user_json", "variant_json", "variant_key"]
