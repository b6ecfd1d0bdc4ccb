"""Games: moves, clocks, draw offers, resignation, abort, time-outs, the computer opponent, rematches.

Split by job, imports running one way (each module imports only those above it):

- `models`: the games' tables, `GameStatus`, and the one mapping of a rules `Outcome` to its columns;
- `terms`: `GameTerms`, what a game is played on (variant, option, clock, rated, start position);
- `replay`: the one way a stored game is rebuilt through the rules;
- `clock`, `presence`, `live` (a game in memory), `view` (its state as clients read it);
- `cache`: the games in play kept in memory, loaded, followed, refreshed, let go;
- `store`: over the cache, compare-and-set commit, publish, after-change listeners;
- `actions`: move, draws, resign, abort, claim victory, and the finisher;
- `computer` (the opponents) and `listeners` (flag timer, computer turns);
- `queries`: the read side of the tables for the other domains (counts, lists, moves, now playing);
- `service`: `GameService`, the façade the other domains and the HTTP layer call; `rematch` on top.
"""
