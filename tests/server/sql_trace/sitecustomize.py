"""Loaded by a server process started with this folder on PYTHONPATH (tests/server/test_reads_stay_flat.py):
every SQLite connection it opens, the stdlib driver's (the direct path) and aiosqlite's (sessions) alike,
writes each statement it runs, as run (values inlined), to the file named by SHASHKI_TEST_SQL_TRACE, once
per text. Test support only: nothing of this is in the package."""

from __future__ import annotations

import os
import sqlite3
import threading

_PATH = os.environ.get("SHASHKI_TEST_SQL_TRACE")

if _PATH:
    _connect = sqlite3.connect
    _seen: set[str] = set()
    _lock = threading.Lock()

    def _trace(text: str) -> None:
        line = " ".join(text.split())
        with _lock:
            if line in _seen:
                return
            _seen.add(line)
            with open(_PATH, "a", encoding="utf-8") as out:
                out.write(line + "\n")

    def _traced_connect(*args, **kwargs):
        connection = _connect(*args, **kwargs)
        connection.set_trace_callback(_trace)
        return connection

    sqlite3.connect = _traced_connect
