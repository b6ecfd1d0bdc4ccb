"""The declarative base every domain's tables derive from, and the column type they share for times.

Each domain owns its tables in its own `models.py` (`accounts`, `lobby`, `games`, `ratings`, `chat`); they
all hang on this one `Base.metadata`, which `shashki.server.schema` gathers for the Alembic migrations.
Times are stored as UTC-aware datetimes; clock readings as integer milliseconds.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, TypeVar

from sqlalchemy import DateTime, Dialect, MetaData
from sqlalchemy.orm import DeclarativeBase, configure_mappers, make_transient_to_detached
from sqlalchemy.orm.attributes import instance_state, manager_of_class, set_committed_value
from sqlalchemy.types import TypeDecorator

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class UtcDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC datetime on every backend (SQLite keeps no zone: it is put back on read)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is not None and value.tzinfo is None:
            raise ValueError("naive datetime: store UTC-aware datetimes")
        return value

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        moment: datetime = value
        return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def utcnow() -> datetime:
    """Now, as stored: UTC, timezone-aware."""
    return datetime.now(UTC)


T = TypeVar("T")


def detached(cls: type[T], values: dict[str, Any]) -> T:
    """A mapped object of `cls` as a closed session leaves one it read: `values` (columns by attribute
    name) loaded, its identity set, nothing to flush, any column left out expired (read on first use
    by a session it is added to). What `cls(**values)` then `make_transient_to_detached` make, without
    the instrumented constructor's event and per-attribute bookkeeping, which has nothing to do for
    values already stored: about a third of the time (issue 11: an account is read this way for every
    request and socket, a challenge for every game's start)."""
    manager = manager_of_class(cls)
    if not manager.mapper.configured:
        configure_mappers()  # as the instrumented constructor's event does
    record = manager.new_instance()
    instance_state(record).dict.update(values)
    make_transient_to_detached(record)
    return record


def set_committed_values(record: Any, values: dict[str, Any]) -> None:
    """`set_committed_value` for several columns of a mapped object: each value becomes the attribute's
    committed one, with no change left for a session to flush (a cached game's record mirrors what was
    just committed: games/store.py, games/follow.py).

    SQLAlchemy does it attribute by attribute (its instrumentation, then the state's bookkeeping of
    changed and expired attributes and pending loaders: about a microsecond each, five a move; issue 11).
    When none of these attributes has a change, an expiry or a loader pending, and the object is not
    expired as a whole, that bookkeeping has nothing to do and the values go into the object's
    dictionary at once; otherwise each goes SQLAlchemy's way. `values` names column attributes only."""
    state = instance_state(record)
    if (
        state.expired
        or not state.committed_state.keys().isdisjoint(values)
        or not state.expired_attributes.isdisjoint(values)
        or not state.callables.keys().isdisjoint(values)
    ):
        for name, value in values.items():
            set_committed_value(record, name, value)
        return
    state.dict.update(values)
