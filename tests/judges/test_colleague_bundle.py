"""A colleague's bundle: imported only after it verifies against --signer; refused otherwise."""

from __future__ import annotations

import hashlib

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from arena.bundle.export import export_round, read_bundle, zip_bytes
from arena.bundle.signing import SIGNATURE, fingerprint
from arena.cli.main import main
from arena.intake.outputs import import_file
from arena.ledger import Ledger, catalog, judge_store, voting
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings
from tests.votes_helpers import show_and_vote

KEY = Ed25519PrivateKey.generate()
SIGNER = fingerprint(KEY.public_key())


@pytest.fixture
def bundle(small_family, tmp_path):
    """The colleague's round on family small, as a signed .zip: four votes in force (left,
    both_bad, skip, right), one retracted."""
    ledger = small_family
    labels = {s.system_id: s.label for s in catalog.systems(ledger, "small")}
    by = {(o.case_id, labels[o.system_id]): o for o in catalog.outputs(ledger, "small")}
    session = voting.start_session(ledger, "small", seed=1)
    shown = [("c1", "alpha", "beta", "left"), ("c2", "gamma", "alpha", "both_bad"),
             ("c3", "beta", "gamma", "skip"), ("c4", "gamma", "beta", "right"),
             ("c1", "beta", "gamma", "left")]  # fmt: skip
    votes = [
        show_and_vote(ledger, session, by[case, left], by[case, right], choice)
        for case, left, right, choice in shown
    ]
    voting.retract(ledger, votes[-1].vote_id)
    close_round(ledger, "small", RoundSettings())
    out = tmp_path / "colleague.zip"
    export_round(ledger, out, family="small", key=KEY)
    return out


@pytest.fixture
def mine(tmp_path, small_family_file):
    """My ledger: the same outputs, in a family named otherwise."""
    path = tmp_path / "mine.sqlite"
    with Ledger.open(path) as ledger:
        import_file(ledger, small_family_file, family="mine", fmt="native")
    return str(path)


def _import(ledger, bundle, signer=SIGNER):
    return main(["--ledger", ledger, "judges", "import", str(bundle), "--family", "mine",
                 "--judge", "colleague", "--kind", "human", "--format", "bundle",
                 "--signer", signer])  # fmt: skip


def _verdicts(ledger):
    with Ledger.open(ledger, readonly=True) as opened:
        labels = {s.system_id: s.label for s in catalog.systems(opened, "mine")}
        rows = judge_store.verdicts(opened, "mine")
        return [(v.case_id, labels[v.left_system], labels[v.right_system], v.winner) for v in rows]


def test_a_verified_bundle_becomes_the_judges_verdicts(bundle, mine, capsys):
    assert _import(mine, bundle) == 0
    assert "3 verdicts added from 4 records, 1 without a verdict skipped" in capsys.readouterr().out
    assert _verdicts(mine) == [
        ("c1", "alpha", "beta", "left"),
        ("c2", "gamma", "alpha", "tie"),
        ("c4", "gamma", "beta", "right"),
    ]
    manifest = read_bundle(bundle)["manifest.json"]
    with Ledger.open(mine, readonly=True) as ledger:
        [source] = judge_store.judge_sources(ledger, "mine", "colleague")
    assert (source.sha256, source.format, source.signer) == (
        hashlib.sha256(manifest).hexdigest(), "bundle", SIGNER,
    )  # fmt: skip
    assert _import(mine, bundle) == 0  # the same bundle again adds nothing
    assert "imported for this judge before" in capsys.readouterr().out
    assert len(_verdicts(mine)) == 3


def test_a_bundle_as_a_folder_is_the_same_source_as_its_zip(small_family, bundle, mine, capsys):
    folder = bundle.with_suffix("")
    export_round(small_family, folder, family="small", key=KEY)
    assert (folder / "manifest.json").read_bytes() == read_bundle(bundle)["manifest.json"]
    assert _import(mine, folder) == 0 and _import(mine, bundle) == 0
    assert "imported for this judge before" in capsys.readouterr().out
    assert len(_verdicts(mine)) == 3


def _rezipped(bundle, out, change):
    files = read_bundle(bundle)
    change(files)
    out.write_bytes(zip_bytes(files))
    return out


