"""Arena: judge AI outputs side by side, offline, and publish a verifiable leaderboard."""

import os

# The one place the version is written: pyproject.toml reads it from here (so the package
# metadata agrees), and CHANGELOG.md's newest release names it (tests/test_packaging.py).
# A constant, not importlib.metadata: that import alone costs ~25 ms on every command.
__version__ = "0.1.0"

# One BLAS thread unless the user sets another number, before anything loads numpy:
# Arena's dense problems are systems × systems (its fits pin one thread anyway), and
# OpenBLAS's idle threads spin on the other core. On a 2-core machine they doubled the
# CPU time of importing numpy alone (0.24 s against 0.12 s), on every command.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
