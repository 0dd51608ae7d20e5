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
* Graph sets: the initial step keeps the start-up runners, captured on the full decode list
  (eagle_worker_v2.py:1387-1407); every other candidate s gets its own target-verify runner
  (width s + 1), draft-decode runner (s > 1, :507) and draft-extend runner (width s + 1),
  built by `build_adaptive_runtime_state` (:1777-1859) under `_override_worker_state`
  (:1909-1976) with the decode list pruned to the sizes whose slot lists s
  (`cuda_graph_bs_for_step`, adaptive_spec_params.py:300-314); an empty pruned list turns
  that state's graphs off (eagle_worker_v2.py:1943-1951).
* Routing: a batch pads to the decode list, then picks the slot with the largest key not
  above it (`_route`, adaptive_spec_params.py:316-335) and runs that slot's current step.
  Every set is proven for every batch up to its ladder top, a superset of what is routed.

The per-step sets are components named `<runner>.s<steps>`; the start-up set keeps the plain
names (`target`, `drafter`, `draft_extend`).
"""

from __future__ import annotations

import bisect
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


def slot_of(size: int, slots: Sequence[tuple[int, tuple[int, ...]]] = DEFAULT_SLOTS
            ) -> tuple[int, ...]:
    """`_find_closest_bs` (adaptive_spec_params.py:332-335): the slot with the largest key
    not above `size` (the first slot below every key)."""
    keys = [k for k, _ in slots]
    idx = bisect.bisect_right(keys, size) - 1
    return slots[max(0, idx)][1]


def pruned_sizes(step: int, sizes: Sequence[int],
                 slots: Sequence[tuple[int, tuple[int, ...]]] = DEFAULT_SLOTS
                 ) -> tuple[int, ...]:
    """`cuda_graph_bs_for_step` (adaptive_spec_params.py:300-314): the decode sizes whose
    slot can run `step`."""
    return tuple(v for v in sorted(sizes) if step in slot_of(v, slots))


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
    """`_init_adaptive_speculative_params` (speculative_hook.py:1392-1427)."""
    why = fallback_reason(config)
    if why is not None:
        raise ConfigError(f"speculative_adaptive: SGLang turns it off ({why}, {PARAMS}) and "
                          f"runs the static parameters; drop it")
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
    """(steps, decode sizes, suffix) per runtime state: the start-up state on the full list,
    each other candidate on its pruned list (eagle_worker_v2.py:1387-1414; adaptive_runtime_
    state.py:104-121 skips the registered start-up step). A state whose pruned list is empty
    captures nothing (eagle_worker_v2.py:1943-1951) and is left out."""
    start = config.num_speculative_tokens
    out = [(start, tuple(declared), "")]
    for step in candidate_steps():
        if step == start:
            continue
        sizes = pruned_sizes(step, declared)
        if sizes:
            out.append((step, sizes, f".s{step}"))
    return out


def ladder_line(config: EngineSettings, declared: tuple[int, ...]) -> tuple[str, str]:
    """The input line the plan shows for adaptive speculation."""
    sets = graph_sets(config, declared)
    parts = [f"{s}{' (start-up)' if not suffix else ''}: {len(sizes)} sizes"
             for s, sizes, suffix in sets]
    return ("speculative_adaptive",
            f"candidate steps {list(candidate_steps())}, one graph set per step: "
            + "; ".join(parts))
