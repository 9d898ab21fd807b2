"""Systems files: descriptors written once, their ids, and what they refuse."""

from __future__ import annotations

import json

import pytest

from arena.cli.main import main
from arena.collecting.systems_file import add_systems, read_systems
from arena.errors import BadInput
from arena.intake.families import create_family
from arena.intake.family_settings import FamilySettings
from arena.ledger import roster
from tests.collecting.helpers import KEY, systems_file


def test_every_field_is_in_the_descriptor_and_any_change_is_a_new_system(tmp_path):
    base = read_systems(systems_file(tmp_path, "http://127.0.0.1:9", labels=("a",)))[0]
    assert base.descriptor.inference == {
        "endpoint": "http://127.0.0.1:9",
        "settings": {"temperature": 0.0, "max_tokens": 64},
        "samples": 1,
        "api_key_env": "ARENA_COLLECT_TEST_KEY",
    }
    ids = {base.descriptor.system_id}
    for change in (
        {"temperature": 0.5},
        {"top_p": 0.9},
        {"seed": 3},
        {"samples": 2},
        {"input_price": 1.0, "output_price": 2.0},
    ):
        (entry,) = read_systems(
            systems_file(tmp_path, "http://127.0.0.1:9", labels=("a",), **change)
        )
        ids.add(entry.descriptor.system_id)
    other = read_systems(systems_file(tmp_path, "http://127.0.0.1:8", labels=("a",)))[0]
    ids.add(other.descriptor.system_id)
    assert len(ids) == 7
    # The same file again is the same system: "/v1" or not, the same server.
    again = read_systems(systems_file(tmp_path, "http://127.0.0.1:9/", labels=("a",)))[0]
    assert again.descriptor.system_id == base.descriptor.system_id


@pytest.mark.parametrize(
    ("extra", "field", "message"),
    [
        ({"api_key": "sk-x"}, "system[0].api_key", "keys never go"),
        ({"temprature": 0.1}, "system[0].temprature", "did you mean 'temperature'"),
        ({"samples": 0}, "system[0].samples", "from 1 to 1,000"),
        ({"max_tokens": 1.5}, "system[0].max_tokens", "whole number"),
        ({"input_price": 1.0}, "system[0].input_price", "both"),
    ],
)
def test_a_bad_field_is_named(tmp_path, extra, field, message):
    path = systems_file(tmp_path, "http://127.0.0.1:9", labels=("a",), **extra)
    with pytest.raises(BadInput) as refused:
        read_systems(path)
    assert (refused.value.path, refused.value.field) == (str(path), field)
    assert message in refused.value.message


def test_the_key_pasted_into_a_field_is_refused(tmp_path, key):
    path = systems_file(tmp_path, "http://127.0.0.1:9", labels=("a",))
    path.write_text(path.read_text().replace("Answer in", f"Use {KEY}. Answer in"))
    with pytest.raises(BadInput):
        read_systems(path)


def test_adding_twice_adds_once_and_a_label_names_one_system(ledger, tmp_path):
    create_family(ledger, "fam", FamilySettings(kind="votes", language="en"))
    path = systems_file(tmp_path, "http://127.0.0.1:9")
    assert [new for _, new in add_systems(ledger, path, "fam")] == [True, True]
    assert [new for _, new in add_systems(ledger, path, "fam")] == [False, False]
    changed = systems_file(tmp_path, "http://127.0.0.1:9", temperature=0.9)
    with pytest.raises(BadInput, match="already names system"):
        add_systems(ledger, changed, "fam")
    assert [s.label for s in roster.family_systems(ledger, "fam")] == ["brief", "thorough"]


def test_systems_list_prints_json(tmp_path, capsys):
    ledger = str(tmp_path / "l.sqlite")
    assert main(["--ledger", ledger, "family", "create", "f", "--kind", "votes"]) == 0
    path = systems_file(tmp_path, "http://127.0.0.1:9")
    assert main(["--ledger", ledger, "systems", "add", str(path), "--family", "f"]) == 0
    capsys.readouterr()
    assert main(["--ledger", ledger, "systems", "list", "--family", "f", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["label"] for r in rows] == ["brief", "thorough"]
    assert rows[0]["descriptor"]["system_prompt"] == "Answer in a brief way."
