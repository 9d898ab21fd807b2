"""Rating: the session the window drives, the rater's corrections, and how far a family has come."""
