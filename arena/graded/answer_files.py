"""Reading graded answers produced elsewhere: Arena's answers JSON Lines and an inspect_ai
eval log in its JSON form (``inspect eval ... --log-format json``).

Readers only read: every answer keeps where it was found (``line`` for JSON Lines, the
field path for an eval log), so a refusal can name it. Nothing here knows the ledger.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.errors import BadInput

FORMATS = ("native", "inspect")
_NATIVE_FIELDS = frozenset(
    {"task_id", "output", "finish_reason", "latency_ms", "prompt_tokens", "completion_tokens"}
    | {"cost"}
)
# inspect_ai's stop reasons, as OpenAI-style finish reasons (what the graders and gates read).
_STOP_REASONS = {
    "stop": "stop",
    "max_tokens": "length",
    "model_length": "length",
    "tool_calls": "tool_calls",
    "content_filter": "content_filter",
    "unknown": None,
}


@dataclass(frozen=True)
class Answer:
    """One task's answer from a file; ``text`` is None when the file has no answer."""

    task_id: str
    text: str | None
    where: str  # "samples[3]" in an eval log; "" in JSON Lines (the line says it)
    line: int | None = None
    finish_reason: str | None = None
    latency_ms: int | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost: float | None = None
    error: str = ""


@dataclass(frozen=True)
class AnswerFile:
    path: str
    fmt: str
    source: str  # what the run descriptor records as the answers' origin
    answers: list[Answer] = field(default_factory=list)
    model: str | None = None  # the model the file names (eval logs)
    harness: str | None = None  # what produced the answers, when the file says


def guess_answers_format(path: Path) -> str:
    """``inspect`` for a ``.json`` file, else ``native`` (JSON Lines)."""
    return "inspect" if path.suffix.lower() == ".json" else "native"


def read_answers(path: Path, fmt: str | None = None) -> AnswerFile:
    fmt = fmt or guess_answers_format(path)
    if fmt not in FORMATS:
        raise BadInput(f"expected one of {', '.join(FORMATS)} for graded answers", field="--format")
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise BadInput(f"cannot read the answers ({error})", path=str(path)) from None
    return _read_native(str(path), text) if fmt == "native" else _read_inspect(str(path), text)


def _read_native(path: str, text: str) -> AnswerFile:
    answers = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
        except ValueError as error:
            raise BadInput(f"not JSON ({error})", path=path, line=number) from None
        if not isinstance(record, dict):
            raise BadInput("expected a JSON object", path=path, line=number)
        unknown = sorted(set(record) - _NATIVE_FIELDS)
        if unknown:
            raise BadInput(
                "not a field of graded answers", path=path, line=number, field=unknown[0]
            )
        for name in ("task_id", "output"):
            if name not in record:
                raise BadInput("required", path=path, line=number, field=name)
        task_id, output = record["task_id"], record["output"]
        if not isinstance(task_id, str) or not task_id:
            raise BadInput("expected a non-empty string", path=path, line=number, field="task_id")
        if output is not None and not isinstance(output, str):
            raise BadInput("expected a string or null", path=path, line=number, field="output")
        finish = record.get("finish_reason")
        if finish is not None and not isinstance(finish, str):
            raise BadInput(
                "expected a string or null", path=path, line=number, field="finish_reason"
            )
        numbers = {
            name: _number(record.get(name), path, number, name, integer="tokens" in name)
            for name in ("latency_ms", "prompt_tokens", "completion_tokens", "cost")
        }
        if numbers["latency_ms"] is not None:
            numbers["latency_ms"] = round(numbers["latency_ms"])
        answers.append(
            Answer(
                task_id,
                output,
                "",
                number,
                finish,
                error="" if output is not None else "no answer",
                **numbers,
            )
        )
    if not answers:
        raise BadInput("no answers in the file", path=path)
    return AnswerFile(path, "native", "answers-jsonl", answers)


def _number(value: Any, path: str, line: int | None, name: str, *, integer: bool) -> Any:
    if value is None:
        return None
    ok = isinstance(value, int) if integer else isinstance(value, (int, float))
    if isinstance(value, bool) or not ok or value < 0 or not math.isfinite(value):
        kind = "integer" if integer else "number"
        raise BadInput(f"expected a non-negative {kind} or null", path=path, line=line, field=name)
    return float(value) if not integer else value


def _read_inspect(path: str, text: str) -> AnswerFile:
    """Fields read: ``eval.model``, ``eval.packages.inspect_ai``; per sample ``id``,
    ``epoch``, ``error``, ``output.completion`` (else the text of
    ``output.choices[0].message.content``), ``output.choices[0].stop_reason``,
    ``output.usage.input_tokens`` / ``output_tokens`` and ``output.time`` (seconds).
    The log's own ``scores`` are not read: Arena grades the answers itself."""
    try:
        log = json.loads(text)
    except ValueError as error:
        raise BadInput(f"not a JSON eval log ({error})", path=path) from None
    spec = log.get("eval") if isinstance(log, dict) else None
    if not isinstance(spec, dict) or not isinstance(spec.get("model"), str):
        raise BadInput("not an inspect_ai eval log (no eval.model)", path=path, field="eval.model")
    samples = log.get("samples")
    if not isinstance(samples, list) or not samples:
        raise BadInput(
            "the log holds no samples (was it written with --no-log-samples?)",
            path=path,
            field="samples",
        )
    answers = [_sample(path, f"samples[{i}]", s) for i, s in enumerate(samples)]
    packages = spec.get("packages") if isinstance(spec.get("packages"), dict) else {}
    version = packages.get("inspect_ai") if isinstance(packages, dict) else None
    harness = f"inspect_ai/{version}" if isinstance(version, str) else "inspect_ai"
    return AnswerFile(path, "inspect", "inspect_ai-eval-log", answers, spec["model"], harness)


def _sample(path: str, where: str, sample: Any) -> Answer:
    if not isinstance(sample, dict):
        raise BadInput("expected an object", path=path, field=where)
    task_id = sample.get("id")
    if isinstance(task_id, bool) or not isinstance(task_id, (str, int)) or task_id == "":
        raise BadInput("expected a string or integer task id", path=path, field=f"{where}.id")
    epoch = sample.get("epoch", 1)
    if epoch != 1:
        raise BadInput(
            f"epoch {epoch}: one answer per task is graded; run the eval with --epochs 1",
            path=path,
            field=f"{where}.epoch",
        )
    output = _object(sample.get("output"))
    choices = output.get("choices")
    first = _object(choices[0] if isinstance(choices, list) and choices else None)
    text = output.get("completion")
    if not isinstance(text, str) or not text:
        text = _content_text(_object(first.get("message")).get("content"))
    error = sample.get("error")
    if error:
        text = None
    stop = first.get("stop_reason")
    usage = _object(output.get("usage"))
    seconds: Any = output.get("time")
    return Answer(
        str(task_id),
        text,
        where,
        finish_reason=_STOP_REASONS.get(stop, stop) if isinstance(stop, str) else None,
        latency_ms=round(seconds * 1000) if _is_number(seconds) else None,
        prompt_tokens=_count(usage.get("input_tokens")),
        completion_tokens=_count(usage.get("output_tokens")),
        error=_error_text(error) if error else ("" if text is not None else "no answer"),
    )


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _content_text(content: Any) -> str | None:
    """A message's text: a string, or the ``text`` parts of a content list joined."""
    if isinstance(content, str):
        return content or None
    if isinstance(content, list):
        parts = [
            p["text"]
            for p in content
            if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
        ]
        return "".join(parts) or None
    return None


def _error_text(error: Any) -> str:
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return error["message"]
    return str(error)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None
