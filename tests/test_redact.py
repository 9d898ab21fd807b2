"""Finding a key in the forms an endpoint might echo it (arena.redact)."""

from __future__ import annotations

import base64
import random
import string
import time
import urllib.parse

import pytest

from arena.redact import MIN_SECRET_LENGTH, PIECE_LENGTH, REDACTED, Redactor, skeleton

KEY = "sk-proj-Zq9vX2mL7pR4tY8wK3nB6cF1hJ5dG0sA"


@pytest.fixture(scope="module")
def redactor() -> Redactor:
    return Redactor([KEY])


@pytest.mark.parametrize(
    "echo",
    [
        KEY.upper(),
        KEY.lower(),
        KEY.encode().hex(),
        KEY.encode().hex().upper(),
        ":".join(f"{b:02X}" for b in KEY.encode()),
        KEY[::-1],
        urllib.parse.quote(KEY, safe=""),
        " ".join(KEY),
        "\n".join(KEY),
        "-".join(KEY),
    ],
)
def test_a_disguised_key_is_replaced_and_the_words_around_it_kept(redactor, echo):
    assert redactor.text(f"Before: {echo} :after") == f"Before: {REDACTED} :after"


@pytest.mark.parametrize("offset", [0, 1, 2])
@pytest.mark.parametrize("encode", [base64.b64encode, base64.urlsafe_b64encode])
def test_a_key_inside_base64_is_cut_out_at_any_offset(redactor, offset, encode):
    echo = encode(b"k" * offset + KEY.encode() + b"!").decode()
    for sent in (echo, echo.rstrip("=")):
        out = redactor.text(f"token {sent} end")
        # Only the characters that also carry the bytes around the key are left.
        assert REDACTED in out and len(out) <= len("token  end") + len(REDACTED) + 8


def test_a_piece_of_the_key_counts_from_its_tenth_letter_or_digit(redactor):
    bones = skeleton(KEY)
    assert redactor.text(f"piece {bones[5 : 5 + PIECE_LENGTH]}!") == f"piece {REDACTED}!"
    shorter = bones[5 : 5 + PIECE_LENGTH - 1]
    assert redactor.text(f"piece {shorter}!") == f"piece {shorter}!"  # documented as missed


def test_the_keys_own_signs_at_its_ends_go_with_it():
    key = '"sk-live-0123456789abcdef=="'
    assert Redactor([key]).text(f"x {key}, y") == f"x {REDACTED}, y"
    # Two keys alike but for their signs are looked for once, with the most signs.
    both = Redactor(["sk-live-0123456789abcdef", "sk-live-0123456789abcdef!!"])
    assert both.text("x sk-live-0123456789abcdef!!, y") == f"x {REDACTED}, y"


def test_rot13_and_short_keys_are_not_found(redactor):
    import codecs

    rot13 = codecs.encode(KEY, "rot13")
    assert redactor.text(rot13) == rot13  # what docs/collect.md lists as undetectable
    short = "ab-cd-ef-g"  # fewer than 8 letters and digits: not looked for
    assert len(skeleton(short)) < MIN_SECRET_LENGTH and Redactor([short]).secrets == []


def test_ordinary_text_is_left_alone_whatever_the_number_of_keys():
    rng = random.Random(7)
    keys = [
        "sk-" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(32))
        for _ in range(500)
    ]
    text = "The quick brown fox, 0123456789, sk-proj- and SGVsbG8gd29ybGQ= all stay.\n" * 200
    assert Redactor(keys).text(text) == text


def test_a_flood_of_the_key_is_redacted_in_linear_time(redactor):
    started = time.perf_counter()
    out = redactor.text(KEY * 100_000)  # 4 MB of nothing but the key
    assert out == REDACTED and time.perf_counter() - started < 20


def test_leak_names_any_string_inside_a_value(redactor):
    assert redactor.leak({"a": ["fine", {"b": KEY.encode().hex()}]})
    assert redactor.leak({"a": ["fine", 3, None]}) is None
