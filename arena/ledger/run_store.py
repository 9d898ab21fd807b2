"""Suites, runs, collection attempts and grades of graded families."""

from __future__ import annotations

from typing import Any

from arena.clock import now_iso
from arena.ledger.connection import Ledger


def store_suite(
    ledger: Ledger, suite_hash: str, name: str, version: str, manifest: str, fmt: str
) -> None:
    """Keep the manifest as written (once), so grades can be redone and exported."""
    if ledger.conn.execute("SELECT 1 FROM suites WHERE suite_hash = ?", [suite_hash]).fetchone():
        return
    ledger.conn.execute(
        "INSERT INTO suites (suite_hash, name, version, manifest, format, stored_at) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        [suite_hash, name, version, manifest, fmt, now_iso()],
    )


def suite_manifest(ledger: Ledger, suite_hash: str) -> tuple[str, str] | None:
    """(manifest text, format) of a stored suite."""
    row = ledger.conn.execute(
        "SELECT manifest, format FROM suites WHERE suite_hash = ?", [suite_hash]
    ).fetchone()
    return (row[0], row[1]) if row else None


def suites_named(ledger: Ledger, name: str, *, hash_prefix: bool = False) -> list[str]:
    """The hashes of the stored suites called ``name`` (or, with ``hash_prefix``, whose
    manifest hash starts with ``name``), oldest first."""
    where, params = (
        ("substr(suite_hash, 1, ?) = ?", [len(name), name])
        if hash_prefix
        else (
            "name = ?",
            [name],
        )
    )
    rows = ledger.conn.execute(
        f"SELECT suite_hash FROM suites WHERE {where} ORDER BY stored_at, suite_hash", params
    ).fetchall()
    return [r[0] for r in rows]


def add_run(
    ledger: Ledger, family: str, system_id: str, suite_hash: str, tier: str, endpoint: str
) -> None:
    ledger.conn.execute(
        "INSERT INTO runs (family, system_id, suite_hash, tier, endpoint, started_at) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        [family, system_id, suite_hash, tier, endpoint, now_iso()],
    )


def runs(ledger: Ledger, family: str) -> dict[str, dict[str, Any]]:
    """The newest run of each system of ``family``: suite, tier, endpoint."""
    rows = ledger.db.query(
        "SELECT * FROM runs WHERE seq IN (SELECT MAX(seq) FROM runs WHERE family = ? "
        "GROUP BY system_id)",
        [family],
    )
    return {r["system_id"]: r for r in rows}


def record_attempt(ledger: Ledger, row: dict[str, Any]) -> None:
    columns = (
        "family",
        "case_id",
        "system_id",
        "status",
        "error",
        "http_status",
        "latency_ms",
        "attempts",
        "output_id",
        "finished_at",
    )
    ledger.conn.execute(
        f"INSERT INTO attempts ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})",
        [row.get(c) for c in columns],
    )


def latest_attempts(ledger: Ledger, family: str) -> dict[tuple[str, str], dict[str, Any]]:
    """The newest attempt at every (system, case) of ``family``."""
    return _newest_by_system_case(ledger, "attempts", family)


def record_grade(ledger: Ledger, row: dict[str, Any]) -> None:
    columns = (
        "family",
        "case_id",
        "system_id",
        "suite_hash",
        "status",
        "credit",
        "passed",
        "parsed_answer",
        "detail",
        "grader",
    )
    ledger.conn.execute(
        f"INSERT INTO grades ({', '.join(columns)}, graded_at) VALUES "
        f"({', '.join('?' for _ in columns)}, ?)",
        [row[c] for c in columns] + [now_iso()],
    )


def grades_in_force(ledger: Ledger, family: str) -> dict[tuple[str, str], dict[str, Any]]:
    """The newest grade of every (system, case) of ``family``."""
    return _newest_by_system_case(ledger, "grades", family)


def _newest_by_system_case(
    ledger: Ledger, table: str, family: str
) -> dict[tuple[str, str], dict[str, Any]]:
    """The newest row (highest ``seq``) of ``table`` at every (system, case) of ``family``."""
    rows = ledger.db.query(
        f"SELECT * FROM {table} WHERE seq IN (SELECT MAX(seq) FROM {table} WHERE family = ? "
        "GROUP BY system_id, case_id)",
        [family],
    )
    return {(r["system_id"], r["case_id"]): r for r in rows}
