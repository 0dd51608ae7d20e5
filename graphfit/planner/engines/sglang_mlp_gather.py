"""`require_mlp_tp_gather()` of SGLang 0.5.23 (utils/common.py:4066-4130) on CUDA, one
function for every runner graphfit plans (the decode / verify runners' `global_num_tokens`
rows, the block drafts' gathers, the prefill runner's alignment).

Why its own module: the target runners (graphfit.planner.engines.sglang), the block drafts
under attention DP (sglang_spec_dp) and the prefill runner (sglang_prefill_plan) all read
it, and the last two are imported by the first. A `--moe-dense-tp-size` given on the line
(issue 23 s69c), or forced by a DeepSeek-family prefill-CP override (s68p), turns the MLP
gather off under attention DP with the DP LM head and an all-to-all backend that does not
keep the DP bookkeeping; before s69c only the override's value reached here.
"""

from __future__ import annotations

from typing import Protocol

from graphfit.planner.engines import sglang_moe_a2a, sglang_mori_ep

# the backends that keep the MLP gather's DP bookkeeping whatever --moe-dense-tp-size says
# (utils/common.py:4094-4110; mori under EPv2 or the receive bound: sglang_mori_ep, s70j)
MLP_GATHER_BACKENDS = ("none", "flashinfer", "flashinfer_megamoe")


# the model overrides that drop a dense TP size of 1 (model_overrides/qwen4_exp.py:50-55:
# when the text config names experts, which Qwen4-Exp's config class always does unless a
# checkpoint writes null: Qwen3NextConfig's default num_experts)
DROPS_ONE = frozenset({"Qwen4ExpForConditionalGeneration"})


def resolved_dense_tp(architecture: str | None, value: int | None) -> int | None:
    """`--moe-dense-tp-size` after the model hook (pipeline.py:225), which every later
    reader sees (elastic EP at :299, check_server_args, the gathers): Qwen4-Exp's override
    turns 1 into None (DROPS_ONE). Why: without it graphfit aligned a Qwen4-Exp line's
    ladder to the TP size where SGLang keeps 1 (issue 23 s69c)."""
    if architecture in DROPS_ONE and value == 1:
        return None
    return value


class Gathered(sglang_mori_ep.MoriSwitches, Protocol):
    """What the gather rules read (the target's record, or a draft's view of it): MoRI's
    switches and backend, and the widths below."""

    @property
    def tp_size(self) -> int: ...
    @property
    def attn_dp_size(self) -> int: ...
    @property
    def moe_dense_tp_size(self) -> int | None: ...
    @property
    def enable_dp_lm_head(self) -> bool: ...


def mlp_tp_gather(config: Gathered) -> bool:
    """Only under attention DP, and there always unless `--moe-dense-tp-size` is set, the DP
    LM head is on and a live all-to-all backend outside MLP_GATHER_BACKENDS is configured;
    then the MLP input is gathered only if the dense TP width exceeds the attention TP group
    (`tp_size // num_dp_ranks`, :4125-4128). Without the gather the runners keep one
    `global_num_tokens` row and key by their own batch (decode_cuda_graph_runner.py:741-745,
    870-873). MoRI under EPv2 or with its receive bound keeps the gather too
    (:4098-4123; SGLANG_MORI_EP_V2 / SGLANG_MORI_RECV_BOUND, sglang_mori_ep, issue 23 s70j).
    Elastic EP's expanded world (:4082-4087) is not read: no elastic scale-up line is planned
    (sglang_elastic_ep)."""
    if config.attn_dp_size <= 1:
        return False
    dense = config.moe_dense_tp_size
    live = sglang_moe_a2a.seen_backend(config)  # the draft runners' view: theirs (s69p)
    if dense is None or not config.enable_dp_lm_head or live in MLP_GATHER_BACKENDS:
        return True
    if sglang_mori_ep.keeps_gather(config, live):
        return True
    return dense > config.tp_size // config.attn_dp_size


__all__ = ["DROPS_ONE", "MLP_GATHER_BACKENDS", "mlp_tp_gather", "resolved_dense_tp"]
