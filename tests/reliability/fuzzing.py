"""Hypothesis strategies for the bad-input suite: records of each format, then mutations."""

from __future__ import annotations

import codecs
import csv
import io
import json
from typing import Any

from hypothesis import strategies as st

HUGE = 10 * 1024 * 1024  # a 10 MB line

odd_text = st.one_of(
    st.text(max_size=40),
    st.sampled_from(
        [
            "",
            " ",
            "\x00",
            "\ud800",
            "\udfff",
            "a\u2028b",
            "\r\n",
            "NaN",
            "Infinity",
            "-0",
            "1e400",
            "null",
            "ä" * 3,
            "\ufeff",
            "c0",
            "sys0",
        ]
    ),
)
odd_scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    odd_text,
)
odd_json = st.recursive(
    odd_scalar,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(odd_text, inner, max_size=3)
    ),
    max_leaves=8,
)


# How odd a record is: most are valid (the accepted path must be exercised too).
ODDNESS = st.sampled_from([0.0] * 6 + [0.5, 1.0])


def maybe(draw, k: float, good: Any, odd=odd_json, p_odd: float = 0.15) -> Any:
    """``good``, or (with probability ``p_odd * k``) an odd JSON value instead."""
    return draw(odd) if k and draw(st.floats(0, 1)) < p_odd * k else good


@st.composite
def native_record(draw) -> dict:
    k = draw(ODDNESS)
    case = draw(st.integers(0, 5))
    label = draw(st.sampled_from(["sys0", "sys1", "sys2", "other"]))
    record: dict[str, Any] = {
        "case": maybe(
            draw,
            k,
            {
                "id": maybe(draw, k, f"c{case}", p_odd=0.05),
                "category": maybe(draw, k, "general", p_odd=0.05),
                "prompt": maybe(draw, k, f"Prompt {case}", p_odd=0.05),
            },
            p_odd=0.03,
        ),
        "system": maybe(
            draw,
            k,
            {
                "label": maybe(draw, k, label, p_odd=0.05),
                "model": maybe(draw, k, f"m/{label}", p_odd=0.05),
                "inference": maybe(draw, k, {"temperature": 0.7}, p_odd=0.3),
            },
            p_odd=0.03,
        ),
        "output": maybe(draw, k, draw(st.text(max_size=80)), p_odd=0.05),
    }
    for key, good in (
        ("sample", 0),
        ("finish_reason", "stop"),
        ("latency_ms", 12.5),
        ("cost", 0.001),
        ("prompt_tokens", 3),
        ("test_result", None),
        ("is_diff", False),
        ("family", "fz"),
    ):
        if draw(st.booleans()):
            record[key] = maybe(draw, k, good, p_odd=0.2)
    if k and draw(st.floats(0, 1)) < 0.1:
        record[draw(odd_text)] = draw(odd_json)
    return record


@st.composite
def alpaca_record(draw) -> dict:
    k = draw(ODDNESS)
    record = {
        "instruction": maybe(draw, k, f"Instruction {draw(st.integers(0, 5))}", p_odd=0.05),
        "output": maybe(draw, k, draw(st.text(max_size=80)), p_odd=0.05),
        "generator": maybe(draw, k, draw(st.sampled_from(["sys0", "sys1"])), p_odd=0.05),
    }
    if draw(st.booleans()):
        record["dataset"] = maybe(draw, k, "helpful_base", p_odd=0.3)
    return record


@st.composite
def fastchat_record(draw) -> dict:
    k = draw(ODDNESS)
    question = draw(st.integers(1, 4))
    turns = 1 + question % 2 if draw(st.floats(0, 1)) > 0.1 * k else draw(st.integers(1, 3))
    return {
        "question_id": maybe(draw, k, question, p_odd=0.05),
        "model_id": maybe(draw, k, draw(st.sampled_from(["sys0", "sys1"])), p_odd=0.05),
        "choices": maybe(
            draw,
            k,
            [
                {
                    "index": 0,
                    "turns": maybe(
                        draw, k, [draw(st.text(max_size=40)) for _ in range(turns)], p_odd=0.1
                    ),
                }
            ],
            p_odd=0.05,
        ),
    }


