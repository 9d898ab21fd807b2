"""Rounds: close a family into a typed round: comparisons, the fitted board, the summary."""
