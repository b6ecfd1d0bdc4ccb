"""`python -m shashki.server [--host 127.0.0.1] [--port 8000] [--data DIR]`, the same as `shashki serve`."""

from __future__ import annotations

import argparse

from shashki.server.app import run


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
    args = parser.parse_args(argv)
    run(args.host, args.port, args.data, args.trusted_proxies)


if __name__ == "__main__":
    main()
