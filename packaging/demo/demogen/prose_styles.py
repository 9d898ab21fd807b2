"""prose-en: the five answer styles. Each composes a system's answer to a case from the
case's material (``data/prose-en/<category>.toml``) and the phrases in
``data/prose-en/styles.toml``, drawing on the output's own seeded random stream."""

from __future__ import annotations

from .common import fence, load, lower_first, md_table

PHRASES = load("prose-en", "styles.toml")
SECTION_TITLES = PHRASES["section_titles"]
BASALT = PHRASES["basalt"]
DUNE = PHRASES["dune"]
EMBER = PHRASES["ember"]


def _pick_points(case, rng, n):
    pts = list(case["points"])
    if len(pts) <= n:
        return pts
    keep = sorted(rng.sample(range(len(pts)), n))
    return [pts[i] for i in keep]


def _first_clause(text):
    """The part of a sentence before its first ';', ' — ' or ': ' (if that part
    is long enough to stand alone), closed with a full stop."""
    for sep in ("; ", " — ", ": "):
        head, found, _ = text.partition(sep)
        if found and len(head) >= 40 and not head.count("`") % 2 and '"' not in head:
            return head.rstrip(",") + "."
    return text


# --- explain, advise and summarise ----------------------------------------------


def aurora_en(case, rng, sample):
    """Concise and accurate: the lead's first clause and three or four points."""
    cat = case["category"]
    if cat == "summarise":
        pts = _pick_points(case, rng, 3)
        return " ".join([case["lead"]] + [d for _, d in pts])
    pts = _pick_points(case, rng, rng.choice([3, 4]))
    out = [_first_clause(case["lead"]), ""]
    numbered = rng.random() < 0.4
    for i, (h, d) in enumerate(pts, 1):
        d = _first_clause(d)
        out.append(f"{i}. **{h}** — {d}" if numbered else f"- **{h}:** {d}")
    code = case.get("code")
    if code and len(code[1]) < 220:
        out += ["", fence(*code)]
    if case.get("tip") and rng.random() < 0.5:
        out += ["", f"Tip: {case['tip']}"]
    return "\n".join(out)


def cedar_en(case, rng, sample):
    """Thorough and structured: every point, the table, the code and the tip."""
    cat = case["category"]
    out = []
    if cat == "summarise":
        out += [f"**Summary:** {case['lead']}", "", "**Key points**", ""]
        out += [f"- **{h}:** {d}" for h, d in case["points"]]
        if case.get("table"):
            out += ["", md_table(*case["table"])]
        return "\n".join(out)
    out += [case["lead"], "", f"### {rng.choice(SECTION_TITLES[cat])}", ""]
    out += [f"{i}. **{h}.** {d}" for i, (h, d) in enumerate(case["points"], 1)]
    if case.get("table"):
        out += ["", md_table(*case["table"])]
    if case.get("code"):
        out += ["", case.get("code_intro", "For example:"), "", fence(*case["code"])]
    if case.get("tip"):
        out += ["", f"> **Tip:** {case['tip']}"]
    return "\n".join(out)


def basalt_en(case, rng, sample):
    """Verbose and padded: an eager opener, a section per point, a filler after each."""
    topic = case["topic"]
    opener = rng.choice(BASALT["openers"]).format(topic=topic, Topic=topic[0].upper() + topic[1:])
    fillers = rng.sample(BASALT["fillers"], len(BASALT["fillers"]))
    out = [opener, "", "## Overview", "", f"{case['lead']} {fillers[0]}", ""]
    out += ["## Key Points" if case["category"] != "summarise" else "## Main Points", ""]
    for i, (h, d) in enumerate(case["points"], 1):
        out += [f"### {i}. {h}", "", f"{d} {fillers[i % len(fillers)]}", ""]
    if case.get("table"):
        out += [
            "## At a Glance",
            "",
            "Here is a helpful table that summarises the information above:",
            "",
            md_table(*case["table"]),
            "",
        ]
    if case.get("code"):
        out += [
            "## Example",
            "",
            case.get("code_intro", "Here is an example:"),
            "",
            fence(*case["code"]),
            "",
        ]
    if case.get("tip"):
        out += ["## Bonus Tip", "", f"{case['tip']} {fillers[-1]}", ""]
    out += [
        "## Conclusion",
        "",
        f"To sum up, {lower_first(case['lead'])} " + rng.choice(BASALT["closers"]),
    ]
    return "\n".join(out)


def basalt_faq(case, rng):
    """The extra section basalt-13b sometimes keeps writing until it hits its limit."""
    fillers = rng.sample(BASALT["fillers"], len(BASALT["fillers"]))
    out = ["", "", "## Frequently Asked Questions", ""]
    for i, (h, d) in enumerate(case["points"]):
        out += [
            f'### Why does "{lower_first(h)}" matter so much?',
            "",
            f"That's a great follow-up question. {d} {fillers[i % len(fillers)]} "
            f"{fillers[(i + 3) % len(fillers)]}",
            "",
        ]
    out += [
        "## Final Thoughts",
        "",
        f"Overall, {lower_first(case['lead'])} "
        "There is always more to learn about this topic, and it is worth revisiting "
        "these points from time to time as your understanding grows.",
    ]
    return "\n".join(out)


