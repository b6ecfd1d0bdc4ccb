"""Tournaments (issue 13): events, their players, pairings, seats (one per player and round) and the
directors' leases. The lead re-chains this revision at merge.

Revision ID: 0003_tcore
Revises: 0003_corr
"""

import sqlalchemy as sa
from alembic import op

revision = "0003_tcore"
down_revision = "0003_corr"
branch_labels = None
depends_on = None


def upgrade() -> None:

    op.create_table(
        "tournament_leases",
        sa.Column("tournament_id", sa.String(length=12), nullable=False),
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("tournament_id", name=op.f("pk_tournament_leases")),
    )
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(length=12), nullable=False),
        sa.Column("name", sa.String(length=60), nullable=False),
        sa.Column("system", sa.String(length=12), nullable=False),
        sa.Column("variant", sa.String(length=40), nullable=False),
        sa.Column("clock_initial_ms", sa.BigInteger(), nullable=False),
        sa.Column("clock_increment_ms", sa.BigInteger(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("starts_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ends_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("minutes", sa.Integer(), nullable=True),
        sa.Column("rounds", sa.Integer(), nullable=True),
        sa.Column("double", sa.Boolean(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("password_hash", sa.String(length=64), nullable=True),
        sa.Column("min_rating", sa.Integer(), nullable=True),
        sa.Column("min_games", sa.Integer(), nullable=True),
        sa.Column("max_players", sa.Integer(), nullable=True),
        sa.Column("schedule_key", sa.String(length=80), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["created_by"], ["users.id"], name=op.f("fk_tournaments_created_by_users"), ondelete="SET NULL"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournaments")),
        sa.UniqueConstraint("schedule_key", name=op.f("uq_tournaments_schedule_key")),
    )
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_tournaments_status"), ["status"], unique=False)

    op.create_table(
        "tournament_pairings",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.String(length=12), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("white_id", sa.Integer(), nullable=False),
        sa.Column("black_id", sa.Integer(), nullable=True),
        sa.Column("game_id", sa.String(length=12), nullable=True),
        sa.Column("bye", sa.String(length=12), nullable=True),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("winner", sa.String(length=8), nullable=True),
        sa.Column("result", sa.String(length=8), nullable=True),
        sa.Column("plies", sa.Integer(), nullable=False),
        sa.Column("white_berserk", sa.Boolean(), nullable=False),
        sa.Column("black_berserk", sa.Boolean(), nullable=False),
        sa.Column("white_rating", sa.Integer(), nullable=False),
        sa.Column("black_rating", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["black_id"], ["users.id"], name=op.f("fk_tournament_pairings_black_id_users"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_tournament_pairings_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["white_id"], ["users.id"], name=op.f("fk_tournament_pairings_white_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournament_pairings")),
    )
    with op.batch_alter_table("tournament_pairings", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_tournament_pairings_game_id"), ["game_id"], unique=True)
        batch_op.create_index(
            batch_op.f("ix_tournament_pairings_tournament_id"), ["tournament_id"], unique=False
        )

    op.create_table(
        "tournament_players",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.String(length=12), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("rating", sa.Integer(), nullable=False),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("paused", sa.Boolean(), nullable=False),
        sa.Column("withdrawn", sa.Boolean(), nullable=False),
        sa.Column("pause_times", sa.Text(), nullable=False),
        sa.Column("waiting_since", sa.DateTime(timezone=True), nullable=True),
        sa.Column("game_id", sa.String(length=12), nullable=True),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("sheet", sa.Text(), nullable=False),
        sa.Column("fire", sa.Boolean(), nullable=False),
        sa.Column("berserks", sa.Integer(), nullable=False),
        sa.Column("colors", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_tournament_players_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_tournament_players_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournament_players")),
        sa.UniqueConstraint("tournament_id", "user_id", name="uq_tournament_players_entry"),
    )
    with op.batch_alter_table("tournament_players", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_tournament_players_tournament_id"), ["tournament_id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_tournament_players_user_id"), ["user_id"], unique=False)

    op.create_table(
        "tournament_seats",
        sa.Column("tournament_id", sa.String(length=12), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("pairing_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["pairing_id"],
            ["tournament_pairings.id"],
            name=op.f("fk_tournament_seats_pairing_id_tournament_pairings"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_tournament_seats_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_tournament_seats_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("tournament_id", "round", "user_id", name=op.f("pk_tournament_seats")),
    )


def downgrade() -> None:

    op.drop_table("tournament_seats")
    with op.batch_alter_table("tournament_players", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_tournament_players_user_id"))
        batch_op.drop_index(batch_op.f("ix_tournament_players_tournament_id"))

    op.drop_table("tournament_players")
    with op.batch_alter_table("tournament_pairings", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_tournament_pairings_tournament_id"))
        batch_op.drop_index(batch_op.f("ix_tournament_pairings_game_id"))

    op.drop_table("tournament_pairings")
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_tournaments_status"))

    op.drop_table("tournaments")
    op.drop_table("tournament_leases")
