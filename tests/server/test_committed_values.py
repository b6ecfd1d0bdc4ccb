"""`set_committed_values` (storage/base.py) leaves a mapped object exactly as SQLAlchemy's
`set_committed_value`, one attribute after another, does: whether the object was clean, changed, or had
attributes expired. `detached` makes the object SQLAlchemy's constructor and `make_transient_to_detached`
make, and a session then treats it the same way."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import Integer, String, create_engine, select
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, make_transient_to_detached, mapped_column
from sqlalchemy.orm.attributes import instance_state, set_committed_value

from shashki.server.storage.base import detached, set_committed_values


class _Base(DeclarativeBase):
    pass


class Row(_Base):
    __tablename__ = "rows"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    a: Mapped[int] = mapped_column(Integer)
    b: Mapped[str | None] = mapped_column(String, nullable=True)
    c: Mapped[int | None] = mapped_column(Integer, nullable=True)


COLUMNS = ("a", "b", "c")
VALUES = {"a": st.integers(-5, 5), "b": st.none() | st.text(max_size=3), "c": st.none() | st.integers(0, 9)}


def _loaded(engine) -> Row:
    """A row read in a session and detached with it closed, as the games' cache keeps its records."""
    with Session(engine, expire_on_commit=False) as session:
        row = session.get(Row, 1)
        assert row is not None
        session.expunge(row)
    return row


def _snapshot(row: Row) -> tuple:
    state = instance_state(row)
    return (
        state.key,
        {k: v for k, v in state.dict.items() if k in ("id", *COLUMNS)},
        dict(state.committed_state),
        set(state.expired_attributes),
        state.expired,
        state.modified,
    )


@settings(max_examples=60, deadline=None)
@given(
    changes=st.fixed_dictionaries({}, optional=VALUES),
    pending=st.fixed_dictionaries({}, optional=VALUES),
    expire=st.lists(st.sampled_from(COLUMNS), unique=True, max_size=2),
)
def test_the_object_ends_as_sqlalchemys_own_loop_leaves_it(changes, pending, expire):
    engine = create_engine("sqlite://")
    _Base.metadata.create_all(engine)
    with Session(engine) as session:
        session.add(Row(id=1, a=0, b="x", c=None))
        session.commit()
    ours, theirs = _loaded(engine), _loaded(engine)
    for row in (ours, theirs):
        for name, value in pending.items():  # a change no session has flushed
            setattr(row, name, value)
        if expire:
            instance_state(row)._expire_attributes(instance_state(row).dict, expire)
    set_committed_values(ours, changes)
    for name, value in changes.items():
        set_committed_value(theirs, name, value)
    assert _snapshot(ours) == _snapshot(theirs)
    for name, value in changes.items():
        assert instance_state(ours).dict[name] == value


def test_a_clean_object_takes_the_values_with_nothing_left_to_flush():
    engine = create_engine("sqlite://")
    _Base.metadata.create_all(engine)
    with Session(engine) as session:
        session.add(Row(id=1, a=0, b="x", c=None))
        session.commit()
    row = _loaded(engine)
    set_committed_values(row, {"a": 7, "c": 3})
    assert (row.a, row.b, row.c) == (7, "x", 3)
    assert not instance_state(row).modified and not instance_state(row).committed_state


@settings(max_examples=60, deadline=None)
@given(values=st.fixed_dictionaries({"id": st.integers(1, 3)}, optional=VALUES), change=VALUES["a"])
def test_detached_is_the_constructors_detached_object(values, change):
    ours = detached(Row, values)
    theirs = Row(**values)
    make_transient_to_detached(theirs)
    assert type(ours) is Row
    assert _snapshot(ours) == _snapshot(theirs)
    # A session takes both alike: a change to either is flushed as an UPDATE of that row alone.
    stored = []
    for row in (ours, theirs):
        engine = create_engine("sqlite://")
        _Base.metadata.create_all(engine)
        with Session(engine) as session:
            session.add(Row(id=values["id"], a=9, b="db", c=4))
            session.commit()
        with Session(engine, expire_on_commit=False) as session:
            session.add(row)
            row.a = change
            session.commit()
            stored.append(tuple(session.execute(select(Row.a, Row.b, Row.c)).one()))
    assert stored[0] == stored[1]
    if change != values.get("a", change):
        assert stored[0] == (change, "db", 4)
