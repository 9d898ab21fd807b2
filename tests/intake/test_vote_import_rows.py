"""`arena import-votes` writes its rows in batches: the same rows, hashes and refusals as
writing them one by one (``record_presentation`` then ``record_vote`` per line), whatever
the batch size."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import pytest

from arena.errors import BadInput
from arena.intake import votes as vote_import
from arena.intake.votes import import_votes
from arena.ledger import Ledger, voting
from arena.ledger.integrity import check
from tests.intake.test_vote_import import GOOD

LABELS = ("alpha", "beta", "gamma")
CASES = ("c1", "c2", "c3", "c4")


def _records(seed: int, n: int) -> list[dict]:
    """``n`` varied vote lines: string and number sessions, samples given or not, time
    zones and fractions, repeats of earlier lines with sides swapped."""
    rng = random.Random(seed)
    records: list[dict] = []
    for line in range(1, n + 1):
        earlier = [i for i, r in enumerate(records, 1) if "repeat_of" not in r]
        if earlier and rng.random() < 0.2:
            was = rng.choice(earlier)
            first = records[was - 1]
            record = {
                "case_id": first["case_id"],
                "left_system": first["right_system"],
                "right_system": first["left_system"],
                "repeat_of": was,
            }
        else:
            left, right = rng.sample(LABELS, 2)
            record = {"case_id": rng.choice(CASES), "left_system": left, "right_system": right}
            if rng.random() < 0.3:
                record["left_sample"] = 0
            if rng.random() < 0.2:
                record["right_sample"] = None
        zone = rng.choice(("Z", "+00:00", "+02:00", "-05:30"))
        second = seed * 10_000 + line * 7
        record |= {
            "choice": rng.choice(("left", "right", "tie", "both_bad")),
            "session": rng.choice(("monday", "tuesday", 3, 17, "é-session")),
            "actor": rng.choice(("ann", "bob", "Zoë")),
            "shown_at": f"2026-11-01T10:{second // 60 % 60:02d}:{second % 60:02d}{zone}",
            "voted_at": f"2026-11-01T11:{second // 60 % 60:02d}:{second % 60:02d}.25{zone}",
        }
        records.append(record)
    return records


def _write(path: Path, records: list) -> Path:
    path.write_text(
        "\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n",
        encoding="utf-8",
    )
    return path


def _rows(ledger: Ledger) -> list[tuple]:
    rows = []
    for table, order in (("sessions", "number"), ("presentations", "seq"), ("votes", "seq")):
        rows += [(table, *r) for r in ledger.db.execute(f"SELECT * FROM {table} ORDER BY {order}")]
    return rows


def _digest(ledger: Ledger) -> str:
    return hashlib.sha256(json.dumps(_rows(ledger), ensure_ascii=False).encode()).hexdigest()


def _three_imports(ledger: Ledger, folder: Path) -> list[tuple[int, int, int]]:
    first = _write(folder / "a.jsonl", _records(1, 60))
    second = _write(folder / "b.jsonl", _records(2, 45))
    reports = [
        import_votes(ledger, first, family="small"),
        import_votes(ledger, second, family="small"),
        import_votes(ledger, first, family="small"),  # again: adds nothing
    ]
    return [(r.records, r.votes_added, r.sessions_added) for r in reports]


# What the row-by-row importer (before batches) wrote for _three_imports: every column of
# every session, presentation and vote row, seq and hash chains included.
ROW_BY_ROW_DIGEST = "25d2ac5ae8e37dbacaecabe6878121e3ada414340491c885c32f709b1e44d079"
ROW_BY_ROW_REPORTS = [(60, 60, 5), (45, 45, 0), (60, 0, 0)]


@pytest.mark.parametrize("batch", [1, 7, 1000])
def test_the_rows_are_those_the_row_by_row_import_wrote(small_family, tmp_path, batch, monkeypatch):
    monkeypatch.setattr(vote_import, "BATCH", batch, raising=False)
    assert _three_imports(small_family, tmp_path) == ROW_BY_ROW_REPORTS
    assert _digest(small_family) == ROW_BY_ROW_DIGEST
    assert check(small_family) == []


def _refused(ledger: Ledger, path: Path) -> BadInput:
    before = _rows(ledger)
    with pytest.raises(BadInput) as refused:
        import_votes(ledger, path, family="small")
    assert _rows(ledger) == before
    return refused.value


def _other(n: int) -> dict:
    return {**GOOD, "shown_at": f"2026-11-01T10:00:{n:02d}Z", "voted_at": "2026-11-01T10:01:00Z"}


@pytest.mark.parametrize("batch", [2, 3, 1000])
def test_a_line_given_twice_is_refused_in_any_batch(small_family, tmp_path, batch, monkeypatch):
    monkeypatch.setattr(vote_import, "BATCH", batch)
    path = _write(tmp_path / "v.jsonl", [_other(1), _other(2), _other(3), _other(4), _other(2)])
    refused = _refused(small_family, path)
    assert (refused.line, refused.field) == (5, "(record)")
    assert refused.message == "the same vote as line 2"


@pytest.mark.parametrize(
    "records, line, field",
    [
        ([_other(1), _other(1), {**_other(2), "choice": "better"}], 2, "(record)"),
        ([_other(1), {**_other(2), "choice": "better"}, _other(1)], 2, "choice"),
        ([_other(1), _other(2), {**_other(3), "session": None}, _other(1)], 3, "session"),
    ],
)
def test_the_first_refusal_in_line_order_is_reported(small_family, tmp_path, records, line, field):
    refused = _refused(small_family, _write(tmp_path / "v.jsonl", records))
    assert (refused.line, refused.field) == (line, field)


def test_a_refusal_after_written_batches_changes_nothing(small_family, tmp_path, monkeypatch):
    monkeypatch.setattr(vote_import, "BATCH", 7)
    records = [*_records(3, 30), {**GOOD, "left_system": "zeta"}]
    refused = _refused(small_family, _write(tmp_path / "v.jsonl", records))
    assert (refused.line, refused.field) == (31, "left_system")
    assert check(small_family) == []


def test_repeat_of_names_a_line_as_before(small_family, tmp_path):
    repeat = {**_other(2), "left_system": "beta", "right_system": "alpha"}
    for refer in ("1", 1.5, 2, 0, [1]):
        path = _write(tmp_path / "v.jsonl", [_other(1), {**repeat, "repeat_of": refer}])
        refused = _refused(small_family, path)
        assert (refused.line, refused.field) == (2, "repeat_of")
    # A number equal to the line's is that line (as the dict it was looked up in found it).
    import_votes(
        small_family,
        _write(tmp_path / "a.jsonl", [_other(1), {**repeat, "repeat_of": 1.0}]),
        family="small",
    )
    again = import_votes(
        small_family,
        _write(tmp_path / "b.jsonl", [_other(1), {**repeat, "repeat_of": 1}]),
        family="small",
    )
    assert again.votes_added == 0 and small_family.db["votes"].count == 2


def test_a_number_too_large_to_hash_is_refused_by_name(small_family, tmp_path):
    refused = _refused(small_family, _write(tmp_path / "v.jsonl", [{**GOOD, "session": 2**60}]))
    assert (refused.line, refused.field) == (1, "session")


def test_a_vote_on_a_pair_already_voted_elsewhere_in_the_file_is_two_votes(small_family, tmp_path):
    # Same pair, other time: another presentation, another vote.
    report = import_votes(
        small_family, _write(tmp_path / "v.jsonl", [_other(1), _other(2)]), family="small"
    )
    assert report.votes_added == 2
    assert len(voting.votes_in_force(small_family, "small")) == 2
