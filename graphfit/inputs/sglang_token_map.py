"""The length of an SGLang 0.5.23 `--speculative-token-map` (FR-Spec's hot-token ids).

An EAGLE / NEXTN / STANDALONE draft's worker loads the map at start-up (`init_token_map`,
speculative/eagle_worker_v2.py:324-334; standalone_worker_v2.py:128; EAGLE3 ignores it) with
`load_token_map` (speculative/spec_utils.py:792-819): a path that exists is read with
`torch.load(path, weights_only=True)` and turned into a 1-D int64 tensor; any other path is a
hub file (`dirname` the repo id, `basename` the file), downloaded. When the draft's config
names neither `draft_vocab_size` nor `hot_vocab_size`, the draft-extend runner's logits are as
wide as that tensor (`len(hot_token_id)`, eagle_draft_extend_cuda_graph_runner.py:242-245).

graphfit reads a local map with torch, the same call, when torch is installed (the `torch`
extra). A hub path is not downloaded, and without torch nothing is read: the caller keeps the
draft's vocabulary, an upper bound, and says so. A local file torch cannot read, or one that
is not a list of token ids, is refused: SGLang's load fails there and the server does not start.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from graphfit.planner.core.errors import ConfigError

WHERE = "--speculative-token-map"


def torch_available() -> bool:
    return importlib.util.find_spec("torch") is not None


def map_length(path: str) -> int | None:
    """`len(load_token_map(path))` for a local map (module docstring); None when graphfit
    cannot read it here (a hub path, or torch not installed)."""
    file = Path(path)
    if not file.exists() or not torch_available():  # spec_utils.py:793: hub otherwise
        return None
    import torch

    try:
        loaded = torch.load(file, weights_only=True)  # spec_utils.py:818
        ids = torch.tensor(loaded, dtype=torch.int64)  # :819
    except Exception as exc:  # any failure stops SGLang's start-up here
        reason = " ".join(str(exc).split())[:80] or type(exc).__name__
        raise ConfigError(f"{WHERE} {file.name}: SGLang cannot load it as token ids "
                          f"(spec_utils.py:818-819): {reason}") from None
    if ids.dim() != 1 or ids.shape[0] == 0:
        # a 0-d id has no length (hot_token_id.shape[0]); an empty map leaves no logits column
        raise ConfigError(f"{WHERE} {file.name}: a map of {tuple(ids.shape)} ids is not "
                          f"modelled; SGLang uses a non-empty list of token ids "
                          f"(eagle_draft_extend_cuda_graph_runner.py:242-245)")
    return int(ids.shape[0])
