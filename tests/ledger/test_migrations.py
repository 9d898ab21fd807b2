"""Every earlier schema version migrates to the newest one, keeping its rows."""

import sqlite3

import pytest
from sqlite_utils import Database

from arena.ledger import Ledger, seal_spans, seals
from arena.ledger.schema import SCHEMA_VERSION, migrate, migration_names


def _old_ledger(path, stop_before: str) -> Database:
    """A ledger migrated up to ``stop_before``, holding one family."""
    db = Database(sqlite3.connect(path))
    migrate(db, stop_before=stop_before)
    db["families"].insert(
        {
            "name": "f",
            "kind": "votes",
            "language": "en",
            "min_chars": 1,
            "max_chars": 10,
            "aspect": "",
            "reference": None,
            "created_at": "2026-01-01T00:00:00.000+00:00",
        }
    )
    if db[seals.TABLE].exists():  # a ledger with seals seals what Arena wrote
        seals.seal(db, seals.marks(db))
    return db


def _version(db: Database) -> int:
    return db.execute("PRAGMA user_version").fetchone()[0]


def test_migrations_are_named_and_ordered_and_set_the_version():
    names = migration_names()
    assert names == sorted(names)
    assert len(names) == SCHEMA_VERSION
    db = Database(memory=True)
    for position, name in enumerate(names):
        migrate(db, stop_before=name)
        assert _version(db) == position
    migrate(db)
    assert _version(db) == SCHEMA_VERSION


@pytest.mark.parametrize("stop_before", migration_names()[1:])
def test_a_ledger_at_each_earlier_version_upgrades_with_its_rows(tmp_path, stop_before):
    path = tmp_path / "old.sqlite"
    db = _old_ledger(path, stop_before)
    db.conn.commit()
    db.close()
    with Ledger.open(path) as ledger:
        assert ledger.pragma("user_version") == SCHEMA_VERSION
        assert [r["name"] for r in ledger.db["families"].rows] == ["f"]
        applied = [r["name"] for r in ledger.db["_sqlite_migrations"].rows]
        assert applied == migration_names()


def test_a_failing_migration_leaves_no_trace(tmp_path):
    from sqlite_utils.migrations import Migrations

    trial = Migrations("trial")

    @trial(name="0001_half")
    def _half(db):
        db.execute("CREATE TABLE a (x)")
        db.execute("PRAGMA user_version = 7")
        raise RuntimeError("boom")

    db = Database(sqlite3.connect(tmp_path / "t.sqlite"))
    with pytest.raises(RuntimeError):
        trial.apply(db)
    assert not db["a"].exists()
    assert _version(db) == 0


def test_a_round_closed_before_round_items_keeps_its_comparisons(tmp_path):
    import json

    from arena.ledger import round_store as stored_rounds

    path = tmp_path / "old.sqlite"
    db = _old_ledger(path, "0007_round_items")
    results = {
        "anchor": None,
        "systems": [],
        "categories": {},
        "summary": {},
        "fit": None,
        "chain_heads": {},
        "comparisons": [{"source": "vote", "y": 1.0}],
        "receipts": [],
    }
    db["rounds"].insert(
        {
            "round_id": "r1",
            "family": "f",
            "closed_at": "2026-01-02",
            "settings": json.dumps({"weighting": "unit"}),
            "results": json.dumps(results),
        }
    )
    db.conn.commit()
    db.close()
    with Ledger.open(path) as ledger:
        found = stored_rounds.find_round(ledger, "r1")
        assert "comparisons" not in found and "receipts" not in found
        assert list(stored_rounds.items(ledger, "r1", "comparison")) == [
            {"source": "vote", "y": 1.0}
        ]
        assert list(stored_rounds.items(ledger, "r1", "receipt")) == []


