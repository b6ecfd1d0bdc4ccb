"""Build: the hot paths are compiled with mypyc when they can be.

The move generator (shashki/rules/position.py, with moves.py and captures.py), the search's inner loop
(shashki/engine/alphabeta.py), its move order (moveorder.py) and transposition table (transposition.py),
Russian's count rules in it
(counts.py), the evaluation (shashki/engine/evaluation.py) and the endgame tables' builder and probe
(shashki/engine/tbmoves.py, tbbuild.py, tbprobe.py) are ordinary typed Python
and run as they are; compiled together (one extension, so that they call each other natively), the same
source is several times faster. Set SHASHKI_PURE_PYTHON=1 to skip the
compilation (a machine without a C compiler skips it too).
"""

import os
import sys

from setuptools import setup

COMPILED = [
    "shashki/rules/moves.py",
    "shashki/rules/captures.py",
    "shashki/rules/position.py",
    "shashki/engine/evaluation.py",
    "shashki/engine/patterns.py",
    "shashki/engine/transposition.py",
    "shashki/engine/moveorder.py",
    "shashki/engine/alphabeta.py",
    "shashki/engine/counts.py",
    "shashki/engine/tbmoves.py",
    "shashki/engine/tbbuild.py",
    "shashki/engine/tbprobe.py",
]

ext_modules = []
if os.environ.get("SHASHKI_PURE_PYTHON") != "1":
    try:
        from mypyc.build import mypycify

        options = ["--follow-imports=silent", "--ignore-missing-imports"]
        ext_modules = mypycify([*options, *COMPILED], opt_level="3")
        for ext in ext_modules:
            ext.optional = True  # a failed compilation falls back to the pure-Python module
    except Exception as exc:  # no mypyc, no compiler: the pure-Python module is used
        print(f"shashki: not compiling the hot paths ({exc}); using pure Python", file=sys.stderr)

setup(ext_modules=ext_modules)
