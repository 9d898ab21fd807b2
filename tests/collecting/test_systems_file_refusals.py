"""A systems file that is not one: numbers that are not numbers, counts past any use, names
on two lines, nesting that would exhaust the parser. Each refused by FILE:LINE: field, with
the ledger unchanged and no traceback; a byte order mark is no reason."""

from __future__ import annotations

import hashlib
import sqlite3
import tomllib
from pathlib import Path

import pytest

from arena.cli.main import main
from arena.collecting import systems_file
from arena.collecting.systems_file import read_systems
from arena.errors import BadInput

HEAD = '[[system]]\nlabel = "a"\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m"\n'
DEEP = "[" * 2_000 + "]" * 2_000


@pytest.mark.parametrize(
    ("extra", "line", "field", "message"),
    [
        ("temperature = nan", 5, "system[0].temperature", "finite number ≥ 0, found nan"),
        ("top_p = -inf", 5, "system[0].top_p", "finite number ≥ 0, found -inf"),
        ("input_price = inf\noutput_price = 1", 5, "system[0].input_price", "found inf"),
        ("input_price = 1\noutput_price = nan", 6, "system[0].output_price", "found nan"),
        ("samples = 1000000000", 5, "system[0].samples", "from 1 to 1,000, found 1,000,000,000"),
        ("max_tokens = 10_000_000", 5, "system[0].max_tokens", "from 1 to 1,000,000"),
        ("seed = 1152921504606846976", 5, "system[0].seed", "from 0 to 9,007,199,254,740,992"),
        ("top_p = 1.5", 5, "system[0].top_p", "from 0 to 1, found 1.5"),
        ('api_key_env = "KEY\\u0000"', 5, "system[0].api_key_env", "holds U+0000"),
        (f"top_p = {DEEP}", 5, None, "nested too deeply"),
        (f"top_p = {'[' * 100_000}{']' * 100_000}", 5, None, "nested too deeply"),
        ("temperature = = 1", 5, None, "not a TOML file"),
    ],
)
def test_what_is_not_a_setting_is_refused_by_line_and_field(tmp_path, extra, line, field, message):
    path = tmp_path / "systems.toml"
    path.write_text(HEAD + extra + "\n", encoding="utf-8")
    with pytest.raises(BadInput) as refused:
        read_systems(path)
    assert (refused.value.path, refused.value.line, refused.value.field) == (str(path), line, field)
    assert message in refused.value.message


@pytest.mark.parametrize(
    ("second", "line", "field"),
    [
        ('label = "a\\nb"\nbase_url = "http://h/v1"\nmodel = "m"', 7, "system[1].label"),
        ('label = "b"\nbase_url = "http://h/v1"\nmodel = "m\\u001b[2J"', 9, "system[1].model"),
        ('label = "a"\nbase_url = "http://h/v1"\nmodel = "n"', 7, "system[1].label"),  # taken
    ],
)
def test_a_name_is_one_line_and_the_second_table_is_found(tmp_path, second, line, field):
    path = tmp_path / "systems.toml"
    path.write_text(f"{HEAD}\n[[system]]\n{second}\n", encoding="utf-8")
    with pytest.raises(BadInput) as refused:
        read_systems(path)
    assert (refused.value.line, refused.value.field) == (line, field)


def test_the_checks_are_what_stop_nan_and_deep_nesting(tmp_path, monkeypatch):
    # Deep nesting exhausts tomllib's recursion: the reader turns that into a refusal.
    with pytest.raises(RecursionError):
        tomllib.loads(f"x = {DEEP}")
    # Without the finite check, nan reaches the descriptor's hash and ends in a traceback.
    monkeypatch.setattr(systems_file, "_number", lambda entry, name: entry[name])
    path = tmp_path / "systems.toml"
    path.write_text(HEAD + "temperature = nan\n", encoding="utf-8")
    with pytest.raises(ValueError, match="non-finite number"):
        read_systems(path)


def _digest(ledger: Path) -> str:
    with sqlite3.connect(ledger) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return hashlib.sha256(ledger.read_bytes()).hexdigest()


def test_the_command_refuses_in_one_line_and_changes_nothing(tmp_path, capsys):
    ledger = tmp_path / "l.sqlite"
    assert main(["--ledger", str(ledger), "family", "create", "f", "--kind", "votes"]) == 0
    path = tmp_path / "systems.toml"
    path.write_text(HEAD + "temperature = nan\n" + HEAD.replace('"a"', '"b"'), encoding="utf-8")
    before = _digest(ledger)
    capsys.readouterr()
    assert main(["--ledger", str(ledger), "systems", "add", str(path), "--family", "f"]) == 2
    err = capsys.readouterr().err
    assert (
        err == f"arena: {path}:5: system[0].temperature: expected a finite number ≥ 0, found nan\n"
    )
    assert _digest(ledger) == before


def test_a_byte_order_mark_and_crlf_are_read_as_the_file_without_them(tmp_path):
    plain, marked = tmp_path / "plain.toml", tmp_path / "marked.toml"
    plain.write_text(HEAD + "samples = 3\n", encoding="utf-8")
    marked.write_bytes(b"\xef\xbb\xbf" + (HEAD + "samples = 3\n").replace("\n", "\r\n").encode())
    assert read_systems(marked) == read_systems(plain)
