"""A key too short to be redacted is never sent: `arena collect` refuses it first."""

from __future__ import annotations

from arena.cli.main import main
from arena.ledger import Ledger
from tests.collecting.helpers import make_family
from tests.graded.fake_endpoint import FakeEndpoint


def test_a_four_character_key_is_refused_before_any_request(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ARENA_COLLECT_TEST_KEY", "k3y!")
    path = tmp_path / "ledger.sqlite"
    with FakeEndpoint() as server:
        make_family(path, tmp_path, server.url, cases=2)
        assert main(["--ledger", str(path), "collect", "--family", "fam"]) == 2
        assert server.requests == []
    said = capsys.readouterr().err
    assert "ARENA_COLLECT_TEST_KEY has fewer than 8 letters and digits" in said
    assert "Traceback" not in said
    with Ledger.open(path) as ledger:
        assert ledger.conn.execute("SELECT count(*) FROM outputs").fetchone() == (0,)
