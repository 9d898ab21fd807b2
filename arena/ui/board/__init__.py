"""The board page: the leaderboard, the round summary, closing and exporting a round."""
