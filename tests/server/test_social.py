"""Following and blocking players, and TV, through a real server (shashki/server/social, history/tv.py).

A follower sees who they follow online and playing, and is told on their lobby socket when one starts a
game; a block refuses challenges and chat lines and hides seeks, both ways, and stays private; nobody
follows or blocks on someone else's behalf. TV shows the best-rated game in play of each variant and
keeps it until it ends.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx

from shashki.server.history.tv import best

from .helpers import eventually, first_moves
from .test_lobby import lobby_socket, receive_until

BLITZ = {"minutes": 3, "increment": 2}


def relation(player, other) -> dict:
    return player.http.get(f"/api/rel/status/{other.name}").json()


# -- rating history -------------------------------------------------------------------------------


def test_a_rated_game_that_ends_records_the_new_rating_with_its_date_for_the_graph(players):
    a, b = players(), players()
    game = a.challenge(b, rated=True, time_control=BLITZ)
    first_moves(game["id"], a, b)
    assert b.post(f"/api/games/{game['id']}/resign").status_code == 200
    history = a.http.get(f"/api/users/{a.name}/rating-history").json()["history"]
    assert [(h["variant"], h["speed"]) for h in history] == [("russian-giveaway", "blitz")]
    (point,) = history[0]["points"]
    assert point["game_id"] == game["id"] and point["rating"] > 1500
    # Dated: the moment the game ended, which the graph places the point at.
    assert abs(datetime.fromisoformat(point["at"]) - datetime.now(UTC)) < timedelta(minutes=1)
    profile = a.http.get(f"/api/users/{a.name}").json()
    (rating,) = profile["ratings"]
    assert rating["rating"] == point["rating"] and rating["games"] == 1


def test_the_games_list_filters_by_variant_result_opponent_and_rated_on_the_server(players):
    a, b, c = players(), players(), players()
    rated_win = a.challenge(b, rated=True, time_control=BLITZ)
    first_moves(rated_win["id"], a, b)
    b.post(f"/api/games/{rated_win['id']}/resign")
    casual_loss = a.challenge(c, variant="russian", time_control=BLITZ)
    first_moves(casual_loss["id"], a, c)
    a.post(f"/api/games/{casual_loss['id']}/resign")
    ids = lambda **q: [g["id"] for g in a.http.get(f"/api/users/{a.name}/games", params=q).json()["games"]]  # noqa: E731
    assert ids(result="win") == [rated_win["id"]]
    assert ids(result="loss") == [casual_loss["id"]]
    assert ids(vs=c.name) == [casual_loss["id"]]
    assert ids(variant="russian") == [casual_loss["id"]]
    assert ids(rated="true") == [rated_win["id"]]
    assert ids(rated="false", vs=b.name) == []
    assert set(ids()) == {rated_win["id"], casual_loss["id"]}
    assert a.http.get(f"/api/users/{a.name}/games", params={"vs": "nobody_by_that_name"}).status_code == 404


# -- following ------------------------------------------------------------------------------------


def test_follow_and_unfollow_change_the_followers_own_list_only(players):
    a, b, c = players(), players(), players()
    assert relation(a, b) == {"username": b.name, "following": False, "blocking": False}
    assert a.post(f"/api/rel/follow/{b.name}").status_code == 200
    assert a.post(f"/api/rel/follow/{b.name}").status_code == 200  # twice is once
    assert relation(a, b)["following"] is True
    assert [p["username"] for p in a.http.get("/api/rel/following").json()["following"]] == [b.name]
    # The list is a's: b and c follow nobody.
    assert b.http.get("/api/rel/following").json()["following"] == []
    assert c.http.get("/api/rel/following").json()["following"] == []
    assert a.post(f"/api/rel/unfollow/{b.name}").status_code == 200
    assert a.http.get("/api/rel/following").json()["following"] == []
    assert a.post(f"/api/rel/follow/{a.name}").json()["error"]["code"] == "self_relation"
    assert a.post("/api/rel/follow/no_such_player_here").status_code == 404


def test_the_following_list_shows_who_is_online_and_their_game_in_play(players, server):
    a, b, c = players(), players(), players()
    a.post(f"/api/rel/follow/{b.name}")
    a.post(f"/api/rel/follow/{c.name}")
    (listed_b, listed_c) = a.http.get("/api/rel/following").json()["following"]
    assert (listed_b["online"], listed_b["playing"]) == (False, [])
    ws = lobby_socket(server, c)  # c is on the site
    receive_until(ws, lambda m: m["type"] == "seeks")
    # A game by correspondence is listed, but says nothing of being on the site now (an audit: a player
    # away for days showed online); a game with a clock does.
    corr = b.challenge(players(), days=3)
    following = {p["username"]: p for p in a.http.get("/api/rel/following").json()["following"]}
    assert following[b.name]["playing"] == [corr["id"]] and following[b.name]["online"] is False
    game = b.challenge(players(), time_control={"minutes": 5, "increment": 0})
    following = {p["username"]: p for p in a.http.get("/api/rel/following").json()["following"]}
    assert following[b.name]["playing"] == [game["id"], corr["id"]] and following[b.name]["online"] is True
    assert following[c.name]["online"] is True and following[c.name]["playing"] == []
    ws.close()
    gone = eventually(
        lambda: {p["username"]: p for p in a.http.get("/api/rel/following").json()["following"]},
        lambda f: f[c.name]["online"] is False,
    )
    assert gone[c.name]["online"] is False


def test_a_follower_is_told_on_the_lobby_socket_when_a_followed_player_starts_a_game(players, server):
    a, b, d = players(), players(), players()
    a.post(f"/api/rel/follow/{b.name}")
    ws = lobby_socket(server, a)
    receive_until(ws, lambda m: m["type"] == "seeks")
    game = b.challenge(d)
    told = receive_until(ws, lambda m: m["type"] == "followingStarted")
    assert told["user"]["username"] == b.name and told["game"]["id"] == game["id"]
    assert {told["game"]["white"], told["game"]["black"]} == {b.name, d.name}
    ws.close()


def test_nobody_follows_or_blocks_on_someone_elses_behalf(players, server):
    a, b, c = players(), players(), players()
    # A name in the body changes nothing: the follower is the session's own account.
    posing = {"follower": c.name, "user": c.name}
    assert a.http.post(f"/api/rel/follow/{b.name}", json=posing).status_code == 200
    assert c.http.get("/api/rel/following").json()["following"] == []
    anonymous = httpx.post(f"{server.url}/api/rel/follow/{b.name}")
    assert anonymous.status_code == 401
    narrow = httpx.post(
        f"{server.url}/api/rel/block/{b.name}", headers={"Authorization": f"Bearer {c.token('read')}"}
    )
    assert narrow.status_code == 403
    assert c.http.get("/api/rel/blocking").json()["blocking"] == []
    # Without the session's CSRF token a browser's cookie alone acts for nobody.
    forged = httpx.post(
        f"{server.url}/api/rel/block/{b.name}", cookies={"shashki_session": c.http.cookies["shashki_session"]}
    )
    assert forged.status_code == 403 and relation(c, b)["blocking"] is False
    assert httpx.get(f"{server.url}/api/rel/following").status_code == 401


# -- blocking -------------------------------------------------------------------------------------


def test_a_blocked_player_cannot_challenge_the_blocker_nor_the_blocker_them(players):
    a, b, c = players(), players(), players()
    assert b.post(f"/api/rel/block/{a.name}").status_code == 200
    r = a.post("/api/challenges", {"username": b.name})
    assert r.status_code == 403 and r.json()["error"]["code"] == "challenge_refused"
    assert b.name in r.json()["error"]["message"] and "block" not in r.json()["error"]["message"].lower()
    r = b.post("/api/challenges", {"username": a.name})
    assert r.status_code == 403 and "unblock" in r.json()["error"]["message"]
    assert b.http.get("/api/challenges").json()["in"] == []
    # The Bot and Board API's challenge goes through the same lobby.
    r = a.http.post(f"/api/challenge/{b.name}", data={"clock.limit": "300"})
    assert r.status_code == 403
    assert a.post("/api/challenges", {"username": c.name}).status_code == 201  # others are not affected
    b.post(f"/api/rel/unblock/{a.name}")
    assert a.post("/api/challenges", {"username": b.name}).status_code == 201


def test_a_block_settles_the_challenges_pending_between_the_two(players):
    """Found by an audit: the blocked player's challenge stayed in the blocker's list, counted by the bell
    and refused when accepted; the blocker's own to them stayed pending too."""
    a, b, c = players(), players(), players()
    to_a = b.post("/api/challenges", {"username": a.name}).json()["challenge"]["id"]
    to_b = a.post("/api/challenges", {"username": b.name}).json()["challenge"]["id"]
    to_c = a.post("/api/challenges", {"username": c.name}).json()["challenge"]["id"]
    assert a.post(f"/api/rel/block/{b.name}").status_code == 200
    mine = a.http.get("/api/challenges").json()
    assert [x["id"] for x in mine["in"]] == [] and [x["id"] for x in mine["out"]] == [to_c]
    assert {to_a, to_b} & {x["id"] for x in b.http.get("/api/challenges").json()["out"]} == set()


