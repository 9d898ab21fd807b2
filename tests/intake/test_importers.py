"""Every importer, with good files and bad ones; a bad file changes nothing."""

import hashlib
import json
from pathlib import Path

import pytest

from arena.errors import BadInput
from arena.intake.outputs import FamilySettings, import_file
from arena.intake.readers import ReadOptions
from arena.ledger import catalog
from arena.redact import Redactor
from tests.conftest import REALDATA, native_line


def _bytes(ledger) -> str:
    ledger.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return hashlib.sha256(Path(ledger.path).read_bytes()).hexdigest()


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _refused(ledger, path, fmt, match, **kwargs):
    before = _bytes(ledger)
    with pytest.raises(BadInput, match=match or None) as caught:
        import_file(ledger, path, family="fam", fmt=fmt, **kwargs)
    assert _bytes(ledger) == before, "a refused import changed the ledger"
    return str(caught.value)


# --- native -----------------------------------------------------------------


def test_native_import_creates_the_family_with_the_files_settings(ledger, tmp_path):
    settings = {
        "name": "fam",
        "kind": "tests",
        "language": "zh-Hans",
        "min_chars": 5,
        "max_chars": 900,
        "aspect": "coding",
        "reference": "beta",
    }
    path = _write(
        tmp_path,
        "a.jsonl",
        "\n".join(
            [
                native_line(
                    "c1",
                    "alpha",
                    "diff a",
                    family=settings,
                    is_diff=True,
                    test_result="passed",
                    finish_reason="stop",
                    latency_ms=120.5,
                    cost=0.002,
                    prompt_tokens=10,
                    completion_tokens=20,
                ),
                native_line(
                    "c1", "beta", "diff b", family=settings, is_diff=True, test_result="errored"
                ),
            ]
        ),
    )
    report = import_file(ledger, path, family="fam", fmt="native")
    assert (report.records, report.outputs_added, report.family_created) == (2, 2, True)
    family = catalog.get_family(ledger, "fam")
    beta = catalog.find_system(ledger, "beta")
    assert (
        family.kind,
        family.language,
        family.min_chars,
        family.max_chars,
        family.aspect,
        family.reference,
    ) == ("tests", "zh-Hans", 5, 900, "coding", beta.system_id)
    first = catalog.outputs(ledger, "fam")[0]
    assert (
        first.is_diff,
        first.test_result,
        first.latency_ms,
        first.cost,
        first.completion_tokens,
    ) == (True, "passed", 120.5, 0.002, 20)


def test_reimporting_the_same_file_adds_nothing(ledger, small_family_file):
    first = import_file(ledger, small_family_file, family="fam", fmt="native")
    before = ledger.db["outputs"].count
    again = import_file(ledger, small_family_file, family="fam", fmt="native")
    assert (first.outputs_added, again.outputs_added) == (12, 0)
    assert ledger.db["outputs"].count == before


def test_empty_output_and_missing_finish_reason_are_data(ledger, tmp_path):
    path = _write(tmp_path, "e.jsonl", native_line("c1", "a", "   ") + "\n")
    import_file(ledger, path, family="fam", fmt="native")
    output = catalog.outputs(ledger, "fam")[0]
    assert (output.text, output.finish_reason) == ("   ", None)


@pytest.mark.parametrize(
    "line, field",
    [
        ('{"case": {"id": "c1", "prompt": "p"}, "system": {"label": "a", "model": "m"}}', "output"),
        (
            '{"case": {"id": "c1"}, "system": {"label": "a", "model": "m"}, "output": "x"}',
            "case.prompt",
        ),
        (
            '{"case": {"id": "c1", "prompt": "p"}, "system": {"label": "a", "model": "m"}, '
            '"output": "x", "latency_ms": -3}',
            "latency_ms",
        ),
        (
            '{"case": {"id": "c1", "prompt": "p"}, "system": {"label": "a", "model": "m"}, '
            '"output": "x", "test_result": "green"}',
            "test_result",
        ),
        (
            '{"case": {"id": "c1", "prompt": "p"}, "system": {"label": "a", "model": "m"}, '
            '"output": "x", "colour": 1}',
            "(record)",
        ),
        (
            '{"case": {"id": "c1", "prompt": "p"}, "system": {"label": "a", "model": "m"}, '
            '"output": "x", "cost": NaN}',
            "",
        ),
        (
            '{"case": {"id": "c1", "prompt": "p"}, "system": {"label": "a", "model": "m"}, '
            '"output": "x", "cost": 1e999}',
            "",
        ),
        (
            '{"case": {"id": "c1", "prompt": "p"}, "system": {"label": "a", "model": "m"}, '
            '"output": "x\\u0000y"}',
            "output",
        ),
        ('{"case": {"id": "c1", "prompt": "p"', ""),
        ("[1, 2]", "(record)"),
    ],
)
def test_a_bad_native_line_is_named_by_file_line_and_field(ledger, tmp_path, line, field):
    good = native_line("c0", "a", "fine")
    path = _write(tmp_path, "bad.jsonl", good + "\n\n" + line + "\n")
    message = _refused(ledger, path, "native", "")
    assert message.startswith(f"{path}:3: ")
    if field:
        assert f": {field}: " in message


