"""Small MuseGlimmer checkpoints (config.json only) for the oracle: the text-only
`MuseGlimmerForCausalLM` and the multimodal `MuseGlimmerForConditionalGeneration`, which
SGLang parses with its own `MuseGlimmerConfig` (configs/muse_glimmer.py:78-150). Every layer
is typed: SGLang's hybrid-SWA derivation iterates `layer_types` (configs/model_config.py:
1238, 2761-2766) and refuses a config without it."""

from __future__ import annotations

import functools
import json
import tempfile
from pathlib import Path
from typing import Any

TEXT = "MuseGlimmerForCausalLM"
VISION = "MuseGlimmerForConditionalGeneration"
_BASE: dict[str, Any] = {
    "model_type": "muse_glimmer", "hidden_size": 1024, "intermediate_size": 2048,
    "num_hidden_layers": 4, "num_attention_heads": 8, "num_key_value_heads": 2,
    "head_dim": 128, "vocab_size": 32000, "max_position_embeddings": 16384,
    "torch_dtype": "bfloat16", "layer_types": ["sliding_attention", "full_attention"] * 2}
_TOWER = {"hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4,
          "intermediate_size": 512}


@functools.cache
def model_dir(architecture: str) -> str:
    """A directory holding the architecture's config.json (TEXT or VISION)."""
    data = {**_BASE, "architectures": [architecture]}
    if architecture == VISION:
        data["vision_config"] = _TOWER
    directory = Path(tempfile.mkdtemp(prefix="graphfit-sglang-museglimmer-"))
    (directory / "config.json").write_text(json.dumps(data))
    return str(directory)
