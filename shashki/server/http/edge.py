"""The edge of the server: what every request and socket passes before it reaches a route.

From the outside in (`install` adds them):
- `ProxyHeadersMiddleware` (uvicorn's): the client address and scheme from `X-Forwarded-For` and
  `X-Forwarded-Proto`, believed only from the addresses in `SHASHKI_TRUSTED_PROXIES`. Everything inside
  (the Secure cookie, the rate limits per address) sees the trusted values.
- `SecurityHeaders`: a strict Content-Security-Policy with `frame-ancestors 'none'` (no clickjacking of
  resign or move buttons), `X-Frame-Options: DENY` for browsers without CSP 2, `nosniff`, no referrer
  across sites, and HSTS when the request came over TLS.
- `BodyLimit`: a request body above `max_body_bytes` is answered 413 before it is read when its
  Content-Length says so, and as soon as the bytes read pass the limit otherwise (a chunked body); JSON
  bodies nested deeper than `max_json_depth` are answered 400 before any route parses them.
- `SocketLimits`: at most `sockets_per_address` WebSockets open at once from one address (429 at the
  handshake), counted over every server process when they share Redis (connections.py), and each
  socket's messages read no faster than `socket_messages` allows.
"""

from __future__ import annotations

import asyncio
import contextlib
import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from shashki.server.connections import Connections, make_connections
from shashki.server.http.errors import error_body
from shashki.server.http.validation import nests_deeper_than
from shashki.server.limits import Limit, Limiter, RateLimiter, limit_table

# The web client (shashki/web) is ES modules, a stylesheet and SVG drawn from script, all from this
# server: no inline script or style, no eval, no other origin. WebSockets go to this same host.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
# FastAPI's interactive API pages (/docs, /redoc) load their script from a CDN and start it inline: they
# keep every header but the script policy.
API_PAGES = ("/docs", "/redoc")
API_PAGES_CSP = "frame-ancestors 'none'; object-src 'none'; base-uri 'none'"
HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=()"),
]
HSTS = (b"strict-transport-security", b"max-age=31536000")
NO_STORE = (b"cache-control", b"no-store")


def _is_json(headers) -> bool:
    """Whether a response's headers say JSON or NDJSON (the API's answers and streams)."""
    for name, value in headers:
        if name.lower() == b"content-type":
            return b"json" in value.lower()
    return False


def install(app, settings) -> None:
    """Wire the edge into `app`: the limiter (`app.state.limits`), the counts of connections held open
    (`app.state.connections`, on the limiter's Redis client when there is one) and the middlewares above."""
    public = settings.public
    app.state.limits = Limiter(limit_table(settings), settings.redis_url)
    app.state.connections = make_connections(app.state.limits.redis)
    app.state.public = public
    app.add_middleware(
        SocketLimits,
        per_address=public.sockets_per_address,
        messages=public.socket_messages,
        connections=app.state.connections,
    )
    app.add_middleware(BodyLimit, max_bytes=public.max_body_bytes, max_depth=public.max_json_depth)
    app.add_middleware(SecurityHeaders)
    # Added last, so outermost: everything inside sees the trusted client and scheme.
    app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=public.proxies())

    inner = app.router.lifespan_context

    @contextlib.asynccontextmanager
    async def lifespan(app_):
        await app.state.connections.start()
        try:
            async with inner(app_) as state:
                yield state
        finally:
            await app.state.connections.close()
            await app.state.limits.close()

    app.router.lifespan_context = lifespan


async def answer(send: Send, status: int, code: str, message: str, headers=()) -> None:
    """A JSON error in the server's shape, straight through ASGI."""
    body = json.dumps(error_body(code, message)).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class SecurityHeaders:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        csp = API_PAGES_CSP if scope["path"] in API_PAGES else CSP
        extra = [*HEADERS, (b"content-security-policy", csp.encode())]
        if scope.get("scheme") == "https":
            extra.append(HSTS)
        # What is read with a cookie or a token may be someone's own: no cache keeps JSON read so.
        credentialed = any(name in (b"cookie", b"authorization") for name, _ in scope["headers"])

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = message.get("headers", ())
                present = {name.lower() for name, _ in headers}
                added = [(n, v) for n, v in extra if n not in present]
                if credentialed and b"cache-control" not in present and _is_json(headers):
                    added.append(NO_STORE)
                message["headers"] = [*headers, *added]
            await send(message)

        await self.app(scope, receive, send_with_headers)