def test_a_round_stored_as_round_items_rows_keeps_its_comparisons(tmp_path):
    import json

    from arena.ledger import round_store as stored_rounds

    path = tmp_path / "old.sqlite"
    db = _old_ledger(path, "0009_round_comparisons")
    db["rounds"].insert(
        {
            "round_id": "r1",
            "family": "f",
            "closed_at": "2026-01-02",
            "settings": json.dumps({"weighting": "unit"}),
            "results": json.dumps({"systems": [], "chain_heads": {}}),
        }
    )
    rows = [{"source": "vote", "y": 1.0, "vote_id": "v1"}, {"source": "settled", "y": 0.5}]
    for seq, row in enumerate(rows):
        db["round_items"].insert(
            {"round_id": "r1", "kind": "comparison", "seq": seq, "body": json.dumps(row)}
        )
    db.conn.commit()
    db.close()
    with Ledger.open(path) as ledger:
        assert list(stored_rounds.items(ledger, "r1", "comparison")) == rows
        assert stored_rounds.find_round(ledger, "r1")["round"] == "r1"
        assert not stored_rounds.gated_on(ledger, "f", "anything")


def _v13_with_outputs(path, texts: dict[str, str], *, sealed: bool = True) -> None:
    """A ledger just before 0014 whose outputs (case -> text) Arena wrote and sealed."""
    from arena.canonical import sha256_hex
    from arena.records import SystemDescriptor, output_id

    db = _old_ledger(path, "0014_output_keys")
    system = SystemDescriptor(model="m").system_id
    db["systems"].insert(
        {"system_id": system, "label": "m", "descriptor": "{}", "created_at": "2026"}
    )
    db["imports"].insert(
        {
            "import_id": "i",
            "family": "f",
            "path": "x",
            "format": "native",
            "file_sha256": "0",
            "records": 1,
            "added": 1,
            "imported_at": "2026",
        }
    )
    if sealed:
        seals.seal(db, seals.marks(db))
    for case, text in texts.items():
        db["cases"].insert(
            {"family": "f", "case_id": case, "category": "c", "prompt": "p",
             "language_evidence": ""}
        )  # fmt: skip
        db["outputs"].insert(
            {
                "output_id": output_id("f", case, system, 0),
                "family": "f",
                "case_id": case,
                "system_id": system,
                "sample": 0,
                "text": text,
                "content_hash": sha256_hex(text),
                "is_diff": 0,
                "import_id": "i",
            }
        )
    if sealed:
        seals.seal(db, seals.marks(db))
    db.conn.commit()
    db.close()


def test_the_outputs_before_0014_get_their_text_keys_in_a_sealed_migration(tmp_path):
    from arena.texts import text_key

    path = tmp_path / "v13.sqlite"
    texts = {"c1": "An answer.\r\n", "c2": "An answer.", "c3": "Another  \nanswer"}
    _v13_with_outputs(path, texts)
    with Ledger.open(path) as ledger:
        keys = dict(ledger.db.execute("SELECT case_id, text_key FROM output_keys"))
        commits = [r[0] for r in ledger.db.execute("SELECT kind FROM commits ORDER BY seq")]
        assert seal_spans.verify(ledger.db) == []
    assert keys == {case: text_key(text) for case, text in texts.items()}
    assert keys["c1"] == keys["c2"] != keys["c3"]
    assert commits[-1] == "migration"


def test_a_ledger_with_rows_slipped_in_is_not_upgraded_over_them(tmp_path):
    from arena.errors import UnsealedRows

    path = tmp_path / "v13.sqlite"
    _v13_with_outputs(path, {"c1": "An answer."}, sealed=False)
    with pytest.raises(UnsealedRows, match="cannot be upgraded"):
        Ledger.open(path)


