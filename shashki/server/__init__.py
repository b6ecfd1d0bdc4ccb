"""The online service: accounts, lobby, games and clocks, storage, events, HTTP + WebSocket.

Organised by domain (see ARCHITECTURE.md): `accounts`, `lobby`, `games` (with `games.rematch`), `ratings`
(Glicko-2), `history` (profiles, game lists, PDN/JSON exports), `chat` and `bots` (the lidraughts-style Bot
and Board APIs, whose conventions are in `lidraughts`) are services that know nothing of HTTP. Each domain
owns its tables (`<domain>/models.py`, gathered in `schema`) and asks the others through their public
methods; `storage` owns the database, the declarative base and the migrations; `events` carries what
happened to whoever listens; `http` is the FastAPI layer on top of them. `app.run(host, port, data)` serves
it all.
"""
