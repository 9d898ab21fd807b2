"""A pooled round's bundle carries its judges' verdicts; verify rebuilds the judges'
comparisons from them and reports a forged verdict, a dropped one or a changed weight."""

from __future__ import annotations

import hashlib
import json

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from arena.bundle.export import export_round, read_bundle
from arena.bundle.signing import fingerprint
from arena.bundle.verify import verify_bundle
from arena.cli.main import main
from arena.errors import BadInput
from arena.ledger import Ledger
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings
from arena.rounds.round_records import JudgeSource
from tests.bundle.rebundle import rehash
from tests.rounds import pooled_ledger as pl


@pytest.fixture
def bundle(ledger, tmp_path):
    pl.build(ledger, tmp_path)
    pl.add_judges(ledger, tmp_path)
    close_round(ledger, pl.FAMILY, RoundSettings(with_judges=("colleague", "llm")))
    out = tmp_path / "pooled"
    export_round(ledger, out, family=pl.FAMILY)
    return out


def _rows(path):
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def _write(path, rows):
    path.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows), "utf-8")


def _content_problems(folder):
    """What verify finds beyond the signature, which any edit breaks."""
    rehash(folder)
    return [p for p in verify_bundle(folder).problems if "manifest.sig" not in p]


def test_the_pooled_bundle_carries_the_verdicts_and_their_sources_and_verifies(bundle, capsys):
    report = verify_bundle(bundle)
    assert report.ok, report.problems
    # The pooled boards' intervals (the family's and its one category's), bootstrapped again
    # with the judges' verdicts.
    assert report.intervals == 2 * len(pl.STRENGTH)
    assert main(["verify", str(bundle)]) == 0
    assert "; pooled with judges colleague, llm" in capsys.readouterr().out
    files = read_bundle(bundle)
    verdicts = [json.loads(line) for line in files["judges.jsonl"].splitlines()]
    assert len(verdicts) == 5 * pl.CASES  # the colleague's, and the LLM's four a case
    recorded = json.loads(files["manifest.json"])["settings"]["with_judges"]
    assert [(j["judge"], j["kind"], j["verdicts"], j["weight"]) for j in recorded] == [
        ("colleague", "human", pl.CASES, 1.0),
        ("llm", "model", 4 * pl.CASES, 0.25),
    ]
    for judge in recorded:
        (source,) = judge["sources"]
        assert {v["source_sha256"] for v in verdicts if v["judge"] == judge["judge"]} == {
            source["sha256"]
        }
        assert (source["format"], source["signer"]) == ("native", None)


def test_a_forged_verdict_is_reported(bundle):
    path = bundle / "judges.jsonl"
    rows = _rows(path)
    rows[0]["winner"] = {"left": "right", "right": "left", "tie": "left"}[rows[0]["winner"]]
    _write(path, rows)
    assert any(
        "the judges' comparisons are not those judges.jsonl gives" in p
        and "1 not from any verdict, 1 verdicts missing" in p
        for p in _content_problems(bundle)
    )


def test_a_dropped_verdict_is_reported_from_either_file(bundle, tmp_path):
    path = bundle / "judges.jsonl"
    _write(path, _rows(path)[1:])
    problems = _content_problems(bundle)
    assert any("1 not from any verdict, 0 verdicts missing" in p for p in problems)
    assert (
        f"manifest.json: judge colleague verdicts: recorded {pl.CASES}, judges.jsonl gives "
        f"{pl.CASES - 1}" in problems
    )


def test_a_comparison_dropped_is_a_verdict_missing(bundle):
    path = bundle / "comparisons.jsonl"
    rows = _rows(path)
    first = next(i for i, r in enumerate(rows) if r["source"] == "judge")
    _write(path, rows[:first] + rows[first + 1 :])
    assert any("0 not from any verdict, 1 verdicts missing" in p for p in _content_problems(bundle))


def test_a_changed_weight_is_reported(bundle):
    path = bundle / "comparisons.jsonl"
    rows = _rows(path)
    for row in rows:
        if row["actor"] == "judge:llm":  # weighed as much as every verdict of the colleague
            row["weight"] = row["fitted_weight"] = 1.0
    _write(path, rows)
    problems = _content_problems(bundle)
    assert (
        "comparisons.jsonl: judge:llm's verdicts weigh 1; pooling gives 0.25 (the rater's "
        "fitted votes over the judge's fitted verdicts, at most 1)" in problems
    )


def test_judges_verdicts_in_a_round_of_the_raters_alone_are_reported(ledger, tmp_path):
    pl.build(ledger, tmp_path)
    pl.add_judges(ledger, tmp_path)
    alone = close_round(ledger, pl.FAMILY, RoundSettings())
    close_round(ledger, pl.FAMILY, RoundSettings(with_judges=("colleague",)))
    export_round(ledger, tmp_path / "pooled", family=pl.FAMILY)
    export_round(ledger, tmp_path / "alone", round_id=alone.round_id)
    assert "judges.jsonl" not in read_bundle(tmp_path / "alone")
    # The pooled round's judge rows slipped into the rater's own round.
    judged = [r for r in _rows(tmp_path / "pooled" / "comparisons.jsonl") if r["source"] == "judge"]
    rows = _rows(tmp_path / "alone" / "comparisons.jsonl")
    _write(tmp_path / "alone" / "comparisons.jsonl", rows + judged)
    assert (
        "comparisons.jsonl: judges' verdicts in a round that pools no judge"
        in _content_problems(tmp_path / "alone")
    )


