"""Authority ends when its credential ends: a logout or a revoked token closes what was opened with it.

A socket or a stream is authenticated once, when it opens; without this, a session logged out (or a
token revoked) would keep acting through the sockets and streams it had opened (issue 10, point 1). So:
- the accounts service publishes each ended credential on the event bus, on `auth:<user id>`, as
  `{"type": "revoked", "credential": <its SHA-256>}`, which Redis carries to every server process;
- every socket and stream opened with a credential listens there (`watch`) and ends when its own
  credential is named;
- and each action re-checks the credential against the database (`still_valid`), remembered for a few
  seconds, which holds even when an event was lost (Redis delivers at best once).

In one process (events in process) nothing is lost: every ending passes through `publish` here, which
forgets the credential before anything else runs, so a credential is remembered longer and the check
only catches a session that expired (issue 11: at 2,000 human-paced games a player's moves come more
than 2 s apart, and the read before each was 8% of the server's CPU).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable

from shashki.server.events import EventBus

log = logging.getLogger(__name__)

# How long a credential found valid is believed without asking the database again. The bus closes
# sockets at once; this bounds the window when its event was lost (several processes, Redis).
VALID_FOR_SECONDS = 2.0
# ... and in one process, where no event is lost (module docstring): the time a session may outlive its
# expiry.
ONE_PROCESS_VALID_FOR_SECONDS = 30.0


def channel(user_id: int) -> str:
    return f"auth:{user_id}"


class Revocations:
    """Ended credentials, published and watched; credentials found valid, remembered briefly."""

    def __init__(self, bus: EventBus | None = None, *, valid_for: float | None = None) -> None:
        self.bus = bus
        if valid_for is None:
            shared = bus is not None and bus.shared
            valid_for = VALID_FOR_SECONDS if shared else ONE_PROCESS_VALID_FOR_SECONDS
        self.valid_for = valid_for
        self._checked: dict[str, float] = {}  # credential digest -> when it was last found valid

    async def publish(self, user_id: int, credential: str) -> None:
        """Tell every process that this credential has ended. Its database row is gone already, so a
        bus that is down loses only the immediacy: the next action's check refuses it anyway.
        """
        self._checked.pop(credential, None)
        if self.bus is None:
            return
        try:
            await self.bus.publish(channel(user_id), {"type": "revoked", "credential": credential})
        except Exception as error:  # noqa: BLE001  (Redis away: the database check still holds)
            log.warning("could not publish a revocation: %s", error)

    @contextlib.asynccontextmanager
    async def watch(self, user_id: int, credential: str) -> AsyncIterator[asyncio.Event]:
        """An event set when this credential is revoked, for as long as the context lasts."""
        ended = asyncio.Event()
        if self.bus is None or not credential:
            yield ended
            return

        async def listen(events) -> None:
            async for event in events:
                if event.get("type") == "revoked" and event.get("credential") == credential:
                    self._checked.pop(credential, None)
                    ended.set()
                    return

        async with self.bus.subscribe(channel(user_id)) as events:
            task = asyncio.create_task(listen(events))
            try:
                yield ended
            finally:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task

    async def still_valid(
        self, credential: str, check: Callable[[], Awaitable[bool]], *, fresh: bool = False
    ) -> bool:
        """Whether the credential still holds: remembered for `valid_for` seconds, else (or when `fresh`)
        `check()`."""
        now = time.monotonic()
        if not fresh and now - self._checked.get(credential, -1e9) < self.valid_for:
            return True
        if not await check():
            self._checked.pop(credential, None)
            return False
        if len(self._checked) > 10_000:  # forget the oldest half rather than grow without end
            for key in sorted(self._checked, key=self._checked.__getitem__)[:5_000]:
                del self._checked[key]
        self._checked[credential] = now
        return True
