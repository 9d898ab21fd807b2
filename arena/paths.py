"""Where Arena finds its resources and its default ledger."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

APP_NAME = "Arena"
LEDGER_ENV = "ARENA_LEDGER"
KEY_ENV = "ARENA_SIGNING_KEY"


CHECKOUT_RESOURCES = Path(__file__).resolve().parents[1] / "resources"


def resource_path(*parts: str) -> Path:
    """A path under ``resources/``: the checkout's folder, else the installed copy."""
    if CHECKOUT_RESOURCES.is_dir():
        return CHECKOUT_RESOURCES.joinpath(*parts)
    return installed_resources().joinpath(*parts)


def installed_resources() -> Path:
    """Where pip put ``resources/`` (as the data package ``arena_resources``)."""
    spec = importlib.util.find_spec("arena_resources")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("Arena's resources are not installed (arena_resources)")
    return Path(next(iter(spec.submodule_search_locations)))


def default_ledger_path() -> Path:
    """``$ARENA_LEDGER``, else ``arena.sqlite`` in the platform's user data folder."""
    override = os.environ.get(LEDGER_ENV)
    if override:
        return Path(override).expanduser()
    import platformdirs  # here: every command imports this module, few need the folder

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)) / "arena.sqlite"


def default_key_path() -> Path:
    """``$ARENA_SIGNING_KEY``, else ``signing-key.pem`` in the user's config folder."""
    override = os.environ.get(KEY_ENV)
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)) / "signing-key.pem"
