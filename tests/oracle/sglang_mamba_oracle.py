"""SGLang 0.5.23's own mamba-capped request pool, run on CPU: the line is resolved by SGLang's
argument pipeline over a small Qwen3-Next-shaped model directory, the record published, then
`KVCacheConfigurator._handle_max_mamba_cache` sets the state cache size
(kv_cache_configurator.py:3220-3384) and `resolve_max_num_reqs` (:3119-3150) caps the pool by
it, both called on a stand-in holding only the attributes they read."""

from __future__ import annotations

import functools
import json
import tempfile
import types
from pathlib import Path
from typing import Any

from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_stubs

ARCHITECTURE = "Qwen3NextForCausalLM"
CONTEXT = 262144  # the model directory's max_position_embeddings
REST_MEMORY_GB = 1.0e6  # the memory-budget branch then never binds (graphfit leaves it out)


@functools.cache
def model_dir() -> str:
    """A 4-layer Qwen3-Next config.json (HF's qwen3_next: 3 linear-attention layers per full
    one); SGLang's ModelConfig resolves it as hybrid GDN (configs/hybrid_arch.py:55-67)."""
    directory = Path(tempfile.mkdtemp(prefix="graphfit-sglang-qnext-"))
    (directory / "config.json").write_text(json.dumps({
        "architectures": [ARCHITECTURE], "model_type": "qwen3_next", "hidden_size": 2048,
        "intermediate_size": 5632, "num_hidden_layers": 4, "num_attention_heads": 16,
        "num_key_value_heads": 2, "head_dim": 256, "vocab_size": 151936,
        "max_position_embeddings": CONTEXT, "full_attention_interval": 4,
        "linear_conv_kernel_dim": 4, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
        "linear_num_key_heads": 16, "linear_num_value_heads": 32, "num_experts": 8,
        "num_experts_per_tok": 2, "moe_intermediate_size": 512,
        "shared_expert_intermediate_size": 512, "torch_dtype": "bfloat16",
        "rms_norm_eps": 1e-6, "rope_theta": 10000000}))
    return str(directory)


def resolve(argv: tuple[str, ...]) -> so.Resolved | so.Rejected:
    return so.resolve(argv, gpu_mem_gb=80, model=model_dir())


def view(r: so.Resolved) -> Any:
    from sglang.srt.arg_groups.overrides import resolving_view

    return resolving_view(r.record)


def pool(r: so.Resolved, token_capacity: int) -> int:
    """SGLang's request pool per attention-DP group for a KV capacity of `token_capacity`."""
    with sglang_stubs.imports():
        from sglang.srt.mem_cache.kv_cache_configurator import KVCacheConfigurator

    limit = getattr(r.record, "max_total_tokens", None)
    if limit is not None:
        token_capacity = min(token_capacity, int(limit))
    params = types.SimpleNamespace(layers=[0, 1, 2], mamba_cache_per_req=1)
    this = types.SimpleNamespace(
        attn_dp_size=max(1, r.attn_dp_size), pp_size=1,
        mambaish_config=types.SimpleNamespace(mamba2_cache_params=params),
        model_config=types.SimpleNamespace(context_len=CONTEXT, num_hidden_layers=4),
        spec_algorithm=types.SimpleNamespace(is_none=lambda: True),
        hybrid_gdn_config=None, hybrid_kda_config=None, extra_mamba_cache_bytes_per_req=0,
        fused_entry_bytes=lambda kind: None)
    this._calculate_mamba_ratio = functools.partial(
        KVCacheConfigurator._calculate_mamba_ratio, this)
    with so.published(r):
        KVCacheConfigurator._handle_max_mamba_cache(this, REST_MEMORY_GB)
        return int(KVCacheConfigurator.resolve_max_num_reqs(this, token_capacity))


def target_runner(r: so.Resolved, token_capacity: int) -> so.Runner | None:
    """SGLang's decode target runner (capture list, buffers) when its request pool is the
    mamba-capped one (the runner's list is clamped to the pool, base_cuda_graph_runner.py)."""
    capped = pool(r, token_capacity)
    kv_only = so._pool_size
    so._pool_size = lambda _r, _c: capped  # the runner stub sized by SGLang's own pool
    try:
        runs = so.runners(r, token_capacity=token_capacity, hidden_size=2048,
                          vocab_size=151936)
    finally:
        so._pool_size = kv_only
    return runs.get("target")


def track_buffers(r: so.Resolved, max_bs: int) -> dict[str, tuple[tuple[int, ...], str, str]]:
    """The decode target's mamba-tracking inputs: SGLang's own switch (the resolved
    enable_mamba_extra_buffer and no speculation, decode_cuda_graph_runner.py:458-461) fed to
    its own `DecodeInputBuffers.create` and `build_decode_registry` (the shared oracle's
    target runner passes enable_mamba_track=False). name -> (shape, dtype, padding policy)."""
    import torch

    with sglang_stubs.imports():
        from sglang.srt.model_executor.cuda_graph_buffer_registry import build_decode_registry
        from sglang.srt.model_executor.runner_utils.buffers import DecodeInputBuffers
        from sglang.srt.runtime_context import get_exec
        from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    with so.published(r):
        enable = bool(get_exec().mamba.enable_mamba_extra_buffer
                      and SpeculativeAlgorithm.from_string(r.speculative_algorithm).is_none())
        meta = torch.device("meta")
        buffers = DecodeInputBuffers.create(
            device=meta, max_bs=max_bs, max_num_token=max_bs, hidden_size=2048,
            next_token_logits_buffer=torch.zeros((max_bs, 8), device=meta),
            dtype=torch.bfloat16, num_dp_ranks=1, pp_size=1, is_encoder_decoder=False,
            require_mlp_tp_gather=False, seq_len_fill_value=1, encoder_len_fill_value=0,
            num_tokens_per_req=1, cache_loc_dtype=torch.int64, enable_mamba_track=enable)
        registry = build_decode_registry(
            device=meta, max_bs=max_bs, max_num_token=max_bs, seq_len_fill_value=1,
            cache_loc_dtype=torch.int64, require_gathered_buffer=False,
            require_mlp_tp_gather=False, source=buffers, share_pool=False,
            enable_mamba_track=enable)
        out = {}
        for name in registry.slot_names():
            if name.startswith("mamba_track"):
                slot = registry.get_slot(name)
                out[name] = (tuple(int(d) for d in slot.buffer.shape),
                             str(slot.buffer.dtype).removeprefix("torch."),
                             str(slot.padding_policy.value))
        return out
