"""Signed bundles: who signed is reported, a changed or re-signed bundle is caught."""

from __future__ import annotations

import json
import os
import stat
import zipfile

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from arena.bundle.export import export_round, zip_bytes
from arena.bundle.signing import SIGNATURE, fingerprint, load_or_create_key, sign
from arena.bundle.verify import verify_bundle
from arena.cli.main import main
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings
from tests.bundle.rebundle import rehash
from tests.votes_helpers import cast


@pytest.fixture
def closed(small_family):
    cast(small_family, case_index=0, choice="left")
    close_round(small_family, "small", RoundSettings())
    return small_family


def test_the_key_is_made_once_owner_only_outside_the_ledger(tmp_path, monkeypatch):
    path = tmp_path / "config" / "key.pem"
    monkeypatch.setenv("ARENA_SIGNING_KEY", str(path))
    first = load_or_create_key()
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    again = load_or_create_key()
    assert fingerprint(first.public_key()) == fingerprint(again.public_key())
    assert fingerprint(first.public_key()).startswith("ed25519:")


def test_a_bundle_is_signed_and_its_signer_reported(closed, tmp_path):
    key = Ed25519PrivateKey.generate()
    for out in (tmp_path / "b", tmp_path / "b.zip"):
        export_round(closed, out, family="small", key=key)
        report = verify_bundle(out)
        assert report.ok, report.problems
        assert report.signer == fingerprint(key.public_key())
        assert verify_bundle(out, signer=report.signer).ok
        other = fingerprint(Ed25519PrivateKey.generate().public_key())
        assert any("signed by" in p for p in verify_bundle(out, signer=other).problems)


def test_a_rehashed_forgery_fails_the_signature_and_a_resigned_one_shows_another_signer(
    closed, tmp_path
):
    rater = Ed25519PrivateKey.generate()
    out = tmp_path / "b"
    export_round(closed, out, family="small", key=rater)
    board = json.loads((out / "board.json").read_text("utf-8"))
    board["systems"].reverse()
    (out / "board.json").write_text(json.dumps(board), "utf-8")
    rehash(out)
    assert any("signature does not match" in p for p in verify_bundle(out).problems)
    # The forger signs with a key of their own: only the expected signer catches it.
    forger = Ed25519PrivateKey.generate()
    (out / SIGNATURE).write_bytes(sign((out / "manifest.json").read_bytes(), forger))
    report = verify_bundle(out, signer=fingerprint(rater.public_key()))
    assert report.signer == fingerprint(forger.public_key())
    assert any(f"not by {fingerprint(rater.public_key())}" in p for p in report.problems)


def test_an_unsigned_bundle_is_refused_unless_allowed(closed, tmp_path):
    out = tmp_path / "b"
    export_round(closed, out, family="small", key=Ed25519PrivateKey.generate())
    (out / SIGNATURE).unlink()
    assert any("unsigned" in p for p in verify_bundle(out).problems)
    report = verify_bundle(out, allow_unsigned=True)
    assert report.ok and report.signer is None


def _zip_with(tmp_path, name, entries):
    path = tmp_path / name
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for entry, data in entries.items():
            archive.writestr(entry, data)
    return path


def test_zip_bombs_and_odd_entry_names_are_refused_before_reading(tmp_path):
    bomb = _zip_with(tmp_path, "bomb.zip", {"board.json": b"0" * 50_000_000})
    assert bomb.stat().st_size < 100_000
    assert any("stored file" in p for p in verify_bundle(bomb).problems)
    stored = tmp_path / "up.zip"
    stored.write_bytes(zip_bytes({"../manifest.json": b"{}"}))
    assert any("plain name" in p for p in verify_bundle(stored).problems)


def test_export_leaves_nothing_under_the_name_when_it_fails(closed, tmp_path, monkeypatch):
    import arena.bundle.export as bundle

    def full_disk(path, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(bundle, "_write_synced", full_disk)
    for out in (tmp_path / "b.zip", tmp_path / "b"):
        with pytest.raises(OSError):
            export_round(closed, out, family="small", key=Ed25519PrivateKey.generate())
        assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".b")) == []


def test_the_cli_prints_the_fingerprint_and_verify_checks_the_signer(
    closed, tmp_path, capsys, monkeypatch
):
    monkeypatch.setenv("ARENA_SIGNING_KEY", str(tmp_path / "key.pem"))
    path = closed.path
    closed.close()
    assert main(["key", "--json"]) == 0
    signer = json.loads(capsys.readouterr().out)["fingerprint"]
    out = tmp_path / "b.zip"
    assert main(["--ledger", path, "export", "--family", "small", "--out", str(out)]) == 0
    assert signer in capsys.readouterr().out
    assert main(["verify", str(out), "--signer", signer, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["signer"] == signer
    assert main(["verify", str(out), "--signer", "ed25519:" + "0" * 32]) == 1


def test_verify_without_signer_says_the_signer_was_not_checked(
    closed, tmp_path, capsys, monkeypatch
):
    monkeypatch.setenv("ARENA_SIGNING_KEY", str(tmp_path / "key.pem"))
    path = closed.path
    closed.close()
    out = tmp_path / "b.zip"
    assert main(["--ledger", path, "export", "--family", "small", "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["verify", str(out)]) == 0
    text = capsys.readouterr().out
    assert "signer not checked: pass --signer FINGERPRINT" in text
    assert "anyone can re-sign" in text
    assert main(["verify", str(out), "--json"]) == 0
    unchecked = json.loads(capsys.readouterr().out)
    assert (unchecked["signer_checked"], unchecked["signer_note"]) == (
        False,
        verify_bundle(out).signer_note,
    )
    assert unchecked["signer_note"].startswith("signer not checked")
    signer = unchecked["signer"]
    assert main(["verify", str(out), "--signer", signer, "--json"]) == 0
    checked = json.loads(capsys.readouterr().out)
    assert (checked["signer_checked"], checked["signer_note"]) == (True, None)
    assert main(["verify", str(out), "--signer", signer]) == 0
    assert "signer not checked" not in capsys.readouterr().out
