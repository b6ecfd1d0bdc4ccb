"""Simultaneous exhibitions (`server/simuls`): `simuls` and `simul_players`, and `games.simul_id`, the
exhibition a game belongs to (its page links back to it; a simul's game has no rematch).

Revision ID: 0011_simuls
Revises: 0010_takebacks
"""

import sqlalchemy as sa
from alembic import op

revision = "0011_simuls"
down_revision = "0010_takebacks"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "simuls",
        sa.Column("id", sa.String(length=12), nullable=False),
        sa.Column("name", sa.String(length=60), nullable=False),
        sa.Column("host_id", sa.Integer(), nullable=False),
        sa.Column("variant", sa.String(length=40), nullable=False),
        sa.Column("clock_initial_ms", sa.BigInteger(), nullable=False),
        sa.Column("clock_increment_ms", sa.BigInteger(), nullable=False),
        sa.Column("host_extra_ms", sa.BigInteger(), nullable=False),
        sa.Column("host_color", sa.String(length=8), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["host_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_simuls_host_id", "simuls", ["host_id"])
    op.create_index("ix_simuls_status", "simuls", ["status", "created_at"])
    hosting = sa.text("status IN ('created', 'started')")
    op.create_index(
        "uq_simuls_hosting", "simuls", ["host_id"], unique=True,
        sqlite_where=hosting, postgresql_where=hosting,
    )  # fmt: skip
    op.create_table(
        "simul_players",
        sa.Column("simul_id", sa.String(length=12), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("accepted", sa.Boolean(), nullable=False),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("game_id", sa.String(length=12), nullable=True),
        sa.Column("color", sa.String(length=8), nullable=True),
        sa.Column("outcome", sa.String(length=8), nullable=True),
        sa.ForeignKeyConstraint(["simul_id"], ["simuls.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("simul_id", "user_id"),
        sa.UniqueConstraint("game_id"),
    )
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("simul_id", sa.String(length=12), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("simul_id")
    op.drop_table("simul_players")
    op.drop_index("uq_simuls_hosting", table_name="simuls")
    op.drop_index("ix_simuls_status", table_name="simuls")
    op.drop_index("ix_simuls_host_id", table_name="simuls")
    op.drop_table("simuls")
