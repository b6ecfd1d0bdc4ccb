"""Anonymous players and challenges by link (issue 16, points 1 and 2): `users.anonymous`, and open
challenges (`challenges.link`, with no `dest_user_id` until someone takes the seat).

Revision ID: 0003_anon
Revises: 0003_looks
"""

import sqlalchemy as sa
from alembic import op

revision = "0003_anon"
down_revision = "0003_looks"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.add_column(sa.Column("anonymous", sa.Boolean(), server_default=sa.false(), nullable=False))
    with op.batch_alter_table("challenges", schema=None) as batch_op:
        batch_op.alter_column("dest_user_id", existing_type=sa.Integer(), nullable=True)
        batch_op.add_column(sa.Column("link", sa.String(length=16), nullable=True))
        batch_op.create_unique_constraint(batch_op.f("uq_challenges_link"), ["link"])


def downgrade() -> None:
    op.execute("DELETE FROM challenges WHERE dest_user_id IS NULL")
    with op.batch_alter_table("challenges", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("uq_challenges_link"), type_="unique")
        batch_op.drop_column("link")
        batch_op.alter_column("dest_user_id", existing_type=sa.Integer(), nullable=False)
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_column("anonymous")
