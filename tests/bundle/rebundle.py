"""Forging a bundle as a careful person would: change files, then fix every hash."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from arena.bundle.export import MANIFEST, MANIFEST_HASH


def rehash(folder: Path) -> None:
    """Make the manifest list the files' current hashes, and its own hash match."""
    manifest = json.loads((folder / MANIFEST).read_text("utf-8"))
    manifest["files"] = {
        name: hashlib.sha256((folder / name).read_bytes()).hexdigest() for name in manifest["files"]
    }
    (folder / MANIFEST).write_text(json.dumps(manifest, sort_keys=True, indent=1), "utf-8")
    digest = hashlib.sha256((folder / MANIFEST).read_bytes()).hexdigest()
    (folder / MANIFEST_HASH).write_text(f"{digest}  {MANIFEST}\n", "utf-8")
