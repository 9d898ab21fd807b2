#!/usr/bin/env python3
# ruff: noqa: E501  (long lines are prose and Chinese text in the data below)
"""Generate Arena's bundled demo data.

Running ``python resources/demo/make_demo.py`` (re)writes three JSON Lines files
beside this script, in Arena's native import format
(``resources/schema/native-output.schema.json``):

* ``prose-en.jsonl``  -- family ``prose-en`` (kind ``votes``, English): five fictional
  systems answer 40 prompts in four categories (explain, advise, summarise, write);
  ``ember-large`` has two samples per case.
* ``zh-hans.jsonl``   -- family ``zh-hans`` (kind ``votes``, Simplified Chinese): four
  systems answer 12 prompts.
* ``coding.jsonl``    -- family ``coding`` (kind ``tests_then_votes``): four systems
  answer 12 issues about small made-up Python projects with ``git diff`` patches and a
  test result.

Each file plants outputs that must fail a gate (Empty, Truncated, Length, Language,
Script), identical outputs that settle as ties, and identity leaks; README.md beside
this script lists every one of them.

All prompts, answers, passages, code and system names are original writing made for
this project (nothing is copied from a benchmark, data set or other publication) and
are released with the project under its licence. The systems, companies, people and
products they mention are fictional.

The generator uses only the standard library and seeded ``random.Random`` instances,
so its output is byte-for-byte reproducible.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import random
import re
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 20250301


# ---------------------------------------------------------------------------
# shared helpers
# ---------------------------------------------------------------------------


def case_rng(family: str, case_id: str, label: str, sample: int = 0) -> random.Random:
    """A private, reproducible random stream for one output."""
    return random.Random(f"{SEED}:{family}:{case_id}:{label}:{sample}")


def md_table(header, rows) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def fence(lang: str, code: str) -> str:
    return f"```{lang}\n{code.rstrip()}\n```"


def lower_first(text: str) -> str:
    if len(text) > 1 and text[0].isupper() and (text[1].islower() or text[1] == " "):
        return text[0].lower() + text[1:]
    return text


def cut_mid_sentence(text: str, pos: int) -> str:
    """Cut ``text`` at the first word boundary at or after ``pos`` that lies outside
    fenced code and directly follows a letter, so the cut is visibly mid-sentence
    (as when an output hits its token limit)."""
    while pos < len(text):
        outside_code = text[:pos].count("```") % 2 == 0
        if outside_code and text[pos] == " " and text[pos - 1].isalpha():
            return text[:pos]
        pos += 1
    raise ValueError("no place to cut")


def count_tokens(text: str, language: str) -> int:
    if not text.strip():
        return 0
    if language.startswith("zh"):
        cjk = sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff")
        return max(1, int(cjk * 0.9 + (len(text) - cjk) / 4))
    return max(1, round(len(text) / 4.3))


def usage(rng, system, prompt, output, language, finish_reason="stop"):
    """Plausible token counts, latency and list-price cost for one output."""
    sys_prompt = system["descriptor"].get("system_prompt") or ""
    prompt_tokens = count_tokens(sys_prompt + "\n" + prompt, language) + 7
    completion = count_tokens(output, language)
    if output.strip():
        completion = max(1, completion + rng.randint(-3, 3))
    if finish_reason == "length":
        completion = system["descriptor"]["inference"]["max_tokens"]
    latency = (
        system["ttft_ms"] * rng.uniform(0.8, 1.3)
        + completion * system["ms_per_token"] * rng.uniform(0.9, 1.15)
    )
    cost = (prompt_tokens * system["price_in"] + completion * system["price_out"]) / 1e6
    return {
        "latency_ms": round(latency, 1),
        "cost": round(cost, 7),
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion,
    }


def make_record(family_obj, case, system, sample, output, *, language, is_diff=False,
                finish_reason="stop", test_result=None, rng=None):
    rng = rng or random.Random(0)
    rec = {
        "family": family_obj,
        "case": {"id": case["id"], "category": case["category"], "prompt": case["prompt"]},
        "system": system["descriptor"],
        "sample": sample,
        "output": output,
        "is_diff": is_diff,
        "finish_reason": finish_reason,
    }
    rec.update(usage(rng, system, case["prompt"], output, language, finish_reason))
    rec["test_result"] = test_result
    return rec


def write_jsonl(name: str, records) -> str:
    path = os.path.join(HERE, name)
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        for rec in records:
            handle.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return path


def system(label, *, system_prompt, harness, temperature, max_tokens, price_in,
           price_out, ttft_ms, ms_per_token, revision="2025-03-01", extra=None):
    inference = {"temperature": temperature, "top_p": 0.95, "max_tokens": max_tokens}
    inference.update(extra or {})
    return {
        "descriptor": {
            "label": label,
            "model": f"demo/{label}",
            "revision": revision,
            "harness": harness,
            "system_prompt": system_prompt,
            "inference": inference,
        },
        "price_in": price_in,
        "price_out": price_out,
        "ttft_ms": ttft_ms,
        "ms_per_token": ms_per_token,
    }


# ---------------------------------------------------------------------------
# family 1: prose-en
# ---------------------------------------------------------------------------

PROSE_FAMILY = {
    "name": "prose-en",
    "kind": "votes",
    "language": "en",
    "min_chars": 40,
    "max_chars": 4000,
    "aspect": "writing",
    "reference": "cedar-70b",
}

_EN_PROMPT = "You are a helpful assistant. Answer clearly and accurately in Markdown."
PROSE_SYSTEMS = {
    # concise and accurate
    "aurora-7b": system("aurora-7b", system_prompt=_EN_PROMPT, harness="demo-chat 1.0",
                        temperature=0.3, max_tokens=800, price_in=0.05, price_out=0.20,
                        ttft_ms=220.0, ms_per_token=9.0),
    # verbose, padded
    "basalt-13b": system("basalt-13b", system_prompt=_EN_PROMPT, harness="demo-chat 1.0",
                         temperature=0.8, max_tokens=1024, price_in=0.15, price_out=0.45,
                         ttft_ms=380.0, ms_per_token=13.0),
    # strong, structured (the reference system)
    "cedar-70b": system("cedar-70b", system_prompt=_EN_PROMPT, harness="demo-chat 1.0",
                        temperature=0.5, max_tokens=1500, price_in=0.70, price_out=2.10,
                        ttft_ms=650.0, ms_per_token=21.0),
    # small, mediocre
    "dune-mini": system("dune-mini", system_prompt=_EN_PROMPT, harness="demo-chat 1.0",
                        temperature=0.7, max_tokens=400, price_in=0.02, price_out=0.06,
                        ttft_ms=140.0, ms_per_token=5.0),
    # capable but sometimes drifts off topic; two samples per case
    "ember-large": system("ember-large", system_prompt=_EN_PROMPT, harness="demo-chat 1.0",
                          temperature=1.0, max_tokens=300, price_in=1.00, price_out=3.00,
                          ttft_ms=900.0, ms_per_token=27.0),
}
PROSE_SAMPLES = {"ember-large": 2}

# Each case: the prompt plus the facts a good answer contains. The system styles
# below compose their answers from these facts.
PROSE_CASES: list[dict[str, Any]] = [
    # ---------------------------------------------------------------- explain
    dict(
        id="explain-01", category="explain", topic="why bread goes stale",
        prompt="Why does bread go stale even when it's sealed in a bag?",
        lead="Staling is mostly a change inside the starch, not drying out: as bread "
             "cools and sits, its starch slowly recrystallises and squeezes water out of "
             "the crumb, so even a sealed loaf turns firm.",
        points=[
            ("Starch retrogradation", "Baking makes starch granules swell with water; "
             "afterwards the starch molecules slowly line up into crystals again, which "
             "makes the crumb firm and crumbly."),
            ("Moisture moves to the crust", "Water migrates from the soft crumb to the "
             "drier crust, so the crust turns leathery while the inside hardens."),
            ("The fridge makes it worse", "Recrystallisation is fastest just above "
             "freezing, so refrigerated bread stales several times faster than bread "
             "kept on the counter."),
            ("Freezing pauses it", "Well below freezing the process practically stops, "
             "which is why frozen slices toast up almost like fresh ones."),
            ("Heat reverses it for a while", "A few minutes in a hot oven re-softens "
             "the starch, but the effect only lasts until the bread cools again."),
        ],
        table=(("Where you keep it", "How fast it stales"),
               [("Counter, in a bag", "moderate"), ("Fridge", "fast"),
                ("Freezer", "almost not at all")]),
        tip="Freeze whatever you won't eat within two days and toast slices straight "
            "from the freezer.",
        vague="Bread goes stale because air and moisture get to it over time.",
        wrong="Keeping bread in the fridge is the best way to keep it fresh for longer.",
    ),
    dict(
        id="explain-02", category="explain", topic="processes and threads",
        prompt="What is the difference between a process and a thread?",
        lead="A process is a running program with its own private memory; a thread is "
             "one line of execution inside a process, sharing that memory with the "
             "process's other threads.",
        points=[
            ("Memory", "Each process has its own address space, while the threads of "
             "one process share its heap and global variables and only keep a private "
             "stack each."),
            ("Cost", "Starting a thread is much cheaper than starting a process, and "
             "switching between threads of the same process is usually faster."),
            ("Isolation", "A crash in one process rarely affects another, but a bad "
             "write in one thread can corrupt data or bring down every thread in the "
             "process."),
            ("Communication", "Threads talk through shared variables guarded by locks; "
             "processes need pipes, sockets, queues or an explicit shared-memory "
             "segment."),
        ],
        table=(("", "Process", "Thread"),
               [("Memory", "separate", "shared"), ("Start-up cost", "higher", "lower"),
                ("Effect of a crash", "contained", "whole process")]),
        code=("python", 'from threading import Thread\nfrom multiprocessing import '
              'Process\n\n\ndef work(n):\n    print(sum(range(n)))\n\n\nif __name__ == '
              '"__main__":\n    t = Thread(target=work, args=(10_000,))\n    p = '
              'Process(target=work, args=(10_000,))\n    t.start(); p.start()\n    '
              't.join(); p.join()\n'),
        code_intro="Python exposes both through almost the same interface:",
        tip="In CPython only one thread runs Python bytecode at a time, so CPU-heavy "
            "work is usually spread over processes and I/O-heavy work over threads.",
        vague="A process and a thread are both ways for a computer to run things.",
        wrong="Threads and processes are really the same thing; different operating "
              "systems just use different names.",
    ),
    dict(
        id="explain-03", category="explain", topic="how vaccines work",
        prompt="How do vaccines train the immune system? Keep it simple.",
        lead="A vaccine shows your immune system a harmless version or piece of a germ, "
             "so it can learn to recognise it before it ever meets the real thing.",
        points=[
            ("The preview", "The vaccine contains a weakened or inactivated germ, one of "
             "its proteins, or instructions (such as mRNA) that let your own cells make "
             "that protein for a short time."),
            ("The response", "Immune cells notice the unfamiliar protein and produce "
             "antibodies and T cells aimed at it."),
            ("The memory", "Some of those cells become long-lived memory cells that "
             "stay in the body for months or years."),
            ("The payoff", "If the real germ turns up, the memory cells react within "
             "days instead of the week or two a first encounter takes."),
            ("Boosters", "Some vaccines need extra doses because memory fades or "
             "because the germ itself changes over time."),
        ],
        tip="A sore arm or a mild temperature the day after a jab is the immune system "
            "doing its training, not an infection.",
        vague="Vaccines help your body fight diseases by making you stronger.",
        wrong="They work by putting ready-made antibodies straight into your blood.",
    ),
    dict(
        id="explain-04", category="explain", topic="idempotent HTTP methods",
        prompt="What does 'idempotent' mean in the context of HTTP APIs?",
        lead="An idempotent request has the same effect on the server whether you send "
             "it once or ten times.",
        points=[
            ("GET, PUT and DELETE are idempotent", "Sending `PUT /users/7` with the "
             "same body twice leaves the user in exactly the same state as sending it "
             "once."),
            ("POST is not", "Sending `POST /orders` twice normally creates two "
             "orders."),
            ("Responses may differ", "A repeated `DELETE` can return `404` instead of "
             "`204`; what matters is that the server state is the same."),
            ("Why it matters", "Clients, proxies and load balancers can safely retry "
             "an idempotent request after a timeout."),
        ],
        tip="If a POST endpoint must be safe to retry, accept an `Idempotency-Key` "
            "header and store the first result under that key.",
        vague="Idempotent means the request is safe.",
    ),
    dict(
        id="explain-05", category="explain", topic="p-values",
        prompt="Explain what a p-value is without using jargon.",
        lead="A p-value tells you how surprising your data would be if nothing "
             "interesting were actually going on.",
        points=[
            ("Start from 'nothing is happening'", "Assume the new drug does nothing, "
             "the coin is fair, or the two groups are really the same."),
            ("Ask how unusual your result is", "The p-value is the chance of getting a "
             "result at least as extreme as yours if that boring assumption were "
             "true."),
            ("Small means surprising", "A p-value of 0.01 means a result like yours "
             "would turn up by luck only about once in a hundred tries."),
            ("What it is not", "It is not the chance that your idea is right, and it "
             "says nothing about how big or important the effect is."),
        ],
        tip="Report how large the effect is next to the p-value; a tiny, useless "
            "difference can still have a very small p-value in a huge study.",
        vague="A p-value is a number that shows if your results are significant or not.",
        wrong="A p-value of 0.05 means there is a 95% chance that your hypothesis is "
              "true.",
    ),
    dict(
        id="explain-06", category="explain", topic="hash tables",
        prompt="How does a hash table manage average O(1) lookups?",
        lead="It turns each key into an array position with a hash function, so a "
             "lookup jumps straight to the right slot instead of searching.",
        points=[
            ("Hashing the key", "A hash function maps the key to a large integer, which "
             "is reduced to a bucket index with a modulo or a bit mask."),
            ("A direct jump", "Finding a key means computing its index and looking in "
             "that one bucket, no matter how many items the table holds."),
            ("Collisions", "When two keys land in the same bucket, the table either "
             "keeps a short list per bucket (chaining) or probes for the next free "
             "slot (open addressing)."),
            ("Resizing", "Once the table gets too full (Python's `dict` grows at about "
             "two-thirds), it allocates a bigger array and re-inserts everything, which "
             "keeps buckets short."),
            ("The worst case", "If many keys collide, lookups degrade to O(n); good "
             "hash functions and randomised seeds make that unlikely in practice."),
        ],
        code=("python", "class ToyMap:\n    def __init__(self, size=8):\n        "
              "self.buckets = [[] for _ in range(size)]\n\n    def put(self, key, value):"
              "\n        bucket = self.buckets[hash(key) % len(self.buckets)]\n        "
              "for i, (k, _) in enumerate(bucket):\n            if k == key:\n         "
              "       bucket[i] = (key, value)\n                return\n        "
              "bucket.append((key, value))\n\n    def get(self, key):\n        bucket = "
              "self.buckets[hash(key) % len(self.buckets)]\n        for k, v in bucket:"
              "\n            if k == key:\n                return v\n        raise "
              "KeyError(key)\n"),
        code_intro="A toy version with chaining (no resizing) shows the idea:",
        tip="Keys need a stable hash, which is why mutable lists cannot be dictionary "
            "keys in Python.",
        vague="Hash tables are fast because they use hashing to store data.",
        wrong="The lookup is O(1) because the table keeps its keys sorted.",
    ),
    dict(
        id="explain-07", category="explain", topic="the colour of the sky",
        prompt="Why is the sky blue but sunsets are red?",
        lead="Air scatters blue light much more than red light: overhead that scattered "
             "blue fills the sky, while at sunset the long path through the air strips "
             "the blue out and leaves the reds.",
        points=[
            ("Rayleigh scattering", "Gas molecules scatter short wavelengths far more "
             "strongly than long ones — roughly with the fourth power of the "
             "frequency."),
            ("Blue everywhere", "Scattered blue light reaches your eyes from every "
             "direction, so the whole sky away from the sun looks blue."),
            ("Why not violet", "Sunlight has less violet in it, some is absorbed high "
             "in the atmosphere, and our eyes are less sensitive to it."),
            ("Sunsets", "Near the horizon sunlight crosses many times more air, so most "
             "of the blue is scattered away before it reaches you, leaving orange and "
             "red."),
            ("Dust and smoke", "Extra particles deepen the colours, which is why "
             "sunsets after wildfires or volcanic eruptions are so vivid."),
        ],
        tip="On a mountain top the sky looks a deeper blue because there is less air "
            "above you scattering light.",
        vague="The sky is blue because of the way light works in the atmosphere.",
        wrong="The sky looks blue mainly because it reflects the colour of the oceans.",
    ),
    dict(
        id="explain-08", category="explain", topic="compound interest",
        prompt="What is compound interest, and how is it different from simple "
               "interest?",
        lead="Compound interest pays interest on the interest you have already earned; "
             "simple interest only ever pays on the original amount.",
        points=[
            ("Simple interest", "1,000 at 5% simple interest earns 50 every year, so "
             "after 10 years you have 1,500."),
            ("Compound interest", "At 5% compounded yearly, each year's interest joins "
             "the balance, giving about 1,629 after 10 years."),
            ("Frequency", "Monthly compounding grows slightly faster than yearly "
             "compounding at the same nominal rate."),
            ("The rule of 72", "Divide 72 by the yearly rate to estimate how long money "
             "takes to double: about 14.4 years at 5%."),
        ],
        table=(("Year", "Simple (5%)", "Compound (5%)"),
               [("1", "1,050", "1,050"), ("5", "1,250", "1,276"),
                ("10", "1,500", "1,629"), ("20", "2,000", "2,653")]),
        code=("python", "def compound(principal, rate, years, periods=1):\n    return "
              "principal * (1 + rate / periods) ** (periods * years)\n\n\n"
              "print(round(compound(1000, 0.05, 10), 2))  # 1628.89\n"),
        code_intro="The formula in code:",
        tip="The same arithmetic works against you on credit-card debt, so pay "
            "high-interest balances off first.",
        vague="Compound interest is when your money grows over time in a bank.",
        wrong="With compound interest the rate goes up every year, which is why it "
              "grows faster.",
    ),
    dict(
        id="explain-09", category="explain", topic="public-key cryptography",
        prompt="How does public-key cryptography let two strangers communicate "
               "securely?",
        lead="Each person has a key pair — a public key they can hand to anyone and a "
             "private key they never share — and what one key locks, only the other "
             "can unlock.",
        points=[
            ("Encryption", "Anyone can encrypt a message with your public key, but only "
             "your private key can decrypt it."),
            ("Signatures", "You sign with your private key, and anyone holding your "
             "public key can check that the message came from you and was not "
             "changed."),
            ("Key exchange", "In practice the public-key step (for example "
             "Diffie–Hellman) is used to agree on a shared secret, and the bulk of the "
             "data is encrypted with a fast symmetric cipher such as AES."),
            ("Trust", "Certificates signed by authorities your browser already trusts "
             "tie a public key to a domain name, so you know you reached the real "
             "site."),
        ],
        tip="Everything depends on the private key staying private: whoever has it can "
            "read your messages and sign as you.",
        vague="Public-key cryptography uses keys to keep messages secret on the "
              "internet.",
        wrong="Both people need to meet first to swap the same secret password.",
    ),
    dict(
        id="explain-10", category="explain", topic="how Git stores history",
        prompt="Explain how Git stores the history of a project.",
        lead="Git stores snapshots, not lists of changes: every commit points to a full "
             "tree of the project, and identical content is stored only once.",
        points=[
            ("Blobs", "The contents of each file are stored as a blob, named by a hash "
             "of those contents."),
            ("Trees", "A tree lists file names and points to blobs and sub-trees, like a "
             "directory listing."),
            ("Commits", "A commit records one tree, its parent commit or commits, the "
             "author and the message."),
            ("Branches", "A branch is just a tiny file holding the hash of a commit; "
             "committing moves it forward."),
            ("Packfiles", "To save space, Git later packs objects together and stores "
             "similar blobs as deltas of each other."),
        ],
        code=("bash", "git cat-file -p HEAD            # the commit object\n"
              "git cat-file -p 'HEAD^{tree}'   # the root tree it points to\n"
              "git rev-parse main              # the hash a branch points to\n"),
        code_intro="You can look at these objects yourself:",
        tip="Because each commit's hash covers its parent's hash, changing an old commit "
            "changes every hash after it — that is why rewriting shared history causes "
            "trouble.",
        vague="Git saves your changes in a special folder so you can go back.",
        wrong="Git keeps only the differences between versions and rebuilds files by "
              "replaying every change from the first commit.",
    ),
    # ----------------------------------------------------------------- advise
    dict(
        id="advise-01", category="advise", topic="getting started on a big report",
        prompt="I keep procrastinating on a big report that's due in three weeks. How "
               "do I actually get started?",
        lead="Make the first step so small it feels almost silly, put it in your "
             "calendar, and plan backwards from the deadline.",
        points=[
            ("Define today's task", "\"Write the section headings\" is something you "
             "can start; \"work on the report\" is not."),
            ("Time-box it", "Set a 25-minute timer and allow yourself to stop when it "
             "rings — starting is the hard part."),
            ("Plan backwards", "A rough draft by day 14 and feedback by day 17 leave "
             "you a few days of buffer before the deadline."),
            ("Write badly first", "A rough draft you can fix beats a blank page you "
             "can't."),
            ("Remove friction", "Leave the document open on your screen and close chat "
             "and email while the timer runs."),
        ],
        table=(("Week", "Goal"),
               [("1", "outline and gather sources"), ("2", "complete rough draft"),
                ("3", "revise, get feedback, polish")]),
        tip="Tell a colleague when you'll send them the outline; a small outside "
            "deadline is surprisingly motivating.",
        vague="Try to manage your time better and stay focused.",
        wrong="Wait until you feel motivated, because forcing yourself only makes the "
              "writing worse.",
    ),
    dict(
        id="advise-02", category="advise", topic="reusing strong passwords",
        prompt="Is it OK to use the same password on several sites if it's a really "
               "strong one?",
        lead="No. A strong password protects you against guessing, not against leaks — "
             "once one site leaks it, every account that shares it is exposed.",
        points=[
            ("Breaches are the real risk", "When a site is breached, attackers try the "
             "leaked email and password on other services automatically (credential "
             "stuffing)."),
            ("Strength can't help after a leak", "A 20-character password in a leaked "
             "list is as usable as \"123456\"."),
            ("Use a password manager", "Let it generate and remember a long random "
             "password for every site; you only remember one strong passphrase."),
            ("Turn on two-factor authentication", "An authenticator app or security key "
             "stops most account takeovers even if a password does leak."),
        ],
        tip="Start with your email account: whoever controls it can reset everything "
            "else.",
        vague="It's better to have different passwords but a strong one is good.",
        wrong="A strong enough password is safe to reuse on a few important sites.",
    ),
    dict(
        id="advise-03", category="advise", topic="behavioural interviews",
        prompt="What's a good way to prepare for a behavioural job interview?",
        lead="Prepare a handful of true stories in advance and practise telling them in "
             "a clear Situation–Task–Action–Result shape.",
        points=[
            ("Collect stories", "Write down six to eight real situations: a conflict, a "
             "failure, a tight deadline, a time you led without authority."),
            ("Use STAR", "Keep the situation short and spend most of the time on what "
             "you did and why."),
            ("Quantify results", "\"Cut report preparation from two days to three "
             "hours\" lands better than \"made it faster\"."),
            ("Practise out loud", "Tell each story in under two minutes; recording "
             "yourself once is uncomfortable but very effective."),
            ("Prepare your own questions", "Ask how the team measures success and what "
             "the first 90 days look like."),
        ],
        table=(("STAR step", "What to cover", "Share of time"),
               [("Situation", "one or two sentences of context", "10%"),
                ("Task", "what you were responsible for", "10%"),
                ("Action", "what you did and why", "60%"),
                ("Result", "outcome, numbers, what you learned", "20%")]),
        tip="Pick stories from the last two or three years; older ones sound less "
            "relevant.",
        vague="Be confident, be yourself and research the company.",
        wrong="Memorise your answers word for word so you don't stumble.",
    ),
    dict(
        id="advise-04", category="advise", topic="yellowing houseplant leaves",
        prompt="My houseplant's leaves are turning yellow. What should I check?",
        lead="Check the watering first — too much water is the most common cause — and "
             "then look at drainage, light and feeding.",
        points=[
            ("Overwatering", "Soil that stays soggy starves the roots of air; let the "
             "top few centimetres dry out before you water again."),
            ("Drainage", "Make sure the pot has a hole and is not standing in a saucer "
             "of water."),
            ("Light", "Pale lower leaves on a leggy plant that leans toward the window "
             "usually mean it needs a brighter spot."),
            ("Nutrients", "Older leaves yellowing evenly during the growing season can "
             "point to a lack of nitrogen; feed at half strength."),
            ("Normal ageing", "One or two bottom leaves yellowing now and then is "
             "normal."),
        ],
        tip="Push a finger into the soil up to the second knuckle: if it feels damp, "
            "don't water yet.",
        vague="Yellow leaves mean the plant is not happy, so try to look after it "
              "better.",
        wrong="Yellow leaves almost always mean the plant needs more water.",
    ),
    dict(
        id="advise-05", category="advise", topic="negotiating a salary offer",
        prompt="How should I negotiate a higher salary when I get a job offer?",
        lead="Know the market rate, ask for a specific number slightly above your "
             "target, and negotiate the whole package rather than the base alone.",
        points=[
            ("Know your number", "Use salary surveys and what peers earn to set a "
             "target and a walk-away figure before the call."),
            ("Let them go first", "If you are pressed for a figure, give a range whose "
             "bottom is your real target."),
            ("Be specific and positive", "\"I'm excited about the role; given the scope "
             "I was hoping for 92,000\" works better than \"can you do better?\"."),
            ("Negotiate more than salary", "A signing bonus, start date, remote days, "
             "training budget or extra leave are often easier to move."),
            ("Get it in writing", "Wait for the revised written offer before you resign "
             "from your current job."),
        ],
        tip="A pause after you state your number is fine; don't fill the silence by "
            "lowering it.",
        vague="Just ask politely for more money and see what they say.",
        wrong="Always accept the first offer so you don't seem greedy.",
    ),
    dict(
        id="advise-06", category="advise", topic="starting to run",
        prompt="I want to start running but I get out of breath after two minutes. Any "
               "tips?",
        lead="Slow down and mix running with walking; your lungs and legs adapt quickly "
             "if you build up gradually.",
        points=[
            ("Run slower", "Most beginners go too fast; you should be able to speak in "
             "short sentences while running."),
            ("Walk-run intervals", "Start with one minute of running and two minutes of "
             "walking, repeated eight times."),
            ("Build gradually", "Add a little running time each week and keep the total "
             "weekly increase modest, around 10%."),
            ("Rest days", "Run three times a week with a day off in between so your "
             "body can adapt."),
            ("Comfortable kit", "Shoes that fit well and softer paths make the first "
             "weeks easier."),
        ],
        table=(("Week", "Run / walk", "Repeats"),
               [("1", "1 min / 2 min", "8"), ("2", "2 min / 2 min", "6"),
                ("3", "3 min / 90 s", "6"), ("4", "5 min / 1 min", "5")]),
        tip="Breathe through both your nose and your mouth; you need all the air you "
            "can get.",
        vague="Just keep running every day and it will get easier.",
        wrong="Push through the breathlessness every time; it is the only way to get "
              "fitter.",
    ),
    dict(
        id="advise-07", category="advise", topic="choosing a first programming language",
        prompt="Should I learn Python or JavaScript as my first programming language?",
        lead="Choose by what you want to build: JavaScript if you want websites, Python "
             "for data, automation and general scripting.",
        points=[
            ("Python", "Its readable syntax makes it a gentle start, and it dominates "
             "data analysis, scripting and machine learning."),
            ("JavaScript", "It runs in every browser, so it is essential for "
             "interactive web pages."),
            ("Skills transfer", "Variables, loops and functions carry over, so your "
             "second language will be much easier than your first."),
            ("Stick with one", "Switching every few weeks slows you down far more than "
             "picking the \"wrong\" language."),
        ],
        code=("python", 'names = ["Ana", "Ben", "Chloé"]\nfor name in names:\n    '
              'print(f"Hello, {name}!")\n'),
        code_intro="Python reads almost like plain English:",
        tip="Pick a small project you actually care about and learn whatever it "
            "needs.",
        vague="Both are good languages and you can't go wrong with either.",
    ),
    dict(
        id="advise-08", category="advise", topic="shorter team meetings",
        prompt="How can I make my small team's meetings shorter and more useful?",
        lead="Meet only to discuss and decide, move status updates into writing, and "
             "give every meeting a clear agenda and a short default length.",
        points=[
            ("No agenda, no meeting", "Share the agenda in advance, with the decision "
             "each item needs."),
            ("Default to 25 minutes", "Shorter slots force focus and leave a break "
             "between meetings."),
            ("Put status updates in writing", "Use a shared document or a chat thread; "
             "meet only for discussion."),
            ("Assign a note-taker", "Record decisions, owners and deadlines, and share "
             "them within the hour."),
            ("Invite fewer people", "Anyone who only needs the outcome can read the "
             "notes."),
        ],
        tip="Once a quarter, review your recurring meetings and cancel at least one.",
        vague="Meetings should be short and to the point so people don't get bored.",
        wrong="Make every meeting an hour long so there's always enough time.",
    ),
    dict(
        id="advise-09", category="advise", topic="packing for a three-day hike",
        prompt="What should I pack for a three-day hiking trip?",
        lead="Pack for shelter, water, food, changing weather and emergencies — and "
             "keep the total weight down.",
        points=[
            ("Shelter and sleep", "A tent or bivy, a sleeping bag rated for the "
             "expected night-time low, and a sleeping pad."),
            ("Water", "Bottles or a bladder for two to three litres, plus a filter or "
             "purification tablets."),
            ("Food", "Roughly 0.7–0.9 kg of calorie-dense food per day, a small stove, "
             "fuel and a lighter."),
            ("Clothing", "Layers — a base layer, a warm mid-layer and a waterproof shell "
             "— and spare socks."),
            ("Safety", "Map and compass or GPS, head torch, first-aid kit, sun "
             "protection and a whistle."),
        ],
        table=(("Category", "Essentials"),
               [("Shelter", "tent, sleeping bag, pad"), ("Water", "2–3 L capacity, "
                "filter"), ("Food", "3 days of meals, stove, fuel"),
                ("Safety", "map, head torch, first-aid kit")]),
        tip="Pack everything at home once and weigh the bag; aim for no more than a "
            "fifth of your body weight.",
        vague="Bring enough food, water and warm clothes for three days.",
        wrong="Water is heavy, so one litre per day is plenty.",
    ),
    dict(
        id="advise-10", category="advise", topic="giving critical feedback",
        prompt="How do I give critical feedback to a colleague without making things "
               "awkward?",
        lead="Ask first, be specific about the behaviour and its effect, and spend most "
             "of the conversation on what happens next time.",
        points=[
            ("Ask first", "\"Have you got ten minutes for some feedback on the launch?\" "
             "gives them a moment to get ready."),
            ("Be specific", "Describe what happened and its effect: \"The numbers in the "
             "deck didn't match the dashboard, so the client questioned the rest.\""),
            ("Look forward", "Agree on what will happen next time instead of dwelling "
             "on the mistake."),
            ("Listen", "Ask for their view; there may be context you are missing."),
            ("Private and prompt", "Give the feedback one-to-one and soon after the "
             "event, while it is still fresh."),
        ],
        tip="Balance matters over weeks, not within one conversation — you don't need "
            "to hide every criticism between two compliments.",
        vague="Be nice and honest when you give feedback.",
        wrong="Email is best because it avoids an awkward face-to-face conversation.",
    ),
]

_SUMMARISE_PROMPT = "Summarise the following text in a few sentences.\n\n"

PROSE_CASES += [
    # -------------------------------------------------------------- summarise
    dict(
        id="summarise-01", category="summarise", topic="Eastmere's new streetlights",
        prompt=_SUMMARISE_PROMPT +
        "The town council of Eastmere voted on Tuesday to replace all 2,400 of its "
        "sodium streetlights with LED fixtures over the next eighteen months. The "
        "project will cost 1.9 million pounds, most of it covered by a regional energy "
        "grant. Officials expect the electricity used for street lighting to fall by "
        "about 60 percent, saving roughly 140,000 pounds a year. The new lights can be "
        "dimmed after midnight on quiet residential roads, a feature the council will "
        "trial in two neighbourhoods first. Several residents raised concerns at the "
        "meeting about the harsh bluish light of older LED designs; the council said "
        "it would use warmer 3000 K fixtures to reduce glare and limit the effect on "
        "wildlife.",
        lead="Eastmere will replace its 2,400 sodium streetlights with LEDs over 18 "
             "months, cutting the electricity used for street lighting by about 60%.",
        points=[
            ("Cost", "The £1.9 million project is mostly paid for by a regional energy "
             "grant."),
            ("Savings", "The council expects to save about £140,000 a year."),
            ("Dimming", "Lights on quiet residential roads can be dimmed after midnight, "
             "which will be trialled in two neighbourhoods first."),
            ("Residents' concerns", "To answer worries about glare and wildlife, the "
             "council will use warmer 3000 K fixtures."),
        ],
        vague="The text is about a town changing its streetlights to save money.",
        wrong="The project is paid for by raising council tax.",
    ),
    dict(
        id="summarise-02", category="summarise", topic="a sleep and memory study",
        prompt=_SUMMARISE_PROMPT +
        "Researchers at a university sleep laboratory asked 64 volunteers to learn a "
        "list of 40 word pairs in the evening. Half of them then slept normally, while "
        "the other half were kept awake until the following night. Both groups were "
        "tested after a night of recovery sleep. Those who had slept straight after "
        "learning recalled 31 pairs on average, compared with 24 for the group that "
        "had stayed awake. Recordings of brain activity showed that the number of sleep "
        "spindles, short bursts of activity during light sleep, predicted how well each "
        "person remembered the pairs. The authors caution that the sample was small and "
        "made up mostly of students, and they plan a larger study that includes older "
        "adults.",
        lead="Volunteers who slept soon after learning remembered noticeably more word "
             "pairs than those who were kept awake.",
        points=[
            ("Design", "64 volunteers learned 40 word pairs; half were then kept awake "
             "for a night, and everyone was tested after recovery sleep."),
            ("Result", "The sleepers recalled 31 pairs on average versus 24 for the "
             "sleep-deprived group."),
            ("Brain activity", "More sleep spindles during light sleep predicted better "
             "recall."),
            ("Caveats", "The sample was small and mostly students; a larger study with "
             "older adults is planned."),
        ],
        vague="The study shows that sleep is good for you.",
        wrong="The volunteers who stayed awake remembered more because they had more "
              "time to practise.",
    ),
    dict(
        id="summarise-03", category="summarise", topic="Halden Bikes' quarterly update",
        prompt=_SUMMARISE_PROMPT +
        "In its third-quarter update, Halden Bikes reported revenue of 48 million "
        "euros, up 12 percent on the same quarter last year, driven mainly by electric "
        "cargo bikes, which now make up a third of its sales. Profit margins narrowed, "
        "however, because of higher battery prices and delays at a supplier in "
        "Portugal that forced the company to send parts by air freight. Halden said it "
        "has signed a second battery supplier and expects margins to recover by the "
        "middle of next year. The company also announced that it will open a repair "
        "and servicing centre in Lyon in the spring, its first outside the "
        "Netherlands.",
        lead="Halden Bikes grew third-quarter revenue 12% to €48 million on strong "
             "e-cargo bike sales, but its margins shrank.",
        points=[
            ("Growth", "Electric cargo bikes now make up a third of sales."),
            ("Margins", "Dearer batteries and a delayed Portuguese supplier, which "
             "forced costly air freight, squeezed profits."),
            ("Response", "A second battery supplier has been signed and margins should "
             "recover by mid next year."),
            ("Expansion", "A repair and servicing centre opens in Lyon in the spring, "
             "the company's first outside the Netherlands."),
        ],
        vague="Halden Bikes had a mixed quarter with some good and some bad news.",
        wrong="Revenue fell because fewer people bought cargo bikes.",
    ),
    dict(
        id="summarise-04", category="summarise", topic="the website redesign meeting",
        prompt=_SUMMARISE_PROMPT +
        "Notes from the website redesign meeting, 14 March. Attendees agreed that the "
        "new homepage will launch on 2 May instead of 18 April, because the product "
        "photos will not be ready in time. Priya will send the final copy for the "
        "pricing page by Friday. The team decided to drop the live chat widget for now, "
        "since support staff cannot cover evenings; it will be revisited in June. Marco "
        "raised the problem of slow page loads on mobile and will run an audit of image "
        "sizes next week. The next check-in is on 21 March at 10:00.",
        lead="The homepage launch moves from 18 April to 2 May because the product "
             "photos are late.",
        points=[
            ("Pricing copy", "Priya sends the final pricing-page copy by Friday."),
            ("Live chat", "The chat widget is dropped until June because support can't "
             "cover evenings."),
            ("Mobile speed", "Marco audits image sizes next week to tackle slow mobile "
             "page loads."),
            ("Next check-in", "The team meets again on 21 March at 10:00."),
        ],
        table=(("Owner", "Action", "Due"),
               [("Priya", "final pricing-page copy", "Friday"),
                ("Marco", "image-size audit for mobile", "next week"),
                ("Team", "revisit live chat", "June")]),
        vague="The team talked about the website and some dates changed.",
        wrong="The launch was brought forward to 18 April.",
    ),
    dict(
        id="summarise-05", category="summarise", topic="Northgate library's late fees",
        prompt=_SUMMARISE_PROMPT +
        "From next month, Northgate public library will stop charging late fees on "
        "children's and teenagers' books. Library staff said the fees brought in less "
        "than 3,000 pounds a year while discouraging families from borrowing: nearly "
        "900 young members currently have their accounts blocked over unpaid fines of "
        "a few pounds. Those blocks will be lifted automatically. Items still have to "
        "be returned, and members who keep a book more than eight weeks past its due "
        "date will be asked to pay for a replacement. Libraries in other towns that "
        "removed fines reported more children borrowing and most overdue books coming "
        "back within a few weeks.",
        lead="Northgate library is scrapping late fees on children's and teenagers' "
             "books from next month.",
        points=[
            ("Why", "The fees raised under £3,000 a year but kept nearly 900 young "
             "members blocked over small debts."),
            ("Blocks lifted", "Those accounts will be unblocked automatically."),
            ("Still accountable", "Books more than eight weeks overdue must be paid for "
             "as replacements."),
            ("Experience elsewhere", "Towns that dropped fines saw more children "
             "borrowing and most late books returned within weeks."),
        ],
        vague="The library is changing its rules about fines for young people.",
        wrong="Adults will no longer pay late fees either.",
    ),
    dict(
        id="summarise-06", category="summarise", topic="a newly found comet",
        prompt=_SUMMARISE_PROMPT +
        "Astronomers using a telescope in Chile have spotted a small comet, catalogued "
        "as C/2031 R2, that will pass about 60 million kilometres from Earth next "
        "February. At that distance it poses no danger. The comet is faint at the "
        "moment, but if it brightens as expected when it nears the Sun, it may be "
        "visible through binoculars from the Southern Hemisphere for about two weeks. "
        "Its orbit suggests that it comes from the distant Oort Cloud and has probably "
        "never visited the inner Solar System before, which makes it a rare chance to "
        "study ice that has barely changed since the planets formed.",
        lead="A small comet found from Chile will pass a harmless 60 million km from "
             "Earth next February.",
        points=[
            ("Visibility", "If it brightens as expected, Southern Hemisphere observers "
             "may see it with binoculars for about two weeks."),
            ("Origin", "It probably comes from the Oort Cloud and is on its first trip "
             "into the inner Solar System."),
            ("Why it matters", "Its ice should be almost unchanged since the planets "
             "formed, which makes it valuable to study."),
        ],
        vague="Scientists found a comet that will come near Earth.",
        wrong="The comet will be easy to see with the naked eye from everywhere on "
              "Earth.",
    ),
    dict(
        id="summarise-07", category="summarise", topic="the Kettlebright K2 review",
        prompt=_SUMMARISE_PROMPT +
        "The Kettlebright K2 is a compact electric kettle with adjustable temperature "
        "settings from 40 to 100 degrees Celsius in five-degree steps. In testing it "
        "boiled its full 0.8 litres in just under three minutes and held tea-friendly "
        "temperatures to within two degrees. The brushed steel body stays cool enough "
        "to touch, and the lid opens with one hand. On the downside, the base takes up "
        "more counter space than expected, the beep cannot be switched off, and the "
        "small capacity makes it awkward for large households. At 69 euros it costs "
        "more than a basic kettle, but it is good value for anyone who brews green or "
        "white tea.",
        lead="The Kettlebright K2 is a precise, well-made temperature-control kettle "
             "with a few practical drawbacks.",
        points=[
            ("Strengths", "It offers 40–100 °C in 5° steps, boils 0.8 L in under three "
             "minutes and holds temperature within 2 °C."),
            ("Design", "The body stays cool to the touch and the lid opens with one "
             "hand."),
            ("Weaknesses", "The base is bulky, the beep can't be muted, and the small "
             "capacity doesn't suit big households."),
            ("Verdict", "At €69 it is dearer than basic kettles but good value for "
             "green and white tea drinkers."),
        ],
        table=(("Pros", "Cons"),
               [("precise temperature control", "bulky base"),
                ("fast boil", "beep can't be muted"),
                ("cool-touch body", "only 0.8 L")]),
        vague="The review says the kettle is good but has some problems.",
        wrong="The reviewers found that it could not hold a steady temperature.",
    ),
    dict(
        id="summarise-08", category="summarise", topic="Corvin Insurance's remote-work "
                                                        "policy",
        prompt=_SUMMARISE_PROMPT +
        "Starting in September, staff at Corvin Insurance may work from home up to "
        "three days a week, provided their manager approves a written schedule. Teams "
        "must agree on at least one shared office day so that meetings and training "
        "can happen in person. The company will give each remote worker a one-time "
        "allowance of 400 euros for a desk chair or monitor. Customer-facing roles in "
        "the claims centre are excluded for now because of limitations in the phone "
        "system, but the company expects to include them after a system upgrade next "
        "year. A staff survey in six months will decide whether the policy continues.",
        lead="From September, Corvin Insurance staff can work from home up to three "
             "days a week with a manager-approved schedule.",
        points=[
            ("Shared day", "Each team keeps at least one common office day for "
             "meetings and training."),
            ("Allowance", "Remote workers get a one-off €400 for a chair or monitor."),
            ("Exclusion", "Claims-centre phone staff are left out until the phone "
             "system is upgraded next year."),
            ("Review", "A survey after six months decides whether the policy stays."),
        ],
        vague="The company is letting people work from home sometimes.",
        wrong="All staff, including the claims centre, can work fully remotely.",
    ),
    dict(
        id="summarise-09", category="summarise", topic="the Millbrook canal",
        prompt=_SUMMARISE_PROMPT +
        "The old canal through Millbrook was dug in the 1790s to carry coal from the "
        "hills to the river port. For about fifty years it was the town's busiest "
        "route, with up to forty boats a day passing through its eleven locks. When the "
        "railway arrived in 1846, traffic fell sharply, and by 1900 the canal was used "
        "only by a handful of boats carrying bricks. It was partly filled in during the "
        "1950s. Since 2010 a volunteer trust has restored three kilometres of the "
        "channel and two of the locks, and it now runs weekend boat trips that help pay "
        "for further repairs.",
        lead="Millbrook's coal canal, busy for half a century after the 1790s, declined "
             "once the railway arrived and is now being restored by volunteers.",
        points=[
            ("Heyday", "Up to forty boats a day used its eleven locks."),
            ("Decline", "Traffic collapsed after the railway came in 1846; by 1900 only "
             "a few brick boats remained, and parts were filled in during the 1950s."),
            ("Revival", "Since 2010 a volunteer trust has restored 3 km and two locks, "
             "funding more work with weekend boat trips."),
        ],
        vague="The canal is old and has an interesting history.",
        wrong="The canal was built to carry bricks to the railway station.",
    ),
    dict(
        id="summarise-10", category="summarise", topic="the Pallas 4.2 release notes",
        prompt=_SUMMARISE_PROMPT +
        "Version 4.2 of the Pallas photo editor adds a non-destructive crop tool, so "
        "the original image is kept and the crop can be changed later. Exporting to "
        "WebP is now supported, and JPEG exports are about 30 percent faster on "
        "multi-core machines. The update fixes a bug that could corrupt files when "
        "saving to a network drive, and another that reset custom keyboard shortcuts "
        "after an update. Support for the oldest operating systems has been dropped: "
        "Pallas now requires Windows 10 or macOS 12 or later. Existing presets are "
        "migrated automatically the first time the new version starts.",
        lead="Pallas 4.2 adds non-destructive cropping and WebP export, speeds up JPEG "
             "export and fixes two nasty bugs.",
        points=[
            ("Speed", "JPEG exports are about 30% faster on multi-core machines."),
            ("Fixes", "Saving to network drives no longer risks corrupting files, and "
             "custom shortcuts survive updates."),
            ("Requirements", "Windows 10 or macOS 12 or later is now required."),
            ("Presets", "Existing presets are migrated automatically on first start."),
        ],
        table=(("Area", "Change"),
               [("New", "non-destructive crop, WebP export"),
                ("Faster", "JPEG export, ~30% on multi-core"),
                ("Fixed", "network-drive saves, reset shortcuts"),
                ("Requires", "Windows 10+ or macOS 12+")]),
        vague="There is a new version of the photo editor with new features.",
        wrong="The update adds support for older systems such as Windows 7.",
    ),
    # ------------------------------------------------------------------ write
    dict(
        id="write-01", category="write", kind="email",
        prompt="Write a short email to my team announcing that our office will be "
               "closed this Friday for maintenance and that everyone should work from "
               "home. Sign it Sam.",
        subject="Office closed this Friday — please work from home",
        greeting="Hi everyone,",
        paras=[
            ["Our office will be closed this Friday while the building team replaces "
             "the heating system and upgrades the wiring on our floor.",
             "Please plan to work from home for the whole day."],
            ["If you need anything from your desk, take it home on Thursday, because no "
             "one will be allowed into the building on Friday.",
             "Meetings booked in the office rooms will move to video calls, so "
             "organisers, please update your invitations.",
             "The office reopens as normal on Monday morning."],
            ["Thanks for your flexibility, and let me know if working from home on "
             "Friday is a problem for you."],
        ],
        signoff="Best,\nSam",
    ),
    dict(
        id="write-02", category="write", kind="product description",
        prompt="Write a product description of about 100 words for a set of reusable "
               "beeswax food wraps.",
        title="Beeswax Food Wraps — Set of Three",
        paras=[
            ["Wrap it, seal it, wash it, use it again.",
             "Our wraps are organic cotton coated in beeswax, tree resin and jojoba oil, "
             "so the warmth of your hands is all it takes to mould them around half a "
             "lemon, a wedge of cheese or a bowl of leftovers."],
            ["Each set includes a small, a medium and a large wrap.",
             "Rinse them in cool water with a little mild soap, let them dry, and they "
             "are ready for months of use.",
             "When they finally wear out, cut them into strips and add them to your "
             "compost."],
        ],
    ),
    dict(
        id="write-03", category="write", kind="bio",
        prompt="Write a LinkedIn-style bio of three or four sentences for Maya Chen, a "
               "data analyst in healthcare. She has six years of experience, built "
               "emergency-department wait-time dashboards and staffing forecasts, "
               "works in SQL, Python and Power BI, and mentors students.",
        paras=[
            ["Maya Chen is a data analyst who helps hospitals turn messy operational "
             "data into decisions that improve patient care.",
             "Over six years she has built emergency-department wait-time dashboards, "
             "staffing forecasts and the reporting that clinical teams rely on every "
             "day.",
             "She works mainly in SQL, Python and Power BI, and cares as much about "
             "explaining a chart clearly as about building it.",
             "Outside her day job, Maya mentors students who are moving into "
             "analytics."],
        ],
    ),
    dict(
        id="write-04", category="write", kind="message",
        prompt="Write a polite note to my neighbour asking them to keep their dog from "
               "barking early in the morning. I'm Alex from number 12, I work late "
               "shifts, and the dog is called Biscuit.",
        greeting="Hi there,",
        paras=[
            ["It's Alex from number 12 — I hope you're both well and that Biscuit is "
             "enjoying the garden."],
            ["I wanted to mention, in a friendly way, that Biscuit has been barking "
             "quite a lot in the early mornings, usually from about half past five.",
             "I work late shifts, so those are the hours when I sleep, and I've been "
             "finding it hard to drift off again."],
            ["I know dogs bark and I'm not upset at all; I just wondered whether "
             "something might help, like letting him out into the garden a little "
             "later.",
             "I'm happy to chat in person if that's easier."],
        ],
        signoff="Thanks so much,\nAlex",
    ),
    dict(
        id="write-05", category="write", kind="story opening",
        prompt="Write the opening paragraph of a short story set in a lighthouse during "
               "a storm.",
        paras=[
            ["The lamp had turned for two hundred years, and tonight it was the only "
             "thing on the island still keeping to its schedule.",
             "Rain came sideways through the gaps in the gallery door, the wind "
             "shouldered the tower like something that wanted to be let in, and down "
             "on the rocks the sea threw white water higher than Edda had ever seen it "
             "climb.",
             "The generator had died at nine, so she wound the clockwork by hand, "
             "counting each turn aloud to keep her arms honest.",
             "At the two-hundredth turn she heard it: three short knocks on the door at "
             "the foot of the stairs, where nobody could possibly be."],
        ],
    ),
    dict(
        id="write-06", category="write", kind="thank-you note",
        prompt="Write a thank-you note to my mentor, Dr. Okafor, who helped me get my "
               "first job as a nurse.",
        greeting="Dear Dr. Okafor,",
        paras=[
            ["I wanted to thank you properly for everything you did to help me get my "
             "first nursing job."],
            ["Your advice on my applications, the mock interview you made time for in "
             "the middle of a busy week, and your honest feedback on my clinical "
             "placements made all the difference.",
             "When I felt unsure of myself, you reminded me why I chose nursing in the "
             "first place."],
            ["I start on the children's ward next month, and I hope to be the kind of "
             "nurse — and one day the kind of mentor — that you have been to me."],
        ],
        signoff="With gratitude,\nJordan",
    ),
    dict(
        id="write-07", category="write", kind="README introduction",
        prompt="Write a short README introduction for an open-source command-line tool "
               "called `tidyup` that sorts the files in a folder into subfolders by "
               "type.",
        title="tidyup",
        paras=[
            ["`tidyup` is a small command-line tool that sorts the files in a folder "
             "into subfolders by type: images, documents, audio, video, archives and "
             "everything else.",
             "It never deletes anything, and a dry-run mode shows exactly what would "
             "move before it touches a single file."],
            ["Rules live in a plain `tidyup.toml` file, so you can add your own "
             "categories or change where things go.",
             "It runs on Linux, macOS and Windows and has no dependencies beyond "
             "Python 3.9."],
        ],
        code=("bash", "pip install tidyup\ntidyup ~/Downloads --dry-run\n"
              "tidyup ~/Downloads\n"),
        code_intro="## Quick start",
    ),
    dict(
        id="write-08", category="write", kind="announcement",
        prompt="Write an announcement for our community garden's spring planting day on "
               "Saturday 12 April, 9am to 1pm. Mention that tools and seedlings are "
               "provided and that there will be soup at lunchtime.",
        title="Spring Planting Day — Saturday 12 April",
        paras=[
            ["The beds are dug, the days are getting longer, and it's time to plant!",
             "Join us at the community garden on Saturday 12 April from 9am to 1pm for "
             "our spring planting day."],
            ["We'll be sowing beans and peas, planting out lettuce and herb seedlings, "
             "and building a new bed for the pollinator patch.",
             "Tools, gloves and seedlings are provided, so just bring yourself and "
             "clothes you don't mind getting muddy.",
             "Children are very welcome, and there's a seed-sowing table just for "
             "them."],
            ["At lunchtime we'll share a big pot of homemade soup.",
             "Come for an hour or stay all morning — every pair of hands helps."],
        ],
    ),
    dict(
        id="write-09", category="write", kind="apology email",
        prompt="Write a short apology email to a customer whose order #48213 arrived "
               "two weeks late. Offer a 15% discount code, SORRY15, on their next "
               "order.",
        subject="We're sorry your order was late",
        greeting="Dear customer,",
        paras=[
            ["I'm sorry that your order #48213 arrived two weeks later than we "
             "promised.",
             "A problem at our warehouse held up a batch of parcels, and we should have "
             "let you know sooner."],
            ["We have changed how we track delayed shipments so that, if this ever "
             "happens again, you will hear from us straight away.",
             "As an apology, please use the code SORRY15 for 15% off your next "
             "order."],
            ["Thank you for your patience, and if anything in your order isn't right, "
             "just reply to this email."],
        ],
        signoff="Kind regards,\nThe Customer Care Team",
    ),
    dict(
        id="write-10", category="write", kind="speech",
        prompt="Write a short speech (about 150 words) for a colleague's retirement "
               "party. Her name is Ruth and she worked in the accounts team for 31 "
               "years.",
        paras=[
            ["Thirty-one years.",
             "That's how long Ruth has kept our accounts straight, our invoices paid "
             "and, frankly, the rest of us honest."],
            ["Ruth joined when the ledgers were still on paper, and she saw us through "
             "three accounting systems, two office moves and more year-end closes than "
             "any of us could count.",
             "Through all of it she stayed patient, precise and generous with her "
             "time, and most people in this room have asked her to explain a budget "
             "more than once."],
            ["Ruth, we'll miss your calm, your good sense and your biscuit tin.",
             "Enjoy the garden, the travel and the long lie-ins.",
             "Please raise your glasses: to Ruth!"],
        ],
    ),
]


# --- the five answer styles -------------------------------------------------

_SECTION_TITLES = {
    "explain": ["How it works", "The key ideas", "Step by step", "What's going on"],
    "advise": ["What to do", "Practical steps", "A simple plan", "What I'd suggest"],
}
_BASALT_OPENERS = [
    "Great question! {Topic} is something a lot of people wonder about, so let's go "
    "through it carefully and in detail.",
    "Certainly! This is a really interesting question about {topic}, and there are "
    "several aspects worth considering here.",
    "Thank you for your question! Let's take a comprehensive look at {topic}, step by "
    "step.",
    "Absolutely! There's quite a lot to say about {topic}, so I'll break it down into "
    "clear sections.",
]
_BASALT_FILLERS = [
    "This is an important point to keep in mind.",
    "It's worth taking a moment to think about this carefully.",
    "Many people overlook this, but it can make a real difference.",
    "In other words, this really matters more than you might expect.",
    "This is often one of the most significant factors overall.",
    "Keeping this in mind will help you understand the bigger picture.",
    "As you can see, this plays a key role.",
    "Of course, every situation is a little different, so context matters here.",
]
_BASALT_CLOSERS = [
    "I hope this helps! Let me know if you have any other questions.",
    "I hope this detailed explanation was useful. Feel free to ask if anything is "
    "unclear!",
    "Hopefully this gives you a thorough overview. Don't hesitate to ask follow-up "
    "questions!",
]
_EMBER_INTROS = ["Sure!", "Good question.", "Happy to help.", "Here's the short "
                 "version.", "Okay, let's see."]
_EMBER_DRIFTS = [
    "On a related note, it's funny how many everyday habits come from historical "
    "accidents. The QWERTY keyboard layout outlived the typewriters it was designed "
    "for simply because everyone had already learned it, and a lot of our routines "
    "work the same way: we keep them because switching feels expensive.",
    "This reminds me of how the idea of a fixed working day took shape with factory "
    "clocks and shift whistles. It's a fascinating story, and it still shapes how we "
    "organise almost everything, from school timetables to when shops open.",
    "As an aside, a lot of this comes down to how our brains deal with uncertainty. "
    "People tend to prefer a known small cost over an unknown bigger one, which is why "
    "we keep old phones, old cars and old habits for longer than we probably should.",
    "Taking a step back, I wonder whether any of this will matter in twenty years. "
    "Tools and habits change so fast that today's best practice may look as quaint as "
    "a fax machine before long, and it's fun to imagine what will replace it.",
    "By the way, if you like this kind of question, the history of measurement is a "
    "great rabbit hole: the metre was first defined from the size of the Earth, and "
    "now it's defined through the speed of light.",
    "Speaking of which, there's a bigger conversation to be had about how much of the "
    "advice we find online is actually useful. Much of it is written to be shared "
    "rather than followed, and a chat with a friend often helps more than any list.",
    "Incidentally, octopuses are a good reminder that there's more than one way to "
    "solve a problem: most of their neurons sit in their arms, which can explore and "
    "react almost on their own.",
]
_EMBER_RESUMES = ["Anyway, back to your question — ", "Anyway, to sum up: ",
                  "But I digress. In short, "]


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


def aurora_en(case, rng, sample):
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
    cat = case["category"]
    out = []
    if cat == "summarise":
        out += [f"**Summary:** {case['lead']}", "", "**Key points**", ""]
        out += [f"- **{h}:** {d}" for h, d in case["points"]]
        if case.get("table"):
            out += ["", md_table(*case["table"])]
        return "\n".join(out)
    out += [case["lead"], "", f"### {rng.choice(_SECTION_TITLES[cat])}", ""]
    out += [f"{i}. **{h}.** {d}" for i, (h, d) in enumerate(case["points"], 1)]
    if case.get("table"):
        out += ["", md_table(*case["table"])]
    if case.get("code"):
        out += ["", case.get("code_intro", "For example:"), "", fence(*case["code"])]
    if case.get("tip"):
        out += ["", f"> **Tip:** {case['tip']}"]
    return "\n".join(out)


def basalt_en(case, rng, sample):
    topic = case["topic"]
    opener = rng.choice(_BASALT_OPENERS).format(topic=topic,
                                                Topic=topic[0].upper() + topic[1:])
    fillers = rng.sample(_BASALT_FILLERS, len(_BASALT_FILLERS))
    out = [opener, "", "## Overview", "", f"{case['lead']} {fillers[0]}", ""]
    out += ["## Key Points" if case["category"] != "summarise" else "## Main Points", ""]
    for i, (h, d) in enumerate(case["points"], 1):
        out += [f"### {i}. {h}", "", f"{d} {fillers[i % len(fillers)]}", ""]
    if case.get("table"):
        out += ["## At a Glance", "", "Here is a helpful table that summarises the "
                "information above:", "", md_table(*case["table"]), ""]
    if case.get("code"):
        out += ["## Example", "", case.get("code_intro", "Here is an example:"), "",
                fence(*case["code"]), ""]
    if case.get("tip"):
        out += ["## Bonus Tip", "", f"{case['tip']} {fillers[-1]}", ""]
    out += ["## Conclusion", "", f"To sum up, {lower_first(case['lead'])} "
            + rng.choice(_BASALT_CLOSERS)]
    return "\n".join(out)


def basalt_faq(case, rng):
    """The extra section basalt-13b sometimes keeps writing until it hits its limit."""
    fillers = rng.sample(_BASALT_FILLERS, len(_BASALT_FILLERS))
    out = ["", "", "## Frequently Asked Questions", ""]
    for i, (h, d) in enumerate(case["points"]):
        out += [f"### Why does \"{lower_first(h)}\" matter so much?", "",
                f"That's a great follow-up question. {d} {fillers[i % len(fillers)]} "
                f"{fillers[(i + 3) % len(fillers)]}", ""]
    out += ["## Final Thoughts", "", f"Overall, {lower_first(case['lead'])} "
            "There is always more to learn about this topic, and it is worth revisiting "
            "these points from time to time as your understanding grows."]
    return "\n".join(out)


def dune_en(case, rng, sample):
    heads = [lower_first(h) for h, _ in case["points"][:3]]
    first = case["vague"] if rng.random() < 0.6 else case["lead"]
    if case["category"] == "summarise":
        text = f"{first} {case['points'][0][1]}"
    else:
        text = f"{first} The main things are {heads[0]}, {heads[1]} and {heads[2]}."
    if case.get("wrong") and rng.random() < 0.6:
        text += " " + case["wrong"]
    if case["category"] == "summarise":
        return text + rng.choice([" Hope this helps!", ""])
    return text + rng.choice([" Hope this helps!", " Good luck!", ""])


def ember_en(case, rng, sample):
    pts = list(case["points"])
    pts = pts[:3] if sample == 0 else pts[-3:]
    if case["category"] == "summarise":
        intro = rng.choice(["In short:", "Here's a summary.", "Summary:"])
    else:
        intro = rng.choice(_EMBER_INTROS)
    out = [f"{intro} {case['lead']}", ""]
    bullet = "*" if sample == 0 else "-"
    out += [f"{bullet} {h} — {d}" for h, d in pts]
    if rng.random() < 0.55:  # the drift
        out += ["", rng.choice(_EMBER_DRIFTS)]
        if rng.random() < 0.5 and case.get("tip"):
            out += ["", rng.choice(_EMBER_RESUMES) + lower_first(case["tip"])]
    elif case.get("tip"):
        out += ["", case["tip"]]
    return "\n".join(out)


# --- "write" tasks are composed differently --------------------------------

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


_BASALT_WRITE_TIPS = [
    "Adjust the tone to match your relationship with the reader.",
    "Keep the most important information in the first two sentences.",
    "Read it aloud once before sending — it helps you catch awkward phrasing.",
    "Add specific details where you can; they make the writing feel personal.",
    "Consider the length: shorter is usually better for busy readers.",
]


def basalt_write(case, rng, sample):
    kind = case["kind"]
    out = [f"Absolutely! Here's a thoughtful, well-structured {kind} that you can use "
           "or adapt to your needs:", "", "---", "", _full_piece(case), "", "---", "",
           f"### Tips for Using This {kind.title()}", ""]
    out += [f"- {t}" for t in rng.sample(_BASALT_WRITE_TIPS, 3)]
    out += ["", f"I hope this {kind} works well for you! Let me know if you'd like a "
            "different tone, a shorter version or any other changes."]
    return "\n".join(out)


def dune_write(case, rng, sample):
    out = []
    if case.get("greeting"):
        out += [case["greeting"], ""]
    out += [" ".join(case["paras"][0][:2])]
    if case.get("signoff"):
        out += ["", case["signoff"]]
    return "\n".join(out) + rng.choice(["", "\n\nLet me know if you want changes."])


def ember_write(case, rng, sample):
    text = _full_piece(case, headline=(sample == 0))
    intro = rng.choice(["Here you go:", "Here's a draft:", "Sure, try this:"])
    out = [intro, "", text]
    if rng.random() < 0.5:
        out += ["", "P.S. " + rng.choice(_EMBER_DRIFTS)]
    return "\n".join(out)


PROSE_STYLES = {
    "aurora-7b": (aurora_en, aurora_write),
    "basalt-13b": (basalt_en, basalt_write),
    "cedar-70b": (cedar_en, cedar_write),
    "dune-mini": (dune_en, dune_write),
    "ember-large": (ember_en, ember_write),
}


# --- planted outputs ----------------------------------------------------------

_IDEMPOTENT_SHORT = (
    "Idempotent means that sending the same request several times has the same effect "
    "on the server as sending it once. `GET`, `PUT` and `DELETE` are idempotent; "
    "`POST` usually is not, because sending it twice can create two resources."
)
_SPANISH_PVALUE = (
    "¡Claro! Un valor p indica qué tan sorprendentes serían tus datos si en realidad no "
    "estuviera pasando nada interesante.\n\n"
    "- Primero se supone que no hay ningún efecto: el medicamento no funciona o la "
    "moneda no está trucada.\n"
    "- Después se calcula la probabilidad de obtener un resultado al menos tan extremo "
    "como el tuyo si esa suposición fuera cierta.\n"
    "- Un valor p de 0,01 significa que un resultado así saldría por pura casualidad "
    "más o menos una vez de cada cien.\n\n"
    "Ojo: no es la probabilidad de que tu hipótesis sea verdadera, y tampoco dice nada "
    "sobre el tamaño del efecto."
)
_GERMAN_HIKE = (
    "Für eine dreitägige Wanderung brauchst du vor allem ein Zelt, einen warmen "
    "Schlafsack und eine Isomatte. Nimm genug Wasser mit, also zwei bis drei Liter, "
    "und dazu einen Filter. Beim Essen solltest du auf leichte, energiereiche Sachen "
    "achten und einen kleinen Kocher einpacken. Kleidung am besten im Zwiebelprinzip "
    "mit Regenjacke. Karte, Stirnlampe und Erste-Hilfe-Set nicht vergessen!"
)
_CHINESE_REMOTE = (
    "从九月起，Corvin 保险公司的员工在经理批准书面安排后，每周最多可以在家办公三天。"
    "每个团队至少要约定一天一起到办公室，方便开会和培训。公司会给每位远程办公的员工"
    "一次性发放400欧元，用于购买椅子或显示器。理赔中心的客服岗位暂时不适用，预计明年"
    "电话系统升级后再纳入。六个月后公司会通过员工调查决定是否继续这项政策。"
)
_GIT_EXTRA = """

