"""Migration 0026: judges run from Arena (`arena judges run`), and every reply they gave.

``judge_descriptors`` holds one row per judge run in a family: its name, its descriptor
(endpoint, model, template and its sha256, sampling settings, prices, the name of the
variable holding the key: never the key) and the descriptor's sha256, its id. A name
goes to one descriptor: a changed template or setting is a new judge, under a new name.

``judge_replies`` holds one row per (item, order) asked: the pair as shown, the verdict
read from the reply (``left``, ``right``, ``tie``, or ``unparsed`` when it named none),
the graded scale's strength, the sha256 of the judge's full reply in the ledger's file
store, the template's sha256, and what it cost. A verdict also goes into
``judge_verdicts`` in the same transaction (``arena.judges.running``). Both only grow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.ledger.migrations_0016 import seal_new_tables
from arena.ledger.steps import migrations, run_script, set_version

if TYPE_CHECKING:
    from sqlite_utils import Database

JUDGE_RUN_TABLES: dict[str, str] = {"judge_descriptors": "seq", "judge_replies": "seq"}


@migrations(name="0026_judge_runs")
def _judge_runs(db: Database) -> None:
    run_script(
        db,
        """
        CREATE TABLE judge_descriptors (
            seq INTEGER PRIMARY KEY,
            family TEXT NOT NULL REFERENCES families(name),
            judge TEXT NOT NULL,
            judge_id TEXT NOT NULL,
            descriptor TEXT NOT NULL,
            template_sha256 TEXT NOT NULL,
            added_at TEXT NOT NULL,
            UNIQUE (family, judge)
        );
        CREATE TABLE judge_replies (
            seq INTEGER PRIMARY KEY,
            family TEXT NOT NULL REFERENCES families(name),
            judge TEXT NOT NULL,
            judge_id TEXT NOT NULL,
            case_id TEXT NOT NULL,
            left_system TEXT NOT NULL REFERENCES systems(system_id),
            right_system TEXT NOT NULL REFERENCES systems(system_id),
            game INTEGER NOT NULL CHECK (game IN (1, 2)),
            verdict TEXT NOT NULL CHECK (verdict IN ('left', 'right', 'tie', 'unparsed')),
            strength INTEGER NOT NULL CHECK (strength IN (0, 1, 2)),
            reply_sha256 TEXT NOT NULL,
            template_sha256 TEXT NOT NULL,
            prompt_tokens INTEGER,
            completion_tokens INTEGER,
            cost REAL,
            asked_at TEXT NOT NULL,
            FOREIGN KEY (family, case_id) REFERENCES cases(family, case_id),
            FOREIGN KEY (family, judge) REFERENCES judge_descriptors(family, judge),
            CHECK (left_system != right_system),
            UNIQUE (family, judge, case_id, left_system, right_system)
        );
        CREATE INDEX judge_replies_by_judge ON judge_replies(family, judge, seq);
        """,
    )
    seal_new_tables(db, JUDGE_RUN_TABLES)
    set_version(db, 26)
