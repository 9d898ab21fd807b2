"""Light and dark themes: one QPalette for the widgets and matching colours for the HTML.

The palette is set explicitly (with the Fusion style, which honours it on every
platform) because the platform's colour-scheme hint is not reliable: offscreen and
on many Linux desktops it changes nothing (research/qt.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication


@dataclass(frozen=True)
class Theme:
    name: str
    window: str
    base: str
    text: str
    muted: str
    border: str
    button: str
    accent: str
    accent_text: str
    link: str
    code_bg: str
    added_bg: str
    removed_bg: str
    hunk_bg: str
    file_bg: str
    warning_bg: str
    warning_text: str
    active_border: str
    pygments_style: str


LIGHT = Theme(
    name="light",
    window="#eef0f3",
    base="#ffffff",
    text="#1f2328",
    muted="#656d76",
    border="#d0d7de",
    button="#f6f8fa",
    accent="#0969da",
    accent_text="#ffffff",
    link="#0969da",
    code_bg="#f6f8fa",
    added_bg="#dafbe1",
    removed_bg="#ffebe9",
    hunk_bg="#ddf4ff",
    file_bg="#eaeef2",
    warning_bg="#fff1c2",
    warning_text="#5c4500",
    active_border="#0969da",
    pygments_style="default",
)
DARK = Theme(
    name="dark",
    window="#1b1f24",
    base="#0d1117",
    text="#e6edf3",
    muted="#8d96a0",
    border="#30363d",
    button="#21262d",
    accent="#2f81f7",
    accent_text="#ffffff",
    link="#58a6ff",
    code_bg="#161b22",
    added_bg="#12361f",
    removed_bg="#42171c",
    hunk_bg="#132a44",
    file_bg="#21262d",
    warning_bg="#4d3800",
    warning_text="#f2cc60",
    active_border="#2f81f7",
    pygments_style="github-dark",
)
THEMES: dict[str, Theme] = {"light": LIGHT, "dark": DARK}


def palette(theme: Theme) -> QPalette:
    p = QPalette()
    role = QPalette.ColorRole
    colours = {
        role.Window: theme.window,
        role.WindowText: theme.text,
        role.Base: theme.base,
        role.AlternateBase: theme.code_bg,
        role.Text: theme.text,
        role.Button: theme.button,
        role.ButtonText: theme.text,
        role.Highlight: theme.accent,
        role.HighlightedText: theme.accent_text,
        role.Link: theme.link,
        role.ToolTipBase: theme.base,
        role.ToolTipText: theme.text,
        role.PlaceholderText: theme.muted,
        role.BrightText: theme.warning_text,
        role.Mid: theme.border,
        role.Midlight: theme.border,
        role.Dark: theme.border,
    }
    for r, colour in colours.items():
        p.setColor(r, QColor(colour))
    disabled = QPalette.ColorGroup.Disabled
    for r in (role.Text, role.WindowText, role.ButtonText):
        p.setColor(disabled, r, QColor(theme.muted))
    return p


def apply_theme(app: QApplication, theme: Theme) -> None:
    app.setStyle("Fusion")
    app.setPalette(palette(theme))


def document_css(theme: Theme) -> str:
    """The default stylesheet of every rendered output.

    Without one, inline code is not monospace and tables have no borders
    (research/qt.md). Sizes are left relative so the font size setting scales all.
    """
    return f"""
body {{ color: {theme.text}; }}
a {{ color: {theme.link}; }}
code {{ font-family: monospace; background-color: {theme.code_bg}; }}
pre {{ font-family: monospace; background-color: {theme.code_bg}; white-space: pre; }}
table {{ border-collapse: collapse; margin-top: 4px; margin-bottom: 8px; }}
th, td {{ border: 1px solid {theme.border}; padding: 3px 8px; }}
th {{ background-color: {theme.code_bg}; font-weight: bold; }}
blockquote {{ color: {theme.muted}; margin-left: 12px; }}
h1, h2, h3, h4 {{ margin-top: 10px; margin-bottom: 4px; }}
"""


def button_css(theme: Theme) -> str:
    """Widget stylesheet for the parts the palette alone leaves plain."""
    return f"""
QFrame#pane {{ border: 1px solid {theme.border}; border-radius: 4px; }}
QFrame#pane[active="true"] {{ border: 2px solid {theme.active_border}; }}
QLabel#banner {{ background-color: {theme.warning_bg}; color: {theme.warning_text};
                 padding: 6px 10px; border-radius: 4px; font-weight: bold; }}
QLabel#category {{ color: {theme.muted}; }}
QPushButton#vote {{ padding: 6px 14px; }}
QLabel#board-title {{ font-size: 15pt; font-weight: 600; }}
QLabel#summary-heading {{ font-size: 12pt; font-weight: 600; }}
QLabel#summary-title {{ font-weight: 600; }}
QLabel#muted {{ color: {theme.muted}; }}
QFrame#doubts {{ background-color: {theme.warning_bg}; border-radius: 4px; }}
QFrame#doubts QLabel {{ color: {theme.warning_text}; }}
"""
