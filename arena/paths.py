"""Where Arena finds its resources and its default ledger."""

from __future__ import annotations

import os
from importlib import resources as _resources
from pathlib import Path

import platformdirs

APP_NAME = "Arena"
LEDGER_ENV = "ARENA_LEDGER"


def resource_path(*parts: str) -> Path:
    """A path under ``resources/``: the checkout's folder, else the installed copy."""
    checkout = Path(__file__).resolve().parents[1] / "resources"
    if checkout.is_dir():
        return checkout.joinpath(*parts)
    installed = Path(str(_resources.files("arena_resources")))
    return installed.joinpath(*parts)


def default_ledger_path() -> Path:
    """``$ARENA_LEDGER``, else ``arena.sqlite`` in the platform's user data folder."""
    override = os.environ.get(LEDGER_ENV)
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)) / "arena.sqlite"
