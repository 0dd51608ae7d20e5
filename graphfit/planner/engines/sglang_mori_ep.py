"""MoRI EP's two environment switches in SGLang 0.5.23 that decide `require_mlp_tp_gather()`
on a mori line (utils/common.py:4066-4130): `SGLANG_MORI_EP_V2` (EPv2) and
`SGLANG_MORI_RECV_BOUND` (the bounded receive buffer).

Why a module of its own: the two switches are read through two different paths (EPv2 is
resolved once by the target's a2a hook and written back to the environment, the receive bound
is read as given), and the runners that read the gather see the target's or the draft's
backend (graphfit.planner.engines.sglang_moe_a2a.for_drafts). Before issue 23 s70j graphfit
read neither, so a mori line under attention DP with the DP LM head and `--moe-dense-tp-size`
planned one `global_num_tokens` row where SGLang keeps one per attention-DP rank.

SGLang (paths under sglang/srt/):

* `require_mlp_tp_gather` returns True for `is_mori_epv2()` (:4098-4107) and for mori with
  `SGLANG_MORI_RECV_BOUND` on (:4113-4123), where plain mori falls through to the dense TP
  width test (:4124-4128).
* `is_mori_epv2()` is mori and `envs.SGLANG_MORI_EP_V2.get()` (layers/moe/utils.py:84-85), an
  EnvBool defaulting to true (environ.py:933); a value it cannot parse reads the default
  (environ.py:67-86, 143-150). `SGLANG_MORI_RECV_BOUND` is an EnvBool defaulting to false
  (environ.py:939).
* The target's a2a hook, when the resolved backend is mori (arg_groups/moe_hook.py:543-544,
  after the Waterfill override), calls `_resolve_mori_ep_v2` (:777-804): false stays EPv1;
  otherwise, where `_mori_epv2_unsupported_reason` names a reason, a variable that is set
  (`is_set`, environ.py:88-89, whatever its value parses to when it is not false) keeps EPv2,
  and an unset one falls back to EPv1 and writes false to the environment (:803), which every
  later reader sees. On CUDA, and on ROCm without AITER, the reason is always there:
  "SGLANG_USE_AITER=0" (:819-820; SGLANG_USE_AITER is an EnvBool off, which graphfit does not
  read), or more than 8 EP ranks before it (:817-818).
* With `SGLANG_USE_AITER` on (issue 23 s70s) the reason can be absent, and an unset variable
  then stays on EPv2: at most 8 EP ranks (:817-818; gfx1250's exception is ROCm's), AITER on
  (:819-820), `MORI_ENABLE_SDMA` off (:821-822), the model's dtype bfloat16 (:826-827) and a
  DeepSeek-V4 class (`is_deepseek_v4`, configs/model_config.py:395-400; moe_hook.py:828-830).
  The instance-connector reason (:823-824) is not read: graphfit plans no such path.
* A line whose target backend is not mori never runs that resolution, so a draft under
  `--speculative-moe-a2a-backend mori` reads the variable as set, true when unset.
"""

from __future__ import annotations

from typing import Protocol

from graphfit.planner.engines import sglang_moe_a2a
from graphfit.planner.engines.sglang_waterfill import resolved_a2a


class MoriSwitches(Protocol):
    """What the two switches' readers need (SglangOptions' fields, the target's backend)."""

    @property
    def moe_a2a_backend(self) -> str: ...
    @property
    def enable_waterfill(self) -> bool: ...
    @property
    def mori_ep_v2(self) -> bool | None: ...
    @property
    def mori_recv_bound(self) -> bool: ...
    @property
    def mori_use_aiter(self) -> bool: ...
    @property
    def mori_sdma(self) -> bool: ...
    @property
    def tp_size(self) -> int: ...
    @property
    def dtype(self) -> str: ...
    @property
    def architecture(self) -> str | None: ...


class MoriMode(MoriSwitches, Protocol):
    """The switches and the line's `--deepep-mode` (what the drafts' dispatcher rules read)."""

    @property
    def deepep_mode(self) -> str: ...


def target_resolves(config: MoriSwitches) -> bool:
    """Whether the target's a2a hook resolves EPv2 (its backend, after Waterfill, is mori:
    moe_hook.py:300, 543-544), whatever the model (the hook runs before the scheduler decides
    whether to seed the MoE flags)."""
    target = sglang_moe_a2a.target_of(config)
    return resolved_a2a(target.moe_a2a_backend or "none",
                        bool(getattr(target, "enable_waterfill", False))) == "mori"


_DEEPSEEK_V4 = ("DeepseekV4ForCausalLM", "DeepseekV4ForCausalLMNextN",
                "DeepseekV4ForCausalLMDSpark")  # is_deepseek_v4, configs/model_config.py:395-400


def epv2_supported(config: MoriSwitches) -> bool:
    """No `_mori_epv2_unsupported_reason` for the target (arg_groups/moe_hook.py:807-831): at
    most 8 EP ranks, SGLANG_USE_AITER on, MORI_ENABLE_SDMA off, a bfloat16 DeepSeek-V4 model.
    Why: with all of them an unset SGLANG_MORI_EP_V2 keeps EPv2, which graphfit read as EPv1
    before issue 23 s70s."""
    target = sglang_moe_a2a.target_of(config)
    return (target.tp_size <= 8 and bool(target.mori_use_aiter) and not target.mori_sdma
            and target.dtype == "bfloat16" and target.architecture in _DEEPSEEK_V4)


def epv2(config: MoriSwitches) -> bool:
    """`envs.SGLANG_MORI_EP_V2.get()` as the graph runners read it: after the target's hook,
    EPv2 where the variable is set to anything but false (`mori_ep_v2` True), or unset with
    no unsupported reason (`epv2_supported`, s70s); without that hook, unless it is set to
    false (module docstring)."""
    if target_resolves(config):
        if config.mori_ep_v2 is None:
            return epv2_supported(config)
        return config.mori_ep_v2
    return config.mori_ep_v2 is not False


def keeps_gather(config: MoriSwitches, live: str) -> bool:
    """Whether a runner whose live backend is `live` keeps the MLP gather's DP bookkeeping for
    MoRI's sake: mori under EPv2 or with the receive bound on (utils/common.py:4098-4123)."""
    return live == "mori" and (epv2(config) or bool(config.mori_recv_bound))


def deepep_mode(config: MoriMode) -> str:
    """`--deepep-mode` after the target's mori hook, as the drafts' dispatchers read it: auto
    becomes normal, and under EPv2 so does low_latency (arg_groups/moe_hook.py:545-561).
    Why: a mori target with `SGLANG_MORI_EP_V2=1 --deepep-mode low_latency` and a Mooncake
    draft meets the draft dispatcher's normal-mode raise, which graphfit planned past
    (issue 23 s70j)."""
    mode = config.deepep_mode
    if not target_resolves(config):
        return mode
    if mode == "auto" or (mode == "low_latency" and epv2(config)):
        return "normal"
    return mode


__all__ = ["MoriMode", "MoriSwitches", "deepep_mode", "epv2", "epv2_supported", "keeps_gather",
           "target_resolves"]
