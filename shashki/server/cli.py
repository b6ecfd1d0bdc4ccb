"""The server's commands: `shashki serve` (the online service) and `shashki worker` (engine jobs taken
from Redis). Registered on the `shashki` command by shashki/cli.py.
"""

from __future__ import annotations

import typer

from shashki.clitools import CliError


def serve(
    host: str = typer.Option("127.0.0.1", help="Address to listen on."),
    port: int = typer.Option(8000, help="Port to listen on."),
    data: str = typer.Option(None, help="Data directory (default ./data or $SHASHKI_DATA)."),
    trusted_proxies: str = typer.Option(
        None,
        help="Comma-separated addresses or networks of the reverse proxies whose X-Forwarded-For and "
        "X-Forwarded-Proto are believed (default $SHASHKI_TRUSTED_PROXIES, else none).",
    ),
    workers: int = typer.Option(
        1, min=1, max=64, help="Server processes on the one port (more than 1 needs REDIS_URL)."
    ),
) -> None:
    """Run the online server: SQLite in DATA (or DATABASE_URL), in-process events (or REDIS_URL)."""
    from shashki.server.app import run
    from shashki.server.config import SettingsError

    try:
        run(host, port, data, trusted_proxies, workers)
    except SettingsError as e:
        raise CliError(str(e)) from None


def worker(
    processes: int = typer.Option(1, min=1, max=64, help="Engine processes: jobs run at once."),
    redis_url: str = typer.Option(None, "--redis", help="Redis to take the jobs from (default $REDIS_URL)."),
    name: str = typer.Option(None, help="This worker's name in Redis (default host-pid)."),
    claim_after: float = typer.Option(
        300.0,
        help="Seconds idle after which a job held by a worker never seen in the heartbeats is taken over "
        "(a dead worker's jobs are taken within three heartbeats, 6 s; a live worker's never).",
    ),
    max_deliveries: int = typer.Option(
        3, min=1, help="Deliveries after which a job that fails every time is given up (stream jobs:dead)."
    ),
) -> None:
    """Run engine jobs (the computer's moves, analyses) for the servers sharing a Redis."""
    import asyncio
    import logging.config
    import signal

    from shashki.server.config import Settings, SettingsError
    from shashki.server.logs import logging_config
    from shashki.server.worker import Worker

    try:
        settings = Settings.from_env()
    except SettingsError as e:
        raise CliError(str(e)) from None
    url = redis_url or settings.redis_url
    if not url:
        raise CliError("a worker takes its jobs from Redis: give --redis redis://host:6379/0, or REDIS_URL")
    # The servers' logs (SHASHKI_LOG_FORMAT: plain lines or JSON objects).
    logging.config.dictConfig(logging_config(settings.log_format))

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)  # finish the jobs under way, then leave
        await Worker(
            url, processes=processes, name=name, claim_after=claim_after, max_deliveries=max_deliveries
        ).run(stop)

    asyncio.run(main())
