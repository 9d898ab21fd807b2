"""A judge to run: declared once in a systems file (``[[judge]]``) or with flags.

A judge's descriptor, like a system's, is everything that makes its verdicts what they
are: the endpoint, the model, the prompt template (by its sha256), the sampling settings,
the prices and the name of the variable holding the key (never the key). Its sha256 is
the judge's id: a changed template or setting is a new judge, which takes a new name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.canonical import content_hash
from arena.collecting.systems_file import (
    SAMPLING,
    _env_key,
    _line_of,
    _name,
    _price,
    _sampling,
    _text,
    read_table,
)
from arena.endpoint.prices import Prices
from arena.endpoint.run_settings import CollectSettings, normalise_endpoint
from arena.errors import BadInput, unknown_field
from arena.judges.templates import Template, template_named
from arena.records import _hashable
from arena.redact import SECRET_KEYS, Redactor

HARNESS = "arena-judge/1"
# Raise when the way a reply is read changes: the same replies would read otherwise.
PARSER = "judge-marks/1"
FIELDS = (
    "name",
    "base_url",
    "model",
    "template",
    *SAMPLING,
    "input_price",
    "output_price",
    "api_key_env",
)
_HEADER = re.compile(r"^\s*\[\[\s*judge\s*\]\]")


@dataclass(frozen=True)
class DeclaredJudge:
    name: str
    descriptor: dict[str, Any]  # what the judge's id is the hash of (floats as their repr)
    template: Template

    @property
    def judge_id(self) -> str:
        return content_hash(_hashable(self.descriptor))

    def settings(self, *, timeout_s: float, retries: int, backoff_s: float) -> CollectSettings:
        """How to ask the judge's endpoint: collect's settings, the template's system prompt."""
        d = self.descriptor
        prices = d.get("prices")
        return CollectSettings(
            endpoint=d["endpoint"],
            model=d["model"],
            system_prompt=self.template.system,
            inference=dict(d["settings"]),
            api_key_env=d.get("api_key_env"),
            timeout_s=timeout_s,
            retries=retries,
            backoff_s=backoff_s,
            prices=Prices(prices["input_per_million"], prices["output_per_million"])
            if prices
            else None,
            retry_timeouts=True,
        )


def judge_of(entry: dict[str, Any], base: Path | None = None) -> DeclaredJudge:
    """A judge from one ``[[judge]]`` table (or the flags made into one), checked; errors
    name the field. ``base``: the folder a template file's path is relative to."""
    for name in entry:
        if name.lower() in SECRET_KEYS:
            raise BadInput(
                "keys never go in a systems file; name the variable in api_key_env", field=name
            )
        if name not in FIELDS:
            raise BadInput(unknown_field(name, FIELDS), field=name)
    name = _name(entry, "name")
    if name == "rater":
        raise BadInput("a judge needs a name other than 'rater'", field="name")
    model = _name(entry, "model")
    try:
        endpoint = normalise_endpoint(_text(entry, "base_url"))
    except BadInput as exc:
        raise BadInput(exc.message, field="base_url") from None
    try:
        template = template_named(_text(entry, "template"), base)
    except BadInput as exc:
        if exc.path is not None:
            raise
        raise BadInput(exc.message, field="template") from None
    sampling = {n: _sampling(entry, n) for n in SAMPLING if n in entry}
    prices = [_price(entry, n) for n in ("input_price", "output_price")]
    if (prices[0] is None) != (prices[1] is None):
        raise BadInput("give both input_price and output_price, or neither", field="input_price")
    key_env = _name(entry, "api_key_env") if "api_key_env" in entry else None
    descriptor: dict[str, Any] = {
        "kind": "judge",
        "harness": HARNESS,
        "parser": PARSER,
        "endpoint": endpoint,
        "model": model,
        "template": {"name": template.name, "sha256": template.sha256, "scale": template.scale},
        "settings": sampling,
    }
    if prices[0] is not None:
        descriptor["prices"] = {"input_per_million": prices[0], "output_per_million": prices[1]}
    if key_env is not None:
        descriptor["api_key_env"] = key_env
    keys = [k for k in [_env_key(key_env)] if k]
    Redactor.from_environment(extra=keys).refuse_in({"name": name, **descriptor})
    return DeclaredJudge(name, descriptor, template)


def read_judges(path: Path) -> list[DeclaredJudge]:
    """The ``[[judge]]`` tables of a systems file, each checked; errors name the file, the
    line and the field."""
    text, table = read_table(path)
    entries = table.get("judge")
    if not entries:
        raise BadInput("no [[judge]] tables", path=str(path), field="judge")
    judges: list[DeclaredJudge] = []
    for index, entry in enumerate(entries):
        try:
            found = judge_of(entry, path.parent)
            if any(j.name == found.name for j in judges):
                raise BadInput("a name names one judge", field="name")
        except BadInput as exc:
            if exc.path is not None:  # the template file's own problem
                raise
            raise BadInput(
                exc.message,
                path=str(path),
                line=_line_of(text, index, exc.field or "", _HEADER),
                field=f"judge[{index}].{exc.field}",
            ) from None
        judges.append(found)
    return judges


def declared_judge(path: Path, name: str) -> DeclaredJudge:
    judges = read_judges(path)
    found = next((j for j in judges if j.name == name), None)
    if found is None:
        raise BadInput(
            f"no [[judge]] named {name!r} (the file declares {', '.join(j.name for j in judges)})",
            path=str(path),
            field="--judge",
        )
    return found