## A Brief History

Git was created in 2005 for the development of a large open-source operating system kernel, after the project lost access to the version control tool it had been using. The design goals were speed, a simple design, strong support for non-linear development with thousands of parallel branches, and a fully distributed model. It's worth taking a moment to think about this carefully, because those goals explain almost every design decision described above.

## Common Commands and What They Do Internally

| Command | What happens inside Git |
|---|---|
| `git add` | writes a blob for each changed file and updates the index |
| `git commit` | writes tree objects from the index and a new commit object |
| `git branch x` | creates a file containing the current commit hash |
| `git gc` | packs loose objects into packfiles with deltas |

## Frequently Asked Questions

### Does Git store a full copy of every file in every commit?

Conceptually yes, but because blobs are named by their content, an unchanged file is simply the same blob referenced again, so it costs almost nothing. This is an important point to keep in mind.

### What happens when I rename a file?

The tree changes, but the blob stays the same. Git does not record renames explicitly; tools such as `git log --follow` detect them afterwards by comparing content.

### Why are hashes so long?

The hash has to be unique across every object in every repository you might ever merge with. Many people overlook this, but it can make a real difference.

### Can I lose data by rewriting history?

Old commits stay in the object database until they are garbage-collected, and the reflog remembers where branches pointed, so recovery is usually possible for a while. Of course, every situation is a little different, so context matters here.

