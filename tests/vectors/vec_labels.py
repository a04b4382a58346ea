"""The one derivation every vector part of make_vectors.py shares: ``label_hash(label)`` =
SHA-256 of the UTF-8 label (fixed beacons, secrets and game ids of the demo vectors are such
hashes of readable labels).
"""

from __future__ import annotations

import hashlib


def label_hash(label: str) -> bytes:
    return hashlib.sha256(label.encode()).digest()
