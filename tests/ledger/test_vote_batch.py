"""``vote_batch.record_many`` writes what ``record_presentation`` + ``record_vote`` write
pair by pair (rows, seq, hash chains, head file) and refuses what they refuse."""

from __future__ import annotations

import dataclasses
import json
import random
import shutil

import pytest

from arena.errors import BadInput
from arena.ledger import Ledger, StorageError, catalog, chain, heads, vote_batch, voting
from arena.ledger.integrity import check
from arena.records import Presentation, PresentationId, Session, SessionId, Vote, VoteId


def _pairs(ledger: Ledger, n: int, seed: int, session: Session) -> list[tuple[Presentation, Vote]]:
    """``n`` presentations and their votes: varied text, repeats, a few skips."""
    rng = random.Random(seed)
    outputs = catalog.outputs(ledger, "small")
    cases = sorted({o.case_id for o in outputs})
    pairs: list[tuple[Presentation, Vote]] = []
    for i in range(n):
        case = rng.choice(cases)
        left, right = rng.sample([o for o in outputs if o.case_id == case], 2)
        repeat = pairs[rng.randrange(len(pairs))] if pairs and rng.random() < 0.3 else None
        presentation = Presentation(
            PresentationId(f"p{seed}-{i}"),
            session.session_id,
            "small",
            left.case_id,
            left.output_id,
            right.output_id,
            f"2026-11-30T10:00:{i % 60:02d}.000+00:00",
            repeat[0].presentation_id if repeat else None,
        )
        vote = Vote(
            VoteId(f"v{seed}-{i}"),
            presentation.presentation_id,
            session.session_id,
            "small",
            left.case_id,
            left.output_id,
            right.output_id,
            rng.choice(("left", "right", "tie", "both_bad", "skip")),
            presentation.shown_at,
            "2026-11-30T10:01:00.000+00:00",
            rng.randrange(0, 300_000),
            rng.choice(("rater", "Zoë", 'ann \u2028 \x07 "quoted" \\ 日本')),
            repeat[1].vote_id if repeat else None,
            rng.choice(("", "a comment ✓", "tab\there")),
            rng.random() < 0.1,
        )
        pairs.append((presentation, vote))
    return pairs


def _rows(ledger: Ledger) -> list[tuple]:
    return [
        (table, *row)
        for table in ("sessions", "presentations", "votes")
        for row in ledger.db.execute(f"SELECT * FROM {table} ORDER BY rowid")
    ]


@pytest.fixture
def twin(small_family, tmp_path):
    """A second ledger, a copy of ``small_family``, and a session in both."""
    small_family.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    shutil.copyfile(small_family.path, tmp_path / "twin.sqlite")
    shutil.copyfile(heads.path_for(small_family.path), tmp_path / "twin.sqlite.heads.json")
    session = Session(SessionId("s1"), "small", 1, 0, "rater", "2026-11-30T09:00:00Z")
    with Ledger.open(tmp_path / "twin.sqlite") as other:
        for ledger in (small_family, other):
            voting.add_session(ledger, session)
        yield other, session


def test_record_many_writes_the_rows_pair_by_pair_writing_writes(small_family, twin):
    other, session = twin
    for seed, n in ((1, 40), (2, 1), (3, 25)):  # chains started, then continued
        pairs = _pairs(small_family, n, seed, session)
        for presentation, vote in pairs:
            voting.record_presentation(small_family, presentation)
            voting.record_vote(small_family, vote)
        with other.atomic():
            assert vote_batch.record_many(other, pairs) == n
    assert _rows(other) == _rows(small_family)
    assert check(other) == []
    batched, one_by_one = (
        json.loads(heads.path_for(ledger.path).read_text()) for ledger in (other, small_family)
    )
    for table in ("presentations", "votes"):  # where the chains end, in the head file
        assert batched[table] == one_by_one[table] != {}


