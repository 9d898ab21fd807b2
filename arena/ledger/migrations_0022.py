"""Migration 0022: verdicts of judges other than the rater (colleagues, LLM judges).

``judge_verdicts`` holds one row per verdict a judge gave on a pair of a family's systems
on one case, with the sha256 of the file it came from and its line there. It only grows,
and no board of the rater's reads it: judges are compared with the rater, not pooled.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.ledger.migrations_0016 import seal_new_tables
from arena.ledger.steps import migrations, run_script, set_version

if TYPE_CHECKING:
    from sqlite_utils import Database

JUDGE_TABLES: dict[str, str] = {"judge_verdicts": "seq"}


@migrations(name="0022_judge_verdicts")
def _judge_verdicts(db: Database) -> None:
    run_script(
        db,
        """
        CREATE TABLE judge_verdicts (
            seq INTEGER PRIMARY KEY,
            family TEXT NOT NULL REFERENCES families(name),
            judge TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('human', 'model')),
            case_id TEXT NOT NULL,
            left_system TEXT NOT NULL REFERENCES systems(system_id),
            right_system TEXT NOT NULL REFERENCES systems(system_id),
            winner TEXT NOT NULL CHECK (winner IN ('left', 'right', 'tie')),
            game INTEGER NOT NULL,
            source_sha256 TEXT NOT NULL,
            source_line INTEGER NOT NULL,
            imported_at TEXT NOT NULL,
            FOREIGN KEY (family, case_id) REFERENCES cases(family, case_id),
            CHECK (left_system != right_system),
            UNIQUE (family, judge, source_sha256, source_line, game)
        );
        CREATE INDEX judge_verdicts_by_judge ON judge_verdicts(family, judge, seq);
        """,
    )
    seal_new_tables(db, JUDGE_TABLES)
    set_version(db, 22)