CSV_COLUMNS = [
    "case_id",
    "prompt",
    "system",
    "output",
    "category",
    "sample",
    "finish_reason",
    "latency_ms",
    "cost",
    "test_result",
    "prompt_tokens",
    "completion_tokens",
]


@st.composite
def csv_rows(draw) -> list[list[str]]:
    header = CSV_COLUMNS[:4] + draw(
        st.lists(st.sampled_from(CSV_COLUMNS[4:]), unique=True, max_size=4)
    )
    if draw(st.floats(0, 1)) < 0.1:
        header = draw(st.permutations(header))[: draw(st.integers(0, len(header)))]
    if draw(st.floats(0, 1)) < 0.05:
        header = [*header, draw(st.text(max_size=8))]
    good = {
        "case_id": lambda: f"c{draw(st.integers(0, 5))}",
        "prompt": lambda: "P",
        "system": lambda: draw(st.sampled_from(["sys0", "sys1"])),
        "output": lambda: draw(st.text(max_size=60)),
        "category": lambda: "g",
        "sample": lambda: "0",
        "finish_reason": lambda: "stop",
        "latency_ms": lambda: "1.5",
        "cost": lambda: "",
        "test_result": lambda: "passed",
        "prompt_tokens": lambda: "3",
        "completion_tokens": lambda: "4",
    }
    rows = [header]
    for _ in range(draw(st.integers(0, 4))):
        row = [
            good[c]() if c in good and draw(st.floats(0, 1)) > 0.15 else draw(odd_text)
            for c in header
        ]
        if draw(st.floats(0, 1)) < 0.05:
            row = row[: draw(st.integers(0, len(row)))] + draw(st.lists(odd_text, max_size=2))
        rows.append(row)
    return rows


@st.composite
def vote_record(draw) -> dict:
    k = draw(ODDNESS)
    record = {
        "case_id": maybe(draw, k, f"c{draw(st.integers(0, 4))}", p_odd=0.05),
        "left_system": maybe(draw, k, draw(st.sampled_from(["sys0", "sys1", "sys2"])), p_odd=0.05),
        "right_system": maybe(draw, k, draw(st.sampled_from(["sys0", "sys1", "sys2"])), p_odd=0.05),
        "choice": maybe(
            draw, k, draw(st.sampled_from(["left", "right", "tie", "both_bad"])), p_odd=0.05
        ),
        "session": maybe(draw, k, draw(st.integers(1, 3)), p_odd=0.05),
        "actor": maybe(draw, k, "ann", p_odd=0.05),
        "shown_at": maybe(draw, k, "2026-11-30T10:00:00Z", p_odd=0.1),
        "voted_at": maybe(
            draw,
            k,
            draw(
                st.sampled_from(
                    ["2026-11-30T10:00:05Z", "2026-11-30T09:00:00+00:00", "2026-11-30T10:00:05"]
                )
            ),
            p_odd=0.1,
        ),
    }
    for key, good in (("left_sample", 0), ("right_sample", 0), ("repeat_of", 1)):
        if draw(st.floats(0, 1)) < 0.2:
            record[key] = maybe(draw, k, good, p_odd=0.3)
    return record


def _dumps(value: Any, *, ascii_only: bool) -> str:
    return json.dumps(value, ensure_ascii=ascii_only, allow_nan=True)


def _encode(text: str) -> bytes:
    # surrogatepass: a lone surrogate becomes invalid UTF-8 bytes, as a buggy writer makes.
    return text.encode("utf-8", errors="surrogatepass")