def test_family_changes_before_0015_keep_their_rows_and_seals(tmp_path):
    from arena.ledger import family_changes

    path = tmp_path / "v14.sqlite"
    db = _old_ledger(path, "0015_repeat_settings")
    db["family_changes"].insert(
        {"change_id": "c1", "family": "f", "setting": "language", "value": '"ja"',
         "actor": "rater", "reason": "", "at": "2026-01-02T00:00:00.000+00:00"}
    )  # fmt: skip
    seals.seal(db, seals.marks(db))
    with pytest.raises(sqlite3.IntegrityError):  # the old CHECK knew no repeat setting
        db["family_changes"].insert(
            {"change_id": "c2", "family": "f", "setting": "repeat_gap", "value": "40",
             "actor": "rater", "reason": "", "at": "2026"}
        )  # fmt: skip
    db.conn.commit()
    db.close()
    with Ledger.open(path) as ledger:
        # c1 kept as it was; 0021 records that the voted family keeps coverage-first.
        found = [(c.setting, c.value, c.actor) for c in family_changes.changes(ledger, "f")]
        assert found == [("language", "ja", "rater"), ("pairs", "coverage", "arena")]
        assert family_changes.changes(ledger, "f")[0].change_id == "c1"
        assert seal_spans.verify(ledger.db) == []
        ledger.db.execute(  # the CHECK takes the repeat settings now
            "INSERT INTO family_changes (change_id, family, setting, value, actor, at) "
            "VALUES ('c2', 'f', 'repeat_gap', '40', 'rater', '2026')"
        )
        assert family_changes.repeat_settings(ledger, "f") == {"repeat_gap": 40}
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            ledger.db.execute("DELETE FROM family_changes")


def test_confirm_language_events_keep_the_chain_and_seals_of_the_events_before(tmp_path):
    from arena.ledger import chain, integrity

    path = tmp_path / "old.sqlite"
    db = _old_ledger(path, "0019_confirm_language")
    row = {
        "event_id": "e1",
        "family": "f",
        "kind": "set_language",
        "case_id": "c1",
        "output_id": None,
        "presentation_id": None,
        "language": "nl",
        "actor": "rater",
        "note": "the prompt asks for Dutch",
        "at": "2026-01-02T00:00:00.000+00:00",
    }
    stored = {
        **row,
        "prev_hash": chain.GENESIS_HASH,
        "hash": chain.row_hash(chain.GENESIS_HASH, row),
    }
    db["events"].insert(stored)
    seals.seal(db, seals.marks(db))
    db.conn.commit()
    db.close()
    with Ledger.open(path) as ledger:
        [kept] = ledger.rows("SELECT * FROM events")
        assert {k: kept[k] for k in stored} == stored
        assert chain.verify(ledger.db) == []
        assert seal_spans.verify(ledger.conn) == []
        # Built without Arena, the old ledger has no head file; everything else must hold.
        assert [p for p in integrity.check(ledger) if "head file" not in p] == []
        [table] = ledger.rows("SELECT sql FROM sqlite_master WHERE name = 'events'")
        assert "'retract', 'confirm_language')" in table["sql"]
        with pytest.raises(sqlite3.DatabaseError):
            ledger.conn.execute("UPDATE events SET note = 'changed' WHERE event_id = 'e1'")


def test_judge_verdicts_before_0023_keep_their_source_without_a_format(tmp_path):
    import json

    from arena.ledger import integrity, judge_store
    from arena.records import SystemDescriptor

    path = tmp_path / "v22.sqlite"
    db = _old_ledger(path, "0023_judge_sources")
    a, b = (SystemDescriptor(model=m) for m in "ab")
    for system in (a, b):
        db["systems"].insert(
            {"system_id": system.system_id, "label": system.model,
             "descriptor": json.dumps({"model": system.model}), "created_at": "2026"}
        )  # fmt: skip
    db["cases"].insert(
        {"family": "f", "case_id": "q1", "category": "c", "prompt": "p", "language_evidence": ""}
    )
    verdict = {"family": "f", "judge": "gpt", "kind": "model", "case_id": "q1",
               "left_system": a.system_id, "right_system": b.system_id, "winner": "tie",
               "game": 1, "source_sha256": "5" * 64, "source_line": 1,
               "imported_at": "2026-01-02"}  # fmt: skip
    db["judge_verdicts"].insert(verdict)
    db["judge_verdicts"].insert({**verdict, "game": 2, "imported_at": "2026-01-03"})
    seals.seal(db, seals.marks(db))
    db.conn.commit()
    db.close()
    with Ledger.open(path) as ledger:
        assert judge_store.judge_sources(ledger, "f") == [
            judge_store.JudgeSource("gpt", "5" * 64, None, None, "2026-01-02")
        ]
        assert judge_store.source_imported(ledger, "f", "gpt", "5" * 64)
        assert [p for p in integrity.check(ledger) if "head file" not in p] == []
