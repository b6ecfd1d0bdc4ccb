"""One validation layer for what clients send: bounded ids, integers, strings and JSON, checked before a
route runs, so that no malformed input reaches a service, the database or `int()`.

`bounded_inputs` is a dependency of every route (the application's `dependencies`): it checks each path
parameter by its name (`PATH_RULES`) and each query parameter (`QUERY_RULES`, and the bounds every query
value has). `nests_deeper_than` (`json_depth` when it must count) is used on request bodies by the body
limit (shashki/server/http/edge.py) and on WebSocket messages (http/frames.py).

The rules follow from what the server hands out and stores:
- integer ids and page numbers are SQL BIGINT: ASCII digits only (`"²".isdigit()` is true, but `int("²")`
  fails), at most 2**63 - 1;
- game ids are 8 letters and digits (shashki/server/games/service.py); an id of another shape cannot name
  a game, so it is answered `no_such_game` without a look-up;
- usernames are at most 20 letters, digits, `_` and `-` (shashki/server/accounts/service.py);
- everything else is bounded in length, so that nothing a client sends grows the server's memory.

>>> check_path("seek_id", "12")
>>> for value in ("²", "99999999999999999999999", "-1"):
...     try:
...         check_path("seek_id", value)
...     except Invalid as e:
...         print(e.code)
bad_request
bad_request
bad_request
>>> json_depth(b'{"a": [[1, "[[[["], {"b": null}]}')
3
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from starlette.exceptions import WebSocketException
from starlette.requests import HTTPConnection

from shashki.server.errors import Invalid, NotFound, ServiceError

MAX_ID = 2**63 - 1  # SQL BIGINT
DIGITS = re.compile(r"[0-9]{1,19}")  # ASCII digits only: re's \d would accept "²" and "١"


@dataclass(frozen=True)
class Rule:
    """What one parameter may be: a whole-match pattern, and the answer when it is not."""

    pattern: re.Pattern[str]
    describe: str
    integer: bool = False  # a value of digits names a BIGINT: at most MAX_ID
    missing: tuple[str, str] | None = None  # (code, message): answer 404 — no such thing can exist

    def check(self, name: str, value: str) -> None:
        if self.pattern.fullmatch(value) and not (self.integer and value.isdigit() and int(value) > MAX_ID):
            return
        if self.integer and value.isascii() and value.isdigit():
            raise Invalid("bad_request", f"{name}: at most {MAX_ID}.")
        if self.missing:
            raise NotFound(*self.missing)
        raise Invalid("bad_request", f"{name}: {self.describe}.")


INTEGER_ID = Rule(DIGITS, "a whole number written in ASCII digits", integer=True)
# Bot API challenge ids: a challenge's number, or for a rematch the finished game's id.
CHALLENGE_REF = Rule(re.compile(r"[A-Za-z0-9]{1,32}"), "a challenge number or a game id", integer=True)
GAME_ID = Rule(
    re.compile(r"[A-Za-z0-9]{1,32}"), "a game id", missing=("no_such_game", "There is no such game.")
)
TOURNAMENT_ID = Rule(
    re.compile(r"[A-Za-z0-9]{1,32}"),
    "a tournament id",
    missing=("no_such_tournament", "There is no such tournament."),
)
USERNAME = Rule(
    re.compile(r"[A-Za-z0-9_-]{1,30}"), "a username", missing=("no_such_user", "There is no such player.")
)
NAME = Rule(re.compile(r"[A-Za-z0-9_.+-]{1,40}"), "a short name of letters, digits, '-', '_', '.' or '+'")
# Moves in a path: lidraughts' square numbers (4231) or our notation (c3-d4, 22x17), ASCII only.
MOVE = Rule(re.compile(r"[A-Za-z0-9:x-]{1,120}"), "a move: square numbers (3227) or notation (c3-d4)")

PATH_RULES: dict[str, Rule] = {
    "seek_id": INTEGER_ID,
    "token_id": INTEGER_ID,
    "notification_id": INTEGER_ID,
    "challenge_id": CHALLENGE_REF,
    "game_id": GAME_ID,
    "tournament_id": TOURNAMENT_ID,
    "username": USERNAME,
    "variant": NAME,
    "speed": NAME,
    "accept": NAME,
    "move": MOVE,
}
ANY_PATH = Rule(re.compile(r"[^\x00-\x1f\x7f]{1,200}"), "at most 200 printable characters")

# Integers in queries: bounded where the service multiplies or adds them (page * per_page is an SQL offset).
QUERY_INTEGERS: dict[str, int] = {
    "page": 1_000_000,
    "per_page": 1000,
    "limit": 1000,
    "max": 1_000_000_000,
    "round": 100_000,
}
MAX_QUERY_VALUE = 1000  # characters in any one query value
MAX_QUERY_FIELDS = 50


def check_path(name: str, value: str) -> None:
    PATH_RULES.get(name, ANY_PATH).check(name, value)


def check_query(params) -> None:
    items = params.multi_items()
    if len(items) > MAX_QUERY_FIELDS:
        raise Invalid("bad_request", f"At most {MAX_QUERY_FIELDS} query parameters.")
    for name, value in items:
        if len(value) > MAX_QUERY_VALUE or len(name) > 100:
            raise Invalid("bad_request", f"{name[:100]}: at most {MAX_QUERY_VALUE} characters.")
        bound = QUERY_INTEGERS.get(name)
        if bound is not None:
            if not (value.isascii() and value.isdigit()):
                raise Invalid("bad_request", f"{name}: a whole number written in ASCII digits.")
            if len(value) > 19 or int(value) > bound:
                raise Invalid("bad_request", f"{name}: at most {bound}.")


async def bounded_inputs(connection: HTTPConnection) -> None:
    """The dependency of every route: path and query parameters within their bounds.

    On a WebSocket, a refusal closes the handshake (HTTP 403) with the reason, as the socket has no JSON
    answer yet.
    """
    try:
        for name, value in connection.path_params.items():
            check_path(name, str(value))
        check_query(connection.query_params)
    except ServiceError as error:
        if connection.scope["type"] == "websocket":
            raise WebSocketException(code=1008, reason=error.message[:120]) from None
        raise


_STRINGS = re.compile(rb'"(?:[^"\\]|\\.)*"')
_BRACKETS = re.compile(rb"[\[\]{}]")


def json_depth(body: bytes) -> int:
    """How deeply a JSON text nests its arrays and objects (strings skipped), without parsing it:
    Python's json parser recurses, so a text nested 50,000 deep must be refused before it is parsed.
    """
    depth = deepest = 0
    for bracket in _BRACKETS.finditer(_STRINGS.sub(b'""', body)):
        if bracket.group() in (b"[", b"{"):
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def nests_deeper_than(body: bytes, limit: int) -> bool:
    """Whether `json_depth(body) > limit`, answered without scanning the text when it holds no more
    opening brackets than `limit`, strings included (a move's message holds none): the depth is never
    more than their number.

    >>> nests_deeper_than(b'{"a": [[1]]}', 3), nests_deeper_than(b'{"a": [[1]]}', 2)
    (False, True)
    """
    if body.count(b"[") + body.count(b"{") <= limit:
        return False
    return json_depth(body) > limit
