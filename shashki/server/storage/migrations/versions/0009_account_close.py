"""Closing an account (as on lichess): `users.closed_at`, when its owner closed it. The row stays, so that
its name stays taken and its finished games keep their player; a closed account logs in no more.

Revision ID: 0009_account_close
Revises: 0008_player_tally
"""

import sqlalchemy as sa
from alembic import op

revision = "0009_account_close"
down_revision = "0008_player_tally"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.add_column(sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_column("closed_at")
