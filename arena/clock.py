"""Timestamps as the ledger stores them: ISO 8601, UTC, milliseconds."""

from __future__ import annotations

from datetime import UTC, datetime


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")