def test_a_colleagues_bundle_pooled_records_its_signer_and_verifies(tmp_path):
    key = Ed25519PrivateKey.generate()
    signer = fingerprint(key.public_key())
    theirs, mine = tmp_path / "theirs.sqlite", tmp_path / "mine.sqlite"
    # The colleague cast the same choices: their own votes, not this ledger's.
    for path, actor in ((theirs, "colleague"), (mine, "rater")):
        with Ledger.open(path) as ledger:
            pl.build(ledger, tmp_path, actor)
    with Ledger.open(theirs) as ledger:
        close_round(ledger, pl.FAMILY, RoundSettings())
        export_round(ledger, tmp_path / "theirs.zip", family=pl.FAMILY, key=key)
    assert main(["--ledger", str(mine), "judges", "import", str(tmp_path / "theirs.zip"),
                 "--family", pl.FAMILY, "--judge", "colleague", "--kind", "human",
                 "--format", "bundle", "--signer", signer]) == 0  # fmt: skip
    with Ledger.open(mine) as ledger:
        pooled = close_round(ledger, pl.FAMILY, RoundSettings(with_judges=("colleague",)))
        export_round(ledger, tmp_path / "pooled", family=pl.FAMILY)
    manifest = read_bundle(tmp_path / "theirs.zip")["manifest.json"]
    (entry,) = pooled.judges
    assert entry.sources == (JudgeSource(hashlib.sha256(manifest).hexdigest(), "bundle", signer),)
    assert (entry.verdicts, entry.fitted, entry.weight) == (pl.CASES, pl.CASES, 1.0)
    report = verify_bundle(tmp_path / "pooled")
    assert report.ok, report.problems


def test_the_raters_own_bundle_pooled_as_a_colleagues_is_refused_then_reported(
    ledger, tmp_path, monkeypatch, capsys
):
    from arena.bundle import colleague

    key = Ed25519PrivateKey.generate()
    signer = fingerprint(key.public_key())
    pl.build(ledger, tmp_path)
    close_round(ledger, pl.FAMILY, RoundSettings())
    export_round(ledger, tmp_path / "mine.zip", family=pl.FAMILY, key=key)
    args = {"family": pl.FAMILY, "judge": "me", "kind": "human", "signer": signer}
    with pytest.raises(BadInput, match="of its votes are this ledger's own"):
        colleague.import_bundle(ledger, tmp_path / "mine.zip", **args)
    # With the import's checks off, the rater's votes are pooled twice: verify says so.
    monkeypatch.setattr("arena.ledger.judge_store.votes_held", lambda *_: [])
    colleague.import_bundle(ledger, tmp_path / "mine.zip", **args)
    close_round(ledger, pl.FAMILY, RoundSettings(with_judges=("me",)))
    export_round(ledger, tmp_path / "twice", family=pl.FAMILY, key=key)
    problems = verify_bundle(tmp_path / "twice").problems
    assert problems == [
        f"manifest.json: judge me's bundle {_manifest_sha(tmp_path / 'mine.zip')[:12]} is signed "
        f"by this bundle's own signer ({signer}): the rater's votes pooled again as a colleague's"
    ]
    export_round(ledger, tmp_path / "other", family=pl.FAMILY)  # another key: not reported
    assert verify_bundle(tmp_path / "other").ok


def _manifest_sha(bundle):
    return hashlib.sha256(read_bundle(bundle)["manifest.json"]).hexdigest()


def test_a_judge_recorded_otherwise_in_the_manifest_is_reported(bundle):
    path = bundle / "manifest.json"
    manifest = json.loads(path.read_text("utf-8"))
    manifest["settings"]["with_judges"][1]["weight"] = 1.0  # the LLM, weighed as a colleague
    path.write_text(json.dumps(manifest), "utf-8")
    assert "manifest.json: judge llm weight: recorded 1.0, judges.jsonl gives 0.25" in (
        _content_problems(bundle)
    )


def test_a_prediction_powered_round_verifies_and_its_lam_is_checked(ledger, tmp_path):
    from tests.rounds.test_pooled import _echo

    pl.build(ledger, tmp_path)
    pl.add_judge(ledger, tmp_path, "echo", _echo() + pl.llm(), kind="model")
    found = close_round(ledger, pl.FAMILY, RoundSettings(with_judges=("echo",)))
    assert found.judges[0].lam > 0
    out = tmp_path / "powered"
    export_round(ledger, out, family=pl.FAMILY)
    report = verify_bundle(out)
    assert report.ok, report.problems
    assert report.intervals == 2 * len(pl.STRENGTH)  # the sandwich ones, again
    manifest = json.loads((out / "manifest.json").read_text("utf-8"))
    manifest["settings"]["with_judges"][0]["lam"] = 0.0
    (out / "manifest.json").write_text(json.dumps(manifest, sort_keys=True), "utf-8")
    assert any("judge echo: lam and effective votes" in p for p in _content_problems(out))
