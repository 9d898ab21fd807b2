"""Graded families end to end: collect from an endpoint, grade, close, export, verify."""

import json
from pathlib import Path

import pytest

from arena.bundle.export import export_round
from arena.bundle.verify import verify_bundle
from arena.endpoint.run_settings import CollectSettings
from arena.errors import BadInput
from arena.graded.runs import board, collect_run, feed_votes, receipts, regrade
from arena.graded.suites import load_suite
from arena.ledger import catalog
from arena.ledger import run_store as stored
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings
from tests.bundle.rebundle import rehash
from tests.graded.fake_endpoint import EchoToken, Fail, FakeEndpoint, Reply

SECRET = "sk-graded-0123456789abcdef"


@pytest.fixture(scope="module")
def starter():
    return load_suite("starter")


def _script(suite, wrong=(), failing=(), echo=()):
    script = {}
    for task in suite.tasks:
        if task.task_id in failing:
            script[task.input] = [Fail(500)]
        elif task.task_id in echo:
            script[task.input] = [EchoToken()]
        elif task.task_id in wrong:
            script[task.input] = [Reply("I am not sure.\nAnswer: 7")]
        else:
            script[task.input] = [Reply(task.reference)]
    return script


def _settings(url, **changes):
    return CollectSettings(
        endpoint=url,
        model="tiny",
        timeout_s=2.0,
        retries=1,
        backoff_s=0.01,
        workers=3,
        **changes,
    )


def test_a_run_is_collected_graded_and_scored(ledger, starter):
    wrong = {t.task_id for t in starter.tasks[:4]}
    with FakeEndpoint(_script(starter, wrong=wrong)) as server:
        report = collect_run(
            ledger,
            starter,
            _settings(server.url),
            tier="reference",
            revision="r1",
            artifact_digest="sha256:" + "0" * 64,
        )
    assert report.summary.delivered == 24 and report.family == "starter"
    (row,) = board(ledger, "starter", seed=1)
    assert (row["passed"], row["tasks"], row["coverage"], row["tier"]) == (20, 24, 1.0, "reference")
    # The first four tasks are reasoning tasks: that category scores 2/6, the others 1.
    assert row["categories"]["reasoning"] == pytest.approx(2 / 6)
    assert row["headline"] == pytest.approx((2 / 6 + 3) / 4)
    low, high = row["ci95"]
    assert low <= row["headline"] <= high
    assert board(ledger, "starter", seed=1)[0]["ci95"] == [low, high]


def test_failed_items_are_recorded_and_a_second_run_resumes(ledger, starter):
    failing = {starter.tasks[5].task_id, starter.tasks[9].task_id}
    with FakeEndpoint(_script(starter, failing=failing)) as server:
        first = collect_run(ledger, starter, _settings(server.url))
        assert first.summary.status_counts["http_error"] == 2
        (row,) = board(ledger, "starter", seed=0)
        assert row["coverage"] == pytest.approx(22 / 24) and row["passed"] == 22
        server.script = _script(starter)
        second = collect_run(ledger, starter, _settings(server.url))
        assert (second.summary.skipped, second.summary.delivered) == (22, 2)
        assert server.seen(starter.tasks[0].input) == 1, "a done task was asked again"
    (row,) = board(ledger, "starter", seed=0)
    assert row["passed"] == 24
    statuses = [a["status"] for a in ledger.db["attempts"].rows]
    assert statuses.count("http_error") == 2 and statuses.count("ok") == 24


def test_changing_the_run_tuple_makes_a_new_system(ledger, starter):
    with FakeEndpoint(_script(starter)) as server:
        a = collect_run(ledger, starter, _settings(server.url), label="tiny-t0")
        b = collect_run(
            ledger, starter, _settings(server.url, inference={"temperature": 0.5}), label="tiny-t5"
        )
        with pytest.raises(BadInput, match="needs its own label"):
            collect_run(
                ledger,
                starter,
                _settings(server.url, inference={"temperature": 0.7}),
                label="tiny-t0",
            )
    assert a.system_id != b.system_id
    assert len(stored.runs(ledger, "starter")) == 2


