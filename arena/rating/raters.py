"""Who is voting: the raters a ledger knows, and the one at the keyboard.

A ledger's raters are the actors of its sessions and votes (``voting.raters``). The one at
the keyboard is named by ``--rater``; else the name remembered for this ledger on this
machine (``raters.json`` in Arena's configuration folder, keyed by the ledger's resolved
path: a copy of the ledger elsewhere asks again); else, when no one but the default
``rater`` has voted in it, the default, and nothing is asked. Otherwise there is a choice
to make, and the window asks once (``at_keyboard`` returns None).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from arena.errors import BadInput
from arena.ledger import Ledger, tallies, voting
from arena.ledger.rater_keys import rater_keys
from arena.paths import APP_NAME
from arena.records import name_problem

DEFAULT_RATER = "rater"
_FILE = "raters.json"


def _memory_file() -> Path:
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)) / _FILE


def _key(ledger_path: str | Path) -> str:
    return str(Path(ledger_path).expanduser().resolve())


def _memory() -> dict[str, str]:
    try:
        stored = json.loads(_memory_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # none yet, or damaged: the window asks again
    if not isinstance(stored, dict):
        return {}
    return {k: v for k, v in stored.items() if isinstance(v, str) and name_problem(v) is None}


def checked(name: str, field: str = "--rater") -> str:
    """``name`` as a rater's name, or a clear refusal."""
    name = name.strip()
    problem = name_problem(name)
    if problem is not None:
        raise BadInput(f"a rater's name {problem}", field=field)
    if name == "settler":
        raise BadInput("'settler' is Arena's own actor (gates and tests), not a rater", field=field)
    return name


def remembered(ledger_path: str | Path) -> str | None:
    """The name last chosen at this ledger on this machine, if any."""
    return _memory().get(_key(ledger_path))


def remember(ledger_path: str | Path, name: str) -> None:
    """Keep ``name`` as the one at the keyboard of this ledger (written whole, then moved
    into place: a crash leaves the old file or the new one)."""
    memory = _memory()
    memory[_key(ledger_path)] = checked(name)
    target = _memory_file()
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_suffix(".tmp")
    temporary.write_text(json.dumps(memory, indent=1, sort_keys=True), encoding="utf-8")
    os.replace(temporary, target)


def known(ledger: Ledger) -> list[str]:
    """The ledger's raters, in the order they first voted or sat (``voting.raters``)."""
    return voting.raters(ledger)


def at_keyboard(ledger: Ledger, given: str | None = None) -> str | None:
    """Who votes now: ``given``, else the name remembered for this ledger, else the default
    when no one else has voted in it; None when the person must be asked. Colleagues whose
    votes came from their signed bundles (``rater_keys``) vote on their own machines: they
    are never the one at the keyboard here."""
    colleagues = {k.rater: k.signer for k in rater_keys(ledger)}
    if given is not None:
        name = checked(given)
        if name in colleagues:
            raise BadInput(
                f"{name!r} is a colleague whose votes come from bundles signed by "
                f"{colleagues[name]}: vote here under a name of your own",
                field="--rater",
            )
        return name
    remembered_name = remembered(ledger.path)
    if remembered_name is not None:
        return remembered_name
    others = [r for r in tallies.raters(ledger) if r != DEFAULT_RATER and r not in colleagues]
    return DEFAULT_RATER if not others else None
