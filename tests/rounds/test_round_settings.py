"""A round's settings as one record: shown by `round show`, carried by the bundle, checked
by `arena verify`; and the case set a round rests on, told against the last round's."""

from __future__ import annotations

import json
import math

import pytest

from arena.bundle.export import MANIFEST, export_round
from arena.bundle.signing import SIGNATURE, load_or_create_key, sign
from arena.bundle.verify import verify_bundle
from arena.cli.main import main
from arena.cli.round_cmd import public
from arena.cli.round_text import footer
from arena.intake.outputs import import_file
from arena.intake.votes import import_votes
from arena.ledger import Ledger, events
from arena.rounds.closing import close_round
from arena.rounds.known_limits import known_limits
from arena.rounds.model import RECORD_KEYS, Round, RoundSettings
from tests.bundle.rebundle import rehash
from tests.conftest import native_line

TEXT = "A helpful answer of reasonable length, written in plain English for the reader."


def _import(ledger, tmp_path, cases, name="o.jsonl") -> None:
    lines = [native_line(case, s, f"{s} {TEXT} {case}") for case in cases for s in ("a", "b")]
    first = json.loads(lines[0])
    first["family"] = {"name": "f", "min_chars": 20, "reference": "b"}
    lines[0] = json.dumps(first)
    (tmp_path / name).write_text("\n".join(lines), encoding="utf-8")
    import_file(ledger, tmp_path / name, family="f", fmt="native")


def _vote(ledger, tmp_path) -> None:
    votes = [
        {"case_id": case, "left_system": "a", "right_system": "b", "choice": choice}
        | {"session": session, "actor": "rater"}
        | {"shown_at": "2026-11-01T10:00:00Z", "voted_at": "2026-11-01T10:00:20Z"}
        for case, choice, session in (("c0", "left", 1), ("c1", "tie", 1), ("c2", "right", 2))
    ]
    path = tmp_path / "v.jsonl"
    path.write_text("\n".join(map(json.dumps, votes)), encoding="utf-8")
    import_votes(ledger, path, family="f")


@pytest.fixture
def voted(ledger_path, tmp_path):
    with Ledger.open(ledger_path) as ledger:
        _import(ledger, tmp_path, ("c0", "c1", "c2"))
        _vote(ledger, tmp_path)
    return ledger_path


def test_round_show_prints_the_settings_record_and_the_known_limits(voted, capsys):
    assert main(["--ledger", str(voted), "round", "close", "--family", "f"]) == 0
    capsys.readouterr()
    assert main(["--ledger", str(voted), "round", "show", "--family", "f", "--json"]) == 0
    settings = json.loads(capsys.readouterr().out)["settings"]
    method = settings["method"]
    assert (method["name"], method["penalty"], method["base"]) == (
        "penalized_bradley_terry",
        0.01,
        1000.0,
    )
    assert method["scale"] == pytest.approx(400 / math.log(10))
    assert (method["anchor"]["label"], method["anchor"]["reason"]) == ("b", "requested")
    assert settings["coverage"]["preliminary_below_decisive_votes"] == settings["threshold"]
    assert settings["coverage"]["unranked"] == "not_connected_to_anchor"
    assert settings["seeds"]["intervals"] == 0 and set(settings["seeds"]["sessions"]) == {"1", "2"}
    assert settings["case_set"]["cases"] == 3 and settings["case_set"]["since"] is None
    assert "agents" not in settings  # a votes family runs no agent
    assert main(["--ledger", str(voted), "round", "show", "--family", "f"]) == 0
    text = capsys.readouterr().out
    section = text[text.index("\nRound settings\n") :]
    assert "  point method: penalized Bradley–Terry, penalty λ 0.01, base 1000" in section
    assert "  anchor: b (the family's reference)" in section
    assert "  weighting: unit: every comparison its own weight" in section
    assert "  case set: 3 cases (hash " in section and "the family's first round" in section
    limits = section[section.index("\nKnown limits\n") :]
    for limit in known_limits("votes"):
        assert f"  - {limit}" in limits