class BodyTooLarge(Exception):
    pass


class BodyLimit:
    def __init__(self, app: ASGIApp, max_bytes: int, max_depth: int) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.max_depth = max_depth

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = dict(scope["headers"])
        too_large = f"The request body is larger than {self.max_bytes} bytes."
        try:
            declared = int(headers.get(b"content-length", b"0"))
        except ValueError:
            return await answer(send, 400, "bad_request", "Content-Length is not a number.")
        if declared > self.max_bytes:
            return await answer(send, 413, "payload_too_large", too_large, [(b"connection", b"close")])
        content_type = headers.get(b"content-type")
        if content_type is None or b"json" in content_type:
            # JSON bodies (FastAPI reads a body without a Content-Type as JSON too) are read here, whole
            # (they are small by now), and checked before any parser sees them.
            try:
                body = await self._read(receive)
            except BodyTooLarge:
                return await answer(send, 413, "payload_too_large", too_large, [(b"connection", b"close")])
            if nests_deeper_than(body, self.max_depth):
                return await answer(
                    send, 400, "bad_request", f"The JSON body nests deeper than {self.max_depth} levels."
                )
            return await self.app(scope, _replay(body, receive), send)

        started = False
        read = 0

        async def counted_receive() -> Message:
            nonlocal read
            message = await receive()
            if message["type"] == "http.request":
                read += len(message.get("body", b""))
                if read > self.max_bytes:
                    raise BodyTooLarge
            return message

        async def watched_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted_receive, watched_send)
        except BodyTooLarge:
            if started:
                raise
            await answer(send, 413, "payload_too_large", too_large, [(b"connection", b"close")])

    async def _read(self, receive: Receive) -> bytes:
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                raise BodyTooLarge
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A receive that hands the app the body already read, then the connection's later messages."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


class SocketLimits:
    total = 0  # WebSockets open in this process, every address (the `websockets` gauge)
    KIND = "sockets"

    def __init__(
        self, app: ASGIApp, per_address: int, messages: Limit, connections: Connections | None = None
    ) -> None:
        self.app = app
        self.per_address = per_address
        self.messages = messages
        self.connections = connections or Connections()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            return await self.app(scope, receive, send)
        address = scope["client"][0] if scope.get("client") else ""
        token = await self.connections.open(self.KIND, address, self.per_address)
        if token is None:
            return await self._refuse(scope, receive, send)
        SocketLimits.total += 1
        pace = RateLimiter(self.messages.count, self.messages.seconds)

        async def paced_receive() -> Message:
            # A socket that sends faster than its allowance is read no faster: its extra messages wait in
            # the connection's buffers (and then the sender's), not in this server's memory.
            while delay := pace.wait_time(""):
                await asyncio.sleep(delay)
            message = await receive()
            if message["type"] == "websocket.receive":
                pace.hit("", "messages")
            return message

        try:
            await self.app(scope, paced_receive, send)
        finally:
            SocketLimits.total -= 1
            await self.connections.release(self.KIND, address, token)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        message = await receive()  # websocket.connect
        if message["type"] != "websocket.connect":
            return
        reason = f"At most {self.per_address} WebSockets at once from one address."
        if "websocket.http.response" in scope.get("extensions", {}):
            body = json.dumps(error_body("too_many_sockets", reason)).encode()
            await send(
                {
                    "type": "websocket.http.response.start",
                    "status": 429,
                    "headers": [(b"content-type", b"application/json"), (b"retry-after", b"10")],
                }
            )
            await send({"type": "websocket.http.response.body", "body": body})
        else:
            await send({"type": "websocket.close", "code": 1008, "reason": reason})