def test_an_echoed_bearer_token_never_reaches_the_ledger_or_a_bundle(
    ledger, starter, monkeypatch, tmp_path
):
    monkeypatch.setenv("GRADED_KEY", SECRET)
    echo = {t.task_id for t in starter.tasks[:6]}
    with FakeEndpoint(_script(starter, echo=echo)) as server:
        collect_run(ledger, starter, _settings(server.url, api_key_env="GRADED_KEY"))
    close_round(ledger, "starter", RoundSettings(seed=3))
    export_round(ledger, tmp_path / "bundle", family="starter")
    ledger.db.execute("PRAGMA wal_checkpoint(PASSIVE)")
    files = [Path(ledger.path), Path(ledger.path + "-wal"), *(tmp_path / "bundle").iterdir()]
    for file in files:
        if file.exists():
            assert SECRET.encode() not in file.read_bytes(), file
    texts = [r["output"] for r in receipts(ledger, "starter")[:6]]
    assert all("[REDACTED]" in t for t in texts)


def test_a_graded_round_shows_its_scores_exports_and_verifies(ledger, starter, tmp_path, capsys):
    from arena.cli.main import main

    with FakeEndpoint(_script(starter, wrong={starter.tasks[-1].task_id})) as server:
        collect_run(ledger, starter, _settings(server.url), label="tiny")
    closed = close_round(ledger, "starter", RoundSettings(seed=7))
    (row,) = closed.systems
    assert row.passed == 23 and closed.settings.seed == 7
    out = tmp_path / "b.zip"
    export_round(ledger, out, family="starter")
    report = verify_bundle(out)
    assert report.ok, report.problems
    path = ledger.path
    ledger.close()
    assert main(["--ledger", path, "round", "show", "--json"]) == 0
    (shown,) = json.loads(capsys.readouterr().out)["systems"]
    assert {"headline", "ci95", "passed", "tasks", "coverage", "categories", "tier"} <= set(shown)
    assert shown["ci95"] == row.ci95


def test_verify_catches_a_receipt_whose_grade_was_changed(ledger, starter, tmp_path):

    with FakeEndpoint(_script(starter, wrong={starter.tasks[0].task_id})) as server:
        collect_run(ledger, starter, _settings(server.url))
    close_round(ledger, "starter", RoundSettings())
    out = tmp_path / "b"
    export_round(ledger, out, family="starter")
    lines = (out / "receipts.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    first.update(status="ok", credit=1.0, passed=True)
    lines[0] = json.dumps(first, sort_keys=True)
    (out / "receipts.jsonl").write_text("\n".join(lines) + "\n")
    rehash(out)
    assert any("graded again" in p for p in verify_bundle(out).problems)


def test_regrade_stores_only_changed_grades_and_outputs_feed_a_votes_family(ledger, starter):
    with FakeEndpoint(_script(starter)) as server:
        collect_run(ledger, starter, _settings(server.url))
    before = ledger.db["grades"].count
    assert regrade(ledger, "starter") == 0 and ledger.db["grades"].count == before
    assert feed_votes(ledger, "starter", "starter-votes") == 24
    assert catalog.get_family(ledger, "starter-votes").kind == "votes"
    assert feed_votes(ledger, "starter", "starter-votes") == 0


def test_verified_is_refused(ledger, starter):
    with pytest.raises(BadInput, match="verified"):
        collect_run(ledger, starter, _settings("http://127.0.0.1:9"), tier="verified")


def test_a_reference_run_must_name_its_pinned_artifact(ledger, starter):
    with pytest.raises(BadInput, match="--revision and --artifact-digest"):
        collect_run(ledger, starter, _settings("http://127.0.0.1:9"), tier="reference")
    assert catalog.families(ledger) == []


def test_the_run_tuple_names_the_suite_contract_harness_settings_and_host(ledger, starter):
    with FakeEndpoint(_script(starter)) as server:
        collect_run(ledger, starter, _settings(server.url), label="tiny")
    (system,) = catalog.systems(ledger, "starter")
    described = system.descriptor
    assert described.suite_hash == starter.manifest_hash
    assert described.answer_contract == "final_line, json_block, whole"  # its tasks' contracts
    assert len(described.harness_manifest or "") == 64
    assert set(described.runner) == {"os", "python", "arena", "cpu"}
    import getpass
    import socket

    shown = json.dumps(described.canonical())
    assert getpass.getuser() not in described.runner.values()
    assert socket.gethostname() not in shown
