"""coding: four systems answer 12 issues about made-up Python projects with a
``git diff`` and a test result (``data/coding/tasks.toml``)."""

from __future__ import annotations

from .common import case_rng, fence, load, load_family, make_record
from .gitdiff import make_diff

FAMILY = "coding"


def load_tasks() -> list[dict]:
    """The tasks with ``files`` as {path: text}, in the order the prompt shows them."""
    sources = load(FAMILY, "sources.toml")
    tasks = []
    for task in load(FAMILY, "tasks.toml")["task"]:
        files = {
            sources["files"][name]["path"]: sources["files"][name]["text"] for name in task["files"]
        }
        tasks.append({**task, "files": files, "about": sources["projects"][task["project"]]})
    return tasks


def coding_prompt(task) -> str:
    out = [
        f"Repository: {task['project']} ({task['about']})",
        "",
        f"Issue #{task['issue']}: {task['title']}",
        "",
        task["body"],
        "",
        "Relevant code:",
    ]
    for path, text in task["files"].items():
        out += ["", f"`{path}`", "", fence("python", text)]
    out += ["", "The maintainers' test suite will be run against your patch."]
    return "\n".join(out)


def build() -> list[dict]:
    family, systems = load_family(FAMILY)
    records = []
    for task in load_tasks():
        case = {"id": task["id"], "category": task["category"], "prompt": coding_prompt(task)}
        for label, system in systems.items():
            rng = case_rng(FAMILY, task["id"], label)
            outcome = task["outcomes"][label]
            variant = outcome["variant"]
            text = make_diff(task["files"], task["variants"][variant]) if variant else ""
            finish = "stop"
            if outcome.get("truncate"):
                # cut in the middle of a line of the last file's hunk
                text = text[: int(len(text) * 0.8)]
                text = text[: text.rindex(" ")]
                finish = "length"
            records.append(
                make_record(
                    family,
                    case,
                    system,
                    0,
                    text,
                    language="en",
                    is_diff=True,
                    finish_reason=finish,
                    test_result=outcome["result"],
                    rng=rng,
                )
            )
    return records
