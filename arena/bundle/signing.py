"""The rater's signing key: bundles are signed with Ed25519 so others can tell who wrote them.

The key is made on first use and kept in the user's config folder (never in
the ledger, so a ledger can be shared without it), readable by its owner
only. A signature proves that the holder of the key signed this manifest,
and so every file it hashes; it says nothing about who holds the key: give
others your fingerprint (`arena key`) through a channel they trust.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from arena.errors import LedgerError
from arena.paths import default_key_path

SIGNATURE = "manifest.sig"
ALGORITHM = "ed25519"


def fingerprint(public: Ed25519PublicKey) -> str:
    """A short, stable name of a public key: ``ed25519:`` and 32 hex digits of its sha256."""
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return f"{ALGORITHM}:{hashlib.sha256(raw).hexdigest()[:32]}"


def load_or_create_key(path: Path | None = None) -> Ed25519PrivateKey:
    """The rater's private key, made (owner-only, written atomically) when there is none."""
    path = path or default_key_path()
    if path.exists():
        try:
            key = serialization.load_pem_private_key(path.read_bytes(), password=None)
        except ValueError as exc:
            raise LedgerError(f"{path}: not a signing key Arena can read ({exc})") from None
        if not isinstance(key, Ed25519PrivateKey):
            raise LedgerError(f"{path}: not an Ed25519 key")
        return key
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(pem)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(partial, path)
    return key


def sign(manifest: bytes, key: Ed25519PrivateKey) -> bytes:
    """The signature file of a manifest: the public key and the signature, as JSON."""
    public = key.public_key()
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return (
        json.dumps(
            {
                "algorithm": ALGORITHM,
                "public_key": base64.b64encode(raw).decode(),
                "fingerprint": fingerprint(public),
                "signature": base64.b64encode(key.sign(manifest)).decode(),
            },
            sort_keys=True,
            indent=1,
        )
        + "\n"
    ).encode()


@dataclass(frozen=True)
class Signed:
    """What a signature file says: who signed, and whether the signature holds."""

    signer: str | None
    valid: bool
    problem: str = ""


def check(manifest: bytes, signature_file: bytes) -> Signed:
    """Whether ``signature_file`` is a valid Ed25519 signature of ``manifest``."""
    try:
        found = json.loads(signature_file)
        if found.get("algorithm") != ALGORITHM:
            return Signed(None, False, f"{SIGNATURE}: not an {ALGORITHM} signature")
        public = Ed25519PublicKey.from_public_bytes(
            base64.b64decode(found["public_key"], validate=True)
        )
        signature = base64.b64decode(found["signature"], validate=True)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        return Signed(None, False, f"{SIGNATURE}: unreadable ({exc})")
    signer = fingerprint(public)
    if found.get("fingerprint") != signer:
        return Signed(signer, False, f"{SIGNATURE}: the fingerprint does not name its key")
    try:
        public.verify(signature, manifest)
    except InvalidSignature:
        return Signed(
            signer,
            False,
            f"{SIGNATURE}: the signature does not match "
            "manifest.json (changed, or signed by another key)",
        )
    return Signed(signer, True)
