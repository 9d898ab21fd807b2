"""Judges beside the rater: their verdicts imported apart from the rater's votes, and how
far each agrees with the rater (docs/judges.md)."""
