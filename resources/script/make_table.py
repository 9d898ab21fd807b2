"""Regenerate ``traditional_only.txt`` and ``not_japanese.txt`` from OpenCC's dictionaries.

Run from the repository root with OpenCC installed (a development-only
dependency; the app reads the generated table and never imports OpenCC):

    python resources/script/make_table.py

A character is Traditional-only when OpenCC's Traditional->Simplified
conversion changes it and it is not itself a Simplified form. "Simplified
form" means any candidate OpenCC lists on the Simplified side of
``TSCharacters``: that keeps 乾 and 於, which the conversion usually rewrites
(to 干, 于) but which Simplified Chinese still writes. Left out as well:
compatibility ideographs (no one types them; OpenCC normalises them first)
and the rare characters of ``TSCharactersExt``, whose Simplified forms most
fonts cannot show.

``not_japanese.txt`` lists the Han characters that show a text is Chinese, not
Japanese, for the Language gate in Japanese families: Simplified-only forms
(OpenCC's s2t conversion changes them, they are no Traditional candidate in
``STCharacters``, no Japanese form OpenCC's ``JPShinjitaiCharacters`` gives,
and not in JIS X 0208, the kanji set of ordinary Japanese text), old or Chinese
forms that Japanese writes otherwise (OpenCC's t2jp conversion changes them:
國 查 每 說; not those among the first-level JIS X 0208 kanji, such as 龍),
and Traditional-only characters outside JIS X 0208 (嗎 夠).
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

import opencc

HERE = Path(__file__).resolve().parent
TABLE = HERE / "traditional_only.txt"
NOT_JAPANESE = HERE / "not_japanese.txt"
OCD2_HEADER = b"OPENCC_MARISA_0.2.5"

# Unified ideographs: the BMP blocks and Extensions B-I, skipping the compatibility
# supplement (U+2F800-U+2FA1F) that sits between them.
UNIFIED = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0x20000, 0x2EE5F), (0x30000, 0x323AF))
COMPATIBILITY = ((0xF900, 0xFAFF), (0x2F800, 0x2FA1F))


def ocd2_values(path: Path) -> set[str]:
    """Every value string of an OpenCC ``.ocd2`` dictionary.

    The file is the header, a marisa trie of the keys, then the values: item
    count, byte length of a NUL-separated string pool, the pool, and a table
    of value lengths per item. Only the pool is needed, so look for the one
    offset where that layout reads exactly to the end of the file rather than
    decode the trie.
    """
    data = path.read_bytes()
    if not data.startswith(OCD2_HEADER):
        raise SystemExit(f"{path}: not an OpenCC ocd2 dictionary")
    for start in range(len(OCD2_HEADER), len(data) - 8):
        items, pool_len = struct.unpack_from("<II", data, start)
        pool_end = start + 8 + pool_len
        if items == 0 or pool_len == 0 or pool_end > len(data) or data[pool_end - 1] != 0:
            continue
        cursor = pool_end
        try:
            for _ in range(items):
                (count,) = struct.unpack_from("<H", data, cursor)
                cursor += 2 + 2 * count
        except struct.error:
            continue
        if cursor == len(data):
            pool = data[start + 8 : pool_end - 1]
            return {value.decode("utf-8") for value in pool.split(b"\0")}
    raise SystemExit(f"{path}: could not find the value pool")


SHARE = Path(opencc.__file__).resolve().parent / "clib" / "share" / "opencc"
CANDIDATES = [chr(cp) for low, high in UNIFIED for cp in range(low, high + 1)]


def converted(config: str) -> list[str]:
    """Every candidate character as OpenCC's ``config`` converts it."""
    converter = opencc.OpenCC(config, include_tofu_risk_dictionaries=False)
    # One conversion call for all characters: a newline between them keeps
    # phrase rules from joining neighbours.
    found = converter.convert("\n".join(CANDIDATES)).split("\n")
    if len(found) != len(CANDIDATES):
        raise SystemExit("OpenCC changed the number of lines; cannot pair characters")
    return found


def traditional_only() -> list[str]:
    simplified_forms = ocd2_values(SHARE / "TSCharacters.ocd2")
    return [
        char
        for char, simple in zip(CANDIDATES, converted("t2s"), strict=True)
        if simple != char and char not in simplified_forms
    ]


def in_jis_x_0208(char: str) -> bool:
    try:
        char.encode("shift_jis")  # Shift_JIS encodes exactly JIS X 0208
    except UnicodeEncodeError:
        return False
    return True


def in_jis_level_1(char: str) -> bool:
    """Whether ``char`` is a first-level JIS X 0208 kanji (rows 16-47: those in common use)."""
    try:
        encoded = char.encode("euc_jp")
    except UnicodeEncodeError:
        return False
    return len(encoded) == 2 and 0xB0 <= encoded[0] <= 0xCF


def not_japanese(traditional: list[str]) -> list[str]:
    traditional_forms = ocd2_values(SHARE / "STCharacters.ocd2")
    to_japanese = converted("t2jp")
    japanese_forms = {new for char, new in zip(CANDIDATES, to_japanese, strict=True) if new != char}
    simplified_only = {
        char
        for char, full in zip(CANDIDATES, converted("s2t"), strict=True)
        if full != char
        and char not in traditional_forms
        and char not in japanese_forms
        and not in_jis_x_0208(char)
    }
    # Old forms still common in Japanese names (龍) are first-level JIS kanji.
    written_otherwise = {
        char
        for char, new in zip(CANDIDATES, to_japanese, strict=True)
        if new != char and not in_jis_level_1(char)
    }
    chinese_traditional = {char for char in traditional if not in_jis_x_0208(char)}
    return sorted(simplified_only | written_otherwise | chinese_traditional)


def main() -> int:
    chars = traditional_only()
    for low, high in COMPATIBILITY:
        if any(low <= ord(c) <= high for c in chars):
            raise SystemExit("compatibility ideographs slipped into the table")
    header = [
        "# Traditional-only Chinese characters, one per line, for Arena's Script gate.",
        f"# Generated by resources/script/make_table.py from OpenCC {opencc.__version__}",
        "# (https://github.com/BYVoid/OpenCC, Apache-2.0; licence in OPENCC-LICENSE.txt).",
        "# Traditional-only: changed by OpenCC's t2s conversion (without the tofu-risk",
        "# TSCharactersExt dictionary) and not a Simplified candidate in TSCharacters.",
        f"# {len(chars)} characters. Do not edit by hand; rerun the script.",
    ]
    TABLE.write_text("\n".join(header + chars) + "\n", encoding="utf-8")
    print(f"wrote {len(chars)} characters to {TABLE}")
    chinese = not_japanese(chars)
    header = [
        "# Han characters Japanese text does not use, one per line, for Arena's Language gate.",
        f"# Generated by resources/script/make_table.py from OpenCC {opencc.__version__}",
        "# (https://github.com/BYVoid/OpenCC, Apache-2.0; licence in OPENCC-LICENSE.txt)",
        "# and Python's shift_jis codec (JIS X 0208). Simplified-only forms outside JIS X 0208,",
        "# forms OpenCC's t2jp rewrites outside JIS level 1 (Japanese writes them otherwise),",
        f"# and Traditional-only characters outside JIS X 0208. {len(chinese)} characters.",
        "# Do not edit by hand; rerun the script.",
    ]
    NOT_JAPANESE.write_text("\n".join(header + chinese) + "\n", encoding="utf-8")
    print(f"wrote {len(chinese)} characters to {NOT_JAPANESE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
