"""Removing configured secrets from parsed values before anything is hashed or stored.

Redaction works on parsed values, not on serialised text: a regular
expression over JSON misses tokens split by escapes (research/reliability.md).

A key is looked for in the forms an endpoint might echo it, through each text's
*skeleton*: its ASCII letters and digits, lower-cased. Case, and whatever stands
between a key's characters (spaces, dashes, dots, line breaks), are gone from both
sides, so one search finds the key as sent, upper- or lower-cased, or spaced out.
Each form (the key, reversed, hex, base64 at each of the three byte offsets,
URL-encoded) is found whole or as a long enough run of it: a key handed back in
pieces, over several replies, shows as runs, each found on its own.
"""

from __future__ import annotations

import base64
import bisect
import os
import re
import urllib.parse
from array import array
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple

from arena.errors import BadInput

REDACTED = "[REDACTED]"
# A key with fewer letters and digits than this would blank out ordinary words.
MIN_SECRET_LENGTH = 8
# This many letters and digits of a key in a row count as the key (a key cut into
# pieces, or partly echoed); fewer are too likely in ordinary text.
PIECE_LENGTH = 10
SECRET_KEYS = frozenset(
    {
        "authorization",
        "api_key",
        "apikey",
        "api-key",
        "x-api-key",
        "bearer",
        "token",
        "access_token",
        "secret",
        "password",
    }
)
DEFAULT_SECRET_ENVS = ("ARENA_API_KEY", "OPENAI_API_KEY")
_NOT_ALNUM = re.compile(r"[^0-9A-Za-z]+")
_LEADING = re.compile(r"^[^0-9A-Za-z]+")
_TRAILING = re.compile(r"[^0-9A-Za-z]+$")
# Texts are probed with grams this long, a stride apart: a run as long as the
# shortest that counts always holds one whole probe.
_GRAM = 5
_SEEN_BITS = 1 << 20


def skeleton(text: str) -> str:
    """``text``'s ASCII letters and digits, lower-cased (as long as ``text`` has them)."""
    return _NOT_ALNUM.sub("", text).lower()


class KeyForm(NamedTuple):
    """One form of a key, as a skeleton."""

    bones: str
    run: int  # the shortest run of it that counts: ``PIECE_LENGTH`` characters' worth
    # What the form has before its first and after its last letter or digit, which a
    # skeleton drops: taken along when a match reaches that end.
    lead: int
    trail: int


