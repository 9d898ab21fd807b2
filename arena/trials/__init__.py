"""Tests families: tasks with hidden tests, run on each output in a sandbox without network."""
