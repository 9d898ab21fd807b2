"""The gates page: every gate verdict, its evidence and the rater's corrections."""
