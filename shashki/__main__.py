"""`python -m shashki`: the same as the `shashki` command."""

from shashki.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