def test_a_bad_line_after_many_good_ones_leaves_the_ledger_unchanged(
    ledger, tmp_path, small_family_file
):
    import_file(ledger, small_family_file, family="fam", fmt="native")
    lines = [native_line(f"n{i}", "alpha", f"answer {i}") for i in range(300)]
    lines.append('{"broken": ')
    path = _write(tmp_path, "many.jsonl", "\n".join(lines))
    _refused(ledger, path, "native", "many.jsonl:301")
    assert ledger.db["outputs"].count == 12


def test_an_output_changed_under_the_same_key_is_refused(ledger, tmp_path):
    import_file(
        ledger,
        _write(tmp_path, "a.jsonl", native_line("c1", "a", "one")),
        family="fam",
        fmt="native",
    )
    path = _write(tmp_path, "b.jsonl", native_line("c1", "a", "two"))
    assert "never overwritten" in _refused(ledger, path, "native", "b.jsonl:1: output")


def test_a_case_with_another_prompt_is_refused(ledger, tmp_path):
    import_file(
        ledger, _write(tmp_path, "a.jsonl", native_line("c1", "a", "x")), family="fam", fmt="native"
    )
    path = _write(tmp_path, "b.jsonl", native_line("c1", "b", "y", prompt="Other prompt"))
    _refused(ledger, path, "native", "b.jsonl:1: case.prompt")


def test_settings_that_contradict_the_family_are_refused(ledger, small_family_file):
    import_file(ledger, small_family_file, family="fam", fmt="native")
    _refused(
        ledger,
        small_family_file,
        "native",
        "already has kind",
        settings=FamilySettings(kind="tests"),
    )


def test_an_unknown_reference_is_refused(ledger, small_family_file):
    _refused(
        ledger,
        small_family_file,
        "native",
        "reference system 'nobody'",
        settings=FamilySettings(reference="nobody"),
    )


def test_records_of_another_family_are_refused(ledger, tmp_path):
    path = _write(tmp_path, "x.jsonl", native_line("c1", "a", "x", family="other"))
    _refused(ledger, path, "native", "x.jsonl:1: family: record is for family 'other'")


def test_not_utf8_is_refused_with_its_line(ledger, tmp_path):
    path = tmp_path / "latin.jsonl"
    path.write_bytes(
        native_line("c1", "a", "ok").encode()
        + b"\n"
        + native_line("c2", "a", "caf\u00e9").encode("latin-1")
        + b"\n"
    )
    _refused(ledger, path, "native", "latin.jsonl:2: not UTF-8")


# --- redaction ----------------------------------------------------------------

SECRET = "sk-test-0123456789abcdef"


def test_a_configured_secret_is_redacted_before_anything_is_stored(ledger, tmp_path):
    path = _write(
        tmp_path,
        "s.jsonl",
        native_line("c1", "a", f"my key is {SECRET}, really", prompt=f"Use {SECRET} to call"),
    )
    import_file(
        ledger, path, family="fam", fmt="native", options=ReadOptions(redactor=Redactor([SECRET]))
    )
    ledger.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    output = catalog.outputs(ledger, "fam")[0]
    assert output.text == "my key is [REDACTED], really"
    assert catalog.cases(ledger, "fam")[0].prompt == "Use [REDACTED] to call"
    for suffix in ("", "-wal"):
        file = Path(str(ledger.path) + suffix)
        if file.exists():
            assert SECRET.encode() not in file.read_bytes()


def test_redaction_reads_the_environment(monkeypatch):
    monkeypatch.setenv("MY_TOKEN", SECRET)
    redactor = Redactor.from_environment(["MY_TOKEN"])
    assert redactor.value({"a": [f"x{SECRET}y"], "Authorization": "Bearer abc"}) == {
        "a": ["x[REDACTED]y"],
        "Authorization": "[REDACTED]",
    }


# --- AlpacaEval -----------------------------------------------------------------


