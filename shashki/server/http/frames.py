"""What a client sends on a WebSocket, read and checked: each text frame must be a JSON object whose
known fields have their types and bounds. Anything else is answered with an `error` message, and the
socket stays open: garbage is refused one frame at a time, never with a dropped connection or a
traceback in the log.

>>> parse('{"type": "move", "move": "c3-d4", "ply": 0, "id": 1, "lag_ms": 40}')["lag_ms"]
40
>>> for text in ('[1]', '{"type": "move", "lag_ms": "abc"}', '{"type": "ping", "lag_ms": -5}', "nope"):
...     try:
...         parse(text)
...     except Invalid as e:
...         print(e.message)
Send JSON objects.
lag_ms: a number from 0 to 60000.
lag_ms: a number from 0 to 60000.
The message is not JSON.
"""

from __future__ import annotations

import orjson
from starlette.websockets import WebSocket, WebSocketDisconnect

from shashki.server.errors import Invalid, ServiceError
from shashki.server.http.errors import service_error_body
from shashki.server.http.validation import MAX_ID, nests_deeper_than

MAX_FRAME = 16 * 1024  # characters: a move message is under a hundred
MAX_DEPTH = 8


def _number(name: str, low: int, high: int, *, whole: bool = True):
    def check(value) -> None:
        # bool is an int in Python, but `true` is not a number in JSON; 1e400 reads as infinity.
        kinds = int if whole else (int, float)
        if isinstance(value, bool) or not isinstance(value, kinds) or not low <= value <= high:
            what = "a whole number" if whole else "a number"
            raise Invalid("bad_message", f"{name}: {what} from {low} to {high}.")

    return check


def _text(name: str, longest: int):
    def check(value) -> None:
        if not isinstance(value, str) or len(value) > longest:
            raise Invalid("bad_message", f"{name}: text of at most {longest} characters.")

    return check


def _request_id(value) -> None:
    """Clients number their requests; the number (or a short text) comes back in the answer."""
    if isinstance(value, str) and len(value) <= 64:
        return
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) <= MAX_ID:
        return
    raise Invalid("bad_message", "id: a number or a text of at most 64 characters.")


FIELDS = {
    "type": _text("type", 40),
    "id": _request_id,
    "move": _text("move", 200),
    "ply": _number("ply", 0, 100_000),
    "lag_ms": _number("lag_ms", 0, 60_000, whole=False),  # milliseconds, measured: 40.5 will do
}


class BadFrame(Invalid):
    """A frame refused: `request_id` is its `id` when the frame was an object with a well-formed one, so
    that the refusal answers the request it refuses (a client waiting for the answer to its move hears
    it)."""

    def __init__(self, message: str, request_id: int | str | None = None) -> None:
        super().__init__("bad_message", message)
        self.request_id = request_id


def parse(text: str) -> dict:
    """One text frame as a message, or `Invalid` (a `BadFrame`, with the frame's id when it has a
    well-formed one) saying what is wrong with it."""
    if len(text) > MAX_FRAME:
        raise Invalid("bad_message", f"A message is at most {MAX_FRAME} characters.")
    if nests_deeper_than(text.encode(), MAX_DEPTH):
        raise Invalid("bad_message", f"A message nests at most {MAX_DEPTH} levels.")
    try:
        message = orjson.loads(text)
    except ValueError:  # orjson.JSONDecodeError
        raise Invalid("bad_message", "The message is not JSON.") from None
    if not isinstance(message, dict):
        raise Invalid("bad_message", "Send JSON objects.")
    request_id = message.get("id")
    if request_id is not None:
        _request_id(request_id)
    try:
        for name, check in FIELDS.items():
            if message.get(name) is not None:
                check(message[name])
    except Invalid as e:
        raise BadFrame(e.message, request_id) from None
    return message


async def receive_message(websocket: WebSocket, send) -> dict:
    """The next well-formed message of the socket; each malformed frame before it is answered with an
    `error` message through `send`. Raises WebSocketDisconnect when the client goes.
    """
    while True:
        frame = await websocket.receive()
        if frame["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(frame.get("code", 1000), frame.get("reason"))
        try:
            if frame.get("text") is None:
                raise Invalid("bad_message", "Send text frames holding JSON objects, not binary ones.")
            return parse(frame["text"])
        except ServiceError as error:
            refused = error.request_id if isinstance(error, BadFrame) else None
            answered = {} if refused is None else {"id": refused}
            await send(service_error_body(error) | {"type": "error", **answered})


async def answer_until_closed(websocket: WebSocket, send, resync) -> None:
    """The read loop of a socket that only listens (the lobby, a tournament): `resync` sends the state
    again, `ping` is answered `pong` (as on game sockets), any other message type with an error. Returns
    when the client goes."""
    try:
        while True:
            message = await receive_message(websocket, send)  # garbage frames get an error each
            kind = message.get("type")
            if kind == "resync":
                await resync()
            elif kind == "ping":
                await send({"type": "pong", "id": message.get("id")})
            else:
                error = {"code": "bad_message", "message": f"Unknown message type {kind!r}."}
                await send({"type": "error", "id": message.get("id"), "error": error})
    except (WebSocketDisconnect, RuntimeError):
        pass
