"""zh-hans: four systems answer 12 Simplified Chinese prompts; some answers are planted
to drift into Traditional characters or English, or to fail another gate
(``data/zh-hans/planted.toml``)."""

from __future__ import annotations

from .common import case_rng, fence, load, load_family, make_record, planted, read_case

FAMILY = "zh-hans"
EMBER = load(FAMILY, "styles.toml")["ember"]


def _pick_points(case, rng, n):
    pts = list(case["points"])
    if len(pts) <= n:
        return pts
    keep = sorted(rng.sample(range(len(pts)), n))
    return [pts[i] for i in keep]


def _zh_piece(case):
    out = []
    if case.get("greeting"):
        out += [case["greeting"], ""]
    for para in case["paras"]:
        out += ["".join(para), ""]
    if case.get("signoff"):
        out += [case["signoff"]]
    return "\n".join(out).strip()


def cedar_zh(case, rng, sample):
    if case["category"] == "write":
        return _zh_piece(case)
    out = [f"**{case['lead']}**", "", "### 要点", ""]
    out += [f"{i}. **{h}**：{d}" for i, (h, d) in enumerate(case["points"], 1)]
    if case.get("code"):
        out += ["", "示例代码：", "", fence(*case["code"])]
    if case.get("tip"):
        out += ["", f"> 小提示：{case['tip']}"]
    return "\n".join(out)


def aurora_zh(case, rng, sample):
    if case["category"] == "write":
        paras = case["paras"]
        body = [p[0] for p in paras]
        out = [case["greeting"], ""] if case.get("greeting") else []
        out += ["\n\n".join(body)]
        if case.get("signoff"):
            out += ["", case["signoff"]]
        return "\n".join(out)
    out = [case["lead"], ""]
    out += [f"- {h}：{d}" for h, d in _pick_points(case, rng, 3)]
    if case.get("code"):
        out += ["", fence(*case["code"])]
    return "\n".join(out)


def dune_zh(case, rng, sample):
    if case["category"] == "write":
        return "".join(case["paras"][0] + case["paras"][1][:1])
    h1, h2 = case["points"][0][0], case["points"][1][0]
    return f"{case['vague']}{h1}和{h2}都很重要，可以多注意一下。"


def ember_zh(case, rng, sample):
    if case["category"] == "write":
        out = [rng.choice(EMBER["write_intros"]), "", _zh_piece(case)]
        out += ["", EMBER["write_outro"]]
        return "\n".join(out)
    out = [rng.choice(EMBER["openers"]) + case["lead"], ""]
    for h, d in case["points"]:
        out += [f"【{h}】{d}", ""]
    if rng.random() < 0.5:
        out += [rng.choice(EMBER["drifts"]), ""]
    if case.get("tip"):
        out += [case["tip"]]
    return "\n".join(out).strip()


STYLES = {
    "aurora-7b": aurora_zh,
    "cedar-70b": cedar_zh,
    "dune-mini": dune_zh,
    "ember-large": ember_zh,
}


def _plant(text, plant):
    """Apply one planted change (see planted.toml); returns (text, finish_reason)."""
    finish = "stop"
    if "output" in plant:
        text = plant["output"]
    if "insert" in plant:
        paras = text.split("\n\n")
        paras.insert(3, plant["insert"])
        text = "\n\n".join(paras)
    text += plant.get("extend", "")
    if "cut_after" in plant:
        text = text[: text.index(plant["cut_after"]) + len(plant["cut_after"])]
        finish = "length"
    return text, finish


def build() -> list[dict]:
    family, systems = load_family(FAMILY)
    plants = planted(FAMILY)
    records = []
    for raw in load(FAMILY, "cases.toml")["case"]:
        case = read_case(raw)
        for label, system in systems.items():
            rng = case_rng(FAMILY, case["id"], label)
            text = STYLES[label](case, rng, 0)
            text, finish = _plant(text, plants.get((case["id"], label, 0), {}))
            records.append(
                make_record(
                    family, case, system, 0, text, language="zh-Hans", finish_reason=finish, rng=rng
                )
            )
    return records
