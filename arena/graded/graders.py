"""Deterministic graders for graded families: parse the answer, then score it.

Every rule here is written down in docs/graded.md; a change to any of them
changes what a score means, so bump ``PARSER_VERSION`` with it (the version
goes into each run's system descriptor).
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from arena.errors import unknown_field

PARSER_VERSION = "arena-graders/1"

Status = Literal["ok", "parse_failure", "timeout", "refusal", "missing"]
STATUSES: tuple[str, ...] = ("ok", "parse_failure", "timeout", "refusal", "missing")
Contract = Literal["final_line", "json_block", "whole"]
CONTRACTS: tuple[str, ...] = ("final_line", "json_block", "whole")

# Openings of a refusal, compared after normalise_refusal(). Only the start of
# the output counts: a phrase quoted mid-answer must not zero a good answer.
REFUSAL_PHRASES: tuple[str, ...] = (
    "i can't help with",
    "i cannot help with",
    "i can't assist with",
    "i cannot assist with",
    "i can't provide",
    "i cannot provide",
    "i can't comply",
    "i cannot comply",
    "i won't be able to",
    "i will not be able to",
    "i'm unable to",
    "i am unable to",
    "i'm not able to",
    "i am not able to",
    "i must decline",
    "i have to decline",
    "sorry, but i can't",
    "sorry, but i cannot",
    "i'm sorry, but i can't",
    "i'm sorry, but i cannot",
    "i am sorry, but i cannot",
    "i'm sorry, i can't",
    "i'm sorry, i cannot",
    "as an ai, i can't",
    "as an ai, i cannot",
)
# finish_reason values with which the endpoint says it withheld the answer.
REFUSAL_FINISH_REASONS = frozenset({"content_filter"})


@dataclass(frozen=True)
class Grade:
    """The verdict on one task. ``passed`` means full credit."""

    status: Status
    credit: float
    passed: bool
    parsed_answer: str | None
    detail: str = ""


@dataclass(frozen=True)
class ExactMatch:
    """Credit 1 when the normalised answer equals a normalised accepted answer."""

    expected: tuple[str, ...]


@dataclass(frozen=True)
class RegexMatch:
    """Credit 1 when the pattern matches the whole answer (``full``) or part of it (``search``)."""

    pattern: str
    mode: Literal["full", "search"] = "full"
    ignore_case: bool = False


@dataclass(frozen=True, eq=True)
class JsonFields:
    """One point split equally over the leaf fields of ``expected``."""

    expected: Mapping[str, Any]
    extra_root_fields: Literal["allow", "forbid"] = "allow"
    normalise_strings: bool = False


@dataclass(frozen=True)
class NumericMatch:
    """Credit 1 when |answer - expected| <= max(abs_tol, rel_tol * |expected|)."""

    expected: float
    abs_tol: float = 0.0
    rel_tol: float = 0.0


Grader = ExactMatch | RegexMatch | JsonFields | NumericMatch
GRADER_KINDS: tuple[str, ...] = ("exact", "regex", "json_fields", "numeric")


class SpecError(ValueError):
    """A grader specification that cannot be used; ``field`` is relative to the grader."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


# --- normalisation -----------------------------------------------------------


def normalise(text: str) -> str:
    """NFKC, casefold, punctuation to spaces, whitespace collapsed, ends stripped."""
    text = unicodedata.normalize("NFKC", text).casefold()
    # Backtick is a symbol (Sk) to Unicode, but models use it as markup around answers.
    chars = [" " if unicodedata.category(c).startswith("P") or c == "`" else c for c in text]
    return " ".join("".join(chars).split())


