"""Graded answers from a file: native JSON Lines and inspect_ai eval logs score exactly as
the same answers collected from the scripted endpoint."""

import json

import pytest

from arena.cli.main import main
from arena.endpoint.run_settings import CollectSettings
from arena.errors import BadInput
from arena.graded.answer_import import import_answers
from arena.graded.runs import board, collect_run, receipts
from arena.graded.suites import load_suite
from arena.ledger import catalog
from arena.ledger import run_store as stored
from tests.graded.fake_endpoint import Fail, FakeEndpoint, Reply

# What must be equal between a collected and an imported run of the same answers.
RECEIPT_KEYS = (
    "task_id",
    "category",
    "suite_hash",
    "input_hash",
    "output",
    "output_hash",
    "finish_reason",
    "latency_ms",
    "status",
    "credit",
    "passed",
    "parsed_answer",
)
ROW_KEYS = (
    "rank",
    "headline",
    "ci95",
    "passed",
    "tasks",
    "coverage",
    "categories",
    "suite",
    "cost_per_output",
    "p50_latency_ms",
)


@pytest.fixture(scope="module")
def starter():
    return load_suite("starter")


def _script(suite):
    """Right, wrong, refused, cut off by a content filter, failed: one of each at least."""
    script = {}
    for i, task in enumerate(suite.tasks):
        if i % 6 == 1:
            script[task.input] = [Reply("I am not sure.\nAnswer: 7")]
        elif i == 2:
            script[task.input] = [Reply("I can't help with that.")]
        elif i == 3:
            script[task.input] = [Reply(task.reference, finish_reason="content_filter")]
        elif i in (4, 11):
            script[task.input] = [Fail(500)]
        else:
            script[task.input] = [Reply(task.reference)]
    return script


def _collected(ledger, suite):
    with FakeEndpoint(_script(suite)) as server:
        settings = CollectSettings(
            endpoint=server.url, model="tiny", timeout_s=2.0, retries=0, workers=3
        )
        collect_run(ledger, suite, settings, family="collected", label="tiny")
    return {r["task_id"]: r for r in receipts(ledger, "collected")}


def _native_lines(ledger, collected):
    outputs = {o.case_id: o for o in catalog.outputs(ledger, "collected")}
    lines = []
    for task_id, receipt in collected.items():
        output = outputs.get(task_id)
        record = {
            "task_id": task_id,
            "output": output.text if output else None,
            "latency_ms": receipt["latency_ms"],  # a failed request's too
        }
        if output:
            record |= {
                "finish_reason": output.finish_reason,
                "prompt_tokens": output.prompt_tokens,
                "completion_tokens": output.completion_tokens,
                "cost": output.cost,
            }
        lines.append(json.dumps(record))
    return "\n".join(lines) + "\n"


def _eval_log(ledger, collected):
    outputs = {o.case_id: o for o in catalog.outputs(ledger, "collected")}
    stops = {"length": "max_tokens"}
    samples = []
    for task_id in collected:
        output = outputs.get(task_id)
        sample = {"id": task_id, "epoch": 1, "input": "...", "target": "", "scores": {}}
        if output is None:
            sample["output"] = {"model": "openai/tiny", "choices": []}
            sample["error"] = {"message": "RuntimeError: 500", "traceback": ""}
        else:
            sample["output"] = {
                "model": "openai/tiny",
                "choices": [
                    {
                        "message": {"role": "assistant", "content": output.text},
                        "stop_reason": stops.get(output.finish_reason, output.finish_reason),
                    }
                ],
                "completion": output.text,
                "usage": {"input_tokens": 12, "output_tokens": 5, "total_tokens": 17},
                "time": output.latency_ms / 1000,
            }
        samples.append(sample)
    return {
        "version": 2,
        "status": "success",
        "eval": {
            "task": "starter",
            "model": "openai/tiny",
            "packages": {"inspect_ai": "0.3.99"},
        },
        "samples": samples,
    }


def _same_run(ledger, family):
    want = {k: v for k, v in board(ledger, "collected", seed=3)[0].items() if k in ROW_KEYS}
    got = {k: v for k, v in board(ledger, family, seed=3)[0].items() if k in ROW_KEYS}
    assert got == want
    full = {k: v for k, v in board(ledger, family, seed=3)[0].items()}
    assert full["status_counts"] == board(ledger, "collected", seed=3)[0]["status_counts"]
    collected = [{k: r[k] for k in RECEIPT_KEYS} for r in receipts(ledger, "collected")]
    imported = [{k: r[k] for k in RECEIPT_KEYS} for r in receipts(ledger, family)]
    assert sorted(imported, key=lambda r: r["task_id"]) == sorted(
        collected, key=lambda r: r["task_id"]
    )


def test_native_answers_score_exactly_as_collected(ledger, starter, tmp_path):
    collected = _collected(ledger, starter)
    assert {r["status"] for r in collected.values()} >= {"ok", "refusal", "missing"}
    answers = tmp_path / "answers.jsonl"
    answers.write_text(_native_lines(ledger, collected))
    report = import_answers(
        ledger, answers, suite="starter", family="imported", model="tiny", label="tiny-file"
    )
    assert (report.answers, report.tasks) == (24, 24)
    assert report.status_counts == {"ok": 22, "no_answer": 2}
    _same_run(ledger, "imported")
    # Honest about its origin: no endpoint, the harness that produced it, the same suite,
    # contract and parser as collect.
    by_label = {s.label: s.descriptor for s in catalog.systems(ledger)}
    mine, theirs = by_label["tiny-file"], by_label["tiny"]
    assert mine.harness == "imported" and mine.inference["endpoint"] is None
    assert mine.inference["source"] == "answers-jsonl" and mine.retry_policy is None
    for name in ("suite_hash", "answer_contract", "parser", "model"):
        assert getattr(mine, name) == getattr(theirs, name)
    assert stored.runs(ledger, "imported")[report.system_id]["endpoint"] == ""


