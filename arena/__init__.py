"""Arena: judge AI outputs side by side, offline, and publish a verifiable leaderboard."""

__version__ = "0.1.0"
