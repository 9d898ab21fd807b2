"""Arena: judge AI outputs side by side, offline, and publish a verifiable leaderboard."""

# The one place the version is written: pyproject.toml reads it from here (so the package
# metadata agrees), and CHANGELOG.md's newest release names it (tests/test_packaging.py).
# A constant, not importlib.metadata: that import alone costs ~25 ms on every command.
__version__ = "0.1.0"
