"""Identity leaks: an output that names a system of its family, so the rater may guess
whose it is.

An output names a system by the system's label or model id (any case), by a name its
descriptor gives (``aliases``), or by a product or maker name of the model family the
system belongs to (``resources/leaks/makers.toml``: "I am Claude, made by Anthropic",
"developed by OpenAI", "Llama 2"). Company names that fill ordinary prose (Google,
Meta, Microsoft) and names that are ordinary words (Command, Phi, Yi, Gemma, Falcon)
count only where the output speaks of itself ("I'm an AI assistant created by Google",
"As Bard, I…", "我是由阿里云开发的"). The finder is built once per session: a few
compiled patterns, each one pass over a text.
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.paths import resource_path
from arena.records import Output, System

# Texts whose leaks a finder keeps (``LeakFinder.find``).
TEXTS_KEPT = 32
# A whole word: no ASCII letter, digit or underscore on either side and no hyphen before
# ("Jean-Claude"); Chinese or Japanese around a name does not matter ("私はChatGPTです").
_BEFORE = r"(?<![A-Za-z0-9_-])"
_AFTER = r"(?![A-Za-z0-9_])"
# A label or model id is not followed by a hyphen either ("alpha-beta pruning").
_AFTER_LABEL = r"(?![A-Za-z0-9_-])"
# Who made it, as an output says of itself.
_MADE = (
    r"(?:created|developed|trained|built|made|designed|programmed|produced|released|owned"
    r"|powered|operated|maintained|fine-tuned|finetuned)\s+(?:by|at)\s+(?:the\s+)?"
    r"(?:(?:team|teams|researchers|engineers|people|folks|scientists|developers)\s+"
    r"(?:at|from|of)\s+(?:the\s+)?)?"
)
_I_AM = r"\b(?:I\s+am|I['’]m|I\s+was|I['’]ve\s+been|I\s+have\s+been)\s+"
# "As …" opening a sentence (not "such as Google, Amazon").
_AS = r"(?:^|(?<=[.!?\n])|(?<=[.!?\n][ \t]))[ \t]*As\s+"
# What an output may call itself between "I am" and who made it ("an AI assistant").
_SELF_NOUN = (
    r"(?:(?:just|only|simply|actually)\s+)?(?:an?|the)\s+(?:[\w-]+\s+){{0,4}}?"
    r"(?:model|assistant|AI|chatbot|system|program|LLM|bot)\b,?\s+"
)
# Where an output speaks of itself, around a name (``{who}``), in English, Japanese and
# Chinese: the first person is the one made, not one who uses or likes what was made.
SELF_CONTEXTS: tuple[str, ...] = (
    # "I am Gemini", "I'm an AI called Bard", "My name is Falcon", "call me Claude"
    r"\b(?:I\s+am|I['’]m|I\s+was|[Mm]y\s+name\s+is|[Cc]all\s+me)\s+(?:(?:an?|the)\s+)?"
    r"(?:(?:AI|assistant|chatbot|model|language\s+model)\s+)?(?:(?:called|named)\s+)?{who}",
    # "I'm an AI assistant created by Anthropic", "I was trained by researchers at Google"
    _I_AM + f"(?:{_SELF_NOUN})?" + _MADE + "{who}",
    # "As an AI language model developed by OpenAI, …"
    _AS
    + r"an?\s+(?:[\w-]+\s+){{0,4}}?(?:model|assistant|AI|chatbot|system|LLM)\b,?\s+"
    + _MADE
    + "{who}",
    # "I am a language model from Google", "my creators at Meta", "Google created me"
    _I_AM + r"(?:an?|the)\s+(?:[\w-]+\s+){{0,4}}?(?:model|assistant|AI|chatbot|system|LLM)\s+"
    r"(?:from|by|of)\s+{who}",
    r"\b[Mm]y\s+(?:creators?|developers?|makers?|trainers?)\s+(?:at|from)\s+{who}",
    r"{who}\s+(?:has\s+)?(?:created|developed|trained|built|made|designed)\s+me\b",
    # "As Bard, I …"
    _AS + r"{who}\s*,",
    # 私はGeminiです / 私はGoogleによって開発されました / 私はGoogleが開発したAIです
    r"(?:私|わたし|僕)は、?{who}(?=です|でございます|と申します|と言います|という|[、。！!\s]|$)",
    r"(?:私|わたし|僕)[^。！？\n]{{0,60}}?{who}(?:によって|により|が)(?:開発|作成|訓練|構築)"
    r"(?:されました|されています|された(?:AI|人工知能|言語モデル|アシスタント|モデル)"
    r"|した(?:AI|人工知能|言語モデル|アシスタント|モデル))",
    # 我是通义千问。 / 我是由阿里云开发的 / 我是阿里云开发的AI助手
    r"我(?:是|叫){who}(?=[，,。！!？?\s]|$)",
    r"我[^。！？\n]{{0,40}}?由{who}(?:开发|研发|训练|打造|创建|推出)",
    r"我是{who}(?:开发|研发|训练|打造|推出)的",
)


@dataclass(frozen=True)
class MakerFamily:
    """One model family of the maker table (``resources/leaks/makers.toml``)."""

    name: str
    maker: str
    models: tuple[str, ...]
    names: tuple[str, ...] = ()
    cased: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()
    self_names: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    source: str = ""

    def covers(self, system: System) -> bool:
        """Whether ``system`` belongs to this model family (its model id or label says)."""
        return any(
            re.search(pattern, text, re.IGNORECASE)
            for pattern in self.models
            for text in (system.descriptor.model, system.label)
        )


def read_makers(path: Path) -> tuple[MakerFamily, ...]:
    with path.open("rb") as file:
        table = tomllib.load(file)
    return tuple(
        MakerFamily(
            name=entry["name"],
            maker=entry.get("maker", ""),
            models=tuple(entry["models"]),
            names=tuple(entry.get("names", ())),
            cased=tuple(entry.get("cased", ())),
            patterns=tuple(entry.get("patterns", ())),
            self_names=tuple(entry.get("self", ())),
            exclude=tuple(entry.get("exclude", ())),
            source=entry.get("source", ""),
        )
        for entry in table["family"]
    )


@functools.cache
def makers() -> tuple[MakerFamily, ...]:
    """The maker table shipped with Arena, read once."""
    return read_makers(resource_path("leaks", "makers.toml"))


def _either(names: Iterable[str]) -> str:
    # Longest first, so "GPT-4o" is tried before "GPT".
    return "|".join(map(re.escape, sorted(set(names), key=len, reverse=True)))


@dataclass(frozen=True)
class Leak:
    """A name found in an output and the systems of the family it points to."""

    name: str
    systems: tuple[str, ...]


@dataclass(frozen=True)
class _Name:
    """A name to look for: ``kind`` says how (``SEARCHED``), ``key`` is a piece of text,
    folded, that every match holds: a text without it is not searched for the name."""

    kind: str
    text: str
    key: str


# How each kind of name is searched: "label" (a label, model id or alias: any case, no
# hyphen after), "name" (any case), "cased" (as written), "pattern" (a regular expression,
# as written), "self" (as written, where the output speaks of itself).
SEARCHED = ("pattern", "name", "cased", "label", "self")


def _name(kind: str, text: str) -> _Name:
    if kind == "pattern":
        found = re.match(r"[A-Za-z0-9]+", text)
        return _Name(kind, text, found.group().casefold() if found else "")
    return _Name(kind, text, text.casefold())


class LeakFinder:
    """Finds outputs naming a system of one family (``for_systems``).

    A text is first folded and searched for a piece of each name (plain substring
    searches, fast); only the names found there are then looked for by pattern, so the
    usual output, naming nothing, costs a few microseconds per thousand characters.
    """

    def __init__(
        self,
        labels: dict[str, set[str]],
        families: Sequence[tuple[MakerFamily, set[str]]] = (),
        every_exclude: Iterable[str] = (),
    ) -> None:
        """``labels``: label, model id or alias -> the systems it names (any case);
        ``families``: each model family of the table with the systems it covers;
        ``every_exclude``: patterns of things that bear a name but are no system."""
        self.points: defaultdict[_Name, set[str]] = defaultdict(set)
        for name, systems in labels.items():
            if len(name) >= 3:  # shorter ones are ordinary words
                self.points[_name("label", name)] |= systems
        for family, systems in families:
            for kind, names in (
                ("name", family.names),
                ("cased", family.cased),
                ("pattern", family.patterns),
                ("self", family.self_names),
            ):
                for text in names:
                    self.points[_name(kind, text)] |= systems
        self.exclude = re.compile("|".join(f"(?:{p})" for p in every_exclude) or "(?!)")
        self._compiled: dict[frozenset[_Name], tuple[re.Pattern[str] | None, ...]] = {}
        self._found: dict[str, list[Leak]] = {}

    @classmethod
    def for_systems(
        cls, systems: Sequence[System], table: Sequence[MakerFamily] | None = None
    ) -> LeakFinder:
        """The finder for a family of ``systems`` (``table``: the shipped maker table)."""
        table = makers() if table is None else table
        labels: defaultdict[str, set[str]] = defaultdict(set)
        for system in systems:
            for name in (system.label, system.descriptor.model, *system.descriptor.aliases):
                if name.strip():
                    labels[name.strip()].add(system.label)
        families = []
        for family in table:
            covered = {s.label for s in systems if family.covers(s)}
            if covered:
                families.append((family, covered))
        return cls(dict(labels), families, (p for f in table for p in f.exclude))

    def _patterns(self, present: frozenset[_Name]) -> tuple[re.Pattern[str] | None, ...]:
        """(names anywhere, names where the output speaks of itself), for ``present``."""
        if present not in self._compiled:
            by_kind = {k: sorted(n.text for n in present if n.kind == k) for k in SEARCHED}
            # At one position the first alternative that matches wins: versioned names first.
            anywhere = [f"{_BEFORE}(?:{p}){_AFTER}" for p in by_kind["pattern"]]
            if by_kind["name"]:
                anywhere.append(f"(?i:{_BEFORE}(?:{_either(by_kind['name'])}){_AFTER})")
            if by_kind["cased"]:
                anywhere.append(f"{_BEFORE}(?:{_either(by_kind['cased'])}){_AFTER}")
            if by_kind["label"]:
                anywhere.append(f"(?i:{_BEFORE}(?:{_either(by_kind['label'])}){_AFTER_LABEL})")
            itself = _either(by_kind["self"])
            # One pass for every context: the name is group who0, who1… of the one matched.
            contexts = (
                f"(?:{c.format(who=f'{_BEFORE}(?P<who{i}>{itself}){_AFTER}')})"
                for i, c in enumerate(SELF_CONTEXTS)
            )
            self._compiled[present] = (
                re.compile("|".join(anywhere)) if anywhere else None,
                re.compile("|".join(contexts)) if itself else None,
            )
        return self._compiled[present]

    def find(self, text: str) -> list[Leak]:
        """Every name of a system in ``text``, in order of first appearance. The answers for
        the last few texts are kept: the window asks ahead for the pair it may show next,
        and a search of a long text (a 2,000-line diff) takes milliseconds."""
        found = self._found.get(text)
        if found is None:
            found = self._found[text] = self._search(text)
            if len(self._found) > TEXTS_KEPT:
                del self._found[next(iter(self._found))]
        return list(found)

    def _search(self, text: str) -> list[Leak]:
        folded = text.casefold()
        present = frozenset(n for n in self.points if n.key in folded)
        if not present:
            return []
        masked = self.exclude.sub(lambda m: " " * len(m.group()), text)
        found: dict[str, set[str]] = {}
        for _, name, systems in sorted(self._hits(masked, present), key=lambda hit: hit[0]):
            found.setdefault(name, set()).update(systems)
        return [Leak(name, tuple(sorted(systems))) for name, systems in found.items()]

    def _hits(self, text: str, present: frozenset[_Name]) -> Iterator[tuple[int, str, set[str]]]:
        anywhere, itself = self._patterns(present)
        if anywhere is not None:
            for match in anywhere.finditer(text):
                yield match.start(), match[0], self._pointed(match[0], present)
        if itself is not None:
            for match in itself.finditer(text):
                group = next(g for g, name in match.groupdict().items() if name is not None)
                yield match.start(group), match[group], self.points[_name("self", match[group])]

    def _pointed(self, found: str, present: frozenset[_Name]) -> set[str]:
        """The systems that ``found`` (a match of names anywhere) points to."""
        systems: set[str] = set()
        for name in present:
            if (
                (name.kind in ("name", "label") and name.key == found.casefold())
                or (name.kind == "cased" and name.text == found)
                or (name.kind == "pattern" and re.fullmatch(name.text, found))
            ):
                systems |= self.points[name]
        return systems

    def __call__(self, outputs: tuple[Output, ...], prompt: str = "") -> str:
        """A readable warning naming the systems, or "" when no output names one. A name
        the ``prompt`` has too is said to be there: every answer may repeat it."""
        asked = prompt.casefold()
        said = []
        for side, output in zip(("left", "right"), outputs, strict=True):
            leaks = self.find(output.text)
            if leaks:
                systems = sorted({s for leak in leaks for s in leak.systems})
                names = ", ".join(
                    f"“{leak.name}”"
                    + (" (the prompt names it too)" if leak.name.casefold() in asked else "")
                    for leak in leaks[:3]
                )
                more = f" and {len(leaks) - 3} more" if len(leaks) > 3 else ""
                said.append(
                    f"The {side} output names a system of this family "
                    f"({', '.join(systems)}): {names}{more}."
                )
        return " ".join(said)
