"""A varied corpus for checking that the gates' verdicts never change by accident.

``corpus()`` builds (output, case, family) triples from the labelled samples of
this folder and benchmarks/gates_bench.py's generator, under families of several
languages, plus edge cases (empty and blank outputs, zero-width text, diffs,
truncated answers, an unclosed fence, mixed scripts, code only). The verdicts
of every triple are stored in ``gate_reference.json`` (``python
tests/gates/reference_corpus.py`` rewrites it: only when a gate's behaviour is
meant to change, with ``GATES_VERSION`` bumped).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

from arena.records import Case, CaseId, Family, Output, OutputId, SystemId

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
REFERENCE = HERE / "gate_reference.json"
FENCE = "```"
FAMILIES = ("en", "ja", "zh-Hans", "zh-Hant", "de", "fr")
EDGES = [
    "",
    "   \n\t  ",
    "\u200b\u200b",
    "OK",
    "42",
    "THIS IS AN ANSWER WRITTEN ENTIRELY IN CAPITAL LETTERS FOR EMPHASIS, SADLY.",
    f"{FENCE}python\nprint('hello')\n",
    f"{FENCE}python\n# 只保留已经准备好的元素，并把它们的值翻倍\n"
    f"x = [i * 2 for i in range(10)]\n{FENCE}",
    f'{FENCE}\n{{"name": "value", "count": 3}}\n{FENCE}',
    "東京都千代田区丸の内一丁目。営業時間：午前九時から午後五時まで。",
    "数据库連接失败，請檢查網絡設置後重試。这是简体和繁體混合的句子。",
    "これは日本語の文です。This sentence is English. 这是中文句子，我们来测试一下。",
    "안녕하세요. 이것은 한국어 문장입니다. 오늘 날씨가 좋네요.",
    "| col | value |\n|---|---|\n| a | 1 |\n| b | 2 |",
    "    indented code line\n    another line\n\nThen some prose follows here, in English words.",
    "See https://example.com/path?x=1 and `inline_code()` for details on os.path.join.",
    "Привет! Это ответ на русском языке, довольно длинный, чтобы его можно было распознать.",
    "Line one.\r\nLine two with Windows endings.\r\nLine three, the last of them all.",
    "> quoted text in a blockquote, long enough to be read as English prose by the gate\n> more",
]


def _load(name: str, folder: Path = HERE) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, folder / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _diff(path: str, added: str) -> str:
    lines = "".join(f"+{line}\n" for line in added.split("\n"))
    return f"--- a/{path}\n+++ b/{path}\n@@ -1,0 +1,{added.count(chr(10)) + 1} @@\n{lines}"


def corpus() -> list[tuple[Output, Case, Family]]:
    texts: list[tuple[str, bool, str | None]] = [(text, False, "stop") for text in EDGES]
    texts += [(text, False, None) for _, _, text in _load("lang_samples").SAMPLES]
    han = _load("han_samples")
    texts += [(text, False, "stop") for _, text in han.CHINESE + han.KANJI_JAPANESE]
    wrong = _load("wrong_language_samples")
    texts += [(t[-1], t[-2] == "diff", "stop") for t in wrong.WRONG]
    texts += [(t[-1], t[-2] == "diff", "length") for t in wrong.RIGHT_HARD]
    texts += [
        (_diff("src/app.py", "# 只保留已经准备好的元素\nvalue = compute(1)"), True, "stop"),
        (_diff("lib/x.go", "// keep only the ready items\nx := 1"), True, None),
        (_diff("README.md", "Ceci est une phrase en français, assez longue."), True, "stop"),
    ]
    bench = _load("gates_bench", ROOT / "benchmarks")
    generated = [(o.text, False, o.finish_reason) for _, o, _, _ in bench.make_outputs(150)]
    found = []
    prompts = ("Explain the idea.", "请解释这个想法。", "この考えを説明してください。")
    for index, (text, is_diff, finish) in enumerate(texts + generated):
        family = Family(
            "ref", language=FAMILIES[index % len(FAMILIES)], min_chars=5, max_chars=3000
        )
        case_id = CaseId(f"c{index}")
        language = "ja" if index % 11 == 0 else None
        case = Case("ref", case_id, "general", prompts[index % 3], language)
        output = Output(
            OutputId(f"o{index}"), "ref", case_id, SystemId("s"), 0, text,
            finish_reason=finish, is_diff=is_diff,
        )  # fmt: skip
        found.append((output, case, family))
    # The generator's own families too: mostly the answer's language, so mostly passing.
    for _, output, case, family in bench.make_outputs(250, seed=11):
        renamed = dataclasses.replace(output, output_id=OutputId(f"g{output.output_id}"))
        found.append((renamed, case, family))
    return found


def verdicts(results: tuple) -> list[list[object]]:
    return [[r.gate, r.passed, r.reason] for r in results]


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from arena.gates import evaluate

    table = {o.output_id: verdicts(evaluate(o, c, f)) for o, c, f in corpus()}
    REFERENCE.write_text(json.dumps(table, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"{len(table)} outputs written to {REFERENCE}")


if __name__ == "__main__":
    main()
