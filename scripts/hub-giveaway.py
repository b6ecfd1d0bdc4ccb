#!/usr/bin/env python3
"""`shashki hub` for a lidraughts-bot that plays the giveaway forms: the engine is told the giveaway form
of the variant the client names.

Why: the server names a giveaway game after its base variant (`variant.name` "Russian" for
`russian-giveaway`, docs/bot-api.md), because lidraughts-bot builds its pydraughts board from that name,
and it hands the same name to its engine (`set-param name=variant value=russian`). Run this as the engine
of a bot that accepts only giveaway variants (`challenge.variants: [russian-giveaway, ...]`):

    engine:
      dir: "/path/to/shashki/scripts/"
      name: "hub-giveaway.py"
      engine_argument: "hub"        # the rest of the command line: `shashki hub`
      protocol: "hub"

Every line goes to `shashki <arguments>` (default `hub`) unchanged, but for `set-param name=variant`
naming Russian, Brazilian, English or Italian draughts, whose value becomes its `-giveaway` key; the
engine's answers come back untouched.
"""

from __future__ import annotations

import contextlib
import re
import subprocess
import sys

GIVEAWAY = {"russian", "brazilian", "english", "italian"}
VARIANT = re.compile(r'^(set-param\s+name=variant\s+value=)("?)([^"\s]*)("?)(.*)$')


def rewrite(line: str) -> str:
    """The line with a base variant named in `set-param name=variant` turned into its giveaway form.

    >>> rewrite("set-param name=variant value=russian")
    'set-param name=variant value=russian-giveaway'
    >>> rewrite('set-param name=variant value="English"')
    'set-param name=variant value="english-giveaway"'
    >>> rewrite("set-param name=variant value=normal"), rewrite("go think")
    ('set-param name=variant value=normal', 'go think')
    """
    match = VARIANT.match(line)
    if match is None or match.group(3).lower() not in GIVEAWAY:
        return line
    head, quote, value, close, rest = match.groups()
    return f"{head}{quote}{value.lower()}-giveaway{close}{rest}"


def main() -> int:
    command = [sys.executable, "-m", "shashki", *(sys.argv[1:] or ["hub"])]
    engine = subprocess.Popen(command, stdin=subprocess.PIPE, text=True, bufsize=1)
    assert engine.stdin is not None
    try:
        for line in sys.stdin:
            engine.stdin.write(rewrite(line.rstrip("\n")) + "\n")
            engine.stdin.flush()
    except (BrokenPipeError, KeyboardInterrupt):
        pass
    finally:
        with contextlib.suppress(BrokenPipeError):
            engine.stdin.close()
    return engine.wait()


if __name__ == "__main__":
    sys.exit(main())