def test_record_many_again_adds_nothing_and_refuses_other_content(small_family, twin):
    other, session = twin
    pairs = _pairs(other, 10, 4, session)
    with other.atomic():
        vote_batch.record_many(other, pairs)
    before = _rows(other)
    with other.atomic():
        assert vote_batch.record_many(other, pairs) == 0
    changed = dataclasses.replace(
        pairs[6][1], choice="tie" if pairs[6][1].choice != "tie" else "left"
    )
    with pytest.raises(vote_batch.Refused) as refused:
        with other.atomic():
            vote_batch.record_many(other, [*pairs[:6], (pairs[6][0], changed)])
    assert refused.value.index == 6
    assert "already recorded with other content" in str(refused.value.error)
    assert _rows(other) == before


def test_record_many_refuses_a_second_vote_in_force_twin_outputs_and_two_cases(small_family, twin):
    other, session = twin
    (presentation, vote), (p2, v2) = _pairs(other, 2, 5, session)
    second = dataclasses.replace(vote, vote_id=VoteId("another"))
    with pytest.raises(vote_batch.Refused) as refused:
        vote_batch.record_many(other, [(presentation, vote), (p2, v2), (presentation, second)])
    assert refused.value.index == 2 and isinstance(refused.value.error, voting.AlreadyVoted)
    with other.atomic():
        vote_batch.record_many(other, [(presentation, vote)])
    with pytest.raises(vote_batch.Refused) as refused:
        vote_batch.record_many(other, [(presentation, second)])
    assert isinstance(refused.value.error, voting.AlreadyVoted)
    same = dataclasses.replace(v2, right_output=v2.left_output)
    with pytest.raises(vote_batch.Refused) as refused:
        vote_batch.record_many(other, [(p2, same)])
    assert isinstance(refused.value.error, BadInput)
    elsewhere = next(o for o in catalog.outputs(other, "small") if o.case_id != p2.case_id)
    for shown in (
        (dataclasses.replace(p2, right_output=elsewhere.output_id), v2),
        (p2, dataclasses.replace(v2, right_output=elsewhere.output_id)),
    ):
        with pytest.raises(vote_batch.Refused) as refused:
            vote_batch.record_many(other, [(presentation, vote), shown])
        assert refused.value.index == 1 and "not two outputs of case" in str(refused.value)
    assert other.db["votes"].count == 1


@pytest.mark.parametrize(
    "row",
    [
        {"a": "x", "b": None, "c": 3, "é": '日本\u2028\x00\x1f\x7f"\\/', "n": -(2**53)},
        {"kind": "flag", "gate": None, "actor": None, "language": "en", "note": ""},
        {"big": 2**53 + 1},
        {"flag": True, "ratio": "0.5"},
        {"nested": {"b": 1, "a": [1, "x", None]}},
    ],
)
def test_the_fast_row_hash_is_the_chain_hash(row):
    prev = "ab" * 32
    try:
        expected = chain.row_hash(prev, row)
    except ValueError:
        with pytest.raises(ValueError):
            vote_batch.row_hash(prev, row)
    else:
        assert vote_batch.row_hash(prev, row) == expected


def test_add_session_records_the_session_as_given(small_family):
    session = Session(SessionId("import-x"), "small", 7, 0, "ann", "2026-11-01T10:00:00Z")
    voting.add_session(small_family, session)
    assert voting.sessions(small_family, "small") == [session]
    with pytest.raises(StorageError, match="sessions is append-only"):
        voting.add_session(small_family, session)
    assert voting.sessions(small_family, "small") == [session]


def test_a_refused_batch_leaves_the_ledger_unchanged(small_family, twin):
    other, session = twin
    pairs = _pairs(other, 5, 6, session)
    before = _rows(other)
    broken = dataclasses.replace(pairs[3][1], session_id=SessionId("no-such-session"))
    with pytest.raises(StorageError, match="FOREIGN KEY"):
        with other.atomic():
            vote_batch.record_many(other, [*pairs[:3], (pairs[3][0], broken)])
    assert _rows(other) == before
