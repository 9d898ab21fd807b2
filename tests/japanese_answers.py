"""A small Japanese MT-bench-like folder (FastChat layout) written by the tests themselves.

``question.jsonl`` and ``model_answer/answers.jsonl``: six Japanese questions answered by
``tanaka`` in Japanese and by ``smith`` in English on the odd cases, so that in a ``ja``
family exactly smith's three English answers fail the Language gate.
"""

from __future__ import annotations

import json
from pathlib import Path

QUESTIONS = (
    "日本の四季について、それぞれの季節の特徴と楽しみ方を詳しく説明してください。",
    "健康的な朝ごはんの献立を三つ提案し、それぞれの栄養面での利点を教えてください。",
    "初めて東京を訪れる人のために、二日間の観光計画を立ててください。",
    "リモートワークの長所と短所を比べて、働き方を改善するための工夫を述べてください。",
    "子どもに読書の習慣を身につけさせる方法を、具体的な例を挙げて説明してください。",
    "環境にやさしい生活を送るために、家庭でできることを五つ挙げてください。",
)
JAPANESE = (
    "ご質問ありがとうございます。{n}番目の質問について、順番に説明します。"
    "まず、大切なのは毎日の小さな積み重ねです。次に、周りの人と協力しながら、"
    "楽しく続けることが重要です。最後に、無理をせず自分のペースで取り組むことを"
    "おすすめします。少しずつ習慣にすれば、きっと良い結果につながるでしょう。"
)
ENGLISH = (
    "Thank you for the question. Here is a detailed answer in English for question {n}. "
    "First, it is important to build small habits every single day. Next, working together "
    "with the people around you makes it much easier to keep going. Finally, take it at "
    "your own pace and do not push yourself too hard; steady progress matters most."
)
# The answers that fail Language in a ja family: smith's, on the odd cases.
ENGLISH_ANSWERS = {(str(n), "smith") for n in range(1, len(QUESTIONS) + 1) if n % 2}


def _line(record: dict) -> str:
    return json.dumps(record, ensure_ascii=False)


def write_japanese_bench(folder: Path) -> Path:
    """Write the folder; return the answers file (inside ``model_answer/``)."""
    (folder / "model_answer").mkdir(parents=True, exist_ok=True)
    questions = [
        {"question_id": n, "category": "writing", "turns": [q]}
        for n, q in enumerate(QUESTIONS, start=1)
    ]
    (folder / "question.jsonl").write_text(
        "\n".join(_line(q) for q in questions) + "\n", encoding="utf-8"
    )
    answers = []
    for n in range(1, len(QUESTIONS) + 1):
        for system in ("tanaka", "smith"):
            english = system == "smith" and n % 2
            text = (ENGLISH if english else JAPANESE).format(n=n)
            answers.append(
                {
                    "question_id": n,
                    "answer_id": f"{system}-{n}",
                    "model_id": system,
                    "choices": [{"index": 0, "turns": [text]}],
                    "tstamp": 0,
                }
            )
    path = folder / "model_answer" / "answers.jsonl"
    path.write_text("\n".join(_line(a) for a in answers) + "\n", encoding="utf-8")
    return path
