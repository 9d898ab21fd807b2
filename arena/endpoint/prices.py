"""List prices per million tokens, and the price table they are read from."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from arena.errors import BadInput


@dataclass(frozen=True)
class Prices:
    """List prices in currency units per one million tokens."""

    prompt_per_million: float
    completion_per_million: float

    def cost(self, prompt_tokens: int | None, completion_tokens: int | None) -> float | None:
        if prompt_tokens is None or completion_tokens is None:
            return None
        return (
            prompt_tokens * self.prompt_per_million
            + completion_tokens * self.completion_per_million
        ) / 1_000_000


def load_prices(path: str | Path, model: str) -> Prices:
    """Prices for ``model`` from a TOML or JSON table ``{model: {prompt, completion}}``.

    A ``"*"`` entry applies to models not listed by name.
    """
    import tomllib

    source = Path(path)
    try:
        text = source.read_text("utf-8")
        table = json.loads(text) if source.suffix.lower() == ".json" else tomllib.loads(text)
    except (OSError, ValueError) as error:
        raise BadInput(f"cannot read the price table ({error})", path=str(source)) from None
    entry = table.get(model, table.get("*")) if isinstance(table, dict) else None
    if not isinstance(entry, dict):
        raise BadInput(f"no prices for {model!r} and no '*' entry", path=str(source), field=model)
    values = []
    for key in ("prompt", "completion"):
        value = entry.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise BadInput(
                "expected a non-negative number per 1M tokens",
                path=str(source),
                field=f"{model}.{key}",
            )
        values.append(float(value))
    return Prices(*values)