def test_a_tampered_unsigned_or_otherwise_signed_bundle_is_refused(bundle, mine, tmp_path, capsys):
    def edit(files):
        files["votes.jsonl"] = files["votes.jsonl"].replace(b'"both_bad"', b'"left"')

    tampered = _rezipped(bundle, tmp_path / "tampered.zip", edit)
    assert _import(mine, tampered) == 2
    err = capsys.readouterr().err
    assert "refused, nothing imported" in err and "votes.jsonl: sha256 differs" in err
    unsigned = _rezipped(bundle, tmp_path / "unsigned.zip", lambda f: f.pop(SIGNATURE))
    assert _import(mine, unsigned) == 2
    assert "the bundle is unsigned" in capsys.readouterr().err
    other = fingerprint(Ed25519PrivateKey.generate().public_key())
    assert _import(mine, bundle, other) == 2
    assert f"signed by {SIGNER}, not by {other}" in capsys.readouterr().err
    assert _verdicts(mine) == []
    with Ledger.open(mine, readonly=True) as ledger:
        assert judge_store.judge_sources(ledger, "mine") == []


def test_systems_or_cases_missing_here_are_named(bundle, tmp_path, capsys):
    lines = [line for line in (tmp_path / "small.jsonl").read_text().splitlines()
             if '"gamma"' not in line]  # fmt: skip
    (tmp_path / "two.jsonl").write_text("\n".join(lines) + "\n")
    path = tmp_path / "two.sqlite"
    with Ledger.open(path) as ledger:
        import_file(ledger, tmp_path / "two.jsonl", family="mine", fmt="native")
    assert _import(str(path), bundle) == 2
    assert "systems.jsonl: no such system in family 'mine': gamma (" in capsys.readouterr().err
    assert _verdicts(str(path)) == []


def test_the_signer_goes_with_bundles_only(bundle, mine, capsys):
    assert main(["--ledger", mine, "judges", "import", str(bundle), "--family", "mine",
                 "--judge", "colleague", "--kind", "human", "--format", "bundle"]) == 2  # fmt: skip
    assert "--signer: only with --format bundle" in capsys.readouterr().err


def test_a_bundle_signed_by_your_own_key_is_refused(bundle, mine, tmp_path, monkeypatch, capsys):
    from cryptography.hazmat.primitives import serialization

    pem = KEY.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())  # fmt: skip
    (tmp_path / "own.pem").write_bytes(pem)
    monkeypatch.setenv("ARENA_SIGNING_KEY", str(tmp_path / "own.pem"))
    assert _import(mine, bundle) == 2
    assert f"{bundle}: --signer {SIGNER} is your own key" in capsys.readouterr().err
    assert _verdicts(mine) == []
    with Ledger.open(mine, readonly=True) as ledger:
        assert judge_store.judge_sources(ledger, "mine") == []
    # The rater's key being another, the same bundle is a colleague's.
    monkeypatch.setenv("ARENA_SIGNING_KEY", str(tmp_path / "no-key-yet.pem"))
    assert _import(mine, bundle) == 0 and len(_verdicts(mine)) == 3
    assert not (tmp_path / "no-key-yet.pem").exists()  # looking made no key


def test_a_bundle_of_this_ledgers_own_votes_is_refused_whoever_signed_it(small_family, bundle):
    from arena.bundle.colleague import import_bundle
    from arena.errors import BadInput

    with pytest.raises(BadInput, match="4 of its votes are this ledger's own") as refused:
        import_bundle(small_family, bundle, family="small", judge="me", kind="human",
                      signer=SIGNER)  # fmt: skip
    assert refused.value.path == str(bundle)
    assert judge_store.judge_sources(small_family, "small") == []


def test_a_later_bundle_of_the_colleague_adds_only_its_new_votes(
    small_family, bundle, mine, tmp_path, capsys
):
    assert _import(mine, bundle) == 0
    ledger = small_family
    labels = {s.system_id: s.label for s in catalog.systems(ledger, "small")}
    by = {(o.case_id, labels[o.system_id]): o for o in catalog.outputs(ledger, "small")}
    session = voting.start_session(ledger, "small", seed=2)
    # The same pair as shown in the first bundle, voted again: a second game, not a copy.
    for case, left, right, choice in (("c1", "alpha", "beta", "right"),
                                      ("c3", "alpha", "gamma", "tie")):  # fmt: skip
        show_and_vote(ledger, session, by[case, left], by[case, right], choice)
    close_round(ledger, "small", RoundSettings())
    later = tmp_path / "later.zip"
    export_round(ledger, later, family="small", key=KEY)
    capsys.readouterr()
    assert _import(mine, later) == 0
    assert "2 verdicts added from 6 records, 1 without a verdict skipped, 3 already stored" in (
        capsys.readouterr().out
    )
    with Ledger.open(mine, readonly=True) as opened:
        games = [(v.case_id, v.winner, v.game) for v in judge_store.verdicts(opened, "mine")]
    assert games == [("c1", "left", 1), ("c2", "tie", 1), ("c4", "right", 1),
                     ("c1", "right", 2), ("c3", "tie", 1)]  # fmt: skip
