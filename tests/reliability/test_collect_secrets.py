"""The API key `arena collect` sends is in no file it leaves behind: not in the ledger
(or its WAL) and its folder, the user data folder, an exported bundle (folder or .zip),
nor in what the command prints, even when the endpoint echoes it back."""

from __future__ import annotations

import json
from pathlib import Path

from arena.bundle.export import export_round
from arena.cli.main import main
from arena.ledger import Ledger, catalog
from arena.rating.session import RatingSession
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings
from tests.collecting.helpers import KEY, make_family
from tests.graded.fake_endpoint import Echo, EchoToken, Fail, FakeEndpoint


def _forms(secret: str) -> list[bytes]:
    return [
        secret.encode(),
        json.dumps(secret)[1:-1].encode(),
        "".join(f"\\u{ord(c):04x}" for c in secret).encode(),
    ]


def _files(*folders: Path) -> dict[str, bytes]:
    return {str(f): f.read_bytes() for folder in folders for f in folder.rglob("*") if f.is_file()}


def test_the_key_is_sent_and_never_stored_printed_or_exported(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ARENA_COLLECT_TEST_KEY", KEY)
    folder = tmp_path / "ledger"
    folder.mkdir()
    ledger_path = folder / "arena.sqlite"
    script = {
        "Question 1, turn 1.": [EchoToken()],
        "Question 2, turn 2.": [EchoToken()],
        "Question 3, turn 1.": [Fail(500, body='{"error": {"message": "bad key TOKEN"}}'), Echo()],
        "Question 4, turn 1.": [Fail(401, body='{"error": {"message": "invalid key TOKEN"}}')],
    }
    with FakeEndpoint(script, default=Echo()) as server:
        make_family(ledger_path, tmp_path, server.url, cases=6)
        code = main(["--ledger", str(ledger_path), "collect", "--family", "fam", "--workers", "3"])
        json_code = main(["--ledger", str(ledger_path), "collect", "--family", "fam", "--json"])
        sent = [r.headers.get("Authorization") for r in server.requests]
    printed = capsys.readouterr()
    assert (code, json_code) == (1, 1)  # case 4 fails each time: reported, not stored
    assert "invalid key [REDACTED]" in printed.out and "HTTP 401" in printed.out
    assert set(sent) == {f"Bearer {KEY}"}  # the control: the key was used
    with Ledger.open(ledger_path) as ledger:
        outputs = catalog.outputs(ledger, "fam")
        assert len(outputs) == 10 and any("[REDACTED]" in o.text for o in outputs)
        session = RatingSession(ledger, "fam", seed=2)
        for choice in ("left", "right", "tie", "both_bad"):
            session.vote(choice)
        close_round(ledger, "fam", RoundSettings())
        export_round(ledger, tmp_path / "bundle", family="fam")
        export_round(ledger, tmp_path / "export" / "bundle.zip", family="fam")
    found = _files(folder, tmp_path / "bundle", tmp_path / "export")
    found |= {"stdout": printed.out.encode(), "stderr": printed.err.encode()}
    found |= _files(Path.home())  # the user data folder (the tests' own HOME)
    leaks = [name for name, blob in found.items() for form in _forms(KEY) if form in blob]
    assert leaks == []
    assert any(name.endswith("arena.sqlite") for name in found)
