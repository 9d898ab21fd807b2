"""`arena family` and what it changes in `arena import` and `arena status`."""

from __future__ import annotations

import json

import pytest

from arena.cli.main import main
from tests.japanese_answers import ENGLISH_ANSWERS, write_japanese_bench


@pytest.fixture
def arena(capsys, tmp_path):
    ledger = str(tmp_path / "l.sqlite")

    def run(*args: str) -> tuple[int, str, str]:
        code = main(["--ledger", ledger, *args])
        out, err = capsys.readouterr()
        return code, out, err

    return run


@pytest.fixture
def bench(tmp_path):
    return str(write_japanese_bench(tmp_path / "jmt"))


def test_create_then_import_then_status(arena, bench):
    code, out, _ = arena("family", "create", "jmt-bench", "--language", "ja", "--aspect", "chat")
    assert code == 0 and "family jmt-bench created (votes, ja, 1–20000 characters" in out
    code, out, err = arena("import", bench, "--family", "jmt-bnech")
    assert code == 2 and out == ""
    assert "no family named 'jmt-bnech' (did you mean 'jmt-bench'?)" in err
    assert "arena family create jmt-bnech" in err and "--create" in err
    assert arena("import", bench, "--family", "jmt-bench")[0] == 0
    code, out, _ = arena("gate", "--family", "jmt-bench", "--list", "--gate", "language", "--json")
    found = {(f["case_id"], f["system"]) for f in json.loads(out)["failures"]}
    assert found == ENGLISH_ANSWERS
    code, out, _ = arena("status")
    assert out.splitlines()[0] == "aspect: chat" and "jmt-bench" in out


def test_import_with_create_takes_the_settings(arena, bench):
    code, out, _ = arena("import", bench, "--family", "j", "--create", "--language", "ja", "--json")
    assert code == 0 and json.loads(out)["family_created"] is True
    code, out, _ = arena("family", "show", "j", "--json")
    shown = json.loads(out)
    assert (shown["language"], shown["outputs"], shown["changes"]) == ("ja", 12, [])


def test_set_rename_archive_show_and_list(arena, bench):
    arena("import", bench, "--family", "j", "--create")
    code, out, _ = arena("family", "set", "j", "--language", "ja", "--reason", "it is Japanese")
    assert code == 0 and "j: language ja" in out
    assert "gates run again: 3 of 12 outputs fail a gate" in out
    code, out, _ = arena("family", "set", "j", "--language", "ja")
    assert "nothing changed" in out
    assert arena("family", "set", "j", "--kind", "tests")[0] == 2
    code, out, _ = arena("family", "set", "j", "--max-chars", "100", "--no-gate", "--json")
    assert json.loads(out)["gates"] is None and set(json.loads(out)["changes"]) == {"max_chars"}
    assert arena("family", "rename", "j", "Japanese bench")[0] == 0
    code, out, _ = arena("family", "show", "j")
    assert out.splitlines()[0] == "j (listed as 'Japanese bench')"
    assert "language → 'ja' by rater (it is Japanese)" in out
    assert "created " in out and "votes, en, 1–20000 characters" in out
    assert arena("family", "archive", "j", "--reason", "done")[0] == 0
    code, out, _ = arena("status", "--json")
    assert json.loads(out)["families"] == []
    code, out, _ = arena("status", "--all", "--json")
    (row,) = json.loads(out)["families"]
    assert (row["label"], row["archived"], row["language"]) == ("Japanese bench", True, "ja")
    code, out, _ = arena("status", "--all")
    assert "j (Japanese bench) [archived]" in out
    code, out, _ = arena("family", "list", "--json")
    assert json.loads(out)["families"] == []
    code, out, _ = arena("family", "list", "--all")
    assert "Japanese bench" in out and "yes" in out
    assert arena("family", "unarchive", "j")[0] == 0
    code, out, _ = arena("status", "--json")
    assert [r["name"] for r in json.loads(out)["families"]] == ["j"]


