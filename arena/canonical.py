"""Canonical JSON and the hashes built on it.

Hashed payloads hold only strings, integers within ±2**53, booleans and null,
so ``json.dumps`` with sorted keys and no spaces gives the bytes RFC 8785
(JCS) would. Floats are refused: a float that must be hashed is stored as a
decimal string by the caller (``1.0`` and ``1`` would otherwise hash apart
between languages).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

_MAX_SAFE_INT = 2**53


def _check(value: Any, where: str) -> None:
    if value is None or isinstance(value, (str, bool)):
        return
    if isinstance(value, int):
        if abs(value) > _MAX_SAFE_INT:
            raise ValueError(f"{where}: integer {value} is outside ±2**53")
        return
    if isinstance(value, float):
        raise ValueError(f"{where}: floats are not hashed; store {value!r} as a string")
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise ValueError(f"{where}: key {key!r} is not a string")
            _check(item, f"{where}.{key}")
        return
    if isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            _check(item, f"{where}[{index}]")
        return
    raise ValueError(f"{where}: {type(value).__name__} cannot be hashed")


def canonical_json(value: Any) -> str:
    """Return the canonical JSON text of ``value`` (see the module note)."""
    _check(value, "$")
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def sha256_hex(data: str | bytes) -> str:
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def content_hash(value: Any) -> str:
    """sha256 of the canonical JSON of ``value``."""
    return sha256_hex(canonical_json(value))
