"""Correspondence games (days per move) and the notifications inside the site, on the services without a
server, with a fake clock: days pass by setting the clock forward, never by waiting.

lichess's correspondence rules: each move has the whole of its days again; a player whose days run out
loses on time (a game nobody has started is aborted instead); a restart moves no deadline.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from shashki.rules import Color
from shashki.server.accounts.models import User
from shashki.server.errors import Conflict, Invalid, NotFound
from shashki.server.games import actions, listeners, service, store
from shashki.server.games.computer import RandomOpponent
from shashki.server.games.models import GameStatus
from shashki.server.games.service import GameService
from shashki.server.games.terms import GameTerms
from shashki.server.lobby import LobbyService
from shashki.server.notifications import NotificationService
from shashki.server.notifications import service as notifications_service
from shashki.server.ratings import RatingService
from shashki.server.redisbus import make_bus
from shashki.server.storage import Database

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
ANNA, BORIS, CLARA = 1, 2, 3


class FakeClock:
    """Now, as the games see it: set forward by the tests."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock(monkeypatch) -> FakeClock:
    fake = FakeClock()
    for module in (actions, listeners, service, store, notifications_service):
        monkeypatch.setattr(module, "utcnow", fake)
    return fake


class World:
    def __init__(self, db: Database) -> None:
        self.db = db
        self.bus = make_bus(None)
        self.games = GameService(db, self.bus, engine=RandomOpponent(seed=1), computer_delay_seconds=0)
        self.notifications = NotificationService(db, self.bus)
        self.games.store.add_listener(self.notifications.game_changed)
        self.ratings = RatingService(db, self.games.accounts)
        self.games.end_hooks.append(self.ratings.end_hook)
        self.lobby = LobbyService(db, self.bus, self.games)
        self.lobby.challenge_hooks.append(self.notifications.challenged)

    async def close(self) -> None:
        await self.notifications.settled()
        await self.games.close()


async def open_db(tmp_path) -> Database:
    db = await Database(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}").open()
    async with db.session() as s:
        if await s.get(User, ANNA) is None:
            for user_id, name in ((ANNA, "Anna"), (BORIS, "Boris"), (CLARA, "Clara")):
                s.add(
                    User(
                        id=user_id, username=name, username_key=name.lower(), password_hash="-", created_at=T0
                    )
                )
            await s.commit()
    return db


def run(tmp_path, scenario):
    async def main():
        db = await open_db(tmp_path)
        world = World(db)
        try:
            return await scenario(world)
        finally:
            await world.close()
            await db.close()

    return asyncio.run(main())


def corr(days: int = 3, **more) -> GameTerms:
    return GameTerms(days_per_move=days, **more)


def test_terms_take_only_the_usual_days_and_never_a_clock_with_them():
    assert GameTerms(days_per_move=14).checked().is_correspondence
    with pytest.raises(Invalid) as e:
        GameTerms(days_per_move=4).checked()
    assert e.value.code == "bad_days"
    with pytest.raises(Invalid) as e:
        GameTerms(days_per_move=1, clock_initial_ms=60_000).checked()
    assert e.value.code == "bad_time_control"


def test_each_move_gets_the_whole_of_its_days_again(tmp_path, clock):
    async def scenario(w: World):
        live = await w.games.create(white_id=ANNA, black_id=BORIS, terms=corr(3))
        first = w.games.state(live)["correspondence"]
        clock.advance(days=2, hours=23)
        await w.games.move(ANNA, live.id, "c3-d4")
        after_white = w.games.state(live)["correspondence"]
        clock.advance(days=1)
        await w.games.move(BORIS, live.id, "f6-g5")
        return first, after_white, (await w.games.record(live.id)).move_deadline_at

    first, after_white, stored = run(tmp_path, scenario)
    assert first == {
        "days_per_move": 3,
        "deadline": (T0 + timedelta(days=3)).isoformat(),
        "remaining_ms": 3 * 86_400_000,
    }
    moved_at = T0 + timedelta(days=2, hours=23)
    assert after_white["deadline"] == (moved_at + timedelta(days=3)).isoformat()
    assert after_white["remaining_ms"] == 3 * 86_400_000
    assert stored == moved_at + timedelta(days=4)  # Boris's move a day later: three days from then


