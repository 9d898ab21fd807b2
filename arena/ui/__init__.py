"""The rater window: the only package of Arena that imports Qt (PySide6)."""
