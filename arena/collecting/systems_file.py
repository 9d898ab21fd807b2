"""A systems file: one ``[[system]]`` table per system to collect from (docs/collect.md).

Each system becomes a descriptor whose hash is its id: the endpoint, the model, the
system prompt, the sampling settings, the samples per case, the prices and the name of
the variable holding the API key. Changing any of them makes a new system. The key
itself is never in the file, the descriptor or the ledger.
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.endpoint.prices import Prices
from arena.endpoint.run_settings import HARNESS, CollectSettings, normalise_endpoint
from arena.errors import BadInput, unknown_field
from arena.ledger import Ledger, catalog, roster
from arena.records import System, SystemDescriptor, name_problem
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
# Bounds past any real use: a typo or a hostile file must not mean a billion requests, or a
# budget that no reply can reach. Beyond 2**53 a number cannot be hashed into the system's id.
MAX_SAMPLES = 1_000
MAX_TOKENS = 1_000_000
MAX_SEED = 2**53
_WHOLE = {"max_tokens": (1, MAX_TOKENS), "seed": (0, MAX_SEED), "samples": (1, MAX_SAMPLES)}
_HEADER = re.compile(r"^\s*\[\[\s*system\s*\]\]")
# tomllib says where a file stops parsing only in its message.
_AT_LINE = re.compile(r"\(at line (\d+), column \d+\)")


@dataclass(frozen=True)
class SystemEntry:
    label: str
    descriptor: SystemDescriptor


def read_systems(path: Path) -> list[SystemEntry]:
    """The systems of a TOML systems file, each checked; errors name the file, line and field.

    Its ``[[judge]]`` tables are judges to run (``arena.judges.declared``), read there."""
    text, table = read_table(path)
    entries = table.get("system")
    if not isinstance(entries, list) or not entries:
        raise BadInput("no [[system]] tables", path=str(path), field="system")
    systems: list[SystemEntry] = []
    labels: set[str] = set()
    for index, entry in enumerate(entries):
        where = f"system[{index}]"
        try:
            found = _entry(entry)
            if found.label in labels:
                raise BadInput("a label names one system", field="label")
        except BadInput as exc:
            raise BadInput(
                exc.message,
                path=str(path),
                line=_line_of(text, index, exc.field or ""),
                field=f"{where}.{exc.field}",
            ) from None
        labels.add(found.label)
        systems.append(found)
    return systems


def read_table(path: Path) -> tuple[str, dict[str, Any]]:
    """A systems file's text and its TOML, with only ``[[system]]`` and ``[[judge]]`` tables."""
    try:
        # A byte order mark (as Notepad writes one) is no part of the TOML.
        text = path.read_text("utf-8").removeprefix("\ufeff")
    except OSError as error:
        raise BadInput(f"cannot read the file ({error.strerror})", path=str(path)) from None
    except UnicodeDecodeError as error:
        raise BadInput(f"not UTF-8 text ({error.reason})", path=str(path)) from None
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        at = _AT_LINE.search(str(error))
        # Otherwise it stopped "at end of document": a file cut short.
        line = int(at.group(1)) if at else max(1, len(text.splitlines()))
        raise BadInput(f"not a TOML file ({error})", path=str(path), line=line) from None
    except RecursionError:  # tomllib reads nested arrays and tables recursively
        rows = enumerate(text.splitlines(), 1)
        deep = next((n for n, row in rows if row.count("[") + row.count("{") > 64), None)
        raise BadInput("nested too deeply for a systems file", path=str(path), line=deep) from None
    unknown = sorted(set(table) - {"system", "judge"})
    if unknown:
        raise BadInput(
            "unknown table (systems are [[system]] tables, judges [[judge]] tables)",
            path=str(path),
            field=unknown[0],
        )
    for name in ("system", "judge"):
        entries = table.get(name)
        if entries is not None and not (
            isinstance(entries, list) and all(isinstance(e, dict) for e in entries)
        ):
            raise BadInput(f"expected [[{name}]] tables", path=str(path), field=name)
    return text, table


def _line_of(text: str, index: int, name: str, header: re.Pattern[str] = _HEADER) -> int | None:
    """The line of ``name`` in the ``index``-th ``[[system]]`` table (or of ``header``'s),
    else of the table's header; None for a table written otherwise (an inline array)."""
    rows = text.splitlines()
    headers = [n for n, row in enumerate(rows, 1) if header.match(row)]
    if index >= len(headers):
        return None
    end = headers[index + 1] if index + 1 < len(headers) else len(rows) + 1
    key = re.compile(rf"""^\s*(["']?){re.escape(name)}\1\s*=""")
    found = (n for n in range(headers[index] + 1, end) if key.match(rows[n - 1]))
    return next(found, headers[index])


def _entry(entry: dict[str, Any]) -> SystemEntry:
    for name in entry:
        if name.lower() in SECRET_KEYS:
            raise BadInput(
                "keys never go in a systems file; name the variable in api_key_env", field=name
            )
        if name not in _FIELDS:
            raise BadInput(unknown_field(name, _FIELDS), field=name)
    label = _name(entry, "label")
    model = _name(entry, "model")
    base_url = _text(entry, "base_url")
    try:
        endpoint = normalise_endpoint(base_url)
    except BadInput as exc:
        raise BadInput(exc.message, field="base_url") from None
    sampling = {name: _sampling(entry, name) for name in SAMPLING if name in entry}
    samples = _whole(entry, "samples") if "samples" in entry else 1
    prices = [_price(entry, name) for name in ("input_price", "output_price")]
    if (prices[0] is None) != (prices[1] is None):
        raise BadInput("give both input_price and output_price, or neither", field="input_price")
    key_env = _name(entry, "api_key_env") if "api_key_env" in entry else None
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


def _sampling(entry: dict[str, Any], name: str) -> int | float:
    if name in _WHOLE:
        return _whole(entry, name)
    value = _number(entry, name)
    if name == "top_p" and value > 1:
        raise BadInput(f"expected a number from 0 to 1, found {value!r}", field=name)
    return value


def _whole(entry: dict[str, Any], name: str) -> int:
    value = entry[name]
    low, high = _WHOLE[name]
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadInput(f"expected a whole number, found {value!r}", field=name)
    if not low <= value <= high:
        raise BadInput(
            f"expected a whole number from {low} to {high:,}, found {value:,}", field=name
        )
    return value


def _number(entry: dict[str, Any], name: str) -> float:
    """A finite number ≥ 0 (nan and inf are TOML numbers, but no setting or price)."""
    value = entry[name]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise BadInput(f"expected a number, found {value!r}", field=name)
    if not math.isfinite(value) or value < 0:
        raise BadInput(f"expected a finite number ≥ 0, found {value!r}", field=name)
    return value


def _price(entry: dict[str, Any], name: str) -> float | None:
    """A price per million tokens, or None when not given."""
    return None if entry.get(name) is None else float(_number(entry, name))


def _env_key(name: str | None) -> str | None:
    return os.environ.get(name, "").strip() or None if name else None


def _text(entry: dict[str, Any], name: str) -> str:
    value = _optional_text(entry, name)
    if value is None or not value.strip():
        raise BadInput("missing", field=name)
    return value


def _name(entry: dict[str, Any], name: str) -> str:
    """A label, a model id or a variable's name: one line, as every id (``name_problem``)."""
    value = _text(entry, name)
    problem = name_problem(value)
    if problem is not None:
        raise BadInput(problem, field=name)
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
