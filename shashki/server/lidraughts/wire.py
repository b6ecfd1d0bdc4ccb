"""How the Bot and Board APIs read their requests and write their streams (`lidraughts/routes.py`): a
request's fields from a form, a JSON object or the query string (`fields`, `flag`), and the NDJSON streams
(`ndjson`), which stop as soon as the client goes away (`NdjsonResponse`) or its credential ends
(`while_authorized`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from urllib.parse import parse_qsl

from fastapi import Request
from fastapi.responses import StreamingResponse
from starlette.exceptions import HTTPException
from starlette.formparsers import MultiPartException
from starlette.types import Receive, Scope, Send

from shashki.server.accounts import AccountService, Actor
from shashki.server.errors import Invalid, ServiceError
from shashki.server.http.errors import UNAVAILABLE, error_body, unavailable_body

NDJSON = "application/x-ndjson"
FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


async def fields(request: Request) -> dict[str, str]:
    """The request's parameters: the query string, then the body's fields over it: a form, urlencoded or
    multipart (as lidraughts reads them), or a JSON object. A body of any other type, or one that does not
    parse, is refused: never read as no fields (which would make a challenge of the defaults)."""
    out = dict(request.query_params)
    body = await request.body()
    if not body:
        return out
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media in ("", "text/plain") and body.lstrip().startswith(b"{"):
        media = "application/json"  # a JSON object sent without its type (found by an audit)
    if media == "application/json" or media.endswith("+json"):
        try:
            data = json.loads(body)
        except ValueError:
            raise Invalid("bad_request", "The body is not JSON.") from None
        if not isinstance(data, dict):
            raise Invalid("bad_request", "Send a JSON object.")
        out.update({k: json.dumps(v) if isinstance(v, bool) else str(v) for k, v in data.items()})
    elif media == "multipart/form-data":
        try:
            form = await request.form(max_files=0, max_fields=100)
        except (HTTPException, MultiPartException):
            raise Invalid(
                "bad_request", "The multipart form could not be read (files are not taken)."
            ) from None
        out.update((k, v) for k, v in form.multi_items() if isinstance(v, str))
    elif media in ("", "application/x-www-form-urlencoded", "text/plain"):
        text = body.decode("utf-8", "replace")
        pairs = parse_qsl(text)
        if not pairs and text.strip():
            raise Invalid("bad_request", "The body is not a form (name=value&...) nor a JSON object.")
        out.update(pairs)
    else:
        raise Invalid(
            "unsupported_body",
            f"A body of type {media!r} is not read here: send the fields as a form"
            f" ({' or '.join(FORM_TYPES)}) or as JSON (application/json).",
        )
    return out


def flag(value: str | None) -> bool:
    return (value or "").lower() in ("true", "1", "yes", "on")


class NdjsonResponse(StreamingResponse):
    """A stream that stops as soon as the client goes away, whatever the ASGI server's version.

    Starlette notices a departed client only when a write fails (ASGI 2.4), that is at the next
    keep-alive; here the body is a task, cancelled at once on `http.disconnect`. asyncio's cancellation
    reaches the body's current await once, so its clean-up (a seek withdrawn, a player's presence
    ended) runs in full.
    """

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def stream() -> None:
            with contextlib.suppress(OSError):  # the client left while we were writing
                await self.stream_response(send)

        tasks = [asyncio.ensure_future(stream()), asyncio.ensure_future(self.listen_for_disconnect(receive))]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError, OSError):
                    await task


async def while_authorized(
    lines: AsyncIterator[dict | None],
    accounts: AccountService,
    actor: Actor,
    stopping: asyncio.Event | None = None,
) -> AsyncIterator[dict | None]:
    """The stream's lines until its token is revoked or its session logged out, in any process
    (accounts/revocation.py), then a last line `{"error": {"code": "credential_ended", ...}}`; or until
    the server process begins to stop (`stopping`): the stream simply ends, as a dropped connection does,
    so that the client connects again (to another process, or once this one is back) instead of holding
    the stop. The stream itself is closed either way, so its clean-up (presence ended, seek withdrawn)
    runs.
    """
    async with accounts.watch(actor) as revoked:
        if not await accounts.still_valid(actor, fresh=True):  # ended before the watch began
            revoked.set()
        ended = asyncio.ensure_future(revoked.wait())
        stop = asyncio.ensure_future((stopping or asyncio.Event()).wait())
        line: asyncio.Future | None = None
        try:
            while True:
                line = asyncio.ensure_future(anext(lines))
                await asyncio.wait({line, ended, stop}, return_when=asyncio.FIRST_COMPLETED)
                if not line.done() and stop.done():
                    return
                if not line.done():
                    yield error_body("credential_ended", "This token was revoked or this session logged out.")
                    return
                try:
                    yield line.result()
                except StopAsyncIteration:
                    return
        finally:
            # Whether revoked, finished or cancelled (the client left): the stream's own clean-up runs,
            # in the task that was reading it, before the generator is closed.
            ended.cancel()
            stop.cancel()
            if line is not None and not line.done():
                line.cancel()
                with contextlib.suppress(BaseException):
                    await line
            if hasattr(lines, "aclose"):
                await lines.aclose()


def ndjson(lines: AsyncIterator[dict | None]) -> StreamingResponse:
    """Each object as a line; None as an empty line (keep-alive). An error met on the way becomes a
    last line `{"error": {...}}` (the status line has gone out already).
    """

    async def body() -> AsyncIterator[bytes]:
        try:
            async for line in lines:
                yield b"\n" if line is None else json.dumps(line, separators=(",", ":")).encode() + b"\n"
        except ServiceError as error:
            yield json.dumps(error_body(error.code, error.message)).encode() + b"\n"
        except UNAVAILABLE:  # the database or Redis went away: the client reconnects later
            yield json.dumps(unavailable_body()).encode() + b"\n"

    # A stream of an account's own games and events: no cache keeps it (edge.py's rule for JSON read with
    # credentials; set here, as the stream's answer names its own).
    return NdjsonResponse(body(), media_type=NDJSON, headers={"Cache-Control": "no-store"})
