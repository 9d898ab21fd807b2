"""Every command of `arena`, through its entry point."""

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

from arena.cli.main import build_parser, main

DOCS = Path(__file__).resolve().parents[1] / "docs" / "cli.md"


def _commands() -> list[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return sorted(sub.choices)


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_every_command_is_documented():
    headings = set(re.findall(r"^## arena (\S+)", DOCS.read_text("utf-8"), re.MULTILINE))
    missing = set(_commands()) - headings
    assert not missing, f"commands missing from docs/cli.md: {sorted(missing)}"


def test_the_documented_status_keys_are_the_printed_ones(capsys, tmp_path, small_family_file):
    ledger = str(tmp_path / "l.sqlite")
    run(
        capsys,
        "--ledger",
        ledger,
        "import",
        str(small_family_file),
        "--family",
        "small",
        "--create",
    )
    code, out, _ = run(capsys, "--ledger", ledger, "status", "--json")
    keys = set(json.loads(out)["families"][0])
    documented = set(re.findall(r"^\| `(\w+)` \|", DOCS.read_text("utf-8"), re.MULTILINE))
    assert code == 0 and keys <= documented


@pytest.mark.parametrize("command", _commands())
def test_every_command_has_help(command, capsys):
    with pytest.raises(SystemExit) as done:
        main([command, "--help"])
    assert done.value.code == 0
    assert "usage: arena" in capsys.readouterr().out


def test_python_dash_m_arena_and_version():
    result = subprocess.run(
        [sys.executable, "-m", "arena", "--version"], capture_output=True, text=True, check=True
    )
    assert result.stdout.startswith("arena ")


def test_init_creates_the_ledger_at_the_default_place(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("ARENA_LEDGER", str(tmp_path / "env.sqlite"))
    code, out, _ = run(capsys, "init")
    assert code == 0 and "env.sqlite" in out and (tmp_path / "env.sqlite").exists()


def test_import_then_status(capsys, tmp_path, small_family_file):
    ledger = str(tmp_path / "l.sqlite")
    code, out, _ = run(
        capsys,
        "--ledger",
        ledger,
        "import",
        str(small_family_file),
        "--family",
        "small",
        "--create",
        "--language",
        "en",
        "--json",
    )
    assert code == 0
    assert json.loads(out)["outputs_added"] == 12
    code, out, _ = run(capsys, "--ledger", ledger, "status", "--json")
    (family,) = json.loads(out)["families"]
    assert family == {
        "name": "small",
        "kind": "votes",
        "language": "en",
        "systems": 3,
        "cases": 4,
        "outputs": 12,
        "gate_failures": 0,
        "votes": 0,
        "votes_by_rater": {},
        "settled_pairs": 0,
        "pending_pairs": 12,
        "votes_to_settle": None,
        "aspect": "",
        "label": "small",
        "archived": False,
        "rater": "rater",
        "rater_votes": 0,
    }
    code, out, _ = run(capsys, "--ledger", ledger, "status")
    assert code == 0 and "small" in out and "pending_pairs" in out


def test_status_of_an_unknown_family_is_bad_input(capsys, tmp_path):
    ledger = str(tmp_path / "l.sqlite")
    code, _, err = run(capsys, "--ledger", ledger, "status")
    assert code == 1 and "no ledger there" in err
    run(capsys, "--ledger", ledger, "init")
    code, _, err = run(capsys, "--ledger", ledger, "status", "--family", "x")
    assert code == 2 and "no family named 'x'" in err


def test_a_bad_import_exits_2_with_file_line_and_field(capsys, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"case": {"id": 1, "prompt": "p"}, "system": {"label": "a"}, "output": ""}\n')
    code, _, err = run(
        capsys,
        "--ledger",
        str(tmp_path / "l.sqlite"),
        "import",
        str(bad),
        "--family",
        "f",
        "--create",
    )
    assert code == 2
    assert err.strip() == f"arena: {bad}:1: system.model: missing"


def test_a_locked_ledger_exits_3(capsys, tmp_path):
    from arena.ledger import Ledger

    path = tmp_path / "l.sqlite"
    with Ledger.open(path):
        code, _, err = run(capsys, "--ledger", str(path), "init")
    assert code == 3 and "open for writing" in err


def test_check_passes_then_finds_tampering(capsys, tmp_path, small_family_file):
    import sqlite3

    from arena.ledger import Ledger
    from tests.votes_helpers import cast

    path = tmp_path / "l.sqlite"
    run(
        capsys,
        "--ledger",
        str(path),
        "import",
        str(small_family_file),
        "--family",
        "small",
        "--create",
    )
    with Ledger.open(path) as ledger:
        cast(ledger)
    code, out, _ = run(capsys, "--ledger", str(path), "check")
    assert code == 0 and "ok" in out
    conn = sqlite3.connect(path)
    conn.execute("DROP TRIGGER votes_no_update")
    conn.execute("UPDATE votes SET choice = 'right'")
    conn.commit()
    conn.close()
    code, out, err = run(capsys, "--ledger", str(path), "check", "--json")
    report = json.loads(out)
    assert code == 1 and not report["ok"] and "edited" in report["problems"][0]


def test_demo_without_a_display_says_how_to_run_it(capsys, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    code, _, err = run(capsys, "demo")
    assert code == 3
    assert err.count("\n") == 1 and "xvfb-run" in err and "--no-gui" in err


def test_demo_builds_a_fresh_ledger(capsys, tmp_path):
    out_path = tmp_path / "demo.sqlite"
    code, out, _ = run(capsys, "demo", "--no-gui", "--out", str(out_path))
    assert code == 0 and "4 families" in out
    code, out, _ = run(capsys, "--ledger", str(out_path), "status", "--json")
    names = {f["name"] for f in json.loads(out)["families"]}
    assert names == {"prose-en", "zh-hans", "coding", "fixes"}
    code, _, err = run(capsys, "demo", "--no-gui", "--out", str(out_path))
    assert code == 2 and "already exists" in err


def test_vote_on_an_unknown_family_is_bad_input(capsys, tmp_path, small_family_file):
    ledger = str(tmp_path / "l.sqlite")
    run(
        capsys,
        "--ledger",
        ledger,
        "import",
        str(small_family_file),
        "--family",
        "small",
        "--create",
    )
    code, _, err = run(capsys, "--ledger", ledger, "vote", "--family", "nope")
    assert code == 2 and "no family named 'nope'" in err


def test_vote_without_a_display_says_so(capsys, monkeypatch, tmp_path, small_family_file):
    ledger = str(tmp_path / "l.sqlite")
    run(
        capsys,
        "--ledger",
        ledger,
        "import",
        str(small_family_file),
        "--family",
        "small",
        "--create",
    )
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    code, _, err = run(capsys, "--ledger", ledger, "vote", "--family", "small")
    assert code == 3 and "xvfb-run" in err


def test_fit_prints_a_board_from_a_battles_file(capsys, tmp_path):
    path = tmp_path / "b.jsonl"
    rows = [("a", "b", "model_a")] * 3 + [("a", "b", "model_b"), ("b", "c", "tie (bothbad)")]
    path.write_text(
        "\n".join(json.dumps({"model_a": x, "model_b": y, "winner": w}) for x, y, w in rows),
        encoding="utf-8",
    )
    code, out, _ = run(capsys, "fit", str(path), "--penalty", "0", "--anchor", "b", "--json")
    board = json.loads(out)
    points = {s["system"]: s["points"] for s in board["systems"]}
    assert code == 0 and board["anchor"] == "b" and points["b"] == 1000.0
    assert points["a"] == pytest.approx(1000 + 400 * math.log10(3), abs=1e-6)
    code, out, _ = run(capsys, "fit", str(path))
    assert code == 0 and "anchor: " in out


def test_a_reader_that_stops_early_ends_the_command_quietly():
    """`arena round show | head`: no "Broken pipe" message, no traceback."""
    code = (
        "import arena.cli.commands as c; from arena.cli.main import main\n"
        "c.cmd_init = lambda args: print('row\\n' * 400_000)\n"
        "raise SystemExit(main(['init']))"
    )
    writer = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert writer.stdout is not None and writer.stdout.read(4) == b"row\n"
    writer.stdout.close()  # the reader goes away
    _, errors = writer.communicate(timeout=60)
    assert writer.returncode == 141 and errors == b""
