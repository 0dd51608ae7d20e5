"""SGLang 0.5.23's MoE all-to-all backends (`--moe-a2a-backend`) as the decode graphs see them.

An all-to-all backend changes no buffer of its own in the decode graph runner: what it changes
is whether the runner keeps *gathered* buffers and so how the captured batch sizes are aligned.
`require_attn_tp_gather()` (utils/common.py:4133-4156) is true for any backend but "none"
unless attention DP already splits the TP group into one-rank attention groups
(`num_dp_ranks < tp_size`, :4152-4153); `require_gathered_buffer()` (:4159-4160) then makes
`get_cuda_graph_batch_size_alignment` (:4168-4180) multiply by the attention-TP width, so the
ladder holds only multiples of attn_tp_size, and the eager path rounds the batch up the same
way (`get_eager_max_batch_size`, :4188-4195). `require_mlp_tp_gather()` (:4066-4130), which
sizes `global_num_tokens_gpu` by the DP ranks (runner/base_runner.py:167-176), stays what
attention DP alone makes it while `--moe-dense-tp-size` is unset (:4090-4092).

Which backend is live: `initialize_moe_config()` (layers/moe/utils.py:479-492) seeds it from the
resolved `moe_a2a_backend`, and the scheduler calls it only for a MoE model
(managers/scheduler.py:1001-1008: a config with `num_experts_per_tok` or a sibling); a dense
model keeps MoeA2ABackend.NONE (utils.py:517-521). `ascend_tp` is resolved to "none"
(arg_groups/moe_hook.py:463-470).
"""

from __future__ import annotations

from typing import Protocol

from graphfit.planner.core.errors import ConfigError

# SGLang's --moe-a2a-backend choices (arg_groups/fields/exec_.py:836-868)
BACKENDS = ("none", "deepep", "mooncake", "nixl", "mori", "ascend_fuseep", "flashinfer",
            "megamoe", "deepep_v2", "ascend_tp", "pplx", "flashinfer_megamoe")
# backends whose prefill graphs stay on by default; any other disables them unless a prefill
# backend is given (cuda_graph_hook.py:223-229, resolved before ascend_tp becomes none)
PREFILL_VALIDATED = ("none", "deepep", "megamoe", "flashinfer")
# graphfit's reason for each backend it refuses: SGLang's own checks on them read things
# graphfit does not know (the GPU, the model class, environment variables)
REFUSED = {
    "mori": "MoRI reads SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK against the dispatch "
            "tokens and mori's receive bound changes the gather rule "
            "(utils/common.py:4113-4124; arg_groups/moe_hook.py:543-570)",
    "pplx": "pplx bounds the decode batch by SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK and "
            "needs a pplx MoE runner (arg_groups/moe_hook.py:575-605)",
    "deepep_v2": "DeepEP v2 needs a registered model class and the deep_gemm runner "
                 "(arg_groups/moe_hook.py:400-447)",
    "flashinfer_megamoe": "FlashInfer MegaMoE needs an SM100 GPU and a validated model class "
                          "(arg_groups/moe_hook.py:315-340)",
    "megamoe": "MegaMoE needs an SM90 or SM100 GPU, no two-batch overlap and a per-model "
               "token budget (arg_groups/mega_moe_hook.py:27-48, 78-80)",
    "flashinfer": "FlashInfer A2A's topology check reads the model class and EP size "
                  "(arg_groups/moe_hook.py:471-485)",
}


class _Parallel(Protocol):
    @property
    def tp_size(self) -> int: ...
    @property
    def attn_dp_size(self) -> int: ...
    @property
    def moe_a2a_backend(self) -> str: ...


def check_backend(backend: str) -> str:
    """The backend name, lower-cased, if SGLang accepts it and graphfit models it."""
    name = backend.strip().lower()
    if name not in BACKENDS:
        raise ConfigError(f"moe_a2a_backend: {backend!r} is not one of {', '.join(BACKENDS)} "
                          f"(arg_groups/fields/exec_.py:836-868)")
    if name in REFUSED:
        raise ConfigError(f"moe_a2a_backend: {name} is not modelled ({REFUSED[name]})")
    return name


def live_backend(backend: str) -> str:
    """The backend the graph runners see: `ascend_tp` resolves to none
    (arg_groups/moe_hook.py:463-470)."""
    return "none" if backend == "ascend_tp" else backend


def gathers_attention(backend: str, tp_size: int, attn_dp_size: int) -> bool:
    """`require_attn_tp_gather()` (utils/common.py:4133-4156) with --moe-dense-tp-size unset
    and --disable-attn-tp-gather off (both refused by graphfit's readers): a live backend
    gathers the attention input unless every attention group is one rank."""
    if live_backend(backend) == "none":
        return False
    if attn_dp_size > 1:  # attn_dp_enabled
        return attn_dp_size < tp_size
    return True


def attn_tp_gather(config: _Parallel) -> bool:
    """`gathers_attention` for a config."""
    return gathers_attention(config.moe_a2a_backend, config.tp_size, config.attn_dp_size)


def check_prefill(backend: str, prefill_backend: str) -> None:
    """DeepEP's breakable prefill buckets are rounded up to multiples of 8 against a default
    max of 2048 tokens read before the memory hook sizes it (cuda_graph_hook.py:315-342):
    not modelled, so refused with the fix."""
    if backend == "deepep" and prefill_backend == "breakable":
        raise ConfigError("moe_a2a_backend: deepep with breakable prefill graphs is not "
                          "modelled (8-aligned buckets, cuda_graph_hook.py:315-342); pass "
                          "--disable-prefill-cuda-graph")


__all__ = ["BACKENDS", "PREFILL_VALIDATED", "REFUSED", "attn_tp_gather", "check_backend",
           "check_prefill", "gathers_attention", "live_backend"]
