"""SGLang 0.5.23's adaptive speculation (`--speculative-adaptive`) where it stays on.

SGLang keeps one runtime state per candidate step count and swaps between them at run time
(speculative/adaptive_runtime_state.py:10-34, 69-143). What this module models:

* Candidate steps: the union of every batch-size slot's `candidate_steps`
  (`resolve_candidate_steps_from_config`, adaptive_spec_params.py:142-150) of the built-in
  `DEFAULT_ADAPTIVE_CONFIG` (:28-53): slots 1, 8, 32, 64 with [1, 3, 5, 7], [0, 1, 3], [0, 1],
  [0]; union [0, 1, 3, 5, 7]. A custom `--speculative-adaptive-config FILE` is not modelled.
* Resolution (`_init_adaptive_speculative_params`, arg_groups/speculative_hook.py:1392-1427):
  topk 1 when not given, steps = the middle candidate (`candidates[len // 2]`) when not given,
  steps must be a candidate, draft tokens = steps + 1. SGLang's own auto-parameters are
  skipped under adaptive (:1159).
* Graph sets: the initial step keeps the start-up runners (eagle_worker_v2.py:1387-1407);
  every other candidate s gets its own target-verify runner (width s + 1), draft-decode runner
  (s > 1, :507) and draft-extend runner (width s + 1), built by `build_adaptive_runtime_state`
  (:1777-1859) under `_override_worker_state` (:1909-1976). Each captures the full resolved
  decode list: `init_states` prunes `cuda_graph_bs_decode` per step (`cuda_graph_bs_for_step`,
  adaptive_spec_params.py:300-314; eagle_worker_v2.py:1408-1413, 1943-1951), but that field is
  None unless `--cuda-graph-bs-decode` is given (then nothing is pruned), and the runners read
  `cuda_graph_config.decode.bs` (base_cuda_graph_runner.py:77) and its backend
  (cuda_graph_config.py:210-221), which the override leaves as resolved. Observed with SGLang's
  own code by tests/oracle/sglang_adaptive_oracle.py.
* Routing: a batch picks the slot of its (padded) size and runs that slot's current step
  (`_route`, adaptive_spec_params.py:316-335), so any candidate set can meet any batch; every
  set is proven for every batch 1..max_running_requests.

The per-step sets are components named `<runner>.s<steps>`; the start-up set keeps the plain
names (`target`, `drafter`, `draft_extend`).
"""

from __future__ import annotations

from collections.abc import Sequence

from graphfit.planner.core.enums import SpecMethod
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.sglang_spec_runners import auto_multi_layer

PARAMS = "speculative/adaptive_spec_params.py"
# DEFAULT_ADAPTIVE_CONFIG (adaptive_spec_params.py:28-53): batch-size slot -> candidate steps
DEFAULT_SLOTS: tuple[tuple[int, tuple[int, ...]], ...] = (
    (1, (1, 3, 5, 7)), (8, (0, 1, 3)), (32, (0, 1)), (64, (0,)))


def candidate_steps(slots: Sequence[tuple[int, tuple[int, ...]]] = DEFAULT_SLOTS
                    ) -> tuple[int, ...]:
    """Union of every slot's candidates (adaptive_spec_params.py:142-150)."""
    return tuple(sorted({s for _, steps in slots for s in steps}))


def initial_steps(slots: Sequence[tuple[int, tuple[int, ...]]] = DEFAULT_SLOTS) -> int:
    """The middle candidate, SGLang's default steps (speculative_hook.py:1410-1415)."""
    steps = candidate_steps(slots)
    return steps[len(steps) // 2]


def fallback_reason(config: EngineSettings) -> str | None:
    """`adaptive_unsupported_reason` (adaptive_spec_params.py:57-101) on graphfit's fields:
    why SGLang would turn adaptive speculation off; None: it stays on."""
    method = config.spec_method
    if method not in (SpecMethod.EAGLE, SpecMethod.EAGLE3, SpecMethod.MTP) or (
            config.frozen_kv_mtp):
        return "only EAGLE / EAGLE3 are supported (:62-66)"
    if config.speculative_eagle_topk not in (None, 1):
        return "only topk 1 is supported (:76-80)"
    if config.attn_dp_size > 1:
        return "attention DP is not supported (:81-85)"
    if config.multi_layer_eagle or auto_multi_layer(config):  # the resolved switch
        return "multi-layer EAGLE does not implement it (:86-90)"
    if config.two_batch_overlap:
        return "two-batch overlap is not supported (:91-95)"
    return None


def resolve_adaptive(config: EngineSettings) -> dict[str, object]:
    """`_init_adaptive_speculative_params` (speculative_hook.py:1392-1427); the caller has
    turned the option off where SGLang falls back (`fallback_reason`)."""
    steps = candidate_steps()
    given = config.num_speculative_tokens or None
    chosen = initial_steps() if given is None else given
    if chosen not in steps:
        raise ConfigError(f"speculative_num_steps: {chosen} is not an adaptive candidate "
                          f"{list(steps)} (SGLang refuses, speculative_hook.py:1417-1421)")
    return {"num_speculative_tokens": chosen, "speculative_eagle_topk": 1,
            "speculative_num_draft_tokens": chosen + 1}


def graph_sets(config: EngineSettings, declared: tuple[int, ...]
               ) -> list[tuple[int, tuple[int, ...], str]]:
    """(steps, decode sizes, component suffix) per runtime state: the start-up state first
    (plain names), then every other candidate (adaptive_runtime_state.py:104-121 skips the
    registered start-up step), all on the full decode list (module docstring)."""
    start = config.num_speculative_tokens
    return [(start, tuple(declared), ""),
            *((step, tuple(declared), f".s{step}") for step in candidate_steps()
              if step != start)]


def ladder_line(config: EngineSettings, declared: tuple[int, ...]) -> tuple[str, str]:
    """The input line the plan shows for adaptive speculation."""
    sets = graph_sets(config, declared)
    start = sets[0][0]
    return ("speculative_adaptive",
            f"candidate steps {list(candidate_steps())}, start-up {start}: "
            f"{len(sets)} graph sets (target verify width steps + 1, draft runners), "
            f"each on the {len(declared)} decode sizes")