def test_an_unknown_family_is_refused_by_every_family_command(arena):
    for args in (("set", "x", "--language", "ja"), ("rename", "x", "y"), ("archive", "x")):
        code, _, err = arena("family", *args)
        assert code == 2 and "no family named 'x'" in err


def test_round_show_prints_the_settings_the_round_was_closed_with(arena, bench):
    arena("import", bench, "--family", "j", "--create", "--language", "ja")
    assert arena("round", "close", "--family", "j")[0] == 0
    code, out, _ = arena("round", "show", "--family", "j")
    settings = out[out.index("\nRound settings\n") :]
    assert "  family: language ja, characters 1–20000" in settings
    code, out, _ = arena("round", "show", "--family", "j", "--json")
    assert json.loads(out)["settings"]["family"]["language"] == "ja"


def test_repeat_settings_are_set_shown_and_read_by_the_next_session(arena, bench, tmp_path):
    from arena.ledger import Ledger
    from arena.pairs.scheduling import RepeatPolicy
    from arena.rating.session import RatingSession

    code, out, _ = arena("family", "create", "j", "--language", "ja", "--repeat-gap", "40")
    assert code == 0
    code, out, _ = arena("family", "set", "j", "--repeat-minutes", "45", "--repeat-share", "0.2")
    assert code == 0 and "in force from the next rating session" in out
    code, out, _ = arena("family", "show", "j")
    assert "20% of votes shown again, at least 40 pairs later" in out and "45 minutes" in out
    shown = json.loads(arena("family", "show", "j", "--json")[1])
    assert (shown["repeat_share"], shown["repeat_gap"], shown["repeat_minutes"]) == (0.2, 40, 45)
    assert sorted(c["setting"] for c in shown["changes"]) == [
        "repeat_gap",
        "repeat_minutes",
        "repeat_share",
    ]
    code, _, err = arena("family", "set", "j", "--repeat-share", "1.5")
    assert code == 2 and "--repeat-share" in err
    assert arena("import", bench, "--family", "j")[0] == 0
    with Ledger.open(tmp_path / "l.sqlite") as ledger:
        session = RatingSession(ledger, "j", seed=1)
        assert session.repeats == RepeatPolicy(share=0.2, gap=40, minutes=45)
        assert session.scheduler.policy == session.repeats


def test_the_pair_choice_is_set_shown_read_by_the_session_and_recorded_by_rounds(
    arena, bench, tmp_path
):
    from arena.ledger import Ledger
    from arena.rating.session import RatingSession

    assert arena("family", "create", "j", "--language", "ja")[0] == 0
    shown = json.loads(arena("family", "show", "j", "--json")[1])
    assert shown["pairs"] == "adaptive" and shown["changes"] == []  # the default, unrecorded
    code, out, _ = arena("family", "set", "j", "--pairs", "coverage")
    assert code == 0 and "pairs coverage (in force from the next rating session)" in out
    assert "pairs: coverage" in arena("family", "show", "j")[1]
    assert arena("import", bench, "--family", "j")[0] == 0
    with Ledger.open(tmp_path / "l.sqlite") as ledger:
        assert RatingSession(ledger, "j", seed=1).pair_choice == "coverage"
    assert arena("round", "close", "--family", "j")[0] == 0
    code, out, _ = arena("round", "show", "--family", "j", "--json")
    assert json.loads(out)["settings"]["pairs"] == "coverage"
    assert "  pair design: coverage: " in arena("round", "show", "--family", "j")[1]
    with pytest.raises(SystemExit):  # argparse knows the two choices
        arena("family", "set", "j", "--pairs", "greedy")
    assert arena("family", "create", "t", "--kind", "tests")[0] == 0
    code, _, err = arena("family", "set", "t", "--pairs", "adaptive")
    assert code == 2 and "a tests family asks for no votes" in err
