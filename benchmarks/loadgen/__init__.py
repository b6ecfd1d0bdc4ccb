"""The parts of `benchmarks/load.py`, the load benchmark of issue 11 (the script is the entry point):

- `servers`: the processes under test (Shashki or the baseline on a free loopback port), PostgreSQL set-up;
- `baseline`: the bare FastAPI + SQLite app a durable game server is compared with;
- `players`: one scripted player (`Seat`) and the figures the players collect (`Stats`);
- `driver`: `LoadRun`, the players of one load generator process, in phases (accounts, first games,
  the measured window);
- `clients`: the load generator's processes, started and driven in step by the script (`Clients`);
- `report`: the live status line, the table of results and the goals of the issue.
"""
