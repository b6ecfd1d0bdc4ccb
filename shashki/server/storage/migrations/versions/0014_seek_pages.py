"""`seeks.page_held`: whether the seek's player had a page of the site open when it was made (a lobby
socket, or the Board API's seek stream). Such a seek with a clock leaves with its player; the sweep that
withdraws it when the page was lost without closing (its process killed, the server restarted) reads it.
Seeks made before it count as not held: they stay, as they did.

Revision ID: 0014_seek_pages
Revises: 0013_game_sides
"""

import sqlalchemy as sa
from alembic import op

revision = "0014_seek_pages"
down_revision = "0013_game_sides"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("seeks", schema=None) as batch_op:
        # A plain default ("0"), which SQLite adds in place (an expression would copy the table).
        batch_op.add_column(sa.Column("page_held", sa.Boolean(), nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("seeks", schema=None) as batch_op:
        batch_op.drop_column("page_held")
