"""Pairs: which comparisons are settled without a vote, and which pair comes next (pure)."""
