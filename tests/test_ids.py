"""System ids hash the whole descriptor; an existing system is never overwritten."""

import dataclasses

import pytest

from arena.canonical import canonical_json, content_hash
from arena.errors import BadInput
from arena.ledger import catalog
from arena.records import DESCRIPTOR_FIELDS, SystemDescriptor

FULL = SystemDescriptor(
    model="acme/writer", revision="r3", artifact_digest="sha256:ab12", quantization="q4_k_m",
    effort="high", harness="plain-chat", system_prompt="Be brief.", answer_contract="markdown",
    parser="none", retry_policy="3x", inference={"temperature": 0.7, "max_tokens": 512},
)


def test_the_id_is_sha256_of_the_canonical_descriptor():
    expected = content_hash({**{f: getattr(FULL, f) for f in DESCRIPTOR_FIELDS},
                             "inference": {"temperature": "0.7", "max_tokens": 512}})
    assert FULL.system_id == expected
    assert len(FULL.system_id) == 64


def test_the_same_descriptor_always_gives_the_same_id():
    again = SystemDescriptor(**dataclasses.asdict(FULL))
    assert again.system_id == FULL.system_id


@pytest.mark.parametrize("name", DESCRIPTOR_FIELDS)
def test_changing_any_field_gives_a_new_system(name):
    changed = {"inference": {"temperature": 0.8, "max_tokens": 512}}.get(name, "other")
    assert dataclasses.replace(FULL, **{name: changed}).system_id != FULL.system_id


def test_canonical_json_refuses_floats_and_huge_integers():
    with pytest.raises(ValueError, match="floats"):
        canonical_json({"a": 1.5})
    with pytest.raises(ValueError, match="2\\*\\*53"):
        canonical_json({"a": 2**60})
    assert canonical_json({"b": 1, "a": "é"}) == '{"a":"é","b":1}'


def test_a_known_system_is_found_again_and_keeps_its_label(ledger):
    first, added = catalog.add_system(ledger, "writer", FULL)
    again, added_again = catalog.add_system(ledger, "writer-2", FULL)
    assert (first, added, added_again) == (again, True, False)
    assert catalog.find_system(ledger, "writer").descriptor == FULL
    assert catalog.find_system(ledger, "writer-2") is None


def test_a_label_cannot_name_a_second_descriptor(ledger):
    catalog.add_system(ledger, "writer", FULL)
    with pytest.raises(BadInput, match="new system and needs its own label"):
        catalog.add_system(ledger, "writer", dataclasses.replace(FULL, effort="low"))


def test_systems_are_found_by_id_prefix(ledger):
    catalog.add_system(ledger, "writer", FULL)
    assert catalog.find_system(ledger, FULL.system_id[:10]).label == "writer"