def dune_en(case, rng, sample):
    """Short and vague, often with a factual mistake."""
    heads = [lower_first(h) for h, _ in case["points"][:3]]
    first = case["vague"] if rng.random() < 0.6 else case["lead"]
    if case["category"] == "summarise":
        text = f"{first} {case['points'][0][1]}"
    else:
        text = f"{first} The main things are {heads[0]}, {heads[1]} and {heads[2]}."
    if case.get("wrong") and rng.random() < 0.6:
        text += " " + case["wrong"]
    if case["category"] == "summarise":
        return text + rng.choice(DUNE["summary_endings"])
    return text + rng.choice(DUNE["endings"])


def ember_en(case, rng, sample):
    """Good content (the first three points, or the last three for sample 1) that
    sometimes drifts into a tangent."""
    pts = list(case["points"])
    pts = pts[:3] if sample == 0 else pts[-3:]
    if case["category"] == "summarise":
        intro = rng.choice(EMBER["summary_intros"])
    else:
        intro = rng.choice(EMBER["intros"])
    out = [f"{intro} {case['lead']}", ""]
    bullet = "*" if sample == 0 else "-"
    out += [f"{bullet} {h} — {d}" for h, d in pts]
    if rng.random() < 0.55:  # the drift
        out += ["", rng.choice(EMBER["drifts"])]
        if rng.random() < 0.5 and case.get("tip"):
            out += ["", rng.choice(EMBER["resumes"]) + lower_first(case["tip"])]
    elif case.get("tip"):
        out += ["", case["tip"]]
    return "\n".join(out)


# --- "write" tasks are composed differently -------------------------------------


def _full_piece(case, headline=True):
    out = []
    if headline and case.get("subject"):
        out += [f"**Subject:** {case['subject']}", ""]
    elif headline and case.get("title"):
        out += [f"## {case['title']}", ""]
    if case.get("greeting"):
        out += [case["greeting"], ""]
    for i, para in enumerate(case["paras"]):
        out += [" ".join(para), ""]
        if case.get("code") and i == 0:
            out += [case.get("code_intro", ""), "", fence(*case["code"]), ""]
    if case.get("signoff"):
        out += [case["signoff"]]
    return "\n".join(out).strip()


def aurora_write(case, rng, sample):
    out = []
    if case.get("subject"):
        out += [f"Subject: {case['subject']}", ""]
    elif case.get("title"):
        out += [f"**{case['title']}**", ""]
    if case.get("greeting"):
        out += [case["greeting"], ""]
    paras = case["paras"]
    if len(paras) == 1:
        sentences = paras[0][:3]
    else:
        sentences = [para[0] for para in paras]
    half = (len(sentences) + 1) // 2
    for chunk in (sentences[:half], sentences[half:]):
        if chunk:
            out += [" ".join(chunk), ""]
    if case.get("code"):
        out += [fence(*case["code"]), ""]
    if case.get("signoff"):
        out += [case["signoff"]]
    return "\n".join(out).strip()


def cedar_write(case, rng, sample):
    return _full_piece(case)


def basalt_write(case, rng, sample):
    kind = case["kind"]
    out = [
        f"Absolutely! Here's a thoughtful, well-structured {kind} that you can use "
        "or adapt to your needs:",
        "",
        "---",
        "",
        _full_piece(case),
        "",
        "---",
        "",
        f"### Tips for Using This {kind.title()}",
        "",
    ]
    out += [f"- {t}" for t in rng.sample(BASALT["write_tips"], 3)]
    out += [
        "",
        f"I hope this {kind} works well for you! Let me know if you'd like a "
        "different tone, a shorter version or any other changes.",
    ]
    return "\n".join(out)


def dune_write(case, rng, sample):
    out = []
    if case.get("greeting"):
        out += [case["greeting"], ""]
    out += [" ".join(case["paras"][0][:2])]
    if case.get("signoff"):
        out += ["", case["signoff"]]
    return "\n".join(out) + rng.choice(DUNE["write_endings"])


def ember_write(case, rng, sample):
    text = _full_piece(case, headline=(sample == 0))
    intro = rng.choice(EMBER["write_intros"])
    out = [intro, "", text]
    if rng.random() < 0.5:
        out += ["", "P.S. " + rng.choice(EMBER["drifts"])]
    return "\n".join(out)


# label -> (answer to explain/advise/summarise, answer to write)
STYLES = {
    "aurora-7b": (aurora_en, aurora_write),
    "basalt-13b": (basalt_en, basalt_write),
    "cedar-70b": (cedar_en, cedar_write),
    "dune-mini": (dune_en, dune_write),
    "ember-large": (ember_en, ember_write),
}