def test_a_block_is_private_and_ends_following_both_ways(players):
    a, b = players(), players()
    a.post(f"/api/rel/follow/{b.name}")
    b.post(f"/api/rel/follow/{a.name}")
    b.post(f"/api/rel/block/{a.name}")
    assert relation(b, a) == {"username": a.name, "following": False, "blocking": True}
    assert relation(a, b) == {"username": b.name, "following": False, "blocking": False}  # a is not told
    assert [p["username"] for p in b.http.get("/api/rel/blocking").json()["blocking"]] == [a.name]
    assert a.http.get("/api/rel/blocking").json()["blocking"] == []
    assert "block" not in a.http.get(f"/api/users/{b.name}").text.lower()
    assert a.post(f"/api/rel/follow/{b.name}").status_code == 403


def test_a_blocked_player_cannot_write_in_the_players_chat_and_is_not_read_by_the_blocker(players):
    a, b, spectator = players(), players(), players()
    game = a.challenge(b)["id"]
    b.post(f"/api/rel/block/{a.name}")
    r = a.post(f"/api/games/{game}/chat", {"text": "hello", "room": "player"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "chat_refused"
    assert b.post(f"/api/games/{game}/chat", {"text": "bye", "room": "player"}).status_code == 201
    assert a.post(f"/api/games/{game}/abort").status_code == 200  # the players write to spectators after
    assert a.post(f"/api/games/{game}/chat", {"text": "to all", "room": "spectator"}).status_code == 201
    seen_by = lambda p: [line["text"] for line in p.http.get(f"/api/games/{game}/chat").json()["lines"]]  # noqa: E731
    assert seen_by(b) == ["bye"]  # the blocked player's spectator line is not shown to the blocker
    assert seen_by(spectator) == ["to all"]
    assert seen_by(a) == ["bye", "to all"]


def test_the_seeks_of_a_blocked_player_are_hidden_and_never_paired(players, server):
    a, b, c = players(), players(), players()
    b.post(f"/api/rel/block/{a.name}")
    terms = {"time_control": {"minutes": 177, "increment": 171}, "variant": "pool"}
    seek = a.post("/api/seeks", terms).json()["seek"]
    listed = lambda p: [s["id"] for s in p.http.get("/api/seeks").json()["seeks"]]  # noqa: E731
    assert seek["id"] in listed(c) and seek["id"] not in listed(b)
    ws = lobby_socket(server, b)
    first = receive_until(ws, lambda m: m["type"] == "seeks")
    assert all(s["id"] != seek["id"] for s in first["seeks"])
    assert b.post(f"/api/seeks/{seek['id']}/accept").status_code == 404
    mine = b.post("/api/seeks", terms).json()
    assert mine["game"] is None and mine["seek"] is not None  # not paired with a's identical seek
    # b's own socket still lists b's seek, never a's.
    mine_listed = lambda m: m["type"] == "seeks" and any(s["id"] == mine["seek"]["id"] for s in m["seeks"])  # noqa: E731
    update = receive_until(ws, mine_listed)
    assert all(s["id"] != seek["id"] for s in update["seeks"])
    ws.close()
    assert mine["seek"]["id"] not in listed(a) and mine["seek"]["id"] in listed(c)  # hidden both ways
    game = c.post(f"/api/seeks/{seek['id']}/accept").json()["game"]  # others still may take it
    assert {game["white"]["username"], game["black"]["username"]} == {a.name, c.name}
    assert b.http.delete(f"/api/seeks/{mine['seek']['id']}").status_code == 200


# -- TV -------------------------------------------------------------------------------------------


def test_tv_chooses_the_best_rated_game_and_keeps_the_current_one_while_it_lasts():
    games = [
        {"id": "a", "rating": 1500, "ply": 10},
        {"id": "b", "rating": 1700, "ply": 2},
        {"id": "c", "rating": 1700, "ply": 8},
    ]
    assert best(games)["id"] == "c"  # the best rating, then the game further under way
    assert best(games, current="a")["id"] == "a"  # kept while in play
    assert best(games, current="gone")["id"] == "c"  # ended: the best one
    assert best([]) is None


def test_tv_shows_only_games_being_played_now():
    """lichess's channels keep a game only while it is played: a clock, and a move lately enough for
    its speed (found by an audit: an abandoned game without a clock stayed on TV for good)."""
    from datetime import UTC, datetime, timedelta

    from shashki.server.history.tv import FRESH_SECONDS, fresh

    now = datetime.now(UTC)
    clocks = {"initial_ms": 180_000, "increment_ms": 2000}
    for speed, seconds in FRESH_SECONDS.items():
        moved_at = (now - timedelta(seconds=seconds - 1)).isoformat()
        game = {"speed": speed, "clocks": clocks, "moved_at": moved_at}
        assert fresh(game, now)
        game["moved_at"] = (now - timedelta(seconds=seconds + 1)).isoformat()
        assert not fresh(game, now)
    untimed = {"speed": "correspondence", "clocks": None, "moved_at": now.isoformat()}
    assert not fresh(untimed, now)


def test_tv_reads_only_games_with_a_clock_so_untimed_ones_never_crowd_them_out():
    """Found by a recheck: with the hundred latest games in play all untimed, TV read those, dropped
    them as not fresh, and showed nothing beside a fresh timed game."""
    import asyncio
    from datetime import UTC, datetime

    from shashki.server.history.tv import POOL, rated_games

    asked = {}

    class History:
        async def now_playing(self, *, variant, limit, clocked=False):
            asked.update(limit=limit, clocked=clocked)
            moved_at = datetime.now(UTC).isoformat()
            clocks = {"initial_ms": 180_000, "increment_ms": 2000}
            game = {"id": "g", "variant": "russian", "speed": "blitz", "clocks": clocks}
            return [game | {"moved_at": moved_at, "white": {"id": None}, "black": {"id": None}}]

    class Ratings:
        async def for_players(self, ids, variant, speed):
            return {}

    games = asyncio.run(rated_games(History(), Ratings(), "russian"))  # type: ignore[arg-type]
    assert asked == {"limit": POOL, "clocked": True} and [g["id"] for g in games] == ["g"]


def test_tv_shows_the_best_rated_game_in_play_of_each_variant(players, server):
    variant = "pool-giveaway"  # a variant no other test plays on this server
    strong, weak, fresh1, fresh2 = players(), players(), players(), players()
    for _ in range(2):  # strong beats weak twice: their ratings part
        g = strong.challenge(weak, rated=True, time_control=BLITZ, variant=variant)
        first_moves(g["id"], strong, weak)
        weak.post(f"/api/games/{g['id']}/resign")
    low = weak.challenge(fresh2, rated=True, time_control=BLITZ, variant=variant)
    high = strong.challenge(fresh1, rated=True, time_control=BLITZ, variant=variant)
    channel = httpx.get(f"{server.url}/api/tv/{variant}").json()
    assert channel["variant"] == variant and channel["game"]["id"] == high["id"]
    # Kept while in play, even beside a better one; once it ends the next best is shown.
    kept = httpx.get(f"{server.url}/api/tv/{variant}", params={"current": low["id"]}).json()["game"]
    assert kept["id"] == low["id"] and kept["rating"] < channel["game"]["rating"]
    strong.post(f"/api/games/{high['id']}/resign")
    after = httpx.get(f"{server.url}/api/tv/{variant}", params={"current": high["id"]}).json()
    assert after["game"]["id"] == low["id"]
    channels = {c["variant"]: c["game"]["id"] for c in httpx.get(f"{server.url}/api/tv").json()["channels"]}
    assert channels[variant] == low["id"]
    weak.post(f"/api/games/{low['id']}/resign")
    assert httpx.get(f"{server.url}/api/tv/{variant}").json()["game"] is None
    # A game without a clock is no show (played at leisure, perhaps abandoned) unless it is the one shown.
    untimed = strong.challenge(weak, variant=variant)
    assert httpx.get(f"{server.url}/api/tv/{variant}").json()["game"] is None
    kept = httpx.get(f"{server.url}/api/tv/{variant}", params={"current": untimed["id"]}).json()["game"]
    assert kept["id"] == untimed["id"]
    assert httpx.get(f"{server.url}/api/tv/{variant}", params={"current": "nosuchgm"}).json()["game"] is None


def test_a_blocked_player_cannot_offer_the_blocker_a_rematch(players):
    a, b = players(), players()
    game = a.challenge(b)["id"]
    a.post(f"/api/games/{game}/resign")
    b.post(f"/api/rel/block/{a.name}")
    r = a.post(f"/api/games/{game}/rematch")
    assert r.status_code == 403 and r.json()["error"]["code"] == "challenge_refused"
    # Nor the blocker the blocked player, as with a challenge: unblocking comes first.
    r = b.post(f"/api/games/{game}/rematch")
    assert r.status_code == 403 and "unblock" in r.json()["error"]["message"]


def test_an_offer_made_before_a_block_is_not_taken_across_it(players):
    """A challenge, a rematch offer and a challenge's link made before the block, or to anyone: none
    starts a game between the two once either blocks the other (found by an audit)."""
    a, b = players(), players()
    to_b = a.post("/api/challenges", {"username": b.name}).json()["challenge"]["id"]
    to_a = b.post("/api/challenges", {"username": a.name}).json()["challenge"]["id"]
    finished = a.challenge(b)["id"]
    a.post(f"/api/games/{finished}/resign")
    assert b.post(f"/api/games/{finished}/rematch").status_code == 200  # offered before the block
    link = b.post("/api/challenges/open", {}).json()["challenge"]["link"]
    b.post(f"/api/rel/block/{a.name}")
    # The challenges between them were settled by the block itself (declined, cancelled).
    for settled in (b.post(f"/api/challenges/{to_b}/accept"), a.post(f"/api/challenges/{to_a}/accept")):
        assert settled.status_code in (404, 409), settled.text
    for refused in (
        a.post(f"/api/games/{finished}/rematch"),  # accepting the standing offer
        a.post(f"/api/challenges/open/{link}/accept"),
    ):
        assert refused.status_code == 403, refused.text
        assert refused.json()["error"]["code"] == "challenge_refused"
    assert a.http.get("/api/account/playing").json()["nowPlaying"] == []