def test_alpacaeval_outputs_pair_up_by_instruction(ledger, tmp_path):
    one = [
        {
            "instruction": "Name three rivers.",
            "output": "Nile, Amazon, Yangtze.",
            "generator": "g1",
            "dataset": "helpful_base",
        },
        {"instruction": "Say hi.", "output": "", "generator": "g1"},
    ]
    two = [
        {
            "instruction": "Name three rivers.",
            "output": "Danube, Rhine, Po.",
            "generator": "g2",
            "dataset": "helpful_base",
        }
    ]
    import_file(
        ledger,
        _write(tmp_path, "1.json", json.dumps(one, indent=2)),
        family="fam",
        fmt="alpacaeval",
    )
    import_file(ledger, _write(tmp_path, "2.json", json.dumps(two)), family="fam", fmt="alpacaeval")
    outputs = catalog.outputs(ledger, "fam")
    assert len({o.case_id for o in outputs}) == 2
    rivers = [o for o in outputs if "," in o.text]
    assert len(rivers) == 2 and rivers[0].case_id == rivers[1].case_id
    assert catalog.cases(ledger, "fam")[0].category == "helpful_base"


@pytest.mark.parametrize(
    "text, match",
    [
        ('{"instruction": "x"}', "expected a JSON array"),
        ('[{"instruction": "x", "output": "y"}]', ":1: generator: missing"),
        (
            '[\n{"instruction": "x", "output": "y", "generator": "g"},\n{"instruction": 5, '
            '"output": "y", "generator": "g"}\n]',
            ":3: instruction: expected text",
        ),
        ('[\n{"instruction": "x", "output": "y", "generator": "g"}\n', ":3: expected ',' or ']'"),
        ('[{"instruction": "x", "output": "y", "generator": "g"}] trailing', "after the JSON"),
    ],
)
def test_bad_alpacaeval_files_are_refused(ledger, tmp_path, text, match):
    _refused(ledger, _write(tmp_path, "bad.json", text), "alpacaeval", match)


# --- FastChat -----------------------------------------------------------------


def _fastchat(tmp_path, answers, questions=None):
    folder = tmp_path / "bench" / "model_answer"
    folder.mkdir(parents=True)
    questions = questions or [
        {"question_id": 1, "category": "writing", "turns": ["Write a haiku.", "Now another."]},
        {"question_id": 2, "category": "math", "turns": ["What is 2+2?"]},
    ]
    (tmp_path / "bench" / "question.jsonl").write_text(
        "\n".join(json.dumps(q) for q in questions), encoding="utf-8"
    )
    path = folder / "m.jsonl"
    path.write_text("\n".join(json.dumps(a) for a in answers), encoding="utf-8")
    return path


def test_fastchat_answers_join_their_turns_and_find_their_questions(ledger, tmp_path):
    path = _fastchat(
        tmp_path,
        [
            {"question_id": "1", "model_id": "m1", "choices": [{"index": 0, "turns": ["a", "b"]}]},
            {"question_id": 2, "model_id": "m1", "choices": [{"index": 0, "turns": ["4"]}]},
        ],
    )
    import_file(ledger, path, family="fam", fmt="fastchat")
    cases = {c.case_id: c for c in catalog.cases(ledger, "fam")}
    assert cases["1"].category == "writing"
    assert "**Turn 2**\n\nNow another." in cases["1"].prompt
    texts = {o.case_id: o.text for o in catalog.outputs(ledger, "fam")}
    assert texts == {"1": "**Turn 1**\n\na\n\n**Turn 2**\n\nb", "2": "4"}


@pytest.mark.parametrize(
    "answer, match",
    [
        (
            {"question_id": 9, "model_id": "m", "choices": [{"turns": ["x"]}]},
            "question_id: question 9",
        ),
        (
            {"question_id": 1, "model_id": "m", "choices": [{"turns": ["only one"]}]},
            "choices\\[0\\].turns: 1 answer turn",
        ),
        ({"question_id": 2, "choices": [{"turns": ["x"]}]}, "model_id: missing"),
        ({"question_id": 2, "model_id": "m", "choices": []}, "choices: expected a non-empty"),
    ],
)
def test_bad_fastchat_answers_are_refused(ledger, tmp_path, answer, match):
    _refused(ledger, _fastchat(tmp_path, [answer]), "fastchat", match)


def test_fastchat_turns_first_judges_turn_one_of_every_file(ledger, tmp_path):
    full = _fastchat(
        tmp_path,
        [
            {"question_id": 1, "model_id": "full", "choices": [{"turns": ["a", "b"]}]},
            {"question_id": 2, "model_id": "full", "choices": [{"turns": ["4"]}]},
        ],
    )
    short = full.parent / "short.jsonl"  # answers the first turn only, ids as strings
    short.write_text(
        "\n".join(
            json.dumps({"question_id": q, "model_id": "short", "choices": [{"turns": [t]}]})
            for q, t in (("1", "only one"), ("2", "four"))
        ),
        encoding="utf-8",
    )
    said = _refused(ledger, short, "fastchat", "1 answer turn")
    assert "import with --turns first to judge the first turn only" in said
    for path in (full, short):
        import_file(ledger, path, family="fam", fmt="fastchat", options=ReadOptions(turns="first"))
    prompts = {c.case_id: c.prompt for c in catalog.cases(ledger, "fam")}
    assert prompts == {"1": "Write a haiku.", "2": "What is 2+2?"}
    labels = {s.system_id: s.label for s in catalog.systems(ledger, "fam")}
    texts = {(labels[o.system_id], o.case_id): o.text for o in catalog.outputs(ledger, "fam")}
    assert texts == {
        ("full", "1"): "a",
        ("full", "2"): "4",
        ("short", "1"): "only one",
        ("short", "2"): "four",
    }
    # All turns against cases of the first turn only: another prompt, refused.
    _refused(ledger, full, "fastchat", "different prompt")