def key_forms(secret: str) -> list[KeyForm]:
    """Each form an endpoint might echo ``secret`` in."""
    raw = secret.encode("utf-8")
    forms = [
        (secret, PIECE_LENGTH),
        (secret[::-1], PIECE_LENGTH),
        (urllib.parse.quote(secret, safe=""), PIECE_LENGTH),
        (raw.hex(), 2 * PIECE_LENGTH),
    ]
    for offset in range(3):
        # Inside a longer base64 text the key's bytes start at one of three offsets of
        # a 3-byte group; the characters that also depend on neighbouring bytes are
        # cut. URL-safe base64 differs only in characters a skeleton drops.
        padded = b"\0" * offset + raw
        text = base64.b64encode(padded).decode()
        start = (offset * 8 + 5) // 6  # first character free of the padding bytes
        end = (len(padded) * 8) // 6  # last character made of key bits only
        forms.append((text[start:end], -(-4 * PIECE_LENGTH // 3)))
    found = []
    for form, run in forms:
        bones = skeleton(form)
        if len(bones) >= MIN_SECRET_LENGTH:
            lead = len(form) - len(_LEADING.sub("", form))
            trail = len(form) - len(_TRAILING.sub("", form))
            found.append(KeyForm(bones, min(run, len(bones)), lead, trail))
    return found


class KeyFinder:
    """Where the forms of some keys show in a text.

    Every gram of every form is indexed as one sorted 64-bit number (the gram in base
    36, then where it sits), 8 bytes each however many keys there are; a text's
    skeleton is probed a stride apart, and each probe that hits is grown both ways
    along its form.
    """

    def __init__(self, secrets: Iterable[str]) -> None:
        # Forms alike once reduced to their skeleton (a key and its URL-encoding, often)
        # are looked for once, taking along the most signs either had at its ends.
        unique: dict[str, KeyForm] = {}
        for form in (f for s in secrets for f in key_forms(s)):
            seen = unique.get(form.bones, form)
            unique[form.bones] = form._replace(
                lead=max(form.lead, seen.lead), trail=max(form.trail, seen.trail)
            )
        self.forms = list(unique.values())
        self.starts = array("q")  # where each form starts, the forms laid end to end
        grams = array("q")
        # One bit per gram's hash: most probes miss, and are told so by one look here.
        self.seen = bytearray(_SEEN_BITS // 8 if self.forms else 0)
        start = 0
        for form in self.forms:
            self.starts.append(start)
            for at in range(len(form.bones) - _GRAM + 1):
                gram = form.bones[at : at + _GRAM]
                bit = hash(gram) % _SEEN_BITS
                self.seen[bit >> 3] |= 1 << (bit & 7)
                grams.append(int(gram, 36) << 32 | start + at)
            start += len(form.bones)
        self.grams = _sorted(grams)
        self.shortest = min((form.run for form in self.forms), default=0)

    def _hits(self, gram: str) -> list[tuple[int, int]]:
        """(form, where in it) of every place ``gram`` shows in a form."""
        code = int(gram, 36)
        i = bisect.bisect_left(self.grams, code << 32)
        hits = []
        while i < len(self.grams) and self.grams[i] >> 32 == code:
            place = self.grams[i] & 0xFFFFFFFF
            index = bisect.bisect_right(self.starts, place) - 1
            hits.append((index, place - self.starts[index]))
            i += 1
        return hits

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where in ``text`` the forms show (start, end), in order, merged."""
        bones = skeleton(text)
        if not self.forms or len(bones) < self.shortest:
            return []
        found: list[tuple[int, int, KeyForm | None, KeyForm | None]] = []
        grown: dict[tuple[int, int], int] = {}  # (form, where it would start) -> end
        covered = 0  # the end of the last stretch found
        for probe in range(0, len(bones) - _GRAM + 1, self.shortest - _GRAM + 1):
            if probe + _GRAM <= covered:
                continue  # what a stretch found already holds is redacted with it
            gram = bones[probe : probe + _GRAM]
            bit = hash(gram) % _SEEN_BITS
            if not self.seen[bit >> 3] & 1 << (bit & 7):
                continue
            for index, at in self._hits(gram):
                form = self.forms[index]
                if grown.get((index, probe - at), -1) >= probe + _GRAM:
                    continue  # this stretch of the form was grown already
                start, end = _grow(bones, form.bones, probe, at)
                grown[(index, probe - at)] = end
                if end - start >= form.run:
                    # The form's ends, when the stretch reaches them.
                    first = form if start - probe + at == 0 else None
                    last = form if end - probe + at == len(form.bones) else None
                    found.append((start, end, first, last))
                    covered = max(covered, end)
        if not found:
            return []
        places = _places(text)
        merged: list[tuple[int, int]] = []
        for start, end, first, last in sorted(found, key=lambda f: f[:2]):
            left, right = places(start), places(end - 1) + 1
            if first is not None:  # the key's own signs before its first letter or digit
                left = max(left - first.lead, places(start - 1) + 1 if start else 0)
            if last is not None:
                right = min(right + last.trail, places(end) if end < len(bones) else len(text))
            if merged and left <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], right))
            else:
                merged.append((left, right))
        return merged


def _sorted(values: array) -> array:
    """``values`` sorted without a Python object per value: thousands of keys stay a few
    megabytes while they are indexed."""
    if not values:
        return values
    import numpy  # only with keys to look for: commands start without it

    return array("q", numpy.sort(numpy.frombuffer(values, dtype=numpy.int64)).tobytes())


def _places(text: str) -> Callable[[int], int]:
    """Where in ``text`` the skeleton's n-th character is: n plus what was dropped before it."""
    at: list[int] = []  # where each dropped run sat in the skeleton
    dropped: list[int] = []  # how much was dropped up to and with it
    total = 0
    for gap in _NOT_ALNUM.finditer(text):
        at.append(gap.start() - total)
        total += gap.end() - gap.start()
        dropped.append(total)
    return lambda n: n + (dropped[i - 1] if (i := bisect.bisect_right(at, n)) else 0)


def _grow(bones: str, form: str, probe: int, at: int) -> tuple[int, int]:
    """The stretch of ``bones`` around ``probe`` that matches ``form`` around ``at``."""
    back = _common(bones[max(0, probe - at) : probe][::-1], form[:at][::-1])
    rest = form[at + _GRAM :]
    ahead = _common(bones[probe + _GRAM : probe + _GRAM + len(rest)], rest)
    return probe - back, probe + _GRAM + ahead


def _common(x: str, y: str) -> int:
    """How many leading characters ``x`` and ``y`` share (compared a slice at a time)."""
    n = min(len(x), len(y))
    if x[:n] == y[:n]:
        return n
    low, high = 0, n  # x[:low] == y[:low]; x[:high] differs
    while high - low > 1:
        middle = (low + high) // 2
        if x[:middle] == y[:middle]:
            low = middle
        else:
            high = middle
    return low


class Redactor:
    """Replaces every configured secret inside strings, and values under secret-looking keys."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        found = {s.strip() for s in secrets if s and len(skeleton(s)) >= MIN_SECRET_LENGTH}
        self.secrets = sorted(found)
        self.finder = KeyFinder(self.secrets)

    @classmethod
    def from_environment(
        cls, names: Iterable[str] = DEFAULT_SECRET_ENVS, extra: Iterable[str] = ()
    ) -> Redactor:
        return cls([os.environ.get(n, "") for n in names] + list(extra))

    def text(self, value: str) -> str:
        if not self.secrets:
            return value
        kept, last = [], 0
        for start, end in self.finder.spans(value):
            kept += [value[last:start], REDACTED]
            last = end
        return "".join(kept) + value[last:] if kept else value

    def leak(self, value: Any) -> str | None:
        """How a secret still shows in ``value`` (any string inside it), or None: the
        last check before anything is stored."""
        if isinstance(value, str):
            if self.finder.spans(value):
                return f"the key, or {PIECE_LENGTH} of its letters and digits, in some form"
            return None
        if isinstance(value, Mapping):
            return next(
                (found for k, v in value.items() if (found := self.leak(str(k)) or self.leak(v))),
                None,
            )
        if isinstance(value, (list, tuple)):
            return next((found for v in value if (found := self.leak(v))), None)
        return None

    def refuse_in(self, fields: Mapping[str, Any]) -> None:
        """Refuse a configured key in a field that would be recorded (model, label, ...)."""
        for name, value in fields.items():
            if self.leak(value):
                raise BadInput(
                    "holds the API key; secrets never enter a system descriptor "
                    "or a label (give the key's variable with --api-key-env)",
                    field=name,
                )

    def value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {
                self.text(k): REDACTED
                if k.lower() in SECRET_KEYS and value[k] not in (None, "")
                else self.value(v)
                for k, v in value.items()
            }
        if isinstance(value, list):
            return [self.value(v) for v in value]
        return value
