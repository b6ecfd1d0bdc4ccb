"""Correspondence games (days per move on games, seeks and challenges; each game's move deadline) and
the notifications inside the site.

Revision ID: 0003_corr
Revises: 0003_reviews (re-chained when main was merged in)
"""

import sqlalchemy as sa
from alembic import op

revision = "0003_corr"
down_revision = "0003_anon"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("days_per_move", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("move_deadline_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.create_index(batch_op.f("ix_games_move_deadline_at"), ["move_deadline_at"], unique=False)
    with op.batch_alter_table("seeks", schema=None) as batch_op:
        batch_op.add_column(sa.Column("days_per_move", sa.Integer(), nullable=True))
    with op.batch_alter_table("challenges", schema=None) as batch_op:
        batch_op.add_column(sa.Column("days_per_move", sa.Integer(), nullable=True))

    op.create_table(
        "notifications",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("subject", sa.String(length=20), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.Column("data", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("read_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_notifications_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_notifications")),
        sa.UniqueConstraint("user_id", "kind", "subject", "ply", name="uq_notifications_once"),
    )
    op.create_index("ix_notifications_user_unread", "notifications", ["user_id", "read_at"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_notifications_user_unread", table_name="notifications")
    op.drop_table("notifications")
    with op.batch_alter_table("challenges", schema=None) as batch_op:
        batch_op.drop_column("days_per_move")
    with op.batch_alter_table("seeks", schema=None) as batch_op:
        batch_op.drop_column("days_per_move")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_games_move_deadline_at"))
        batch_op.drop_column("move_deadline_at")
        batch_op.drop_column("days_per_move")