def test_turns_is_a_fastchat_option(tmp_path, capsys):
    from arena.cli.main import main

    path = _write(tmp_path, "outputs.json", "[]")
    ledger = str(tmp_path / "l.sqlite")
    code = main(["--ledger", ledger, "import", str(path), "--family", "f", "--turns", "first"])
    assert code == 2 and "--turns: only with --format fastchat" in capsys.readouterr().err


def test_fastchat_without_its_questions_says_what_to_pass(ledger, tmp_path):
    path = _write(tmp_path, "m.jsonl", "{}")
    _refused(ledger, path, "fastchat", "--questions")


# --- CSV ----------------------------------------------------------------------


def test_csv_with_optional_columns(ledger, tmp_path):
    path = _write(
        tmp_path,
        "o.csv",
        "case_id,prompt,system,output,category,sample,latency_ms,cost,test_result\r\n"
        'q1,"Say ""hi""",s1,"line one\nline two",chat,0,12.5,0.01,passed\r\n'
        'q1,"Say ""hi""",s1,again,chat,1,,,\r\n',
    )
    import_file(ledger, path, family="fam", fmt="csv")
    outputs = catalog.outputs(ledger, "fam")
    assert [(o.sample, o.text, o.latency_ms, o.test_result) for o in outputs] == [
        (0, "line one\nline two", 12.5, "passed"),
        (1, "again", None, None),
    ]
    assert catalog.cases(ledger, "fam")[0].prompt == 'Say "hi"'


@pytest.mark.parametrize(
    "text, match",
    [
        ("case_id,prompt,output\nq,p,o\n", ":1: header: missing column\\(s\\) system"),
        ("case_id,prompt,system,output,colour\nq,p,s,o,red\n", "unknown column"),
        ("case_id,prompt,system,output\nq,p,s,o,extra\n", ":2: \\(row\\): more values"),
        ("case_id,prompt,system,output\nq,p,s\n", ":2: output: missing value"),
        ("case_id,prompt,system,output,latency_ms\nq,p,s,o,fast\n", ":2: latency_ms: expected a"),
        ("case_id,prompt,system,output,sample\nq,p,s,o,1.5\n", ":2: sample: expected a whole"),
        ("case_id,prompt,system,output\nq,p,,o\n", ":2: system: cannot be empty"),
    ],
)
def test_bad_csv_rows_are_refused(ledger, tmp_path, text, match):
    _refused(ledger, _write(tmp_path, "bad.csv", text), "csv", match)


# --- real files, when the shared folder is present ----------------------------------

REAL = REALDATA


@pytest.mark.skipif(not REAL.is_dir(), reason="no ../shared/realdata in this clone")
def test_real_fastchat_and_alpacaeval_files_import(ledger):
    jp = REAL / "fastchat-japanese-mt-bench" / "model_answer"
    import_file(ledger, jp / "gpt-4.jsonl", family="ja", fmt="fastchat")
    with pytest.raises(BadInput, match="1 answer turn"):
        import_file(
            ledger, jp / "japanese-stablelm-instruct-alpha-7b.jsonl", family="ja", fmt="fastchat"
        )
    first = ReadOptions(turns="first")  # every file, turn 1 only: stablelm's too
    for name in ("gpt-4", "ELYZA-japanese-Llama-2-7b-fast-instruct"):
        import_file(ledger, jp / f"{name}.jsonl", family="ja1", fmt="fastchat", options=first)
    stablelm = jp / "japanese-stablelm-instruct-alpha-7b.jsonl"
    import_file(ledger, stablelm, family="ja1", fmt="fastchat", options=first)
    assert ledger.db["outputs"].count_where("family = 'ja1'") == 3 * 80
    for name in ("gpt4", "claude"):
        import_file(
            ledger,
            REAL / "alpacaeval" / name / "model_outputs.json",
            family="alpaca",
            fmt="alpacaeval",
        )
    assert ledger.db["outputs"].count == 80 + 3 * 80 + 805 + 805
