"""`python -m shashki.server [--host 127.0.0.1] [--port 8000] [--data DIR] [--workers N]`: `shashki serve`."""

from __future__ import annotations

import argparse

from shashki.server.app import run
from shashki.server.config import SettingsError


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="shashki serve", description="Run the Shashki server.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--data", default=None, help="data directory (default ./data, or $SHASHKI_DATA)")
    parser.add_argument(
        "--trusted-proxies",
        default=None,
        help="proxies whose X-Forwarded-* headers are believed (default $SHASHKI_TRUSTED_PROXIES)",
    )
    parser.add_argument("--workers", type=int, default=1, help="processes on the one port (needs REDIS_URL)")
    args = parser.parse_args(argv)
    try:
        run(args.host, args.port, args.data, args.trusted_proxies, args.workers)
    except SettingsError as e:
        parser.exit(2, f"shashki serve: {e}\n")


if __name__ == "__main__":
    main()
