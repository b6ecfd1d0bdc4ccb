"""Takebacks (as on lichess, in casual games): `games.takeback_offer`, the colour of the player asking to
take their last move back, `games.takeback_declined`, the player whose request was declined (who asks
again after the next move), and `games.takebacks`, how many plies have been taken back in all (a cached
copy whose count differs from the stored one is loaded afresh, never caught up move by move).

Revision ID: 0010_takebacks
Revises: 0009_account_close
"""

import sqlalchemy as sa
from alembic import op

revision = "0010_takebacks"
down_revision = "0009_account_close"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("takeback_offer", sa.String(length=8), nullable=True))
        batch_op.add_column(sa.Column("takebacks", sa.Integer(), nullable=False, server_default="0"))
        batch_op.add_column(sa.Column("takeback_declined", sa.String(length=8), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("takeback_declined")
        batch_op.drop_column("takebacks")
        batch_op.drop_column("takeback_offer")
