"""The plain top-level entries of a `torch.save` file, read without torch (issue 23, s70a).

Why: a Kev checkpoint's head.pt carries switches SGLang 0.5.23 refuses (`option_isolation`,
`special_embeddings`: configs/model_config.py:340-344) next to the head's weights, and graphfit
keeps torch out of its readers. A `torch.save` file (zip format, torch >= 1.6) holds one pickle,
`<archive>/data.pkl`, whose tensors are persistent ids into other members. This reader unpickles
that one member with every global replaced by an inert stand-in and every persistent id by
None, so nothing of the file is executed or loaded, and keeps the booleans, numbers and strings
at the top of a dict. Anything else (the legacy format, a damaged file, a pickle that is not a
dict) reads as None: "the file does not say".
"""

from __future__ import annotations

import io
import pickle
import zipfile
from pathlib import Path
from typing import Any

MAX_PICKLE_BYTES = 16 << 20  # a head's metadata pickle is a few KiB; its tensors are elsewhere
PLAIN = (bool, int, float, str, type(None))


class _Inert:
    """What every global in the pickle becomes: callable, and stateless after BUILD."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        del args, kwargs

    def __setstate__(self, state: object) -> None:
        del state


class _Reader(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == ("collections", "OrderedDict"):
            return dict
        return _Inert

    def persistent_load(self, pid: object) -> None:
        del pid


def plain_entries(path: Path) -> dict[str, Any] | None:
    """The plain top-level entries of the dict `torch.save` wrote to `path` (module
    docstring); None where the file is not such a dict."""
    try:
        with zipfile.ZipFile(path) as archive:
            member = next((info for info in archive.infolist()
                           if info.filename.endswith("/data.pkl")
                           or info.filename == "data.pkl"), None)
            if member is None or member.file_size > MAX_PICKLE_BYTES:
                return None
            body = archive.read(member)
        data = _Reader(io.BytesIO(body)).load()
    except Exception:  # any damage reads as "the file does not say"
        return None
    if not isinstance(data, dict):
        return None
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, PLAIN)}


__all__ = ["plain_entries"]