def test_a_player_whose_days_run_out_loses_on_time(tmp_path, clock):
    async def scenario(w: World):
        live = await w.games.create(white_id=ANNA, black_id=BORIS, terms=corr(1))
        await w.games.move(ANNA, live.id, "c3-d4")
        await w.games.move(BORIS, live.id, "f6-g5")
        clock.advance(hours=23, minutes=59)
        before = await w.games.get_state(live.id)
        clock.advance(minutes=2)
        with pytest.raises(Conflict):  # too late: the move is refused, the game is over on time
            await w.games.move(ANNA, live.id, "g3-h4")
        return before, await w.games.get_state(live.id)

    before, after = run(tmp_path, scenario)
    assert before["status"] == "started" and before["correspondence"]["remaining_ms"] == 60_000
    assert (after["status"], after["winner"], after["reason"]) == ("finished", "black", "time")


def test_a_game_whose_first_move_never_comes_is_aborted_not_lost(tmp_path, clock):
    async def scenario(w: World):
        live = await w.games.create(white_id=ANNA, black_id=BORIS, terms=corr(2))
        clock.advance(days=2, seconds=1)
        return await w.games.get_state(live.id)

    state = run(tmp_path, scenario)
    assert state["status"] == "aborted" and state["winner"] is None


def test_the_flag_timer_holds_no_timer_for_a_deadline_days_away_and_its_sweep_ends_a_due_game(
    tmp_path, clock
):
    async def scenario(w: World):
        live = await w.games.create(white_id=ANNA, black_id=BORIS, terms=corr(7))
        await w.games.move(ANNA, live.id, "c3-d4")
        await w.games.move(BORIS, live.id, "f6-g5")
        held_days_away = w.games.flags.armed
        due_far = await w.games.flags.sweep()
        clock.advance(days=7, seconds=1)  # the deadline has passed (the server was away, say)
        due_now = await w.games.flags.sweep()  # armed at once, fired on the next turns of the loop
        for _ in range(50):
            await asyncio.sleep(0.01)
            if (await w.games.record(live.id)).status is not GameStatus.STARTED:
                break
        return held_days_away, due_far, due_now, await w.games.record(live.id)

    held, due_far, due_now, record = run(tmp_path, scenario)
    assert held == 0 and due_far == 0 and due_now == 1
    assert record.status is GameStatus.FINISHED and record.winner is Color.BLACK and record.reason == "time"


def test_a_restart_keeps_the_game_and_its_deadline(tmp_path, clock):
    async def first_life(w: World):
        live = await w.games.create(white_id=ANNA, black_id=BORIS, terms=corr(5))
        await w.games.move(ANNA, live.id, "c3-d4")
        return live.id, await w.games.record(live.id)

    async def second_life(w: World):
        clock.advance(days=1)  # the server was down a day: that day still counts (a date, not a clock)
        assert await w.games.resume() == 1
        return await w.games.get_state(game_id), await w.games.record(game_id)

    game_id, before = run(tmp_path, first_life)
    state, after = run(tmp_path, second_life)
    assert state["moves"] == ["c3-d4"] and state["status"] == "started"
    assert after.move_deadline_at == before.move_deadline_at == T0 + timedelta(days=5)
    assert after.version == before.version  # nothing was rewritten by the restart
    assert state["correspondence"]["remaining_ms"] == 4 * 86_400_000


def test_the_your_turn_list_puts_the_least_time_left_first(tmp_path, clock):
    async def scenario(w: World):
        untimed = await w.games.create(white_id=ANNA, black_id=BORIS)
        week = await w.games.create(white_id=ANNA, black_id=CLARA, terms=corr(7))
        day = await w.games.create(white_id=ANNA, black_id=BORIS, terms=corr(1))
        blitz = await w.games.create(white_id=ANNA, black_id=CLARA, terms=GameTerms(clock_initial_ms=300_000))
        theirs = await w.games.create(white_id=BORIS, black_id=ANNA, terms=corr(1))  # Boris to move
        clock.advance(hours=1)
        mine = await w.games.your_turn(ANNA)
        return [untimed.id, week.id, day.id, blitz.id, theirs.id], mine

    ids, mine = run(tmp_path, scenario)
    untimed, week, day, blitz, theirs = ids
    # The blitz clock does not run before the first moves: it has no limit yet, like the untimed game.
    assert [g["id"] for g in mine[:2]] == [day, week]
    assert {g["id"] for g in mine[2:]} == {untimed, blitz} and theirs not in [g["id"] for g in mine]
    assert mine[0]["remaining_ms"] == 23 * 3_600_000 and mine[0]["opponent"]["username"] == "Boris"


