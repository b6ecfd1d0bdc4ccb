"""The one rate limiter: sliding windows in memory, or in Redis shared by every server process; and the
net under the validation layer (errors that parsers raise on client input are 400, never 500).
"""

from __future__ import annotations

import asyncio
import os
import time
import uuid

import httpx
import pytest
from fastapi import FastAPI
from hypothesis import given, settings
from hypothesis import strategies as st

from shashki.server.errors import RateLimited
from shashki.server.http import errors
from shashki.server.limits import Limit, Limiter, RateLimiter


def test_a_window_refuses_the_event_past_its_count_and_says_when_to_retry():
    window = RateLimiter(3, 60.0)
    for _ in range(3):
        window.hit("a", "things")
    with pytest.raises(RateLimited) as refused:
        window.hit("a", "things")
    assert refused.value.details["retry_after"] == 60
    window.hit("b", "things")  # another key has its own window


def test_a_window_slides_events_out_after_its_seconds():
    window = RateLimiter(2, 0.2)
    window.hit("a", "things")
    window.hit("a", "things")
    assert window.wait_time("a") > 0
    time.sleep(0.25)
    assert window.wait_time("a") == 0
    window.hit("a", "things")


def test_keys_whose_events_all_left_the_window_are_forgotten():
    window = RateLimiter(5, 0.05)
    for i in range(100):
        window.hit(f"10.0.0.{i}", "things")
    time.sleep(0.1)
    window.hit("10.0.1.1", "things")
    assert list(window._hits) == ["10.0.1.1"]


def test_limits_are_written_count_slash_seconds_and_bad_ones_are_refused():
    assert Limit.parse("20/60") == Limit(20, 60.0) and str(Limit(20, 60.0)) == "20/60"
    for bad in ("20", "0/60", "5/0", "x/y", "-1/5"):
        with pytest.raises(ValueError):
            Limit.parse(bad)


@pytest.mark.skipif(not os.environ.get("SHASHKI_TEST_REDIS_URL"), reason="SHASHKI_TEST_REDIS_URL not set")
def test_limits_in_redis_are_shared_by_every_process():
    url = os.environ["SHASHKI_TEST_REDIS_URL"]
    name = f"test_{uuid.uuid4().hex[:8]}"

    async def scenario() -> list[str]:
        # Two limiters stand for two server processes: each sees the other's events.
        one, two = Limiter({name: Limit(3, 2.0)}, url), Limiter({name: Limit(3, 2.0)}, url)
        outcomes = []
        try:
            for limiter in (one, two, one, two):
                try:
                    await limiter.hit(name, "10.0.0.1")
                    outcomes.append("ok")
                except RateLimited as refused:
                    outcomes.append(f"refused {refused.details['retry_after']}")
            await two.hit(name, "10.0.0.2")  # another key, its own window
            await asyncio.sleep(2.1)
            await one.hit(name, "10.0.0.1")  # the window slid
            outcomes.append("ok after the window")
        finally:
            await one.close()
            await two.close()
        return outcomes

    assert asyncio.run(scenario()) == ["ok", "ok", "ok", "refused 2", "ok after the window"]


def test_parser_errors_on_client_input_are_400_json_not_500():
    app = FastAPI()
    errors.install(app)

    @app.get("/deep")
    async def deep():
        raise RecursionError("maximum recursion depth exceeded")

    @app.get("/big")
    async def big():
        raise OverflowError("Python int too large to convert to SQLite INTEGER")

    @app.get("/bad-json")
    async def bad_json():
        import json

        return json.loads("{")

    async def ask(path: str) -> httpx.Response:
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            return await client.get(path)

    for path in ("/deep", "/big", "/bad-json"):
        r = asyncio.run(ask(path))
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_request", path


def test_an_unreachable_database_or_redis_is_503_with_retry_after_not_500():
    from redis.exceptions import ConnectionError as RedisConnectionError
    from sqlalchemy.exc import OperationalError

    app = FastAPI()
    errors.install(app)
    failures = {
        "/database": OperationalError("SELECT 1", {}, ConnectionRefusedError("connection refused")),
        "/redis": RedisConnectionError("Error 111 connecting to localhost:6379"),
        "/socket": ConnectionResetError("reset by peer"),
    }
    for path, failure in failures.items():

        async def fail(failure=failure):
            raise failure

        app.add_api_route(path, fail)

    async def ask(path: str) -> httpx.Response:
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            return await client.get(path)

    for path in failures:
        r = asyncio.run(ask(path))
        assert r.status_code == 503 and r.json()["error"]["code"] == "unavailable", path
        assert r.headers["retry-after"] == "5"


@settings(max_examples=300, deadline=None)
@given(
    st.recursive(
        st.none() | st.integers() | st.text(alphabet='[]{}"\\a'),
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.text(alphabet="[]{}a"), inner, max_size=3)
        ),
    ),
    st.integers(min_value=0, max_value=8),
)
def test_the_depth_check_fast_path_answers_as_counting_would(value, limit):
    """`nests_deeper_than` skips the scan only when the brackets are too few to nest past the limit."""
    import json

    from shashki.server.http.validation import json_depth, nests_deeper_than

    body = json.dumps(value).encode()
    assert nests_deeper_than(body, limit) is (json_depth(body) > limit)
