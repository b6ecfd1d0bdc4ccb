"""Tournaments (issue 13): arenas, Swiss events and round robins.

The pairing and scoring rules are pure functions over plain dataclasses with no I/O, tested on their own;
around them, the server side: `models` (the tables), `state` (a tournament's rows read once and handed to
the rules), `terms` (what a creation request may ask), `service` (create, join, withdraw, pause, the
reads; `berserk` its arena berserk), `director` and `lease` (one director per tournament across
processes), `pairings` (what the director's pairings write), `results` (the games store's listener),
`schedule` (the tournaments the server creates), `live` (what is published), `views` (the JSON shapes).
The rules:

- `arena`: `arena_sheet`, `arena_standings` (scores with streaks, berserk and the lichess draw rules);
- `arena_pairing`: `pair_wave` (who plays whom among the players waiting), `rejoin_delay` (after a pause);
- `swiss`: `pair_round` (the FIDE Dutch priorities as a maximum-weight matching), `can_late_join`,
  `late_join_bye`; `swiss_colors`: what the rounds before say about each player, and the colour rules;
- `roundrobin`: `berger_table`, `round_robin_rounds` (FIDE's Berger tables, single or double);
- `standings`: `swiss_standings` (Buchholz, Buchholz cut 1, Sonneborn-Berger, wins, direct encounter) and
  `round_robin_standings`.
"""

from shashki.server.tournaments.arena import (
    ArenaGame,
    ArenaPlayer,
    ArenaRules,
    ArenaStanding,
    Sheet,
    arena_sheet,
    arena_standings,
)
from shashki.server.tournaments.arena_pairing import Waiting, pair_wave, rejoin_delay
from shashki.server.tournaments.roundrobin import RoundRobinRound, berger_table, round_robin_rounds
from shashki.server.tournaments.standings import Standing, round_robin_standings, swiss_standings
from shashki.server.tournaments.swiss import (
    Bye,
    ByeKind,
    SwissGame,
    SwissPlayer,
    SwissRound,
    can_late_join,
    late_join_bye,
    pair_round,
)

__all__ = [
    "ArenaGame",
    "ArenaPlayer",
    "ArenaRules",
    "ArenaStanding",
    "Bye",
    "ByeKind",
    "RoundRobinRound",
    "Sheet",
    "Standing",
    "SwissGame",
    "SwissPlayer",
    "SwissRound",
    "Waiting",
    "arena_sheet",
    "arena_standings",
    "berger_table",
    "can_late_join",
    "late_join_bye",
    "pair_round",
    "pair_wave",
    "rejoin_delay",
    "round_robin_rounds",
    "round_robin_standings",
    "swiss_standings",
]
