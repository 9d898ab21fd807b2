"""The identity-leak finder: outputs naming a system's maker or product are caught, and
prose that merely shares a word with one is not (both directions, family by family)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.intake.outputs import import_file
from arena.rating.leaks import LeakFinder, makers, read_makers
from arena.rating.session import RatingSession
from arena.records import Output, OutputId, System, SystemDescriptor, SystemId
from tests.conftest import REALDATA, native_line


def system(label: str, model: str | None = None, aliases: tuple[str, ...] = ()) -> System:
    descriptor = SystemDescriptor(model=model or label, aliases=list(aliases))
    return System(SystemId(label), label, descriptor)


# One system of each model family of the table, as model ids are usually written.
EVERY = [
    system(label)
    for label in (
        "gpt-4o",
        "claude-3-opus",
        "llama-2-70b-chat",
        "gemini-1.5-pro",
        "gemma-2-9b-it",
        "mixtral-8x7b-instruct",
        "qwen2-72b-instruct",
        "deepseek-v3",
        "yi-34b-chat",
        "command-r-plus",
        "phi-3-mini",
        "falcon-40b-instruct",
        "vicuna-13b-v1.5",
        "japanese-stablelm-instruct-alpha-7b",
        "ELYZA-japanese-Llama-2-7b-fast-instruct",
        "grok-2",
        "ernie-bot-4",
        "chatglm3-6b",
    )
]
FINDER = LeakFinder.for_systems(EVERY)

CAUGHT = [
    ("I'm Claude, an AI assistant created by Anthropic.", "claude-3-opus"),
    ("As an AI language model developed by OpenAI, I cannot browse.", "gpt-4o"),
    ("I am ChatGPT, a large language model.", "gpt-4o"),
    ("Unlike GPT-4-turbo, I answer briefly.", "gpt-4o"),
    ("I was trained by Meta.", "llama-2-70b-chat"),
    ("Some people prefer to use my full name, LLaMA.", "llama-2-70b-chat"),
    ("Llama 2 is the model answering you.", "llama-2-70b-chat"),
    ("I am Gemini, a large language model from Google.", "gemini-1.5-pro"),
    ("As Bard, I can help with that.", "gemini-1.5-pro"),
    ("Sure. As Gemini, I can help.", "gemini-1.5-pro"),
    ("I'm a large language model, trained by Google.", "gemini-1.5-pro"),
    ("I am Gemma, an open model by Google DeepMind.", "gemma-2-9b-it"),
    ("I'm Mixtral, built by Mistral AI.", "mixtral-8x7b-instruct"),
    ("I am Mistral, an assistant.", "mixtral-8x7b-instruct"),
    ("我是通义千问，由阿里云开发的大语言模型。", "qwen2-72b-instruct"),
    ("我是由阿里云开发的AI助手。", "qwen2-72b-instruct"),
    ("I am Qwen, created by Alibaba Cloud.", "qwen2-72b-instruct"),
    ("I am DeepSeek Chat, your assistant.", "deepseek-v3"),
    ("I am Yi, a language model trained by 01.AI.", "yi-34b-chat"),
    ("I'm Command R+, built by Cohere.", "command-r-plus"),
    ("I am Phi-3, a small language model developed by Microsoft.", "phi-3-mini"),
    ("I am an AI assistant created by Microsoft.", "phi-3-mini"),
    ("I am Falcon, from the Technology Innovation Institute.", "falcon-40b-instruct"),
    (
        "I am Vicuna, a language model trained by researchers from Large Model Systems "
        "Organization (LMSYS).",
        "vicuna-13b-v1.5",
    ),
    ("私はStability AIが開発したStableLMです。", "japanese-stablelm-instruct-alpha-7b"),
    ("私はELYZAによって開発されたAIです。", "ELYZA-japanese-Llama-2-7b-fast-instruct"),
    ("私はChatGPTです。", "gpt-4o"),
    ("私はGeminiです。", "gemini-1.5-pro"),
    ("私はGoogleによって開発されました。", "gemini-1.5-pro"),
    ("我是百度开发的人工智能助手。", "ernie-bot-4"),
    ("I am Grok, built by xAI.", "grok-2"),
    ("我是文心一言。", "ernie-bot-4"),
    ("I am ChatGLM, a bilingual model.", "chatglm3-6b"),
]

QUIET = [
    "Claude Monet painted water lilies; Claude Shannon founded information theory.",
    "A summary of the book by Jean-Claude Devèze.",
    "The Maltese Falcon (1941) is a film noir.",
    "SpaceX launched a Falcon 9 rocket.",
    "The Gemini program came before Apollo.",
    "Facebook renamed itself Meta Platforms in 2021.",
    "A meta-analysis of forty studies.",
    '<meta charset="UTF-8">',
    "Llamas and alpacas graze in the Andes; a llama is a camelid.",
    "The mistral blows down the Rhône valley.",
    "Shakespeare is known as the Bard of Avon; the bard sang.",
    "Type the command `ls` at the command line. Command the troops.",
    "The golden ratio phi is about 1.618; Phi Beta Kappa is a society.",
    "Yi Sun-sin was a Korean admiral.",
    "Gemma Chan is an actress.",
    "Use Google Docs or Microsoft Word, both made by big companies.",
    "TensorFlow, developed by Google, and PyTorch, developed by Meta.",
    "I am using Google Docs, and I'm a big fan of products made by Microsoft.",
    "These ideas cohere well.",
    "Work at tech companies such as Google, Amazon and Microsoft.",
    "The palm of the hand.",
    "Ernie and Bert are puppets.",
    "The Stanford prison experiment.",
    "私はGoogleで働いています。私はGoogleが開発したTensorFlowを使います。",
    "我是Google的粉丝。我用百度搜索。",
]


@pytest.mark.parametrize(("text", "label"), CAUGHT)
def test_an_output_naming_a_maker_or_product_is_caught(text, label):
    found = FINDER.find(text)
    assert found, text
    assert label in {s for leak in found for s in leak.systems}


@pytest.mark.parametrize("text", QUIET)
def test_prose_sharing_a_word_with_a_name_is_not(text):
    assert FINDER.find(text) == []


def test_a_name_points_only_to_the_systems_of_its_family():
    finder = LeakFinder.for_systems([system("gpt4"), system("claude")])
    assert [(x.name, x.systems) for x in finder.find("Made by Anthropic, not OpenAI.")] == [
        ("Anthropic", ("claude",)),
        ("OpenAI", ("gpt4",)),
    ]
    # Google systems are not in this family: their makers' names say nothing here.
    assert finder.find("I am Gemini, a model trained by Google.") == []


def test_a_descriptor_may_give_more_names_and_only_those_who_set_them_change():
    finder = LeakFinder.for_systems([system("m1", model="org/m1", aliases=("Tanuki",))])
    assert [x.systems for x in finder.find("I am Tanuki.")] == [("m1",)]
    assert (
        SystemDescriptor(model="m").system_id == SystemDescriptor(model="m", aliases=[]).system_id
    )
    assert SystemDescriptor(model="m", aliases=["Tanuki"]).system_id != (
        SystemDescriptor(model="m").system_id
    )


def test_the_warning_names_the_system_and_what_the_prompt_said_too():
    finder = LeakFinder.for_systems([system("gpt4"), system("claude")])

    def output(text: str) -> Output:
        return Output(OutputId("o"), "f", "c", SystemId("x"), 0, text)

    said = finder(
        (output("I'm Claude, made by Anthropic."), output("ChatGPT is fine.")),
        "What do you think about ChatGPT?",
    )
    assert said.startswith("The left output names a system of this family (claude): ")
    assert "“Claude”, “Anthropic”." in said
    assert "The right output names a system of this family (gpt4): " in said
    assert "“ChatGPT” (the prompt names it too)." in said
    assert finder((output("Hello."), output("Fine."))) == ""


def test_the_table_is_well_formed():
    table = makers()
    assert len({f.name for f in table}) == len(table) >= 18
    for family in table:
        assert family.models and family.source, family.name
    wanted = {"GPT", "Claude", "Llama", "Gemini", "Mistral", "Qwen", "DeepSeek", "Yi"}
    wanted |= {"Command", "Phi", "Gemma", "Falcon", "Vicuna"}
    assert wanted <= {f.name for f in table}


def test_a_table_can_be_read_from_another_file(tmp_path):
    path = tmp_path / "makers.toml"
    path.write_text(
        '[[family]]\nname = "Tanuki"\nmodels = ["tanuki"]\nnames = ["Weblab"]\n', "utf-8"
    )
    (family,) = read_makers(path)
    finder = LeakFinder.for_systems([system("tanuki-8b")], [family])
    assert [x.name for x in finder.find("I was built at Weblab.")] == ["Weblab"]


def test_the_session_warns_on_a_maker_and_marks_the_vote(ledger, tmp_path):
    path = tmp_path / "leak.jsonl"
    lines = [
        native_line("c1", "claude", "I'm an AI assistant created by Anthropic to be helpful."),
        native_line("c1", "gpt4", "The answer is forty-two, for the reasons given below."),
    ]
    path.write_text("\n".join(lines), encoding="utf-8")
    import_file(ledger, path, family="leaky", fmt="native")
    rater = RatingSession(ledger, "leaky", seed=1)
    assert "names a system of this family (claude): “Anthropic”" in rater.current().identity_leak
    assert rater.vote("left").identity_leak


ALPACAEVAL = REALDATA / "alpacaeval"
GENERATORS = ("gpt4", "claude", "llama-2-70b-chat-hf")
# Hand-checked: the outputs (generator, index in its file) that name their own maker or
# product (27: "I'm an AI assistant created by Anthropic", "my full name, LLaMA", answers
# about ChatGPT from gpt4), and the 6 that name another system's (an answer about ChatGPT
# or GPT-3 from claude or llama, the prompt naming it). docs/window.md has the figures.
OWN = {
    "claude": {285, 315, 340, 371, 389, 396, 398, 403, 408, 415, 416, 420, 423, 442, 456}
    | {462, 481, 590, 629, 749},
    "gpt4": {285, 384, 422, 423, 469},
    "llama-2-70b-chat-hf": {285, 371},
}
OTHERS = {"claude": {384, 422, 469}, "gpt4": set(), "llama-2-70b-chat-hf": {422, 423, 469}}


@pytest.mark.skipif(not ALPACAEVAL.is_dir(), reason="the third-party AlpacaEval outputs")
def test_on_alpacaeval_every_output_naming_its_maker_or_product_is_warned():
    finder = LeakFinder.for_systems([system(g) for g in GENERATORS])
    for generator in GENERATORS:
        outputs = json.loads(Path(ALPACAEVAL / generator / "model_outputs.json").read_text())
        warned = {i: finder.find(r["output"]) for i, r in enumerate(outputs)}
        warned = {i: leaks for i, leaks in warned.items() if leaks}
        for i in OWN[generator]:  # every one, pointing to its own system
            assert generator in {s for leak in warned.get(i, ()) for s in leak.systems}, i
        # No other warning: no word that merely looks like a name.
        assert set(warned) == OWN[generator] | OTHERS[generator]
