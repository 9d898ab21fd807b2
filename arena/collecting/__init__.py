"""Collecting outputs for votes families: systems files, the work left, and the run."""
