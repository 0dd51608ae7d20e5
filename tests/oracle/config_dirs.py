"""Model directories named by their content (not a test): the oracle's generated lines name
a local directory holding one config.json, and SGLang's answers are cached per line, so the
same config must land in the same directory each time it is drawn.

Imports no graphfit, so the measure scripts that score another checkout (measure_root.py)
may import it before that checkout is on sys.path.
"""

from __future__ import annotations

import hashlib
from pathlib import Path


def content_dir(root: Path, text: str, *, digits: int = 12, prefix: str = "") -> str:
    """`root/<prefix><first digits of text's sha256>` holding `text` as its config.json,
    written on first use (an existing directory already holds that very text)."""
    directory = root / (prefix + hashlib.sha256(text.encode()).hexdigest()[:digits])
    if not directory.exists():
        directory.mkdir()
        (directory / "config.json").write_text(text)
    return str(directory)
