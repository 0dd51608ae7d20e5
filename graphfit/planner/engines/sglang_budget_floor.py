"""The other five per-rank token budgets at 0 or below in SGLang 0.5.23 (issue 23, s63k).

SGLang reads SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK,
SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK, SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK,
SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK and
SGLANG_FLASHINFER_NUM_MAX_DISPATCH_TOKENS_PER_RANK as EnvInt, any sign (environ.py:153-158),
and only on its own backend: a line on another backend never reads it, whatever its value
(graphfit used to refuse a negative one on every line). Paths under sglang/srt/:

* Each backend's start-up check compares its need with the value as it is, so a value below
  the need is refused there, as graphfit already restates (megamoe: arg_groups/
  mega_moe_hook.py:161-256, graphfit.planner.engines.sglang_megamoe; mori / pplx:
  moe_hook.py:566-573, 614-621, sglang_moe_a2a.check_dispatch; DeepEP v2: moe_hook.py:
  679-707, sglang_deepep_v2; FlashInfer: moe_hook.py:749-774, sglang_flashinfer_a2a).
  DeepEP v2's decode check runs with 0 tokens when no decode graph is captured
  (:656-666, 698), so a negative value is refused there too; FlashInfer's likewise (:741-747).
* Where the check is skipped (mori / pplx with chunked prefill off or a decode instance,
  moe_hook.py:566, 614; megamoe for a class with a fallback, a prefill instance under PP
  with dynamic chunking, mega_moe_hook.py:78-91, 188-189) or passes with a need of 0, a
  value of 0 or below reaches the layers: megamoe's capture always takes the megamoe path
  (layers/moe/mega_moe.py:172-193) whose DeepGEMM buffer is sized by it (:256-268); MoRI's
  op is made by the mori package with it (token_dispatcher/moriep.py:736-738, 334-470);
  pplx's first dispatch hands it to pplx-kernels' AllToAll (pplx.py:223-225, 249-258)
  before its own assert (:290-295); DeepEP v2's buffer (deepep_v2.py:509-511) and FlashInfer's
  workspace (arg_groups/overrides.py:1886-1894) likewise. That is code outside SGLang (or
  capture-time kernels): graphfit says not modelled.

The target's backend is the one the runners see (`sglang_moe_a2a.runtime_backend`, after
Waterfill); a draft under `--speculative-moe-a2a-backend` mori / pplx / flashinfer reads the
same variable in its own dispatcher (deepep_v2 is refused as a draft backend). A class whose
experts make no dispatcher (sglang_deepep_class.NO_DISPATCHER) never reads it. Checked after
every start-up and model-build rule.
"""

from __future__ import annotations

from graphfit.planner.core.enums import SpecMethod
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines import sglang_moe_a2a
from graphfit.planner.engines.sglang_deepep_class import NO_DISPATCHER

NOT_MODELLED = "not modelled"
# backend -> (the variable, the SglangOptions field, where the layers take it)
READERS: dict[str, tuple[str, str, str]] = {
    "megamoe": ("SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK", "megamoe_tokens_per_rank",
                "layers/moe/mega_moe.py:172-193, 256-268"),
    "mori": ("SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK", "mori_dispatch_tokens_per_rank",
             "token_dispatcher/moriep.py:736-738, 334-470"),
    "pplx": ("SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK", "pplx_dispatch_tokens_per_rank",
             "token_dispatcher/pplx.py:223-225, 249-258"),
    "deepep_v2": ("SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK",
                  "deepep_v2_dispatch_tokens_per_rank", "token_dispatcher/deepep_v2.py:509-511"),
    "flashinfer": ("SGLANG_FLASHINFER_NUM_MAX_DISPATCH_TOKENS_PER_RANK",
                   "flashinfer_dispatch_tokens_per_rank", "arg_groups/overrides.py:1886-1894"),
}


def _readers(config: EngineSettings) -> list[tuple[str, str]]:
    """(backend, whose) of each layer on the line that reads one of the five budgets: the
    target's first, then a draft's given backend."""
    if config.architecture in NO_DISPATCHER:
        return []
    out: list[tuple[str, str]] = []
    target = sglang_moe_a2a.runtime_backend(config)
    if target in READERS:
        out.append((target, "the"))
    draft = config.speculative_moe_a2a_backend
    drafted = config.spec_method not in (SpecMethod.NONE, SpecMethod.NGRAM, SpecMethod.NGRAM_GPU)
    # a dense target's draft builds under none too (sglang_moe_a2a.dense; s68m)
    drafted = drafted and not sglang_moe_a2a.dense(config)
    if drafted and draft in READERS and draft != target:
        out.append((draft, "the draft's"))
    return out


def problem(config: EngineSettings) -> str | None:
    """`not modelled` for a budget of 0 or below that passed the start-up checks (module
    docstring), or None."""
    for backend, whose in _readers(config):
        name, field, site = READERS[backend]
        tokens = getattr(config, field)
        if tokens is None or tokens > 0:  # FlashInfer unset: sized from the chunk
            continue
        # one CLI error line (<= 200 characters)
        return (f"{name}={tokens}: {NOT_MODELLED}: {whose} {backend} layers get it past "
                f"the start-up checks ({site})")
    return None


def check(config: EngineSettings) -> None:
    """Raise `problem`'s reason."""
    said = problem(config)
    if said:
        raise ConfigError(said)


__all__ = ["READERS", "check", "problem"]