def test_notifications_tell_the_turn_the_end_and_the_challenge_and_are_read_only_by_their_owner(
    tmp_path, clock
):
    async def scenario(w: World):
        live = await w.games.create(white_id=ANNA, black_id=BORIS, terms=corr(3))
        await w.notifications.settled()
        await w.games.move(ANNA, live.id, "c3-d4")
        await w.notifications.settled()
        boris_after_move = await w.notifications.list(BORIS)
        anna_after_move = await w.notifications.list(ANNA)
        await w.games.move(BORIS, live.id, "f6-g5")
        await w.games.move(ANNA, live.id, "b2-c3")  # each side has moved: a resignation is a result
        await w.games.resign(BORIS, live.id)
        await w.notifications.settled()
        anna_user = await w.games.accounts.user_by_name("Anna")
        await w.lobby.challenge(anna_user, "Clara", days_per_move=7)
        clara = await w.notifications.list(CLARA)
        with pytest.raises(NotFound):
            await w.notifications.mark_read(ANNA, clara["notifications"][0]["id"])  # not hers
        still_unread = await w.notifications.unread(CLARA)
        marked = await w.notifications.mark_read(CLARA, clara["notifications"][0]["id"])
        return (
            boris_after_move,
            anna_after_move,
            await w.notifications.list(ANNA),
            clara,
            still_unread,
            marked,
        )

    boris, anna_mid, anna_end, clara, still_unread, marked = run(tmp_path, scenario)
    assert boris["unread"] == 1 and boris["notifications"][0]["kind"] == "yourTurn"
    assert boris["notifications"][0]["data"]["opponent"] == "Anna"
    # Anna's "your turn" of ply 0 is read once she has moved.
    assert anna_mid["unread"] == 0 and [n["kind"] for n in anna_mid["notifications"]] == ["yourTurn"]
    end = anna_end["notifications"][0]
    assert (
        end["kind"] == "gameEnd"
        and end["data"]["winner"] == "white"
        and end["data"]["reason"] == "resignation"
    )
    assert clara["unread"] == 1 and clara["notifications"][0]["kind"] == "challenge"
    assert clara["notifications"][0]["data"] == {
        "challenge": clara["notifications"][0]["data"]["challenge"],
        "opponent": "Anna",
        "variant": "russian-giveaway",
        "time_control": None,
        "days": 7,
    }
    assert still_unread == 1 and marked == 1


def test_the_same_news_told_again_is_stored_once(tmp_path, clock):
    async def scenario(w: World):
        live = await w.games.create(white_id=ANNA, black_id=BORIS, terms=corr(3))
        w.notifications.game_changed(live)  # told again, as a restart's resume does
        w.notifications.game_changed(live)
        await w.notifications.settled()
        return await w.notifications.list(ANNA)

    assert run(tmp_path, scenario)["unread"] == 1


def test_an_absent_correspondence_opponent_cannot_be_claimed_against(tmp_path, clock):
    async def scenario(w: World):
        live = await w.games.create(white_id=ANNA, black_id=BORIS, terms=corr(3))
        await w.games.move(ANNA, live.id, "c3-d4")
        clock.advance(hours=5)
        with pytest.raises(Conflict) as e:
            await w.games.claim_victory(ANNA, live.id)
        return e.value.code

    assert run(tmp_path, scenario) == "cannot_claim"


def test_a_rated_correspondence_game_moves_the_correspondence_ratings(tmp_path, clock):
    async def scenario(w: World):
        live = await w.games.create(white_id=ANNA, black_id=BORIS, terms=corr(2, rated=True))
        await w.games.move(ANNA, live.id, "c3-d4")
        await w.games.move(BORIS, live.id, "f6-g5")
        await w.games.resign(BORIS, live.id)
        return await w.games.record(live.id), await w.ratings.of_user(ANNA)

    record, ratings = run(tmp_path, scenario)
    assert record.rated and record.white_rating_diff is not None and record.white_rating_diff > 0
    assert [(r["speed"], r["games"]) for r in ratings] == [("correspondence", 1)]


