"""MoE all-to-all lines on a DENSE model, graphfit against SGLang 0.5.23 (issue 23, s68m).

A dense model's config names no per-token expert count, so SGLang's scheduler never seeds the
MoE flags (managers/scheduler.py:991-1008) and its graph runners, the draft's included, see
MoeA2ABackend.NONE (layers/moe/utils.py:517-521, 541-548), while argument resolution, which
runs before, applies the backend's own rules. The oracle's side already splits the two
(`sglang_oracle.published` seeds the flags only for a MoE model): here the lines are
`sglang_moe_a2a_compare.draw`'s, every one moved onto a Qwen3 (dense) config.json of the same
hidden size and vocabulary, the EAGLE lines' draft kept the Qwen3-MoE one on half of them
(a MoE draft on a dense target builds under none too). Compared: every aspect of
`sglang_moe_a2a_compare.compare`.
"""

from __future__ import annotations

import functools
import json
import tempfile
from pathlib import Path
from typing import Any

from tests.oracle import sglang_moe_a2a_compare as mc
from tests.oracle import sglang_oracle as so

# the moe_a2a_compare model's shapes without its experts (its runners' hidden size and
# vocabulary, sglang_moe_a2a_compare.sglang)
DENSE_CONFIG = {
    "architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 2048,
    "intermediate_size": 6144, "num_attention_heads": 32, "num_key_value_heads": 4,
    "head_dim": 128, "num_hidden_layers": 8, "vocab_size": 151936,
    "max_position_embeddings": 40960, "rms_norm_eps": 1e-6, "rope_theta": 1000000.0,
    "torch_dtype": "bfloat16", "hidden_act": "silu", "tie_word_embeddings": False,
}


@functools.cache
def dense_model_dir() -> str:
    """A Qwen3 (dense) model directory: no `num_experts_per_tok` or sibling."""
    so.oracle()  # the stubs first
    root = Path(tempfile.mkdtemp(prefix="graphfit-sglang-dense-"))
    directory = root / "qwen3"
    directory.mkdir()
    (directory / "config.json").write_text(json.dumps(DENSE_CONFIG))
    return str(directory)


def dense(argv: tuple[str, ...], moe_draft: bool = False) -> tuple[str, ...]:
    """`argv` on the dense model: any `--model-path` replaced; an EAGLE draft on the dense
    model too unless `moe_draft` (then the Qwen3-MoE draft stays)."""
    words = list(argv)
    if "--model-path" in words:
        i = words.index("--model-path")
        del words[i:i + 2]
    if "--speculative-draft-model-path" in words and not moe_draft:
        words[words.index("--speculative-draft-model-path") + 1] = dense_model_dir()
    return (*words, "--model-path", dense_model_dir())


def draw(rng: Any) -> tuple[str, ...]:
    """One line (module docstring): `mc.draw`'s, moved onto the dense model."""
    argv = mc.draw(rng)
    return dense(argv, moe_draft=rng.random() < 0.5)


def verdict(line: tuple[str, ...]) -> tuple[str, str | None]:
    """("agree" / "differ" / "not modelled", the first difference): agree when both refuse,
    or both start and every compared aspect is equal."""
    diffs = mc.compare(line)
    ours = mc.graphfit_cli(line).rejected
    if ours is not None and "not modelled" in ours and mc.sglang(line).rejected is None:
        return "not modelled", None
    found = [d for key, listed in diffs.items() if key != "megamoe_rule" for d in listed]
    return ("agree", None) if not found else ("differ", found[0].detail)


__all__ = ["DENSE_CONFIG", "dense", "dense_model_dir", "draw", "verdict"]