def test_an_inspect_eval_log_scores_exactly_as_collected(ledger, starter, tmp_path):
    collected = _collected(ledger, starter)
    log = tmp_path / "2025-01-01_starter.json"
    log.write_text(json.dumps(_eval_log(ledger, collected)))
    report = import_answers(ledger, log, suite="collected", family="from-inspect")
    assert report.label == "openai/tiny"
    (row,) = board(ledger, "from-inspect", seed=3)
    want = board(ledger, "collected", seed=3)[0]
    for key in ("headline", "ci95", "categories", "passed", "coverage", "status_counts"):
        assert row[key] == want[key], key
    descriptor = catalog.systems(ledger, "from-inspect")[0].descriptor
    assert descriptor.harness == "inspect_ai/0.3.99"
    assert descriptor.inference["source"] == "inspect_ai-eval-log"


def _state(ledger):
    return (
        len(catalog.systems(ledger)),
        len(catalog.outputs(ledger, "imported")),
        stored.runs(ledger, "imported"),
        stored.latest_attempts(ledger, "imported"),
        catalog.get_family(ledger, "imported"),
    )


@pytest.mark.parametrize(
    ("lines", "where"),
    [
        (
            [
                '{"task_id": "reasoning-01", "output": "Answer: 1"}',
                '{"task_id": "nope", "output": "x"}',
            ],
            ":2: task_id: task 'nope' is not in the suite 'starter'",
        ),
        (
            [
                '{"task_id": "reasoning-01", "output": "a"}',
                '{"task_id": "reasoning-01", "output": "b"}',
            ],
            ":2: task_id: a second answer to task 'reasoning-01'",
        ),
        (['{"task_id": "reasoning-01", "output": "a", "score": 1}'], ":1: score: not a field"),
        (['{"task_id": "reasoning-01"}'], ":1: output: required"),
        (['{"task_id": "reasoning-01", "output": 3}'], ":1: output: expected a string or null"),
        (['{"task_id": "reasoning-01", "output": "a", "latency_ms": -1}'], ":1: latency_ms:"),
        (['{"task_id": "reasoning-01", "output": "a"}', "{oops"], ":2: not JSON"),
    ],
)
def test_a_file_that_does_not_match_is_refused_and_changes_nothing(
    ledger, starter, tmp_path, lines, where
):
    _collected(ledger, starter)
    before = _state(ledger)
    answers = tmp_path / "answers.jsonl"
    answers.write_text("\n".join(lines) + "\n")
    with pytest.raises(BadInput) as refused:
        import_answers(ledger, answers, suite="starter", family="imported", model="m")
    assert str(refused.value).startswith(f"{answers}{where}"), str(refused.value)
    assert _state(ledger) == before


def test_a_suite_the_ledger_does_not_hold_is_refused(ledger, tmp_path):
    answers = tmp_path / "answers.jsonl"
    answers.write_text('{"task_id": "reasoning-01", "output": "Answer: 1"}\n')
    with pytest.raises(BadInput, match="no suite 'starter' in this ledger"):
        import_answers(ledger, answers, suite="starter", model="m")
    assert catalog.families(ledger) == []


def test_eval_log_refusals_name_the_field(ledger, starter, tmp_path):
    collected = _collected(ledger, starter)
    log = _eval_log(ledger, collected)
    log["samples"][5]["epoch"] = 2
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log))
    with pytest.raises(BadInput, match=r"samples\[5\]\.epoch: epoch 2"):
        import_answers(ledger, path, suite="starter", family="imported")
    log["samples"][5]["epoch"] = 1
    log["samples"][7]["id"] = "elsewhere-1"
    path.write_text(json.dumps(log))
    with pytest.raises(BadInput, match=r"samples\[7\]\.id: task 'elsewhere-1' is not in"):
        import_answers(ledger, path, suite="starter", family="imported")
    with pytest.raises(BadInput, match="eval.model: the eval log names the model"):
        import_answers(ledger, path, suite="starter", family="imported", model="other")


def test_the_cli_imports_graded_answers_and_needs_a_suite(capsys, ledger_path, starter, tmp_path):
    from arena.ledger import Ledger

    with Ledger.open(ledger_path) as ledger:
        collected = _collected(ledger, starter)
        text = _native_lines(ledger, collected)
    answers = tmp_path / "answers.jsonl"
    answers.write_text(text)
    base = ["--ledger", str(ledger_path), "import", str(answers), "--kind", "graded"]
    assert main(base) == 2
    assert "--suite: graded answers are graded against a suite" in capsys.readouterr().err
    assert main([*base, "--suite", "starter", "--model", "tiny", "--label", "t2"]) == 0
    assert "24 answers to 24 tasks of starter graded as t2 in starter" in capsys.readouterr().out
    assert main(["--ledger", str(ledger_path), "grade", "starter", "--json", "--seed", "3"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["systems"]
    with Ledger.open(ledger_path) as ledger:
        want = board(ledger, "collected", seed=3)[0]
    assert (row["headline"], row["ci95"], row["categories"]) == (
        want["headline"],
        want["ci95"],
        want["categories"],
    )
    assert main(["--ledger", str(ledger_path), "import", str(answers)]) == 2
    assert "--family: name the family" in capsys.readouterr().err
