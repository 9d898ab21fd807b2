"""Fixtures of the collecting tests."""

from __future__ import annotations

import pytest

from tests.collecting.helpers import KEY


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("ARENA_COLLECT_TEST_KEY", KEY)
    return KEY
