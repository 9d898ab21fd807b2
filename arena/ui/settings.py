"""What the window remembers between runs, in one INI file (QSettings).

Every value is read through a validator: a value of the wrong type or out of
range falls back to its default, and a file Qt cannot parse at all is cleared
and reported once (``problem``), so a damaged settings file never stops the rater.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QSettings

from arena.ui.keys import ACTIONS, KeyMap, default_key_map, normalise, problems

THEMES = ("light", "dark")
FONT_SIZES = (8.0, 32.0)
DEFAULT_FONT_SIZE = 11.0
DEFAULT_BREAK_MINUTES = 50
MAX_RECENT = 8


def _bool(value: object, default: bool) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    return default


def _number(value: object, default: float, low: float, high: float) -> float:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return default
    return number if low <= number <= high else default


def _strings(value: object) -> list[str]:
    # QSettings gives a one-element list back as a plain string.
    if isinstance(value, str):
        return [value] if value else []
    if isinstance(value, list):
        return [str(v) for v in value if str(v)]
    return []


class _Switch:
    """An on/off setting kept under ``key``: off until it is set."""

    def __init__(self, key: str) -> None:
        self.key = key

    def __get__(self, settings: Settings, owner: type | None = None) -> bool:
        return _bool(settings.store.value(self.key), False)

    def __set__(self, settings: Settings, value: bool) -> None:
        settings._set(self.key, value)


class Settings:
    scroll_sync = _Switch("view/scroll_sync")
    diff_split = _Switch("view/diff_side_by_side")

    def __init__(self, store: QSettings | None = None) -> None:
        self.store = store if store is not None else QSettings()
        self.problem = ""
        if self.store.status() == QSettings.Status.FormatError:
            self.problem = (
                f"The settings file {self.store.fileName()} could not be read; "
                "Arena started with default settings."
            )
            self.store.clear()
            self.store.sync()

    @property
    def location(self) -> str:
        return self.store.fileName()

    def _set(self, key: str, value: object) -> None:
        self.store.setValue(key, value)

    @property
    def theme(self) -> str:
        value = self.store.value("view/theme", "light")
        return value if value in THEMES else "light"

    @theme.setter
    def theme(self, value: str) -> None:
        self._set("view/theme", value)

    @property
    def font_size(self) -> float:
        return _number(self.store.value("view/font_size"), DEFAULT_FONT_SIZE, *FONT_SIZES)

    @font_size.setter
    def font_size(self, value: float) -> None:
        self._set("view/font_size", min(max(value, FONT_SIZES[0]), FONT_SIZES[1]))

    def raw_view(self, family: str) -> bool:
        """Whether ``family``'s pairs are shown as raw text (the exact characters)."""
        return family in _strings(self.store.value("view/raw_families"))

    def set_raw_view(self, family: str, raw: bool) -> None:
        # One list of names: a family name may hold the "/" that QSettings reads as a group.
        others = [f for f in _strings(self.store.value("view/raw_families")) if f != family]
        self._set("view/raw_families", others + [family] if raw else others)

    @property
    def break_minutes(self) -> int:
        return int(
            _number(self.store.value("session/break_minutes"), DEFAULT_BREAK_MINUTES, 1, 600)
        )

    @break_minutes.setter
    def break_minutes(self, value: int) -> None:
        self._set("session/break_minutes", int(value))

    @property
    def key_map(self) -> KeyMap:
        """The stored keys; the defaults when none are stored or the stored ones clash."""
        key_map = default_key_map()
        for action in ACTIONS:
            stored = self.store.value(f"keys/{action.name}")
            if stored is not None:
                key_map[action.name] = [k for k in map(normalise, _strings(stored)) if k]
        return key_map if not problems(key_map) else default_key_map()

    @key_map.setter
    def key_map(self, value: KeyMap) -> None:
        for name, keys in value.items():
            self._set(f"keys/{name}", list(keys))

    @property
    def recent_ledgers(self) -> list[str]:
        return _strings(self.store.value("ledgers/recent"))[:MAX_RECENT]

    def remember_ledger(self, path: str) -> None:
        recent = [path] + [p for p in self.recent_ledgers if p != path]
        self._set("ledgers/recent", recent[:MAX_RECENT])

    @property
    def geometry(self) -> QByteArray | None:
        value = self.store.value("window/geometry")
        return value if isinstance(value, QByteArray) else None

    @geometry.setter
    def geometry(self, value: QByteArray) -> None:
        self._set("window/geometry", value)

    def sync(self) -> None:
        self.store.sync()