def test_a_round_closed_before_the_record_is_still_shown():
    shown = {
        "round": "r1",
        "family": "f",
        "kind": "votes",
        "closed_at": "2026-01-01T00:00:00.000+00:00",
        "settings": {"weighting": "unit", "cap": None, "penalty": 0.01, "base": 1000.0}
        | {"threshold": 10, "seed": 0, "software": "0.0.9", "events": []},
        "anchor": None,
        "systems": [],
        "chain_heads": {},
    }
    found = Round.from_json(shown)
    assert found.settings_record is None and found.case_ids is None
    assert not set(RECORD_KEYS) & set(public(found)["settings"])
    lines = footer(found)
    assert "  software: arena 0.0.9" in lines
    assert any(line.startswith("  not recorded: this round was closed before") for line in lines)


def test_new_cases_after_a_closed_round_are_told_by_the_next_one(voted, tmp_path, capsys):
    with Ledger.open(voted) as ledger:
        first = close_round(ledger, "f", RoundSettings())
        _import(ledger, tmp_path, ("c3",), name="more.jsonl")
        events.add_event(ledger, "f", "retire_case", case_id="c0")
        second = close_round(ledger, "f", RoundSettings())
    told = second.recorded_settings()["case_set"]
    assert (told["since"], told["added"], told["retired"], told["cases"]) == (
        first.round_id,
        ["c3"],
        ["c0"],
        3,
    )
    assert told["hash"] != first.recorded_settings()["case_set"]["hash"]
    assert main(["--ledger", str(voted), "round", "show", second.round_id]) == 0
    assert (
        f"case set: 3 cases (hash {told['hash'][:12]}); since round {first.round_id[:12]}: "
        "1 added (c3), 1 retired (c0)" in capsys.readouterr().out
    )


def _forged(folder, change) -> None:
    """Change the manifest's settings, then fix every hash and sign it again."""
    manifest = json.loads((folder / MANIFEST).read_text("utf-8"))
    change(manifest["settings"])
    (folder / MANIFEST).write_text(json.dumps(manifest), "utf-8")
    rehash(folder)
    (folder / SIGNATURE).write_bytes(sign((folder / MANIFEST).read_bytes(), load_or_create_key()))


def test_a_bundle_carries_the_settings_record_and_verify_checks_it(voted, tmp_path):
    with Ledger.open(voted) as ledger:
        close_round(ledger, "f", RoundSettings())
        # A case imported after the close is not in the round's case set, nor its bundle.
        _import(ledger, tmp_path, ("c9",), name="late.jsonl")
        for name in ("plain", "method", "cases", "coverage"):
            export_round(ledger, tmp_path / name, family="f")
    report = verify_bundle(tmp_path / "plain")
    assert report.ok, report.problems
    manifest = json.loads((tmp_path / "plain" / MANIFEST).read_text("utf-8"))
    assert manifest["settings"]["method"]["name"] == "penalized_bradley_terry"
    assert manifest["settings"]["case_set"]["cases"] == 3

    def method(settings):
        settings["method"]["base"] = 1500.0  # the flat base, which the refit reads, stays

    def cases(settings):
        settings["case_set"]["cases"] = 4

    def coverage(settings):
        settings["coverage"]["far_behind_below_top"] = 900.0

    for name, key, change in (
        ("method", "method", method),
        ("cases", "case_set", cases),
        ("coverage", "coverage", coverage),
    ):
        _forged(tmp_path / name, change)
        report = verify_bundle(tmp_path / name)
        # Signed again, every hash right: only the edited record gives it away.
        assert report.problems and report.signer is not None
        assert all(f"settings.{key}: " in p for p in report.problems), report.problems


def test_a_tests_familys_agents_travel_in_its_bundle_and_verify_checks_them(ledger_path, tmp_path):
    from tests.rounds.test_agent_columns import MIXED, _family

    with Ledger.open(ledger_path) as ledger:
        _family(ledger, tmp_path, MIXED)
        close_round(ledger, "t", RoundSettings())
        for name in ("plain", "agents"):
            export_round(ledger, tmp_path / name, family="t")
    assert verify_bundle(tmp_path / "plain").ok

    def agents(settings):  # as if both had run under one harness
        settings["agents"]["harness"] = {"swe-agent": ["a", "b"]}

    _forged(tmp_path / "agents", agents)
    problems = verify_bundle(tmp_path / "agents").problems
    assert problems == ["manifest.json: settings.agents: not the agents of systems.jsonl (changed)"]


def test_the_known_limits_are_in_the_docs_in_the_same_words():
    from tests.conftest import REPO

    docs = " ".join((REPO / "docs" / "window.md").read_text("utf-8").split())
    for limit in known_limits("votes"):
        assert limit in docs
