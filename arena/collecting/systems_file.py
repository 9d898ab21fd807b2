"""A systems file: one ``[[system]]`` table per system to collect from (docs/collect.md).

Each system becomes a descriptor whose hash is its id: the endpoint, the model, the
system prompt, the sampling settings, the samples per case, the prices and the name of
the variable holding the API key. Changing any of them makes a new system. The key
itself is never in the file, the descriptor or the ledger.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import BadInput
from arena.graded.run_settings import HARNESS, CollectSettings, Prices, normalise_endpoint
from arena.ledger import Ledger, catalog, roster
from arena.records import System, SystemDescriptor
from arena.redact import SECRET_KEYS, Redactor

# Sent with each request as they are, when set.
SAMPLING = ("temperature", "top_p", "max_tokens", "seed")
_FIELDS = (
    "label",
    "base_url",
    "model",
    "system_prompt",
    *SAMPLING,
    "samples",
    "input_price",
    "output_price",
    "api_key_env",
)


@dataclass(frozen=True)
class SystemEntry:
    label: str
    descriptor: SystemDescriptor


def read_systems(path: Path) -> list[SystemEntry]:
    """The systems of a TOML systems file, each checked; errors name the file and field."""
    try:
        table = tomllib.loads(path.read_text("utf-8"))
    except OSError as error:
        raise BadInput(f"cannot read the file ({error.strerror})", path=str(path)) from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise BadInput(f"not a TOML file ({error})", path=str(path)) from None
    unknown = sorted(set(table) - {"system"})
    if unknown:
        raise BadInput(
            "unknown table (systems are [[system]] tables)", path=str(path), field=unknown[0]
        )
    entries = table.get("system")
    if not isinstance(entries, list) or not entries:
        raise BadInput("no [[system]] tables", path=str(path), field="system")
    systems: list[SystemEntry] = []
    labels: set[str] = set()
    for index, entry in enumerate(entries):
        where = f"system[{index}]"
        try:
            found = _entry(entry)
        except BadInput as exc:
            raise BadInput(exc.message, path=str(path), field=f"{where}.{exc.field}") from None
        if found.label in labels:
            raise BadInput("a label names one system", path=str(path), field=f"{where}.label")
        labels.add(found.label)
        systems.append(found)
    return systems


def _entry(entry: dict[str, Any]) -> SystemEntry:
    for name in entry:
        if name.lower() in SECRET_KEYS:
            raise BadInput(
                "keys never go in a systems file; name the variable in api_key_env", field=name
            )
        if name not in _FIELDS:
            raise BadInput(f"unknown field; one of {', '.join(_FIELDS)}", field=name)
    label = _text(entry, "label")
    model = _text(entry, "model")
    base_url = _text(entry, "base_url")
    try:
        endpoint = normalise_endpoint(base_url)
    except BadInput as exc:
        raise BadInput(exc.message, field="base_url") from None
    sampling = {name: entry[name] for name in SAMPLING if name in entry}
    for name, value in sampling.items():
        whole = name in ("max_tokens", "seed")
        if isinstance(value, bool) or not isinstance(value, int if whole else (int, float)):
            raise BadInput(f"expected {'a whole number' if whole else 'a number'}", field=name)
        if value < 0 or (name == "max_tokens" and value < 1):
            raise BadInput("out of range", field=name)
    samples = entry.get("samples", 1)
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
        raise BadInput("expected a whole number of at least 1", field="samples")
    prices = [_price(entry, name) for name in ("input_price", "output_price")]
    if (prices[0] is None) != (prices[1] is None):
        raise BadInput("give both input_price and output_price, or neither", field="input_price")
    key_env = _optional_text(entry, "api_key_env")
    inference: dict[str, Any] = {"endpoint": endpoint, "settings": sampling, "samples": samples}
    if prices[0] is not None:
        inference["prices"] = {"input_per_million": prices[0], "output_per_million": prices[1]}
    if key_env is not None:
        inference["api_key_env"] = key_env
    descriptor = SystemDescriptor(
        model=model,
        harness=HARNESS,
        system_prompt=_optional_text(entry, "system_prompt"),
        inference=inference,
    )
    # The key may have been pasted into any text field: refuse it there.
    keys = [k for k in [_env_key(key_env)] if k]
    Redactor.from_environment(extra=keys).refuse_in({"label": label, **descriptor.canonical()})
    return SystemEntry(label, descriptor)


def _price(entry: dict[str, Any], name: str) -> float | None:
    """A price per million tokens, or None when not given."""
    value = entry.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise BadInput("expected a non-negative number per million tokens", field=name)
    return float(value)


def _env_key(name: str | None) -> str | None:
    return os.environ.get(name, "").strip() or None if name else None


def _text(entry: dict[str, Any], name: str) -> str:
    value = _optional_text(entry, name)
    if value is None or not value.strip():
        raise BadInput("missing", field=name)
    return value


def _optional_text(entry: dict[str, Any], name: str) -> str | None:
    value = entry.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise BadInput("expected text", field=name)
    # A system prompt is sent as written; names lose the spaces around them.
    return value if name == "system_prompt" else value.strip()


def add_systems(ledger: Ledger, path: Path, family: str) -> list[tuple[System, bool]]:
    """Give ``family`` the systems of ``path`` (one transaction): each system and whether
    the family got it now."""
    entries = read_systems(path)
    added: list[tuple[System, bool]] = []
    with ledger.atomic():
        if catalog.get_family(ledger, family) is None:
            raise catalog.no_such_family(ledger, family)
        for entry in entries:
            system_id, _ = catalog.add_system(ledger, entry.label, entry.descriptor)
            try:
                new = roster.add_family_system(ledger, family, system_id, entry.label)
            except BadInput as exc:
                raise BadInput(exc.message, path=str(path), field=f"{entry.label}.label") from None
            added.append((System(system_id, entry.label, entry.descriptor), new))
    return added


def is_collectable(system: System) -> bool:
    """Whether a system was made from a systems file (not imported with outputs)."""
    return (
        system.descriptor.harness == HARNESS
        and "endpoint" in system.descriptor.inference
        and "samples" in system.descriptor.inference
    )


def settings_of(
    system: System, *, timeout_s: float, retries: int, backoff_s: float
) -> CollectSettings:
    """How to ask ``system``'s endpoint: its descriptor, with the run's timeout and retries."""
    inference = system.descriptor.inference
    prices = inference.get("prices")
    return CollectSettings(
        endpoint=inference["endpoint"],
        model=system.descriptor.model,
        system_prompt=system.descriptor.system_prompt,
        inference=dict(inference["settings"]),
        api_key_env=inference.get("api_key_env"),
        timeout_s=timeout_s,
        retries=retries,
        backoff_s=backoff_s,
        prices=Prices(prices["input_per_million"], prices["output_per_million"])
        if prices
        else None,
        retry_timeouts=True,
    )


def samples_of(system: System) -> int:
    return int(system.descriptor.inference.get("samples", 1))