### Is a branch a copy of my files?

No. Creating a branch writes one small file with a commit hash in it, which is why branching in Git is so fast and cheap compared with older version control systems that copied whole directories.

### What is the index?

The index (also called the staging area) is a binary file that lists the blobs that will make up the next commit. `git add` updates it, and `git commit` turns it into tree objects. As you can see, this plays a key role."""

# (case id, system label, sample) -> how the composed answer is replaced or altered.
PROSE_PLANTED: dict[tuple[str, str, int], dict[str, Any]] = {
    ("explain-07", "dune-mini", 0): dict(output=""),
    ("advise-04", "ember-large", 1): dict(output="   \n\n  "),
    ("write-03", "basalt-13b", 0): dict(output="\n"),
    ("explain-02", "basalt-13b", 0): dict(pad_faq=True, truncate=3840),
    ("explain-06", "basalt-13b", 0): dict(pad_faq=True, truncate=3850),
    ("write-08", "ember-large", 0): dict(extend="\n\n" + _EMBER_DRIFTS[4] + "\n\n" + _EMBER_DRIFTS[0],
                                         truncate=1240),
    ("advise-02", "dune-mini", 0): dict(output="Yes."),
    ("advise-07", "dune-mini", 0): dict(output="It depends on your situation."),
    ("explain-10", "basalt-13b", 0): dict(append=_GIT_EXTRA),
    ("explain-05", "ember-large", 0): dict(output=_SPANISH_PVALUE),
    ("advise-09", "dune-mini", 0): dict(output=_GERMAN_HIKE),
    ("summarise-08", "ember-large", 1): dict(output=_CHINESE_REMOTE),
    ("explain-04", "aurora-7b", 0): dict(output=_IDEMPOTENT_SHORT),
    ("explain-04", "dune-mini", 0): dict(output=_IDEMPOTENT_SHORT),
    ("advise-08", "ember-large", 1): dict(same_as="cedar-70b", crlf=True),
    ("advise-05", "cedar-70b", 0): dict(
        prefix="As Cedar, I'd treat this as an ordinary business conversation rather "
               "than a favour you're asking for. "),
    ("explain-09", "ember-large", 0): dict(
        suffix="\n\nUnlike aurora-7b, I've kept the maths out of it — ask if you want "
               "the details of how the keys are generated."),
}


def build_prose():
    records = []
    for case in PROSE_CASES:
        composed: dict[tuple[str, int], str] = {}
        for label, sysdef in PROSE_SYSTEMS.items():
            for sample in range(PROSE_SAMPLES.get(label, 1)):
                rng = case_rng("prose-en", case["id"], label, sample)
                plain, write = PROSE_STYLES[label]
                text = (write if case["category"] == "write" else plain)(case, rng, sample)
                finish = "stop"
                plant = PROSE_PLANTED.get((case["id"], label, sample), {})
                if "output" in plant:
                    text = plant["output"]
                if "same_as" in plant:
                    text = composed[(plant["same_as"], 0)]
                if plant.get("crlf"):
                    text = text.replace("\n", "\r\n") + "  \r\n"
                if plant.get("pad_faq"):
                    text += basalt_faq(case, rng)
                text += plant.get("extend", "")
                if "truncate" in plant:
                    text = cut_mid_sentence(text, plant["truncate"])
                    finish = "length"
                text = plant.get("prefix", "") + text + plant.get("append", "")
                text += plant.get("suffix", "")
                composed[(label, sample)] = text
                records.append(make_record(PROSE_FAMILY, case, sysdef, sample, text,
                                           language="en", finish_reason=finish, rng=rng))
        if "ember-large" in PROSE_SAMPLES:
            assert composed[("ember-large", 0)] != composed[("ember-large", 1)], case["id"]
    return records


# ---------------------------------------------------------------------------
# family 2: zh-hans
# ---------------------------------------------------------------------------

ZH_FAMILY = {
    "name": "zh-hans",
    "kind": "votes",
    "language": "zh-Hans",
    "min_chars": 10,
    "max_chars": 3000,
    "aspect": "writing",
    "reference": "cedar-70b",
}

_ZH_PROMPT = "你是一个乐于助人的助手。请用简体中文回答，可以使用 Markdown。"
ZH_SYSTEMS = {
    "aurora-7b": system("aurora-7b", system_prompt=_ZH_PROMPT, harness="demo-chat 1.0",
                        temperature=0.3, max_tokens=800, price_in=0.05, price_out=0.20,
                        ttft_ms=240.0, ms_per_token=10.0),
    "cedar-70b": system("cedar-70b", system_prompt=_ZH_PROMPT, harness="demo-chat 1.0",
                        temperature=0.5, max_tokens=1500, price_in=0.70, price_out=2.10,
                        ttft_ms=680.0, ms_per_token=22.0),
    "dune-mini": system("dune-mini", system_prompt=_ZH_PROMPT, harness="demo-chat 1.0",
                        temperature=0.7, max_tokens=400, price_in=0.02, price_out=0.06,
                        ttft_ms=150.0, ms_per_token=5.5),
    "ember-large": system("ember-large", system_prompt=_ZH_PROMPT,
                          harness="demo-chat 1.0", temperature=1.0, max_tokens=320,
                          price_in=1.00, price_out=3.00, ttft_ms=920.0,
                          ms_per_token=28.0),
}

ZH_CASES: list[dict[str, Any]] = [
    dict(
        id="zh-01", category="explain",
        prompt="什么是通货膨胀？请用通俗的话解释一下。",
        lead="通货膨胀就是物价普遍、持续地上涨，同样一百块钱能买到的东西越来越少。",
        points=[
            ("需求拉动", "大家手里的钱多了、想买的东西多了，商品一时供应不上，价格就会往上走。"),
            ("成本推动", "原材料、能源或者工资变贵，企业把增加的成本转到售价上。"),
            ("温和通胀不一定是坏事", "很多央行把每年2%左右的物价上涨当作目标，认为这有利于经济平稳运行。"),
            ("对普通人的影响", "存款的实际购买力下降，收入固定的人感受最明显。"),
        ],
        tip="想了解物价变化，可以关注每月公布的居民消费价格指数（CPI）。",
        vague="通货膨胀就是东西变贵了，大家都不喜欢。",
    ),
    dict(
        id="zh-02", category="explain",
        prompt="为什么切洋葱的时候会流眼泪？",
        lead="切洋葱时细胞被切破，里面的酶和含硫物质混在一起，产生一种刺激性气体，飘进眼睛就会流泪。",
        points=[
            ("细胞破裂", "洋葱细胞里的含硫化合物和酶平时分开存放，刀一切，两者就碰到了一起。"),
            ("产生催泪物质", "酶把含硫化合物变成一种容易挥发的刺激性物质。"),
            ("刺激眼睛", "这种气体碰到眼睛表面的水分后会刺激神经，泪腺就分泌眼泪把它冲走。"),
            ("缓解办法", "先把洋葱冷藏半小时、用锋利的刀、在通风的地方切，都能明显减少流泪。"),
        ],
        tip="刀越钝，压碎的细胞越多，放出的气体也越多。",
        vague="切洋葱流眼泪是因为洋葱有刺激性，这是很正常的。",
    ),
    dict(
        id="zh-03", category="explain",
        prompt="用 Python 统计一个文本文件里每个单词出现的次数，应该怎么写？",
        lead="用标准库里的 `collections.Counter` 最省事：逐行读入文本，切分成单词，再交给它计数就可以了。",
        points=[
            ("读取文件", "用 `with open(...)` 打开文件并指定 UTF-8 编码，读完以后文件会自动关闭。"),
            ("切分单词", "英文可以先统一转成小写，再用正则表达式把单词提取出来；中文句子里没有空格，需要先借助分词工具把句子切开。"),
            ("计数和排序", "`most_common(n)` 会直接返回出现次数最多的前 n 个词，而且已经按次数从高到低排好。"),
            ("处理大文件", "逐行读取、逐行更新计数，不要一次把整个文件读进内存。"),
        ],
        code=("python", "import re\nfrom collections import Counter\n\n\n"
              "def count_words(path, top=10):\n"
              "    # 逐行读取，避免大文件占满内存\n"
              "    counter = Counter()\n"
              "    with open(path, encoding=\"utf-8\") as f:\n"
              "        for line in f:\n"
              "            # 先统一转成小写，再提取单词\n"
              "            counter.update(re.findall(r\"\\w+\", line.lower()))\n"
              "    # 返回出现次数最多的前 top 个词\n"
              "    return counter.most_common(top)\n\n\n"
              "print(count_words(\"article.txt\"))\n"),
        tip="如果要统计中文词频，可以先用分词库把句子切成词，再交给 Counter。",
        vague="可以用 Python 的字典来统计单词，每遇到一个词就加一。",
    ),
    dict(
        id="zh-04", category="explain",
        prompt="“头发”的“发”和“发现”的“发”，在繁体中文里分别写作“髮”和“發”。能解释一下这两个字的区别吗？",
        lead="简体的“发”合并了两个繁体字：和毛发有关的写作“髮”，和出发、发生有关的写作“發”。",
        points=[
            ("“髮”", "上半部分是表示长毛的偏旁，专指头发、毛发，比如“理发”“白发”里的“发”。"),
            ("“發”", "本义是把箭射出去，后来引申为出发、发生、发展、发财等意思。"),
            ("为什么会合并", "汉字简化时，这两个字读音相近、都很常用，于是统一写成笔画更少的“发”。"),
            ("繁简转换的坑", "简体转繁体时，程序必须根据上下文判断该用哪一个，否则就会把“头发”的“发”错写成“發”。"),
        ],
        tip="一个简单的记法：和毛有关的用“髮”，其余大多数情况用“發”。",
        vague="这两个字在繁体里不一样，一个是头发，一个是发现。",
    ),
    dict(
        id="zh-05", category="explain",
        prompt="为什么简体字“台”对应了繁体里的“臺”“檯”“颱”好几个字？它们分别用在哪里？",
        lead="汉字简化时，几个读音相同、意思不同的字被并入了本来就存在的“台”字，所以繁体里要按意思区分。",
        points=[
            ("“臺”", "指高而平的建筑或平台，比如舞台、讲台、电视台。"),
            ("“檯”", "带木字旁，指桌子一类的家具，比如写字台、柜台。"),
            ("“颱”", "只用在“台风”这个词里。"),
            ("“台”", "本身也是古已有之的字，用于“兄台”等敬称，也用在一些地名里。"),
        ],
        tip="简体转繁体时要结合整个词来判断，最好查词典，而不是逐字替换。",
        vague="因为简化以后几个字变成了一个字，所以繁体有好几种写法。",
    ),
    dict(
        id="zh-06", category="advise",
        prompt="刚工作一年，每个月能存下三千元，应该怎么理财？",
        lead="先留足应急的钱，再考虑长期投资；收入不高的时候，最重要的是养成固定储蓄的习惯。",
        points=[
            ("应急资金", "先攒够三到六个月的生活费，放在随时能取出的货币基金或活期存款里。"),
            ("先存后花", "发工资当天就把钱自动转到另一个账户，比月底看剩多少更可靠。"),
            ("长期投资", "应急资金到位后，可以每月定投一部分宽基指数基金，时间拉长能平滑波动。"),
            ("投资自己", "考证书、学技能带来的加薪，往往比早期的投资收益更可观。"),
            ("避开陷阱", "远离承诺“保本高收益”的产品，也不要借钱投资。"),
        ],
        tip="每年回顾一次收支，根据收入变化调整比例。",
        vague="理财要趁早，可以多存钱，也可以买一些理财产品。",
    ),
    dict(
        id="zh-07", category="advise",
        prompt="在 MySQL 里，怎么查询每个部门工资最高的员工？",
        lead="推荐用窗口函数：先按部门分组、按工资从高到低排名，再取排名第一的行。注意，窗口函数需要 MySQL 8.0 及以上版本。",
        points=[
            ("窗口函数", "用 `RANK()` 按部门分区、按工资降序排列，给每个部门内的员工排出名次。"),
            ("并列怎么办", "`RANK` 会保留工资并列最高的所有人；如果每个部门只想要一个人，就改用 `ROW_NUMBER`。"),
            ("旧版本", "老版本没有窗口函数，可以先按部门求出最高工资，再和员工表连接，取工资相等的行。"),
            ("索引", "在部门编号和工资两列上建一个联合索引，可以明显加快查询速度。"),
        ],
        code=("sql", "-- 先在每个部门内按工资从高到低排名\n"
              "WITH ranked AS (\n"
              "    SELECT e.*,\n"
              "           RANK() OVER (PARTITION BY dept_id ORDER BY salary DESC) AS rk\n"
              "    FROM employees e\n"
              ")\n"
              "-- 只保留排名第一的员工（并列时全部保留）\n"
              "SELECT dept_id, name, salary\n"
              "FROM ranked\n"
              "WHERE rk = 1;\n"),
        tip="写完之后用 `EXPLAIN` 看一下执行计划，确认用上了索引。",
        vague="可以先按部门分组，再找出工资最高的人。",
    ),
    dict(
        id="zh-08", category="advise",
        prompt="五岁的孩子每天看平板一个多小时，这样可以吗？有什么办法减少？",
        lead="一般建议学龄前儿童每天看屏幕不超过一小时，最好有家长陪着看；与其硬性禁止，不如用规则和替代活动慢慢减少。",
        points=[
            ("定好规则", "和孩子一起约定时间和地点，比如只在晚饭后看二十分钟，用计时器提醒。"),
            ("提供替代活动", "积木、绘本、户外玩耍，比一句“不许看”更有效。"),
            ("家长做榜样", "孩子在场时，大人也尽量少刷手机。"),
            ("不要当作奖惩", "把平板当奖励，只会让它显得更珍贵。"),
            ("睡前不看", "睡前一小时关掉屏幕，有助于孩子入睡。"),
        ],
        tip="规则一旦定下就要坚持，偶尔破例也要提前说明原因。",
        vague="看平板时间太长对眼睛不好，要少看一点。",
    ),
    dict(
        id="zh-09", category="advise",
        prompt="第一次去外地参加面试，需要提前准备些什么？",
        lead="提前确认路线和时间、备好材料，再针对岗位练习几个常见问题，就能从容很多。",
        points=[
            ("行程", "提前一天到达，或者预留充足的时间，确认面试地址和交通方式。"),
            ("材料", "打印两三份简历，带上身份证、证书原件和一支笔。"),
            ("了解公司", "看看公司的主要业务、最近的新闻和岗位要求。"),
            ("模拟问答", "准备自我介绍和“为什么想来这里”等问题，大声练习几遍。"),
            ("着装与状态", "穿整洁得体的衣服，前一晚早点休息。"),
        ],
        tip="面试结束当天发一条简短的感谢信息，会给人留下好印象。",
        vague="面试前要好好准备，不要迟到。",
    ),
    dict(
        id="zh-10", category="write",
        prompt="帮我写一段朋友圈文案，庆祝我们的小咖啡馆开业一周年。",
        paras=[
            ["一年前的今天，我们在巷子口挂上了小小的招牌。"],
            ["三百六十五天里，我们做了一万多杯咖啡，也认识了许多每天准时来报到的老朋友。",
             "谢谢你们每一句“老样子”，让这家小店有了温度。"],
            ["本周六全天，所有饮品第二杯半价，欢迎回来坐坐。",
             "第二年，我们继续认真做好每一杯。"],
        ],
    ),
    dict(
        id="zh-11", category="write",
        prompt="写一封简短的邮件，向客户王经理说明 500 台空气净化器要推迟三天发货，并表示歉意。",
        greeting="尊敬的王经理：",
        paras=[
            ["您好！"],
            ["由于上游供应商的原材料到货延迟，贵公司订购的500台空气净化器将比原定日期推迟三天发货，预计于本月18日发出。"],
            ["给您带来不便，我们深表歉意。", "为表诚意，本批货物的运费将由我们全部承担。"],
            ["如有任何问题，请随时与我联系。"],
        ],
        signoff="此致\n敬礼\n\n李明\n华远科技销售部",
    ),
    dict(
        id="zh-12", category="write",
        prompt="写一段150字左右的产品介绍，介绍一款便携式蓝牙音箱。",
        paras=[
            ["小巧到可以放进外套口袋，声音却足以填满整个房间。"],
            ["这款蓝牙音箱采用全频单元和被动振膜，低音饱满而不浑浊；充满电后可以连续播放12小时。"],
            ["它支持IPX7级防水，带去海边、泳池甚至浴室都不用担心。",
             "两台音箱还能一键配对成立体声，户外聚会更有氛围。"],
            ["整机只有280克，有雾灰、松绿和珊瑚橙三种颜色可选。"],
        ],
    ),
]

_ZH_DRIFTS = [
    "说到这里，顺便提一句：很多人习惯在网上搜各种攻略，其实和身边有经验的朋友聊一聊，往往收获更大。",
    "题外话，最近我一直在想，信息太多反而让人更难做决定。也许少看一点，多动手试一试，才是最好的办法。",
    "另外想到一点：很多生活习惯都是偶然形成的，我们坚持它们，往往只是因为换一种方式太麻烦。",
]


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
        out = ([case["greeting"], ""] if case.get("greeting") else [])
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
        out = [rng.choice(["好的，给你写了一版：", "可以参考下面这段："]), "", _zh_piece(case)]
        out += ["", "希望你喜欢，需要调整语气的话告诉我。"]
        return "\n".join(out)
    out = [rng.choice(["好的！", "这个问题很好。", ""]) + case["lead"], ""]
    for h, d in case["points"]:
        out += [f"【{h}】{d}", ""]
    if rng.random() < 0.5:
        out += [rng.choice(_ZH_DRIFTS), ""]
    if case.get("tip"):
        out += [case["tip"]]
    return "\n".join(out).strip()


def _zh_piece(case):
    out = []
    if case.get("greeting"):
        out += [case["greeting"], ""]
    for para in case["paras"]:
        out += ["".join(para), ""]
    if case.get("signoff"):
        out += [case["signoff"]]
    return "\n".join(out).strip()


ZH_STYLES = {"aurora-7b": aurora_zh, "cedar-70b": cedar_zh, "dune-mini": dune_zh,
             "ember-large": ember_zh}

# Traditional-character drifts (converted by hand from Simplified drafts).
_ZH_ONION_TRADITIONAL = (
    "切洋蔥會流眼淚，是因為洋蔥裡面有一種物質。這個物質在切開的時候會跑出來，後來科學家"
    "發現它會刺激眼睛，所以我們切的時候眼睛會很不舒服。說實話，過一段時間就好了，不用太擔心。"
)
_ZH_SAVING_TRADITIONAL = (
    "說到這裡，我想起剛工作的時候，這個問題困擾了我很長時間。後來我發現，記賬比什麼理財產品"
    "都重要。很多人說沒有時間，其實每天花五分鐘就夠了，堅持一年，你會發現錢到底去了哪裡。"
)
_ZH_INTERVIEW_ENGLISH = (
    "面试前的准备很重要。\n\n"
    "Before you travel, confirm the address, the interview time and your route, and "
    "leave a generous buffer in case of delays. Print two or three copies of your CV and "
    "bring your ID and the original copies of your certificates. Spend an hour reading "
    "about the company's main products and recent news, and practise a short "
    "self-introduction out loud. Finally, get a good night's sleep and dress neatly — "
    "first impressions matter."
)
_ZH_DELAY_ENGLISH = (
    "Dear Manager Wang,\n\n"
    "We are sorry to tell you that the shipment of your 500 air purifiers will be "
    "delayed by three days because one of our suppliers delivered materials late. We "
    "now expect to ship on the 18th of this month, and we will cover the full shipping "
    "cost for this order.\n\n"
    "Best regards,\nLi Ming\n\n（抱歉，给您添麻烦了。）"
)

_ZH_SPEAKER_SECOND_VERSION = (
    "\n\n再给你一个活泼一点的版本：\n\n"
    "别看它只有280克，一开口就是满屋子的好声音。全频单元加被动振膜，低音有劲儿却不发闷；"
    "充一次电，能陪你从早上听到晚上，整整12小时。IPX7级防水，沙滩、泳池边、淋浴间，"
    "想放哪儿就放哪儿。再来一台，一键组成立体声，周末露营立刻升级成小型音乐节。"
    "雾灰、松绿、珊瑚橙三种颜色，总有一款是你的心头好。"
)

ZH_PLANTED: dict[tuple[str, str], dict[str, Any]] = {
    ("zh-02", "dune-mini"): dict(output=_ZH_ONION_TRADITIONAL),
    ("zh-06", "ember-large"): dict(insert=_ZH_SAVING_TRADITIONAL),
    ("zh-09", "ember-large"): dict(output=_ZH_INTERVIEW_ENGLISH),
    ("zh-11", "dune-mini"): dict(output=_ZH_DELAY_ENGLISH),
    ("zh-08", "dune-mini"): dict(output="可以。"),
    ("zh-12", "ember-large"): dict(extend=_ZH_SPEAKER_SECOND_VERSION, truncate_at="立刻升级"),
}


def build_zh():
    records = []
    for case in ZH_CASES:
        for label, sysdef in ZH_SYSTEMS.items():
            rng = case_rng("zh-hans", case["id"], label)
            text = ZH_STYLES[label](case, rng, 0)
            finish = "stop"
            plant = ZH_PLANTED.get((case["id"], label), {})
            if "output" in plant:
                text = plant["output"]
            if "insert" in plant:
                paras = text.split("\n\n")
                paras.insert(3, plant["insert"])
                text = "\n\n".join(paras)
            text += plant.get("extend", "")
            if "truncate_at" in plant:
                text = text[: text.index(plant["truncate_at"]) + 2]
                finish = "length"
            records.append(make_record(ZH_FAMILY, case, sysdef, 0, text,
                                       language="zh-Hans", finish_reason=finish, rng=rng))
    return records


# ---------------------------------------------------------------------------
# family 3: coding (tests then votes)
# ---------------------------------------------------------------------------

CODING_FAMILY = {
    "name": "coding",
    "kind": "tests_then_votes",
    "language": "en",
    "min_chars": 1,
    "max_chars": 20000,
    "aspect": "coding",
    "reference": "cedar-70b",
}

_CODE_PROMPT = ("You are a careful software engineer. Reply with a single unified diff "
                "in git format that resolves the issue, and nothing else.")
CODING_SYSTEMS = {
    "aurora-7b": system("aurora-7b", system_prompt=_CODE_PROMPT, harness="demo-agent 0.3",
                        temperature=0.2, max_tokens=2048, price_in=0.05, price_out=0.20,
                        ttft_ms=260.0, ms_per_token=9.5),
    "basalt-13b": system("basalt-13b", system_prompt=_CODE_PROMPT,
                         harness="demo-agent 0.3", temperature=0.2, max_tokens=384,
                         price_in=0.15, price_out=0.45, ttft_ms=400.0, ms_per_token=13.5),
    "cedar-70b": system("cedar-70b", system_prompt=_CODE_PROMPT, harness="demo-agent 0.3",
                        temperature=0.2, max_tokens=4096, price_in=0.70, price_out=2.10,
                        ttft_ms=700.0, ms_per_token=21.0),
    "dune-mini": system("dune-mini", system_prompt=_CODE_PROMPT, harness="demo-agent 0.3",
                        temperature=0.2, max_tokens=1024, price_in=0.02, price_out=0.06,
                        ttft_ms=160.0, ms_per_token=5.0),
}

# --- the made-up projects' source files -----------------------------------------

_MONEY = '''"""Money helpers for pocketbook."""
from decimal import Decimal, InvalidOperation


def parse_amount(text):
    """Parse a user-entered amount such as '12.50' or '$3' into a Decimal."""
    cleaned = text.strip().lstrip("$")
    try:
        return Decimal(cleaned)
    except InvalidOperation:
        raise ValueError(f"not an amount: {text!r}") from None


def format_amount(value):
    """Format a Decimal with two decimals and a thousands separator."""
    return f"{value:,.2f}"
'''

_DATES = '''"""Date helpers for pocketbook."""
from datetime import date, timedelta


def month_range(year, month):
    """Return (first_day, last_day) of the given month."""
    first = date(year, month, 1)
    next_first = date(year, month + 1, 1)
    return first, next_first - timedelta(days=1)


def is_weekend(day):
    """True on Saturdays and Sundays."""
    return day.weekday() >= 5
'''

_SLUG = '''"""Turn titles into URL slugs."""
import re
import unicodedata

_NON_WORD = re.compile(r"[^a-z0-9]+")


def slugify(text):
    """Turn 'Hello, World!' into 'hello-world'."""
    ascii_text = (
        unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    )
    return _NON_WORD.sub("-", ascii_text.lower()).strip("-")
'''

_QUEUE = '''"""A tiny in-memory priority job queue."""
import heapq
import itertools


class JobQueue:
    def __init__(self):
        self._heap = []
        self._counter = itertools.count()

    def push(self, job, priority=0):
        """Higher priorities run first; equal priorities run in FIFO order."""
        heapq.heappush(self._heap, (priority, next(self._counter), job))

    def pop(self):
        if not self._heap:
            raise IndexError("pop from empty JobQueue")
        _, _, job = heapq.heappop(self._heap)
        return job

    def __len__(self):
        return len(self._heap)
'''
_QUEUE_FIXED = _QUEUE.replace("(priority, next", "(-priority, next")

_REPORT = '''"""Monthly report."""


def category_totals(entries):
    totals = {}
    for entry in entries:
        if entry["category"] not in totals:
            totals[entry["category"]] = 0
        totals[entry["category"]] += entry["amount"]
    return totals


def payee_totals(entries):
    totals = {}
    for entry in entries:
        if entry["payee"] not in totals:
            totals[entry["payee"]] = 0
        totals[entry["payee"]] += entry["amount"]
    return totals
'''

_WRAP = '''"""Shorten text for previews."""


def truncate_words(text, limit, suffix="\u2026"):
    """Keep at most `limit` words of `text`, adding `suffix` if anything was cut."""
    words = text.split()
    return " ".join(words[:limit]) + suffix


def truncate_chars(text, limit, suffix="\u2026"):
    """Keep at most `limit` characters, including the suffix."""
    if len(text) <= limit:
        return text
    return text[: limit - len(suffix)] + suffix
'''

_RETRY = '''"""Retry helper."""
import time


def retry(func, attempts=3, delay=0.5):
    """Call func until it succeeds, up to `attempts` times."""
    for attempt in range(1, attempts + 1):
        try:
            return func()
        except Exception:
            if attempt == attempts:
                raise
            time.sleep(delay)
'''

_CSV_IMPORT = '''"""Import bank statements exported as CSV."""
import csv

from .money import parse_amount


def read_statement(path):
    """Return the statement's rows as dicts with date, payee and amount."""
    rows = []
    with open(path, newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            rows.append(
                {
                    "date": row["date"],
                    "payee": row["payee"].strip(),
                    "amount": parse_amount(row["amount"]),
                }
            )
    return rows
'''

_CLI = '''"""Command-line entry point: `slugline TEXT...`."""
import argparse
import sys

from .slug import slugify


def main(argv=None):
    parser = argparse.ArgumentParser(prog="slugline")
    parser.add_argument("text", nargs="+", help="text to turn into a slug")
    args = parser.parse_args(argv)
    print(slugify(" ".join(args.text)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
'''

_WORKER = '''"""Run jobs from a JobQueue."""
import time


def run_all(queue, handler, verbose=False):
    """Run every job in `queue` through `handler`; return (done, failed)."""
    done = 0
    failed = 0
    while len(queue):
        job = queue.pop()
        started = time.monotonic()
        try:
            handler(job)
            done += 1
        except Exception as exc:
            failed += 1
            print(f"job {job!r} failed: {exc}")
        if verbose:
            print(f"job {job!r} took {time.monotonic() - started:.3f}s")
    return done, failed
'''

_BUDGET = '''"""Budgets per category."""
from decimal import Decimal


class Budget:
    def __init__(self, category, limit):
        self.category = category
        self.limit = Decimal(limit)
        self.spent = Decimal("0")

    def add(self, amount):
        self.spent += Decimal(amount)

    def remaining(self):
        return self.limit - self.spent

    def used_percent(self):
        return round(self.spent / self.limit * 100, 1)
'''

_PROJECTS = {
    "pocketbook": "a small personal-finance library and CLI",
    "slugline": "a tiny library and CLI for making URL slugs and previews",
    "tinyq": "a minimal in-memory job queue for Python scripts",
}

# Each task: issue text, the files shown in the prompt, candidate patches
# ("variants": lists of (path, old, new) edits; old=None creates a new file) and
# what each system produced: (variant or "" for an empty diff, test result).
CODING_TASKS: list[dict[str, Any]] = [
    dict(
        id="code-01", category="bugfix", project="pocketbook", issue=41,
        title="parse_amount rejects thousands separators",
        body="`format_amount(Decimal('1234.5'))` returns `'1,234.50'`, but feeding that "
             "string back into `parse_amount` raises `ValueError: not an amount: "
             "'1,234.50'`. Amounts copied from our own reports should round-trip: "
             "`parse_amount('1,234.50') == Decimal('1234.50')` and "
             "`parse_amount('$12,000') == Decimal('12000')`.",
        files={"pocketbook/money.py": _MONEY},
        variants={
            "replace": [("pocketbook/money.py", 'cleaned = text.strip().lstrip("$")\n',
                         'cleaned = text.strip().lstrip("$").replace(",", "")\n')],
            "regex": [
                ("pocketbook/money.py", '"""Money helpers for pocketbook."""\n',
                 '"""Money helpers for pocketbook."""\nimport re\n'),
                ("pocketbook/money.py", "InvalidOperation\n\n\ndef parse_amount",
                 "InvalidOperation\n\n# 1,234 or 12,345,678.90 - commas only between "
                 "groups of three digits\n_GROUPED = re.compile(r\"^-?\\d{1,3}(,\\d{3})+"
                 "(\\.\\d+)?$\")\n\n\ndef parse_amount"),
                ("pocketbook/money.py", '    cleaned = text.strip().lstrip("$")\n',
                 '    cleaned = text.strip().lstrip("$")\n    if _GROUPED.match(cleaned):\n'
                 '        cleaned = cleaned.replace(",", "")\n'),
            ],
            "comma_to_dot": [("pocketbook/money.py", 'lstrip("$")\n',
                              'lstrip("$").replace(",", ".")\n')],
        },
        outcomes={"cedar-70b": ("replace", "passed"), "aurora-7b": ("replace", "passed"),
                  "basalt-13b": ("regex", "passed"),
                  "dune-mini": ("comma_to_dot", "failed")},
    ),
    dict(
        id="code-02", category="bugfix", project="pocketbook", issue=44,
        title="month_range crashes for December",
        body="`month_range(2024, 12)` raises `ValueError: month must be in 1..12`. It "
             "should return `(date(2024, 12, 1), date(2024, 12, 31))`. The monthly "
             "report for December cannot be generated because of this.",
        files={"pocketbook/dates.py": _DATES},
        variants={
            "if_december": [("pocketbook/dates.py",
                             "    next_first = date(year, month + 1, 1)\n",
                             "    if month == 12:\n        next_first = date(year + 1, 1, 1)"
                             "\n    else:\n        next_first = date(year, month + 1, 1)\n")],
            "calendar": [
                ("pocketbook/dates.py", "from datetime import date, timedelta\n",
                 "import calendar\nfrom datetime import date, timedelta\n"),
                ("pocketbook/dates.py",
                 "    next_first = date(year, month + 1, 1)\n"
                 "    return first, next_first - timedelta(days=1)\n",
                 "    last_day = calendar.monthrange(year, month)[1]\n"
                 "    return first, date(year, month, last_day)\n"),
            ],
            "divmod": [("pocketbook/dates.py",
                        "    next_first = date(year, month + 1, 1)\n",
                        "    # month 12 rolls over to January of the next year\n"
                        "    next_first = date(year + month // 12, month % 12 + 1, 1)\n")],
            "wrap_only": [("pocketbook/dates.py",
                           "date(year, month + 1, 1)", "date(year, month % 12 + 1, 1)")],
        },
        outcomes={"cedar-70b": ("if_december", "passed"),
                  "aurora-7b": ("calendar", "passed"),
                  "basalt-13b": ("divmod", "passed"),
                  "dune-mini": ("wrap_only", "failed")},
    ),
    dict(
        id="code-03", category="feature", project="slugline", issue=7,
        title="Add max_length to slugify",
        body="Some of our CMS fields only take 60 characters. Please add an optional "
             "`max_length` argument to `slugify`. When given, the slug must be at most "
             "`max_length` characters, cut at a hyphen so words are not split, and must "
             "never end with a hyphen; if the first word alone is too long, cut it "
             "hard. Example: `slugify('The Quick Brown Fox', max_length=12) == "
             "'the-quick'`. Without `max_length` nothing changes.",
        files={"slugline/slug.py": _SLUG},
        variants={
            "rfind": [
                ("slugline/slug.py", 'def slugify(text):\n    """Turn \'Hello, World!\' '
                 'into \'hello-world\'."""\n',
                 'def slugify(text, max_length=None):\n    """Turn \'Hello, World!\' into '
                 '\'hello-world\'.\n\n    With ``max_length``, the slug is cut at a word '
                 'boundary so that it is\n    at most that long.\n    """\n'),
                ("slugline/slug.py",
                 '    return _NON_WORD.sub("-", ascii_text.lower()).strip("-")\n',
                 '    slug = _NON_WORD.sub("-", ascii_text.lower()).strip("-")\n'
                 '    if max_length is None or len(slug) <= max_length:\n'
                 '        return slug\n'
                 '    cut = slug[: max_length + 1].rfind("-")\n'
                 '    if cut <= 0:\n'
                 '        return slug[:max_length].rstrip("-")\n'
                 '    return slug[:cut]\n'),
                ("tests/test_slug_max_length.py", None,
                 'from slugline.slug import slugify\n\n\n'
                 'def test_cuts_at_a_word_boundary():\n'
                 '    assert slugify("The Quick Brown Fox", max_length=12) == "the-quick"\n'
                 '\n\ndef test_short_slug_is_unchanged():\n'
                 '    assert slugify("Hello, World!", max_length=50) == "hello-world"\n'
                 '\n\ndef test_long_first_word_is_cut_hard():\n'
                 '    assert slugify("Supercalifragilistic", max_length=5) == "super"\n'),
            ],
            "word_loop": [
                ("slugline/slug.py", "def slugify(text):",
                 "def slugify(text, max_length=None):"),
                ("slugline/slug.py",
                 '    return _NON_WORD.sub("-", ascii_text.lower()).strip("-")\n',
                 '    slug = _NON_WORD.sub("-", ascii_text.lower()).strip("-")\n'
                 '    if max_length is not None and len(slug) > max_length:\n'
                 '        kept = ""\n'
                 '        for word in slug.split("-"):\n'
                 '            candidate = f"{kept}-{word}" if kept else word\n'
                 '            if len(candidate) > max_length:\n'
                 '                break\n'
                 '            kept = candidate\n'
                 '        slug = kept or slug[:max_length]\n'
                 '    return slug\n'),
            ],
            "hard_cut": [
                ("slugline/slug.py", "def slugify(text):",
                 "def slugify(text, max_length=None):"),
                ("slugline/slug.py",
                 '    return _NON_WORD.sub("-", ascii_text.lower()).strip("-")\n',
                 '    slug = _NON_WORD.sub("-", ascii_text.lower()).strip("-")\n'
                 '    if max_length:\n'
                 '        # keep the slug within the limit\n'
                 '        slug = slug[:max_length].rstrip("-")\n'
                 '    return slug\n'),
            ],
            "syntax_error": [
                ("slugline/slug.py", "def slugify(text):",
                 "def slugify(text, max_length=None):"),
                ("slugline/slug.py",
                 '    return _NON_WORD.sub("-", ascii_text.lower()).strip("-")\n',
                 '    slug = _NON_WORD.sub("-", ascii_text.lower()).strip("-")\n'
                 '    if max_length and len(slug) > max_length\n'
                 '        slug = slug[:max_length]\n'
                 '    return slug\n'),
            ],
        },
        outcomes={"cedar-70b": ("rfind", "passed"), "aurora-7b": ("word_loop", "passed"),
                  "basalt-13b": ("hard_cut", "failed"),
                  "dune-mini": ("syntax_error", "errored")},
    ),
    dict(
        id="code-04", category="bugfix", project="tinyq", issue=12,
        title="JobQueue.pop() returns the lowest-priority job first",
        body="The docstring of `push` says higher priorities run first and equal "
             "priorities run in FIFO order, but after `q.push('a', 1)` and "
             "`q.push('b', 5)`, `q.pop()` returns `'a'`. Expected `'b'`. Jobs with the "
             "same priority must still come out in the order they were pushed.",
        files={"tinyq/queue.py": _QUEUE},
        variants={
            "negate": [("tinyq/queue.py", "(priority, next", "(-priority, next")],
            "negate_both": [("tinyq/queue.py", "(priority, next(self._counter), job)",
                             "(-priority, -next(self._counter), job)")],
            "max_scan": [("tinyq/queue.py",
                          "        _, _, job = heapq.heappop(self._heap)\n"
                          "        return job\n",
                          "        item = max(self._heap)\n"
                          "        self._heap.remove(item)\n"
                          "        return item[2]\n")],
        },
        outcomes={"cedar-70b": ("negate", "passed"), "basalt-13b": ("negate", "passed"),
                  "aurora-7b": ("negate_both", "failed"),
                  "dune-mini": ("max_scan", "failed")},
    ),
    dict(
        id="code-05", category="refactor", project="pocketbook", issue=52,
        title="Deduplicate the totals loops in report.py",
        body="`category_totals` and `payee_totals` repeat the same loop. Please move it "
             "into one private helper; the return values must stay exactly the same "
             "(plain dicts). A third grouping, by month, is planned for next sprint, so "
             "the helper should take the field to group by.",
        files={"pocketbook/report.py": _REPORT},
        variants={
            "defaultdict": [("pocketbook/report.py", _REPORT,
                             '"""Monthly report."""\nfrom collections import defaultdict\n'
                             '\n\ndef _totals_by(entries, key):\n'
                             '    totals = defaultdict(int)\n'
                             '    for entry in entries:\n'
                             '        totals[entry[key]] += entry["amount"]\n'
                             '    return dict(totals)\n\n\n'
                             'def category_totals(entries):\n'
                             '    return _totals_by(entries, "category")\n\n\n'
                             'def payee_totals(entries):\n'
                             '    return _totals_by(entries, "payee")\n')],
            "dict_get": [("pocketbook/report.py", _REPORT,
                          '"""Monthly report."""\n\n\n'
                          'def _sum_by(entries, field):\n'
                          '    """Add up entry amounts grouped by ``entry[field]``."""\n'
                          '    totals = {}\n'
                          '    for entry in entries:\n'
                          '        totals[entry[field]] = totals.get(entry[field], 0) + '
                          'entry["amount"]\n'
                          '    return totals\n\n\n'
                          'def category_totals(entries):\n'
                          '    return _sum_by(entries, "category")\n\n\n'
                          'def payee_totals(entries):\n'
                          '    return _sum_by(entries, "payee")\n')],
            "generic": [("pocketbook/report.py", _REPORT,
                         '"""Monthly report: totals of entry amounts by category or '
                         'payee."""\n\n\n'
                         'def _totals(entries, field):\n'
                         '    """Return a dict mapping each ``entry[field]`` to the sum of '
                         'its amounts.\n\n'
                         '    Keys appear in the order they are first seen.\n'
                         '    """\n'
                         '    totals = {}\n'
                         '    for entry in entries:\n'
                         '        key = entry[field]\n'
                         '        if key not in totals:\n'
                         '            totals[key] = 0\n'
                         '        totals[key] += entry["amount"]\n'
                         '    return totals\n\n\n'
                         'def category_totals(entries):\n'
                         '    """Totals per category."""\n'
                         '    return _totals(entries, "category")\n\n\n'
                         'def payee_totals(entries):\n'
                         '    """Totals per payee."""\n'
                         '    return _totals(entries, "payee")\n')],
        },
        outcomes={"cedar-70b": ("defaultdict", "passed"),
                  "aurora-7b": ("dict_get", "passed"),
                  "basalt-13b": ("generic", "passed"), "dune-mini": ("", "failed")},
    ),
    dict(
        id="code-06", category="bugfix", project="slugline", issue=11,
        title="truncate_words adds an ellipsis to short text",
        body="`truncate_words('A short note', 5)` returns `'A short note\u2026'`, although "
             "nothing was cut. When the text has `limit` words or fewer it should be "
             "returned unchanged (exactly as given, including its whitespace); the "
             "suffix is only for text that was actually shortened.",
        files={"slugline/wrap.py": _WRAP},
        variants={
            "early_return": [("slugline/wrap.py",
                              "    words = text.split()\n    return \" \".join(words[:limit])"
                              " + suffix\n",
                              "    words = text.split()\n    if len(words) <= limit:\n"
                              "        return text\n    return \" \".join(words[:limit]) + "
                              "suffix\n")],
            "late_return": [("slugline/wrap.py",
                             '    """Keep at most `limit` words of `text`, adding `suffix` '
                             'if anything was cut."""\n'
                             "    words = text.split()\n    return \" \".join(words[:limit])"
                             " + suffix\n",
                             '    """Keep at most `limit` words of `text`, adding `suffix` '
                             'if anything was cut.\n\n'
                             '    Text with `limit` words or fewer is returned unchanged.\n'
                             '    """\n'
                             "    words = text.split()\n    if len(words) > limit:\n"
                             "        return \" \".join(words[:limit]) + suffix\n"
                             "    return text\n")],
            "rejoin": [("slugline/wrap.py",
                        "    words = text.split()\n    return \" \".join(words[:limit])"
                        " + suffix\n",
                        "    words = text.split()\n"
                        "    result = \" \".join(words[:limit])\n"
                        "    if len(words) > limit:\n"
                        "        result += suffix\n"
                        "    return result\n")],
        },
        outcomes={"cedar-70b": ("early_return", "passed"),
                  "basalt-13b": ("late_return", "passed"),
                  "aurora-7b": ("rejoin", "failed"), "dune-mini": ("rejoin", "failed")},
    ),
    dict(
        id="code-07", category="feature", project="tinyq", issue=19,
        title="Exponential backoff for retry()",
        body="`retry` always sleeps the same `delay`. Please add keyword arguments "
             "`backoff=2.0` (multiplier applied after each failed attempt), "
             "`max_delay=10.0` (upper bound for any single sleep) and "
             "`retry_on=(Exception,)` (only these exception types are retried; others "
             "propagate immediately). With the defaults and three failing attempts, "
             "the sleeps must be 0.5 s and then 1.0 s.",
        files={"tinyq/retry.py": _RETRY},
        variants={
            "grow_first": [("tinyq/retry.py", _RETRY.split("\n\n\n")[1],
                            'def retry(func, attempts=3, delay=0.5, backoff=2.0, '
                            'max_delay=10.0,\n'
                            '          retry_on=(Exception,)):\n'
                            '    """Call func until it succeeds, up to `attempts` times.\n\n'
                            '    The pause between attempts starts at `delay`, is '
                            'multiplied by\n'
                            '    `backoff` after each failure and never exceeds '
                            '`max_delay`.\n'
                            '    """\n'
                            '    for attempt in range(1, attempts + 1):\n'
                            '        try:\n'
                            '            return func()\n'
                            '        except retry_on:\n'
                            '            if attempt == attempts:\n'
                            '                raise\n'
                            '            delay = min(delay * backoff, max_delay)\n'
                            '            time.sleep(delay)\n')],
            "missing_param": [
                ("tinyq/retry.py", "def retry(func, attempts=3, delay=0.5):",
                 "def retry(func, attempts=3, delay=0.5, backoff=2.0, max_delay=10.0):"),
                ("tinyq/retry.py",
                 "        except Exception:\n            if attempt == attempts:\n"
                 "                raise\n            time.sleep(delay)\n",
                 "        except retry_on:\n            if attempt == attempts:\n"
                 "                raise\n            time.sleep(min(delay, max_delay))\n"
                 "            delay *= backoff\n"),
            ],
            "no_cap": [
                ("tinyq/retry.py", "def retry(func, attempts=3, delay=0.5):\n",
                 "def retry(func, attempts=3, delay=0.5, backoff=2.0, max_delay=10.0,\n"
                 "          retry_on=(Exception,)):\n"),
                ("tinyq/retry.py",
                 "    for attempt in range(1, attempts + 1):\n        try:\n"
                 "            return func()\n        except Exception:\n"
                 "            if attempt == attempts:\n                raise\n"
                 "            time.sleep(delay)\n",
                 "    wait = delay\n"
                 "    for attempt in range(1, attempts + 1):\n        try:\n"
                 "            return func()\n        except retry_on:\n"
                 "            if attempt == attempts:\n                raise\n"
                 "            time.sleep(wait)\n"
                 "            wait = wait * backoff\n"),
            ],
            "backoff_only": [
                ("tinyq/retry.py", "def retry(func, attempts=3, delay=0.5):",
                 "def retry(func, attempts=3, delay=0.5, backoff=2.0):"),
                ("tinyq/retry.py", "            time.sleep(delay)\n",
                 "            time.sleep(delay)\n            delay = delay * backoff\n"),
            ],
        },
        outcomes={"cedar-70b": ("grow_first", "failed"),
                  "aurora-7b": ("missing_param", "errored"),
                  "basalt-13b": ("no_cap", "failed"),
                  "dune-mini": ("backoff_only", "failed")},
    ),
    dict(
        id="code-08", category="bugfix", project="pocketbook", issue=47,
        title="CSV import fails on files with a byte-order mark",
        body="Statements exported from the Norbank web app start with a UTF-8 "
             "byte-order mark, and `read_statement` fails with `KeyError: 'date'` "
             "because the first header is read as `'\\ufeffdate'`. Files without a BOM "
             "must keep working.",
        files={"pocketbook/csv_import.py": _CSV_IMPORT},
        variants={
            "utf8_sig": [("pocketbook/csv_import.py", 'encoding="utf-8")',
                          'encoding="utf-8-sig")')],
            "strip_keys": [("pocketbook/csv_import.py",
                            "        for row in csv.DictReader(handle):\n",
                            "        for row in csv.DictReader(handle):\n"
                            "            # some banks prepend a byte-order mark to the "
                            "first header\n"
                            "            row = {key.lstrip(\"\\ufeff\"): value for key, "
                            "value in row.items()}\n")],
        },
        outcomes={"cedar-70b": ("utf8_sig", "passed"), "aurora-7b": ("utf8_sig", "passed"),
                  "basalt-13b": ("utf8_sig", "passed"),
                  "dune-mini": ("strip_keys", "passed")},
    ),
    dict(
        id="code-09", category="feature", project="slugline", issue=15,
        title="CLI option for the word separator",
        body="Please add `--separator`/`-s` to the command line (default `-`), so that "
             "`slugline -s _ Hello World` prints `hello_world`. `slugify` itself may "
             "also accept a `separator` argument if that is cleaner.",
        files={"slugline/cli.py": _CLI, "slugline/slug.py": _SLUG},
        variants={
            "both_files": [
                ("slugline/slug.py", "def slugify(text):",
                 'def slugify(text, separator="-"):'),
                ("slugline/slug.py",
                 '    return _NON_WORD.sub("-", ascii_text.lower()).strip("-")\n',
                 '    return _NON_WORD.sub(separator, ascii_text.lower()).strip(separator)'
                 '\n'),
                ("slugline/cli.py",
                 '    parser.add_argument("text", nargs="+", help="text to turn into a '
                 'slug")\n',
                 '    parser.add_argument("text", nargs="+", help="text to turn into a '
                 'slug")\n'
                 '    parser.add_argument(\n'
                 '        "-s", "--separator", default="-", help="string placed between '
                 'words"\n'
                 '    )\n'),
                ("slugline/cli.py", '    print(slugify(" ".join(args.text)))\n',
                 '    print(slugify(" ".join(args.text), separator=args.separator))\n'),
            ],
            "cli_replace": [
                ("slugline/cli.py",
                 '    args = parser.parse_args(argv)\n'
                 '    print(slugify(" ".join(args.text)))\n',
                 '    parser.add_argument("-s", "--separator", default="-",\n'
                 '                        help="word separator (default: -)")\n'
                 '    args = parser.parse_args(argv)\n'
                 '    print(slugify(" ".join(args.text)).replace("-", args.separator))\n'),
            ],
            "verbose_both": [
                ("slugline/slug.py", "def slugify(text):",
                 'def slugify(text, separator="-"):'),
                ("slugline/slug.py", '    """Turn \'Hello, World!\' into \'hello-world\'."""\n',
                 '    """Turn \'Hello, World!\' into \'hello-world\'.\n\n'
                 '    Args:\n'
                 '        text: The text to convert.\n'
                 '        separator: The string placed between words (default "-").\n\n'
                 '    Returns:\n'
                 '        The slug as a string.\n'
                 '    """\n'),
                ("slugline/slug.py",
                 '    return _NON_WORD.sub("-", ascii_text.lower()).strip("-")\n',
                 '    slug = _NON_WORD.sub("-", ascii_text.lower()).strip("-")\n'
                 '    if separator != "-":\n'
                 '        slug = slug.replace("-", separator)\n'
                 '    return slug\n'),
                ("slugline/cli.py",
                 '    parser.add_argument("text", nargs="+", help="text to turn into a '
                 'slug")\n',
                 '    parser.add_argument("text", nargs="+", help="text to turn into a '
                 'slug")\n'
                 '    parser.add_argument(\n'
                 '        "-s",\n'
                 '        "--separator",\n'
                 '        default="-",\n'
                 '        help="the string to place between words in the slug '
                 '(default: -)",\n'
                 '    )\n'),
                ("slugline/cli.py", '    print(slugify(" ".join(args.text)))\n',
                 '    print(slugify(" ".join(args.text), separator=args.separator))\n'),
            ],
            "unused_option": [
                ("slugline/cli.py", '    args = parser.parse_args(argv)\n',
                 '    parser.add_argument("--separator", default="-")\n'
                 '    args = parser.parse_args(argv)\n'),
            ],
        },
        outcomes={"cedar-70b": ("both_files", "passed"),
                  "aurora-7b": ("cli_replace", "passed"),
                  "basalt-13b": ("verbose_both", "errored", "truncate"),
                  "dune-mini": ("unused_option", "failed")},
    ),
    dict(
        id="code-10", category="refactor", project="tinyq", issue=23,
        title="Use logging instead of print in run_all",
        body="`run_all` prints to stdout, which our service cannot silence. Please use "
             "a module-level logger (`logging.getLogger(__name__)`): log failed jobs at "
             "WARNING with the traceback (`exc_info`) and per-job timings at DEBUG. The "
             "`verbose` argument must keep working (not raise) but should no longer "
             "print. Do not configure logging inside the library.",
        files={"tinyq/worker.py": _WORKER},
        variants={
            "logger": [("tinyq/worker.py", _WORKER,
                        '"""Run jobs from a JobQueue."""\nimport logging\nimport time\n\n'
                        'log = logging.getLogger(__name__)\n\n\n'
                        'def run_all(queue, handler, verbose=False):\n'
                        '    """Run every job in `queue` through `handler`; return '
                        '(done, failed).\n\n'
                        '    `verbose` is accepted for backwards compatibility and '
                        'ignored; enable\n'
                        '    DEBUG logging for per-job timings instead.\n'
                        '    """\n'
                        '    done = 0\n    failed = 0\n    while len(queue):\n'
                        '        job = queue.pop()\n'
                        '        started = time.monotonic()\n'
                        '        try:\n            handler(job)\n            done += 1\n'
                        '        except Exception:\n            failed += 1\n'
                        '            log.warning("job %r failed", job, exc_info=True)\n'
                        '        log.debug("job %r took %.3fs", job, time.monotonic() - '
                        'started)\n'
                        '    return done, failed\n')],
            "deprecate": [
                ("tinyq/worker.py", '"""Run jobs from a JobQueue."""\nimport time\n',
                 '"""Run jobs from a JobQueue."""\nimport logging\nimport time\n'
                 'import warnings\n\nlogger = logging.getLogger(__name__)\n'),
                ("tinyq/worker.py",
                 '    """Run every job in `queue` through `handler`; return (done, '
                 'failed)."""\n',
                 '    """Run every job in `queue` through `handler`; return (done, '
                 'failed)."""\n'
                 '    if verbose:\n'
                 '        warnings.warn(\n'
                 '            "verbose is deprecated; configure logging for the '
                 'tinyq.worker logger",\n'
                 '            DeprecationWarning,\n'
                 '            stacklevel=2,\n'
                 '        )\n'),
                ("tinyq/worker.py",
                 '            print(f"job {job!r} failed: {exc}")\n'
                 '        if verbose:\n'
                 '            print(f"job {job!r} took {time.monotonic() - '
                 'started:.3f}s")\n',
                 '            logger.warning("job %r failed: %s", job, exc, exc_info=True)\n'
                 '        logger.debug("job %r took %.3fs", job, time.monotonic() - '
                 'started)\n'),
            ],
            "exception_level": [
                ("tinyq/worker.py", '"""Run jobs from a JobQueue."""\nimport time\n',
                 '"""Run jobs from a JobQueue."""\nimport logging\nimport time\n\n'
                 'log = logging.getLogger(__name__)\n'),
                ("tinyq/worker.py",
                 '        except Exception as exc:\n            failed += 1\n'
                 '            print(f"job {job!r} failed: {exc}")\n'
                 '        if verbose:\n'
                 '            print(f"job {job!r} took {time.monotonic() - '
                 'started:.3f}s")\n',
                 '        except Exception:\n            failed += 1\n'
                 '            log.exception("job %r failed", job)\n'
                 '        log.debug("job %r took %.3fs", job, time.monotonic() - '
                 'started)\n'),
            ],
            "root_logger": [
                ("tinyq/worker.py", '"""Run jobs from a JobQueue."""\nimport time\n',
                 '"""Run jobs from a JobQueue."""\nimport logging\nimport time\n\n'
                 'logging.basicConfig(level=logging.INFO)\n'),
                ("tinyq/worker.py", '            print(f"job {job!r} failed: {exc}")\n',
                 '            logging.info(f"job {job!r} failed: {exc}")\n'),
            ],
        },
        outcomes={"cedar-70b": ("logger", "passed"), "basalt-13b": ("deprecate", "passed"),
                  "aurora-7b": ("exception_level", "failed"),
                  "dune-mini": ("root_logger", "failed")},
    ),
    dict(
        id="code-11", category="bugfix", project="pocketbook", issue=58,
        title="used_percent() crashes for a zero budget",
        body="`Budget('gifts', 0).used_percent()` raises `decimal.InvalidOperation` "
             "(and `DivisionByZero` once something has been spent). A limit of 0 means "
             "'no budget set', so `used_percent()` should return `None` in that case. "
             "Budgets with a positive limit must behave as before.",
        files={"pocketbook/budget.py": _BUDGET},
        variants={
            "none": [("pocketbook/budget.py", "    def used_percent(self):\n",
                      "    def used_percent(self):\n"
                      '        """Share of the limit spent so far, or None without a '
                      'limit."""\n'
                      "        if not self.limit:\n            return None\n")],
            "zero": [("pocketbook/budget.py", "    def used_percent(self):\n",
                      "    def used_percent(self):\n"
                      "        if self.limit == 0:\n            return 0.0\n")],
            "infinity": [("pocketbook/budget.py", "    def used_percent(self):\n",
                          "    def used_percent(self):\n"
                          '        """Return the percentage of the budget that has been '
                          'used.\n\n'
                          '        A zero limit means any spending is infinitely over '
                          'budget.\n'
                          '        """\n'
                          "        if self.limit == 0:\n"
                          '            return float("inf") if self.spent else 0.0\n')],
            "typo": [("pocketbook/budget.py", "    def used_percent(self):\n",
                      "    def used_percent(self):\n"
                      "        if self.limt == 0:\n            return None\n")],
        },
        outcomes={"cedar-70b": ("none", "passed"), "aurora-7b": ("zero", "failed"),
                  "basalt-13b": ("infinity", "failed"), "dune-mini": ("typo", "errored")},
    ),
    dict(
        id="code-12", category="feature", project="tinyq", issue=27,
        title="Add peek() and clear() to JobQueue",
        body="Please add `peek()`, which returns the job that `pop()` would return "
             "next without removing it (raising `IndexError` on an empty queue, like "
             "`pop`), and `clear()`, which removes all jobs.",
        files={"tinyq/queue.py": _QUEUE_FIXED},
        variants={
            "after_pop": [("tinyq/queue.py",
                           "        return job\n\n    def __len__",
                           "        return job\n\n"
                           "    def peek(self):\n"
                           '        """Return the job `pop` would return next, without '
                           'removing it."""\n'
                           "        if not self._heap:\n"
                           '            raise IndexError("peek at empty JobQueue")\n'
                           "        return self._heap[0][2]\n\n"
                           "    def clear(self):\n"
                           '        """Remove all jobs."""\n'
                           "        self._heap.clear()\n\n"
                           "    def __len__")],
            "at_end": [("tinyq/queue.py",
                        "        return len(self._heap)\n",
                        "        return len(self._heap)\n\n"
                        "    def peek(self):\n"
                        "        if not self._heap:\n"
                        '            raise IndexError("peek at empty JobQueue")\n'
                        "        _, _, job = self._heap[0]\n"
                        "        return job\n\n"
                        "    def clear(self):\n"
                        "        self._heap = []\n")],
            "peek_pops": [("tinyq/queue.py",
                           "        return len(self._heap)\n",
                           "        return len(self._heap)\n\n"
                           "    def peek(self):\n"
                           "        return self.pop()\n")],
        },
        outcomes={"cedar-70b": ("after_pop", "passed"),
                  "basalt-13b": ("after_pop", "passed"),
                  "aurora-7b": ("at_end", "passed"), "dune-mini": ("peek_pops", "failed")},
    ),
]


def _git_blob_id(text: str) -> str:
    data = text.encode("utf-8")
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


_FUNCNAME = re.compile(r"^[A-Za-z_$]")


def file_diff(path: str, old: str | None, new: str) -> str:
    """One file's section of a `git diff`, hunk headers with git's default
    function context."""
    a = [] if old is None else old.splitlines(keepends=True)
    b = new.splitlines(keepends=True)
    head = [f"diff --git a/{path} b/{path}\n"]
    if old is None:
        head += ["new file mode 100644\n", f"index 0000000..{_git_blob_id(new)[:7]}\n"]
    else:
        head += [f"index {_git_blob_id(old)[:7]}..{_git_blob_id(new)[:7]} 100644\n"]
    body = []
    for line in difflib.unified_diff(a, b, "/dev/null" if old is None else f"a/{path}",
                                     f"b/{path}", n=3):
        m = re.match(r"@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@", line)
        if m:
            start = int(m.group(1))
            context = ""
            for prev in reversed(a[: max(start - 1, 0)]):
                if _FUNCNAME.match(prev):
                    context = " " + prev.rstrip("\n")[:80]
                    break
            line = line.rstrip("\n") + context + "\n"
        body.append(line)
    return "".join(head + body)


def apply_variant(files, edits):
    new_files = dict(files)
    created = set()
    for path, old, new in edits:
        if old is None:
            new_files[path] = new
            created.add(path)
            continue
        text = new_files[path]
        assert text.count(old) == 1, (path, old)
        new_files[path] = text.replace(old, new)
    return new_files, created


def make_diff(files, edits) -> str:
    new_files, created = apply_variant(files, edits)
    parts = []
    for path in sorted(new_files):
        if path in created:
            parts.append(file_diff(path, None, new_files[path]))
        elif new_files[path] != files[path]:
            parts.append(file_diff(path, files[path], new_files[path]))
    return "".join(parts)


def coding_prompt(task) -> str:
    out = [f"Repository: {task['project']} ({_PROJECTS[task['project']]})", "",
           f"Issue #{task['issue']}: {task['title']}", "", task["body"], "",
           "Relevant code:"]
    for path, text in task["files"].items():
        out += ["", f"`{path}`", "", fence("python", text)]
    out += ["", "The maintainers' test suite will be run against your patch."]
    return "\n".join(out)


def build_coding():
    records = []
    for task in CODING_TASKS:
        case = {"id": task["id"], "category": task["category"],
                "prompt": coding_prompt(task)}
        for label, sysdef in CODING_SYSTEMS.items():
            rng = case_rng("coding", task["id"], label)
            variant, result, *flags = task["outcomes"][label]
            text = make_diff(task["files"], task["variants"][variant]) if variant else ""
            finish = "stop"
            if "truncate" in flags:
                # cut in the middle of a line of the last file's hunk
                text = text[: int(len(text) * 0.8)]
                text = text[: text.rindex(" ")]
                finish = "length"
            records.append(make_record(CODING_FAMILY, case, sysdef, 0, text,
                                       language="en", is_diff=True, finish_reason=finish,
                                       test_result=result, rng=rng))
    return records


# ---------------------------------------------------------------------------


def main():
    for name, build in (("prose-en.jsonl", build_prose), ("zh-hans.jsonl", build_zh),
                        ("coding.jsonl", build_coding)):
        records = build()
        path = write_jsonl(name, records)
        print(f"wrote {len(records):4d} outputs to {os.path.relpath(path)}")


if __name__ == "__main__":
    main()