def normalise_refusal(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold()
    text = text.replace("\u2019", "'").replace("\u2018", "'")
    return " ".join(text.split())


def is_refusal(output: str, finish_reason: str | None = None) -> bool:
    """Content filtered by the endpoint, or an output that opens with a refusal phrase."""
    if finish_reason in REFUSAL_FINISH_REASONS:
        return True
    opening = normalise_refusal(output).lstrip("*_#> ")
    return any(opening.startswith(phrase) for phrase in REFUSAL_PHRASES)


# --- answer contracts --------------------------------------------------------

_ANSWER_LINE = re.compile(
    r"^[ \t]*[*_]*(?:final[ \t]+)?answer[*_]*[ \t]*:[*_]*(.*)$", re.IGNORECASE | re.MULTILINE
)
_JSON_FENCE = re.compile(
    r"^[ \t]*```[ \t]*json[ \t]*\r?\n(.*?)^[ \t]*```[ \t]*$",
    re.IGNORECASE | re.MULTILINE | re.DOTALL,
)


def extract_answer(output: str, contract: Contract) -> str | None:
    """The answer the contract names inside ``output``, or None when it is not there."""
    if contract == "final_line":
        lines = _ANSWER_LINE.findall(output)
        # Emphasis closing after the colon ("**Answer:** 42") is markup, not answer.
        answer = lines[-1].strip().strip("*_").strip() if lines else ""
        return answer or None
    if contract == "json_block":
        blocks = _JSON_FENCE.findall(output)
        if blocks:
            return blocks[-1].strip() or None
        whole = output.strip()
        # An output that is nothing but JSON keeps to the contract without a fence.
        return whole if whole[:1] in ("{", "[") else None
    if contract == "whole":
        return output.strip() or None
    raise ValueError(f"unknown answer contract {contract!r}")


# --- numbers -----------------------------------------------------------------

# A run of number characters not glued to a word ("x2"); each run must then be
# one well-formed number, so "12,34" or "1.5.3" is refused rather than half read.
_SPAN = re.compile(r"(?<![\w.,])[-+]?\.?\d[\d.,]*(?:[eE][-+]?\d+)?")
_WELL_FORMED = re.compile(r"[-+]?(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?")


def parse_number(answer: str) -> float | None:
    """The single number in ``answer``; None when there is none, several, or a malformed one."""
    text = unicodedata.normalize("NFKC", answer).replace("\u2212", "-")
    # A sentence's full stop or comma after a number is not part of it.
    spans = [m.group(0).rstrip(".,") for m in _SPAN.finditer(text)]
    if len(spans) != 1 or not _WELL_FORMED.fullmatch(spans[0]):
        return None
    value = float(spans[0].replace(",", ""))
    return value if math.isfinite(value) else None


# --- JSON leaves -------------------------------------------------------------

Leaf = tuple[tuple[str, ...], Any]


def leaves(expected: Mapping[str, Any], prefix: tuple[str, ...] = ()) -> list[Leaf]:
    """(path, value) of every leaf: any value that is not a non-empty object."""
    found: list[Leaf] = []
    for key, value in expected.items():
        if isinstance(value, dict) and value:
            found.extend(leaves(value, (*prefix, key)))
        else:
            found.append(((*prefix, key), value))
    return found


def json_equal(expected: Any, actual: Any, *, normalise_strings: bool = False) -> bool:
    """JSON equality: 1 equals 1.0, but true is not 1; lists compare in order."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return isinstance(expected, bool) and isinstance(actual, bool) and expected == actual
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        return float(expected) == float(actual)
    if isinstance(expected, str) and isinstance(actual, str):
        return normalise(expected) == normalise(actual) if normalise_strings else expected == actual
    same = normalise_strings
    if isinstance(expected, list) and isinstance(actual, list):
        return len(expected) == len(actual) and all(
            json_equal(e, a, normalise_strings=same) for e, a in zip(expected, actual, strict=True)
        )
    if isinstance(expected, dict) and isinstance(actual, dict):
        return expected.keys() == actual.keys() and all(
            json_equal(expected[k], actual[k], normalise_strings=same) for k in expected
        )
    return expected is None and actual is None


def _lookup(value: Any, path: tuple[str, ...]) -> tuple[bool, Any]:
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return False, None
        value = value[key]
    return True, value


# --- grading -----------------------------------------------------------------


def _verdict(credit: float, answer: str, detail: str = "") -> Grade:
    return Grade("ok", credit, credit >= 1.0, answer, detail)


def _failed(status: Status, answer: str | None, detail: str) -> Grade:
    return Grade(status, 0.0, False, answer, detail)


def score_answer(grader: Grader, answer: str) -> Grade:
    """Grade an already extracted answer (status ``ok`` or ``parse_failure``)."""
    if isinstance(grader, ExactMatch):
        wanted = {normalise(e) for e in grader.expected}
        hit = normalise(answer) in wanted
        return _verdict(1.0 if hit else 0.0, answer, "" if hit else "no accepted answer matches")
    if isinstance(grader, RegexMatch):
        pattern = re.compile(grader.pattern, re.IGNORECASE if grader.ignore_case else 0)
        match = pattern.fullmatch(answer) if grader.mode == "full" else pattern.search(answer)
        return _verdict(1.0 if match else 0.0, answer, "" if match else "pattern does not match")
    if isinstance(grader, NumericMatch):
        value = parse_number(answer)
        if value is None:
            return _failed("parse_failure", answer, "expected exactly one number")
        limit = max(grader.abs_tol, grader.rel_tol * abs(grader.expected))
        hit = abs(value - grader.expected) <= limit
        why = "" if hit else f"{value!r} is outside the tolerance"
        return _verdict(1.0 if hit else 0.0, answer, why)
    return _score_json(grader, answer)


def _score_json(grader: JsonFields, answer: str) -> Grade:
    try:
        actual = json.loads(answer)
    except ValueError as error:
        return _failed("parse_failure", answer, f"not valid JSON: {error}")
    if not isinstance(actual, dict):
        return _failed("parse_failure", answer, "the JSON answer is not an object")
    if grader.extra_root_fields == "forbid" and actual.keys() != grader.expected.keys():
        extra = sorted(actual.keys() - grader.expected.keys())
        missing = sorted(grader.expected.keys() - actual.keys())
        return _verdict(0.0, answer, f"root fields differ: extra {extra}, missing {missing}")
    expected = leaves(grader.expected)
    matched = 0
    for path, value in expected:
        found, got = _lookup(actual, path)
        if found and json_equal(value, got, normalise_strings=grader.normalise_strings):
            matched += 1
    return _verdict(matched / len(expected), answer, f"{matched} of {len(expected)} fields match")


def grade_output(
    grader: Grader,
    contract: Contract,
    output: str | None,
    *,
    finish_reason: str | None = None,
    timed_out: bool = False,
) -> Grade:
    """Grade one output. ``output=None`` means none was recorded (status ``missing``).

    Order: timeout, missing, the endpoint's content filter, then the answer
    contract; an output the contract cannot read is a refusal when it opens
    with a refusal phrase, else a parse failure.
    """
    if timed_out:
        return _failed("timeout", None, "no reply within the timeout")
    if output is None:
        return _failed("missing", None, "no output")
    if finish_reason in REFUSAL_FINISH_REASONS:
        return _failed("refusal", None, f"finish_reason {finish_reason}")
    answer = extract_answer(output, contract)
    if answer is None:
        if is_refusal(output):
            return _failed("refusal", None, "the output opens with a refusal")
        return _failed("parse_failure", None, f"no answer under the {contract} contract")
    if is_refusal(answer):
        return _failed("refusal", answer, "the answer is a refusal")
    return score_answer(grader, answer)


# --- building graders from a manifest ----------------------------------------


def _number(spec: Mapping[str, Any], key: str, default: float | None = None) -> float:
    value = spec.get(key, default)
    if value is None:
        raise SpecError(key, "required")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SpecError(key, f"expected a number, found {type(value).__name__}")
    if not math.isfinite(value):
        raise SpecError(key, "must be finite")
    return float(value)


def _choice(spec: Mapping[str, Any], key: str, allowed: tuple[str, ...]) -> Any:
    value = spec.get(key, allowed[0])
    if value not in allowed:
        raise SpecError(key, f"expected one of {', '.join(allowed)}, found {value!r}")
    return value


def _flag(spec: Mapping[str, Any], key: str) -> bool:
    value = spec.get(key, False)
    if not isinstance(value, bool):
        raise SpecError(key, f"expected true or false, found {value!r}")
    return value


_KEYS = {
    "exact": {"kind", "expected"},
    "regex": {"kind", "pattern", "mode", "ignore_case"},
    "json_fields": {"kind", "expected", "extra_root_fields", "normalise_strings"},
    "numeric": {"kind", "expected", "abs_tol", "rel_tol"},
}


def build_grader(spec: Any) -> Grader:
    """A grader from its manifest table; raises SpecError naming the bad field."""
    if not isinstance(spec, Mapping):
        raise SpecError("kind", "the grader must be a table/object")
    kind = spec.get("kind")
    if kind not in _KEYS:
        raise SpecError("kind", f"expected one of {', '.join(GRADER_KINDS)}, found {kind!r}")
    unknown = sorted(set(spec) - _KEYS[kind])
    if unknown:
        raise SpecError(unknown[0], f"{unknown_field(unknown[0], _KEYS[kind])} for a {kind} grader")
    if kind == "exact":
        expected = spec.get("expected")
        options = [expected] if isinstance(expected, str) else expected
        if (
            not isinstance(options, list)
            or not options
            or not all(isinstance(o, str) and normalise(o) for o in options)
        ):
            raise SpecError(
                "expected",
                "expected a non-empty string or list of them "
                "(each must keep some text after normalisation)",
            )
        return ExactMatch(tuple(options))
    if kind == "regex":
        pattern = spec.get("pattern")
        if not isinstance(pattern, str) or not pattern:
            raise SpecError("pattern", "expected a non-empty string")
        try:
            re.compile(pattern)
        except re.error as error:
            raise SpecError("pattern", f"not a valid regular expression ({error})") from None
        return RegexMatch(
            pattern, _choice(spec, "mode", ("full", "search")), _flag(spec, "ignore_case")
        )
    if kind == "numeric":
        tolerances = _number(spec, "abs_tol", 0.0), _number(spec, "rel_tol", 0.0)
        for key, value in zip(("abs_tol", "rel_tol"), tolerances, strict=True):
            if value < 0:
                raise SpecError(key, "must not be negative")
        return NumericMatch(_number(spec, "expected"), *tolerances)
    expected = spec.get("expected")
    if not isinstance(expected, dict) or not leaves(expected):
        raise SpecError("expected", "expected a non-empty table/object of fields")
    return JsonFields(
        expected,
        _choice(spec, "extra_root_fields", ("allow", "forbid")),
        _flag(spec, "normalise_strings"),
    )
