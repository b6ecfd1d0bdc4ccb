"""Reviews claimed by one process at a time: the process running a review and until when it holds it.

Revision ID: 0005_review_claims
Revises: 0004_puzzles
"""

import sqlalchemy as sa
from alembic import op

revision = "0005_review_claims"
down_revision = "0004_puzzles"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("game_reviews", schema=None) as batch_op:
        batch_op.add_column(sa.Column("owner", sa.String(length=24), nullable=True))
        batch_op.add_column(sa.Column("claimed_until", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("game_reviews", schema=None) as batch_op:
        batch_op.drop_column("claimed_until")
        batch_op.drop_column("owner")