def test_correspondence_seeks_pair_only_with_the_same_days(tmp_path, clock):
    async def scenario(w: World):
        anna = await w.games.accounts.user_by_name("Anna")
        boris = await w.games.accounts.user_by_name("Boris")
        clara = await w.games.accounts.user_by_name("Clara")
        posted = await w.lobby.create_seek(anna, days_per_move=3)
        other_days = await w.lobby.create_seek(boris, days_per_move=5)
        same_days = await w.lobby.create_seek(clara, days_per_move=3)
        return posted, other_days, same_days

    posted, other_days, same_days = run(tmp_path, scenario)
    assert posted["seek"]["days"] == 3 and posted["seek"]["time_control"] is None
    assert other_days["game"] is None
    assert same_days["game"]["correspondence"]["days_per_move"] == 3


def test_a_player_who_never_reads_is_counted_up_to_the_cap_and_listed_newest_first(tmp_path, clock):
    """A bot is told of every challenge and reads none: the count stops at UNREAD_COUNTED ("that many or
    more"), and the list still shows the newest; marking them all read counts down to nothing."""
    cap = notifications_service.UNREAD_COUNTED

    async def scenario(w: World):
        for i in range(cap + 25):
            await w.notifications.notify(CLARA, "challenge", str(i), 0, {"challenge": i})
        listed = await w.notifications.list(CLARA)
        marked = await w.notifications.mark_read(CLARA)
        return listed, marked, await w.notifications.unread(CLARA)

    listed, marked, after = run(tmp_path, scenario)
    assert listed["unread"] == cap
    subjects = [n["subject"] for n in listed["notifications"]]
    assert subjects == [str(i) for i in range(cap + 24, cap + 24 - notifications_service.LIST_LIMIT, -1)]
    assert marked == cap + 25 and after == 0


def test_every_notification_is_read_a_page_at_a_time(tmp_path, clock):
    """Found by an audit: past the newest 50, none could be read. `before` gives the next page."""
    count = notifications_service.LIST_LIMIT * 2 + 7

    async def scenario(w: World):
        for i in range(count):
            await w.notifications.notify(CLARA, "challenge", str(i), 0, {"challenge": i})
        pages = [(await w.notifications.list(CLARA))["notifications"]]
        while pages[-1]:
            pages.append((await w.notifications.list(CLARA, before=pages[-1][-1]["id"]))["notifications"])
        return pages

    pages = run(tmp_path, scenario)
    assert [len(page) for page in pages] == [50, 50, 7, 0]
    assert [n["subject"] for page in pages for n in page] == [str(i) for i in range(count - 1, -1, -1)]


def test_no_news_of_an_aborted_game_nor_for_the_player_who_saw_it_end(tmp_path, clock):
    """As lichess's: found by an audit, an aborted game and one's own resignation were told as news."""

    async def scenario(w: World):
        w.notifications.present = lambda game_id, color: color is Color.BLACK  # Boris has the game open
        aborted = await w.games.create(white_id=ANNA, black_id=BORIS, terms=corr(3))
        await w.games.move(ANNA, aborted.id, "c3-d4")
        await w.games.abort(BORIS, aborted.id)
        resigned = await w.games.create(white_id=ANNA, black_id=BORIS, terms=corr(3))
        for user, move in ((ANNA, "c3-d4"), (BORIS, "f6-g5"), (ANNA, "b2-c3")):
            await w.games.move(user, resigned.id, move)
        await w.games.resign(BORIS, resigned.id)
        await w.notifications.settled()
        ends = {}
        for user in (ANNA, BORIS):
            listed = (await w.notifications.list(user))["notifications"]
            ends[user] = [n["subject"] for n in listed if n["kind"] == "gameEnd"]
        return aborted.id, resigned.id, ends

    aborted, resigned, ends = run(tmp_path, scenario)
    assert ends == {ANNA: [resigned], BORIS: []}
