"""An API key never reaches the disk in pieces or in disguise during `collect`.

Planted the ways the first attacks got through: split across content parts,
base64- or URL-encoded, cut short, and typed into an option that is recorded
(model, endpoint, label, system prompt, inference settings). After each run
every byte of the ledger and its WAL is searched for the key, its encodings
and every run of ``PIECE_LENGTH`` characters of it.
"""

from __future__ import annotations

import base64
import json
import urllib.parse
from pathlib import Path

import pytest

from arena.endpoint.run_settings import CollectSettings
from arena.errors import BadInput
from arena.graded.runs import collect_run
from arena.graded.suites import load_suite
from arena.ledger import Ledger
from arena.redact import PIECE_LENGTH, REDACTED
from tests.graded.fake_endpoint import FakeEndpoint, Raw, Reply

KEY = "sk-proj-Zq9vX2mL7pR4tY8wK3nB6cF1hJ5dG0sA"


def _reply(content) -> Raw:
    return Raw(
        json.dumps(
            {
                "model": "tiny",
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": "stop",
                    }
                ],
            }
        ).encode()
    )


def _on_disk(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in folder.iterdir() if p.is_file())


def _leaks(data: bytes) -> list[str]:
    forms = {
        "raw": KEY,
        "url": urllib.parse.quote(KEY, safe=""),
        "base64": base64.b64encode(KEY.encode()).decode().rstrip("="),
    }
    found = [name for name, form in forms.items() if form.encode() in data]
    runs = {KEY[i : i + PIECE_LENGTH] for i in range(len(KEY) - PIECE_LENGTH + 1)}
    return found + [f"run {r}" for r in runs if r.encode() in data]


@pytest.fixture
def suite():
    return load_suite("starter")


def _collect(tmp_path, suite, first, monkeypatch):
    monkeypatch.setenv("ARENA_TEST_KEY", KEY)
    script = {t.input: [Reply(t.reference)] for t in suite.tasks}
    script[suite.tasks[0].input] = [first]
    folder = tmp_path / "ledger"
    folder.mkdir()
    with FakeEndpoint(script) as server, Ledger.open(folder / "l.sqlite") as ledger:
        settings = CollectSettings(
            endpoint=server.url,
            model="tiny",
            timeout_s=2.0,
            retries=0,
            workers=1,
            api_key_env="ARENA_TEST_KEY",
        )
        collect_run(ledger, suite, settings)
    return folder


def test_a_key_split_across_content_parts_is_redacted_once_joined(tmp_path, suite, monkeypatch):
    half = len(KEY) // 2
    parts = [
        {"type": "text", "text": f"Your key: {KEY[:half]}"},
        {"type": "text", "text": f"{KEY[half:]}. Answer: 42"},
    ]
    folder = _collect(tmp_path, suite, _reply(parts), monkeypatch)
    assert _leaks(_on_disk(folder)) == []


@pytest.mark.parametrize(
    "echo",
    [
        base64.b64encode(f"token={KEY}".encode()).decode(),
        urllib.parse.quote(f"key {KEY}", safe=""),
    ],
)
def test_an_encoded_key_in_a_reply_is_redacted(tmp_path, suite, monkeypatch, echo):
    folder = _collect(tmp_path, suite, _reply(f"Debug: {echo}\nAnswer: 42"), monkeypatch)
    assert _leaks(_on_disk(folder)) == []


def test_part_of_a_key_in_a_reply_is_redacted_and_the_run_goes_on(tmp_path, suite, monkeypatch):
    partial = KEY[3 : 3 + PIECE_LENGTH + 4]
    folder = _collect(tmp_path, suite, _reply(f"Key fragment {partial}. Answer: 42"), monkeypatch)
    on_disk = _on_disk(folder)
    assert _leaks(on_disk) == []
    assert f"Key fragment {REDACTED}. Answer: 42".encode() in on_disk


@pytest.mark.parametrize(
    "field", ["model", "endpoint_user", "endpoint_path", "label", "system_prompt", "inference"]
)
def test_a_key_typed_into_a_recorded_option_is_refused_before_anything_is_written(
    tmp_path, suite, monkeypatch, field
):
    url = "http://127.0.0.1:9"
    changes = {
        "model": {"model": f"tiny-{KEY}"},
        "endpoint_user": {"endpoint": url.replace("//", f"//user:{KEY}@")},
        "endpoint_path": {"endpoint": f"{url}/v1/{KEY}"},
        "label": {"label": f"run {KEY}"},
        "system_prompt": {"system_prompt": f"Use {KEY}"},
        "inference": {"inference": {"extra_headers": {"x-note": KEY}}},
    }[field]
    label = changes.pop("label", None)
    monkeypatch.setenv("ARENA_TEST_KEY", KEY)
    folder = tmp_path / "ledger"
    folder.mkdir()
    settings = CollectSettings(
        endpoint=changes.pop("endpoint", url),
        model=changes.pop("model", "tiny"),
        api_key_env="ARENA_TEST_KEY",
        **changes,
    )
    with Ledger.open(folder / "l.sqlite") as ledger:
        with pytest.raises(BadInput, match="holds the API key|credentials"):
            collect_run(ledger, suite, settings, label=label)
        assert ledger.db["systems"].count == 0
    assert _leaks(_on_disk(folder)) == []
