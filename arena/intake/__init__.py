"""Intake: read outputs, votes and battles from files into the ledger (and the bundled demo)."""
