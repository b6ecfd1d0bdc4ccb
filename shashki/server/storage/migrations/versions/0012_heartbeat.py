"""The server's sign of life (`server_heartbeat`, one row: games/heartbeat.py): after a crash, the next
start charges the side to move the time it thought until the process was last alive.

Revision ID: 0012_heartbeat
Revises: 0011_simuls
"""

import sqlalchemy as sa
from alembic import op

revision = "0012_heartbeat"
down_revision = "0011_simuls"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "server_heartbeat",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("alive_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )


def downgrade() -> None:
    op.drop_table("server_heartbeat")
