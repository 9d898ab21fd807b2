"""Builders for the gate tests: an output, its case and its family in one call."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from arena.records import Case, CaseId, Family, Output, OutputId, SystemId


def _family(language: str = "en", **fields: Any) -> Family:
    return Family(name="demo", language=language, **fields)


def _case(prompt: str = "Explain the idea.", **fields: Any) -> Case:
    return Case(
        family="demo", case_id=CaseId("case-1"), category="general", prompt=prompt, **fields
    )


def _output(text: str, **fields: Any) -> Output:
    values: dict[str, Any] = {
        "output_id": OutputId("out-1"),
        "family": "demo",
        "case_id": CaseId("case-1"),
        "system_id": SystemId("sys-1"),
        "sample": 0,
        "text": text,
    }
    values.update(fields)
    return Output(**values)


def _load(name: str) -> ModuleType:
    # Loaded by path so the tests work under any pytest import mode.
    path = Path(__file__).with_name(f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"gates_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def lang_samples() -> list[tuple[str, str, str]]:
    return list(_load("lang_samples").SAMPLES)


@pytest.fixture(scope="session")
def wrong_language_samples() -> ModuleType:
    return _load("wrong_language_samples")


@pytest.fixture(scope="session")
def make_family() -> Callable[..., Family]:
    return _family


@pytest.fixture(scope="session")
def make_case() -> Callable[..., Case]:
    return _case


@pytest.fixture(scope="session")
def make_output() -> Callable[..., Output]:
    return _output