def serialise(fmt: str, records: Any, ascii_only: bool, crlf: bool) -> bytes:
    end = "\r\n" if crlf else "\n"
    if fmt == "csv":
        out = io.StringIO()
        csv.writer(out, lineterminator=end).writerows(records)
        return _encode(out.getvalue())
    if fmt == "alpacaeval":
        return _encode(
            "[" + ("," + end).join(_dumps(r, ascii_only=ascii_only) for r in records) + "]" + end
        )
    return _encode(end.join(_dumps(r, ascii_only=ascii_only) for r in records) + end)


MUTATIONS = (
    "none",
    "bitflip",
    "truncate",
    "utf16",
    "latin1",
    "bom",
    "duplicate",
    "nan",
    "nul",
    "crlf_mix",
    "deep",
    "splice",
    "huge",
)


@st.composite
def mutated(draw, fmt: str, base: bytes, *, allow_huge: bool) -> tuple[str, bytes]:
    choices = MUTATIONS if allow_huge else MUTATIONS[:-1]
    kind = draw(st.sampled_from(choices))
    data = base
    if kind == "bitflip" and data:
        for _ in range(draw(st.integers(1, 4))):
            at = draw(st.integers(0, len(data) - 1))
            data = data[:at] + bytes([data[at] ^ (1 << draw(st.integers(0, 7)))]) + data[at + 1 :]
    elif kind == "truncate":
        data = data[: draw(st.integers(0, len(data)))]
    elif kind == "utf16":
        data = codecs.BOM_UTF16_LE + data.decode("utf-8", "surrogatepass").encode(
            "utf-16-le", "surrogatepass"
        )
    elif kind == "latin1":
        data = data.decode("utf-8", "replace").replace("a", "é").encode("latin-1", "replace")
    elif kind == "bom":
        data = codecs.BOM_UTF8 + data
    elif kind == "duplicate":
        lines = data.splitlines(keepends=True)
        if lines:
            at = draw(st.integers(0, len(lines) - 1))
            lines.insert(at, lines[at])
        data = b"".join(lines)
    elif kind == "nan":
        data = (
            data.replace(b"0.001", b"NaN")
            .replace(b"12.5", b"-Infinity")
            .replace(b'"sample": 0', b'"sample": NaN')
        )
    elif kind == "nul":
        at = draw(st.integers(0, len(data)))
        data = data[:at] + b"\x00" + data[at:]
    elif kind == "crlf_mix":
        data = data.replace(b"\n", b"\r", 1).replace(b"\n", b"\r\n")
    elif kind == "deep":
        depth = draw(st.sampled_from([50, 600, 1000, 100_000]))
        nest = b"[" * depth + b"1" + b"]" * depth
        if fmt == "csv":
            data = data + b"c9,P,sys0," + nest + b"\n"
        elif fmt == "alpacaeval":
            data = (
                b'[{"instruction": "x", "generator": "sys0", "output": "o", "dataset": '
                + nest
                + b"}]"
            )
        else:
            data = data + b'{"x": ' + nest + b"}\n"
    elif kind == "splice":
        junk = draw(st.binary(max_size=40))
        at = draw(st.integers(0, len(data)))
        data = data[:at] + junk + data[at:]
    elif kind == "huge":
        filler = b"x" * HUGE
        if fmt == "csv":
            data = data + b"c1,P,sys0," + filler + b"\n"
        elif fmt == "alpacaeval":
            data = b'[{"instruction": "I", "generator": "sys0", "output": "' + filler + b'"}]'
        elif fmt == "fastchat":
            data = (
                data
                + b'{"question_id": 1, "model_id": "sys0", "choices": [{"turns": ["'
                + filler
                + b'"]}]}\n'
            )
        elif fmt == "votes":
            data = data + b'{"case_id": "' + filler + b'"}\n'
        else:
            data = (
                data
                + json.dumps(
                    {
                        "case": {"id": "c1", "prompt": "P"},
                        "system": {"label": "sys0", "model": "m/sys0"},
                        "output": "",
                    }
                ).encode()[:-2]
                + b'"'
                + filler
                + b'"}\n'
            )
    return kind, data
