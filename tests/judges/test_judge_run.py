"""`arena judges run`: an LLM judge asked over an endpoint, each (item, order) once."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from arena.cli.main import main
from arena.judges.running import reply_text
from arena.ledger import Ledger, integrity, judge_runs, judge_store
from tests.collecting.helpers import KEY
from tests.graded.fake_endpoint import FakeEndpoint, Judging, judged
from tests.judges.judge_run_helpers import KEY_ENV, answered_family, judge_file


def _run(ledger_path, *args: str) -> int:
    return main(["--ledger", str(ledger_path), "judges", "run", "--family", "fam", *args])


@pytest.fixture
def family(ledger_path, tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY)
    answered_family(ledger_path, tmp_path, cases=8)
    return ledger_path


def test_every_item_in_both_orders_once_unparsed_kept_and_shown(family, tmp_path, capsys):
    with FakeEndpoint(default=Judging(unparsed_every=4)) as server:
        judges = judge_file(tmp_path, server.url)
        code = _run(family, "--judge", "gpt-judge", "--systems", str(judges), "--json")
        first = json.loads(capsys.readouterr().out)
        again = _run(family, "--judge", "gpt-judge", "--json")  # resumed from the ledger
        second = json.loads(capsys.readouterr().out)
        prompts = [r.content for r in server.requests]
    assert (code, again) == (0, 0)
    assert first["items"] == 8 and first["total"] == 16 and first["judged"] == 16
    assert second["total"] == 0 and second["already_done"] == 16 and len(prompts) == 16
    with Ledger.open(family, readonly=True) as ledger:
        replies = judge_runs.replies(ledger, "fam", "gpt-judge")
        verdicts = judge_store.verdicts(ledger, "fam")
        texts = {r.reply_sha256: reply_text(ledger, r.reply_sha256) for r in replies}
        assert integrity.check(ledger) == []
        summary = judge_store.judges(ledger, "fam")
    # Each item asked once each way round, the two orders as games 1 and 2.
    orders = Counter((r.case_id, *sorted((r.left_system, r.right_system))) for r in replies)
    assert set(orders.values()) == {2} and len(orders) == 8
    assert {(r.case_id, r.left_system, r.right_system) for r in replies} == {
        (r.case_id, r.left_system, r.right_system) for r in replies
    } and len({(r.case_id, r.left_system, r.right_system) for r in replies}) == 16
    assert sorted(r.game for r in replies) == [1] * 8 + [2] * 8
    # What the server said is what is stored: the full reply, and its verdict read from it.
    expected = Counter(judged(p, 4) for p in prompts)
    assert Counter(texts[r.reply_sha256] for r in replies) == expected
    unparsed = [r for r in replies if r.verdict == "unparsed"]
    assert unparsed and first["unparsed"] == len(unparsed)
    assert all("[[" not in texts[r.reply_sha256] for r in unparsed)
    for r in replies:
        mark = {"left": "[[A]]", "right": "[[B]]", "tie": "[[C]]"}.get(r.verdict)
        assert mark is None or texts[r.reply_sha256].endswith(mark)
    # Only the parsed ones are verdicts, each a model judge's, sourced by the run judge.
    assert len(verdicts) == 16 - len(unparsed)
    assert summary[0].kind == "model" and summary[0].sources == (replies[0].judge_id,)
    assert main(["--ledger", str(family), "judges", "show", "--family", "fam", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert [j["judge"] for j in shown["judges"]] == ["gpt-judge"]


def test_one_order_and_a_sample(family, tmp_path, capsys):
    with FakeEndpoint(default=Judging()) as server:
        judges = judge_file(tmp_path, server.url)
        args = ["--judge", "gpt-judge", "--systems", str(judges), "--json", "--sample", "3"]
        assert _run(family, *args, "--one-order") == 0
        out = json.loads(capsys.readouterr().out)
    assert (out["items"], out["judged"]) == (3, 3)


def test_max_cost_is_never_passed_and_the_rest_waits(family, tmp_path, capsys):
    with FakeEndpoint(default=Judging(delay=0.02)) as server:
        judges = judge_file(tmp_path, server.url)
        base = ["--judge", "gpt-judge", "--systems", str(judges), "--json", "--workers", "4"]
        assert _run(family, *base, "--max-cost", "0.003") == 0
        out = json.loads(capsys.readouterr().out)
        assert out["stopped_by_budget"] and 0 < out["judged"] < 16
        assert out["cost"] <= 0.003
        assert _run(family, *base) == 0
        rest = json.loads(capsys.readouterr().out)
    assert rest["already_done"] == out["judged"] and rest["judged"] == 16 - out["judged"]


def test_a_changed_template_is_a_new_judge(family, tmp_path, capsys):
    with FakeEndpoint(default=Judging()) as server:
        judges = judge_file(tmp_path, server.url)
        assert _run(family, "--judge", "gpt-judge", "--systems", str(judges), "--sample", "1") == 0
        changed = judge_file(tmp_path, server.url, template="pairwise-graded")
        assert _run(family, "--judge", "gpt-judge", "--systems", str(changed)) == 2
        err = capsys.readouterr().err
        assert "another descriptor" in err and "new name" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("body", "line", "field"),
    [
        ('single = """{question}\n{answer_a}\n{answer_c}"""\n', 3, "single.answer_c"),
        ('single = """{question}\n{answer_a}"""\n', 1, "single.answer_b"),
        ('single = "{question} {answer_a} {answer_b} {reference}"\n', 1, "single.reference"),
        ('scale = "stars"\nsingle = "{answer_a} {answer_b}"\n', 1, "scale"),
        ('single = "{answer_a} {answer_b}"\nvotes = 3\n', 2, "votes"),
    ],
)
def test_a_bad_template_file_is_refused_naming_file_line_and_field(
    family, tmp_path, capsys, body, line, field
):
    template = tmp_path / "mine.toml"
    template.write_text(body, encoding="utf-8")
    with FakeEndpoint(default=Judging()) as server:
        judges = judge_file(tmp_path, server.url, template="mine.toml")
        code = _run(family, "--judge", "gpt-judge", "--systems", str(judges))
        asked = len(server.requests)
    err = capsys.readouterr().err
    assert code == 2 and asked == 0 and "Traceback" not in err
    assert f"{template}:{line}: {field}:" in err, err
    with Ledger.open(family, readonly=True) as ledger:
        assert judge_runs.run_judges(ledger, "fam") == []


def test_mt_bench_style_template_with_turn_fields(family, tmp_path, capsys):
    template = tmp_path / "mtbench.toml"
    template.write_text(
        'system = "Please act as an impartial judge."\n'
        'single = "[Q]{question}[A]{answer_a}[B]{answer_b}"\n'
        'multi = "{question_1}|{answer_a_1}|{answer_b_1}|{question_2}|{answer_a_2}|{answer_b_2}"\n',
        encoding="utf-8",
    )
    with FakeEndpoint(default=Judging()) as server:
        judges = judge_file(tmp_path, server.url, name="mt", template="mtbench.toml")
        assert _run(family, "--judge", "mt", "--systems", str(judges), "--sample", "1",
                    "--one-order") == 0  # fmt: skip
        prompt = server.requests[0].content
        system = server.requests[0].body["messages"][0]
    parts = prompt.split("|")
    assert len(parts) == 6 and parts[0].startswith("Question") and parts[3].endswith("turn 2.")
    assert "**Turn" not in prompt  # each answer split into its turns
    assert system == {"role": "system", "content": "Please act as an impartial judge."}


def test_a_judge_declared_with_flags_and_a_missing_one(family, tmp_path, capsys):
    with FakeEndpoint(default=Judging()) as server:
        flags = ["--base-url", server.url, "--model", "m", "--template", "pairwise-graded"]
        assert _run(family, "--judge", "flagged", *flags, "--one-order") == 0
        assert _run(family, "--judge", "nobody") == 2
    err = capsys.readouterr().err
    assert "no judge 'nobody' has run" in err
    with Ledger.open(family, readonly=True) as ledger:
        assert {r.strength for r in judge_runs.replies(ledger, "fam", "flagged")} <= {0, 1, 2}


def test_imported_verdicts_never_join_a_run_judge(family, tmp_path, capsys):
    with FakeEndpoint(default=Judging()) as server:
        judges = judge_file(tmp_path, server.url)
        assert _run(family, "--judge", "gpt-judge", "--systems", str(judges), "--sample", "1") == 0
    verdicts = tmp_path / "v.jsonl"
    verdicts.write_text('{"case_id": "c000", "left_system": "brief", "right_system": '
                        '"thorough", "winner": "left"}\n')  # fmt: skip
    args = ["judges", "import", str(verdicts), "--family", "fam", "--kind", "model"]
    assert main(["--ledger", str(family), *args, "--judge", "gpt-judge"]) == 2
    assert "run from Arena" in capsys.readouterr().err
    assert main(["--ledger", str(family), *args, "--judge", "file-judge"]) == 0
    with FakeEndpoint(default=Judging()) as server:
        flags = ["--base-url", server.url, "--model", "m", "--template", "pairwise"]
        assert _run(family, "--judge", "file-judge", *flags) == 2
    assert "imported from files" in capsys.readouterr().err
