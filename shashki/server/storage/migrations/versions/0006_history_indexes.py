"""Indexes for reads that grew with the history (issue 11), each now reading what it shows:
- a player's notifications by player and id: the list of the newest (a bot is notified of every challenge);
- each seat's games by player, creation time and id: a player's list of games and its exports, newest first;
- the last finished tournaments by status and finish time;
- the reviews by status: every start and sweep reads the unfinished ones, not every review ever made.

Revision ID: 0006_history_indexes
Revises: 0005_review_claims
"""

from alembic import op

revision = "0006_history_indexes"
down_revision = "0005_review_claims"
branch_labels = None
depends_on = None

INDEXES = (
    ("ix_notifications_user_newest", "notifications", ["user_id", "id"]),
    ("ix_games_white_newest", "games", ["white_id", "created_at", "id"]),
    ("ix_games_black_newest", "games", ["black_id", "created_at", "id"]),
    ("ix_tournaments_finished", "tournaments", ["status", "finished_at"]),
    ("ix_game_reviews_status", "game_reviews", ["status"]),
)


def upgrade() -> None:
    for name, table, columns in INDEXES:
        op.create_index(name, table, columns)


def downgrade() -> None:
    for name, table, _columns in reversed(INDEXES):
        op.drop_index(name, table_name=table)
