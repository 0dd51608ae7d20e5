"""SGLang's own answer for the group a DSPARK target's lm_head is sharded on under attention
DP with --enable-dp-lm-head (the oracle side of
graphfit.inputs.sglang_dspark_minimax_tp.lm_group): the target's model class (the
`EntryClass` of its module under sglang/srt/models/, which SGLang's `ModelRegistry` maps the
config's `architectures` to), built on a small config.json whole on the
meta device under the line's published parallel layout (SGLang's argument pipeline resolves
the line, sglang_oracle.resolve), after the worker's bootstrap flags
(`initialize_dp_attention_flags`, layers/dp_attention.py:475; `initialize_moe_config`, as
the scheduler seeds it). What the class built as `lm_head` answers: its `use_attn_tp_group`
and `tp_size` (vocab_parallel_embedding.py:243-263). The DSPARK draft's attach gathers on
that module's group (models/dspark.py:213-218), so the answer is the draft's gather group.

Glue (not SGLang logic): this process's ranks (0); TP / attention-TP / MoE / pipeline groups
that only answer their size and first/last stage; no CUDA side stream (`get_stream` returns
None in the model's module; the stream is used in forward only); the dual-GEMM MLP mode off
(`dual_gemm.is_cuda` False: its probe imports the CUDA driver bindings, absent here; the mode
is a kernel pick of the MLP, not of the lm_head).
"""

from __future__ import annotations

import copy
import importlib
import json
import tempfile
import types
from pathlib import Path
from typing import Any
from unittest import mock

from tests.oracle import sglang_oracle as so
from tests.oracle.config_dirs import content_dir

# model_type of each class the oracle builds; a small config (MoE keys: the Qwen MoE classes)
# (its module under sglang/srt/models/ is named the same)
MODEL_TYPES = {"LlamaForCausalLM": "llama", "Qwen2ForCausalLM": "qwen2",
               "Qwen3ForCausalLM": "qwen3", "Qwen3MoeForCausalLM": "qwen3_moe",
               "Qwen2MoeForCausalLM": "qwen2_moe"}
_BASE: dict[str, Any] = {
    "hidden_size": 256, "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 32,
    "num_hidden_layers": 2, "vocab_size": 1024, "intermediate_size": 256,
    "max_position_embeddings": 4096, "rms_norm_eps": 1e-6, "hidden_act": "silu",
    "torch_dtype": "bfloat16", "num_experts": 8, "num_experts_per_tok": 2,
    "moe_intermediate_size": 128, "decoder_sparse_step": 1, "mlp_only_layers": [],
    "shared_expert_intermediate_size": 128}
_DIRS = tempfile.TemporaryDirectory(prefix="graphfit-dspark-target-head-")


def target_dir(architecture: str, tied: bool) -> str:
    config = {"architectures": [architecture], "model_type": MODEL_TYPES[architecture],
              "tie_word_embeddings": tied, **_BASE}
    return content_dir(Path(_DIRS.name), json.dumps(config, sort_keys=True))


def lm_head(architecture: str, tied: bool, tp: int, dp: int,
            pp: int = 1) -> tuple[bool, int] | None:
    """(`use_attn_tp_group`, `tp_size`) of the lm_head SGLang's own target class builds on a
    line at TP `tp`, attention DP `dp` (--enable-dp-attention --enable-dp-lm-head), PP `pp`
    (this process is the last stage); None where that lm_head is no vocab-parallel module
    (a PPMissingLayer)."""
    path = target_dir(architecture, tied)
    r = so.resolve(["--model-path", path, "--tp-size", str(tp), "--dp-size", str(dp),
                    "--enable-dp-attention", "--enable-dp-lm-head", "--pp-size", str(pp)])
    assert isinstance(r, so.Resolved), r
    with so.sglang_stubs.stubbed(), so.published(r):
        from sglang.srt.runtime_context import get_flags
        from sglang.srt.utils.hf_transformers_utils import get_config

        config = copy.deepcopy(get_config(path, trust_remote_code=False))
        flags = get_flags()
        # process-wide flags (msgspec structs) the bootstrap calls write: restored below
        saved = (flags.dp.enabled,
                 {name: getattr(flags.moe, name) for name in flags.moe.__struct_fields__})
        try:
            return _built(architecture, config, tp, pp)
        finally:
            flags.dp.enabled = saved[0]
            for name, value in saved[1].items():
                setattr(flags.moe, name, value)


def _built(architecture: str, config: Any, tp: int, pp: int) -> tuple[bool, int] | None:
    """`lm_head`'s answer, inside the line's published layout (see `lm_head`)."""
    import sglang.srt.layers.dual_gemm as dual_gemm
    import torch
    from sglang.srt.layers.dp_attention import initialize_dp_attention_flags
    from sglang.srt.layers.moe.utils import initialize_moe_config
    from sglang.srt.runtime_context import get_parallel

    initialize_dp_attention_flags(None)
    initialize_moe_config()
    # the class SGLang's registry maps the name to (the module's EntryClass), imported alone:
    # the registry would import every model module first
    module = importlib.import_module(f"sglang.srt.models.{MODEL_TYPES[architecture]}")
    cls = getattr(module, architecture)
    entries = module.EntryClass if isinstance(module.EntryClass, list) else [module.EntryClass]
    assert cls in entries, f"oracle glue: {architecture} is no EntryClass of {module.__name__}"
    par = get_parallel()

    def group(size: int) -> Any:
        return types.SimpleNamespace(world_size=size, rank_in_group=0, cpu_group=None,
                                     device_group=None)

    stage = types.SimpleNamespace(world_size=pp, rank_in_group=pp - 1,
                                  is_first_rank=pp == 1, is_last_rank=True)
    with par.override(tp_rank=0, attn_tp_rank=0, pp_rank=pp - 1, moe_ep_rank=0,
                      moe_tp_rank=0, tp_group=group(tp),
                      attn_tp_group=group(int(par.attn_tp_size)),
                      moe_tp_group=group(int(par.moe_tp_size)),
                      moe_ep_group=group(int(par.moe_ep_size)), pp_group=stage), \
            torch.device("meta"), \
            mock.patch.object(dual_gemm, "is_cuda", lambda: False), \
            mock.patch.object(module, "get_stream", lambda name: None, create=True):
        try:
            model = cls(config)
        except RuntimeError as exc:  # the glue, not SGLang: fail the oracle itself
            if "has not been written" in str(exc):
                raise AssertionError(f"oracle glue: {exc}") from exc
            raise
    head = model.lm_head
    if not hasattr(head, "use_attn_tp_group"):
        return None
    return bool(head.use_attn_tp_group), int(head.tp_size)
