"""The computer player: search, evaluation, levels, analysis, and the Hub protocol front end.

- `search`: iterative deepening PVS with a transposition table, move ordering, capture extensions,
  limits (`Limit`: depth, nodes, time, or a game clock through `timeman.time_for_move`); its inner
  loop, `alphabeta`, is compiled with mypyc (setup.py) together with the evaluation.
- `evaluation`: one evaluation for giveaway and one for ordinary draughts, weights as dataclasses
  (weights fitted per variant family by benchmarks/tune_evaluation.py, shipped in
  <family>_weights.json; a family without a file plays with the hand-set ones).
- `tablebase`: endgame tables of Russian giveaway (4 pieces shipped, 5 built) and Russian (4 pieces
  shipped, 5 built), probed by the search (`tbfile`: the built tables' block-compressed file);
  `counts`: Russian's count rules along the search path, within which the Russian tables are believed.
- `levels`: levels 1-8 for people; `engine`: `Engine`, `play`, `analyse`.
- `pool`: `AsyncEngine`, the engine in a process pool for the server's event loop.
- `hub`: the Hub protocol (`python -m shashki.engine.hub`; its search in `hub_search`); `dxp`: DamExchange
  (its messages in `dxp_messages`); `cli`: the `play`, `analyse`, `hub`, `tablebase build` and
  `tablebase compress` commands.

>>> from shashki.rules import Position, get_variant
>>> pos = Position.start(get_variant("russian"))
>>> result = play(pos, Limit(depth=2))
>>> result.move in pos.legal_moves(), result.depth
(True, 2)
"""

from shashki.engine.engine import Engine, PlayResult, analyse, play
from shashki.engine.levels import LEVEL_SETTINGS, LEVELS, Level, level_setting
from shashki.engine.search import WIN, Limit, Line, Searcher
from shashki.engine.timeman import time_for_move

__all__ = [
    "LEVELS",
    "LEVEL_SETTINGS",
    "WIN",
    "AsyncEngine",
    "Engine",
    "Level",
    "Limit",
    "Line",
    "PlayResult",
    "Searcher",
    "analyse",
    "level_setting",
    "play",
    "time_for_move",
]


def __getattr__(name: str):
    if name == "AsyncEngine":  # imports concurrent.futures and asyncio only when used
        from shashki.engine.pool import AsyncEngine

        return AsyncEngine
    raise AttributeError(name)
