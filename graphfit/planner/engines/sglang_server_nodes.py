"""SGLang 0.5.23's `check_server_args` before its LoRA checks (issue 23, s67b), in its order
(arg_groups/validation_hook.py:172-202):

* `(tp_size x pp_size) % nnodes == 0` unless the line is an elastic-EP scale joiner
  (:177-181);
* `--disable-cuda-graph-padding` with `--enable-torch-compile` (:188-194): no hook changes
  either flag, so the line's own values decide;
* with `--pp-size` > 1, `check_pipeline_parallel_compat` (:119-170): its overlap-schedule
  assert cannot fire (`_pipeline_parallel_overlap_disable`, overrides.py:1623-1628, turns the
  schedule off first for every pipeline-parallel line); DSPARK only on a prefill server and
  not under SGLANG_ENABLE_PP_SPEC; any other algorithm only EAGLE after its renames (NEXTN
  is EAGLE, a Gemma 4 assistant draft FROZEN_KV_MTP, speculative_hook.py:109-119) and not
  multi-layer, then under SGLANG_ENABLE_PP_SPEC no disaggregation, no adaptive speculation
  and no attention DP, else a prefill server only; then `--min-free-slots-delay` unset
  (:165-169, graphfit.inputs.sglang_server_serving; issue 23 s68b);
* data-parallel replicas (`--dp-size` > 1) only on one node (:199-202);
* `--moe-dense-tp-size` None, 1 or the resolved `--tp-size` (:207-211; issue 23 s69c), as
  resolved: a DeepSeek-family prefill-CP override's forced 1 passes.

Why here: graphfit planned every such line, and SGLang refuses each one before it builds a
graph. `--pp-max-micro-batch-size` and the GPU ids (:183-186, 204-205) are flags graphfit
does not read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.planner.core.enums import SpecMethod
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.sglang_spec_runners import auto_multi_layer

HOOK = "arg_groups/validation_hook.py"
# the algorithms SGLang's resolved `speculative_algorithm` reads as EAGLE (NEXTN renamed,
# speculative_hook.py:109-119); FROZEN_KV_MTP excluded by the caller
EAGLE_NAMES = (SpecMethod.EAGLE, SpecMethod.MTP)


def attn_dp_enabled(config: EngineSettings) -> bool:
    """`attn_dp_enabled_of` (runtime_context.py:191-199): `--attn-dp-size` > 1 or an
    elastic-EP scale joiner (model_override_base.py:250-252)."""
    return config.attn_dp_size > 1 or config.ep_join_mode == "scale"


def _refused(said: str, lines: str) -> str:
    return f"{said} (AssertionError, {HOOK}:{lines})"


def nodes_problem(config: EngineSettings) -> str | None:
    """:177-181: the TP x PP ranks split evenly over the nodes."""
    if (config.ep_join_mode != "scale"
            and (config.tp_size * config.pp_size) % config.nnodes):
        return _refused(f"tp_size must be divisible by number of nodes (tp {config.tp_size} x "
                        f"pp {config.pp_size} over --nnodes {config.nnodes})", "177-181")
    return None


def compile_problem(config: EngineSettings) -> str | None:
    """:188-194: padding off beside torch.compile (SGLang's sentence, shortened)."""
    if config.enable_torch_compile and config.cuda_graph_padding is False:
        return _refused("--disable-cuda-graph-padding is incompatible with "
                        "--enable-torch-compile; remove one of them", "188-194")
    return None


def _algorithm(config: EngineSettings) -> str | None:
    """SGLang's resolved algorithm name as the PP check compares it: EAGLE, DSPARK, or
    another name; None without speculation."""
    method = config.spec_method
    if method is SpecMethod.NONE:
        return None
    if method in EAGLE_NAMES and not config.frozen_kv_mtp:
        return "EAGLE"
    return "DSPARK" if method is SpecMethod.DSPARK else method.value.upper()


def pipeline_problem(config: EngineSettings, changes: Mapping[str, Any]) -> str | None:
    """`check_pipeline_parallel_compat` (:119-170) with `--pp-size` > 1; `changes`: the
    engine model's resolved fields (adaptive speculation SGLang turned off, the multi-layer
    switch). Its last assert, `--min-free-slots-delay` unset (:165-169), is read from the
    pasted line (graphfit.inputs.sglang_server_serving; issue 23 s68b)."""
    if config.pp_size <= 1:
        return None
    return (_pipeline_spec_problem(config, changes)
            or dict(config.server_flag_refusals or ()).get("pipeline"))


def _pipeline_spec_problem(config: EngineSettings, changes: Mapping[str, Any]) -> str | None:
    """:124-164, the speculative checks."""
    algorithm = _algorithm(config)
    mode = config.disaggregation_mode
    if algorithm == "DSPARK":
        if mode != "prefill":
            return _refused("Pipeline parallel DSPARK requires disaggregation-mode=prefill",
                            "125-127")
        if config.pp_spec:
            return _refused("SGLANG_ENABLE_PP_SPEC does not support DSPARK PD prefill",
                            "128-130")
        return None
    if algorithm is None:
        return None
    multi_layer = config.multi_layer_eagle or auto_multi_layer(config)
    if algorithm != "EAGLE" or multi_layer:
        return _refused("Pipeline parallelism currently only supports EAGLE (non-multi-layer) "
                        "speculative decoding", "132-138")
    if not config.pp_spec:
        if mode != "prefill":
            return _refused("PP + speculative decoding (MTP) is only supported on prefill "
                            "nodes (disaggregation-mode=prefill)", "161-164")
        return None
    adaptive = changes.get("speculative_adaptive", config.speculative_adaptive)
    for bad, said, lines in (
            (mode != "null", "SGLANG_ENABLE_PP_SPEC is not compatible with "
                             "--disaggregation-mode", "145-147"),
            (bool(adaptive), "SGLANG_ENABLE_PP_SPEC is not compatible with "
                             "--speculative-adaptive", "150-152"),
            (attn_dp_enabled(config), "SGLANG_ENABLE_PP_SPEC is not compatible with "
                                      "attention DP (--attn-dp-size)", "156-159")):
        if bad:
            return _refused(said, lines)
    return None


def replicas_problem(config: EngineSettings) -> str | None:
    """:199-202: data-parallel replicas on one node only."""
    if config.dp_replicas > 1 and config.nnodes != 1:
        return _refused("multi-node data-parallel replicas are not supported; use attention "
                        "DP (--attn-dp-size) across nodes", "199-202")
    return None


def dense_problem(config: EngineSettings) -> str | None:
    """:207-211: the dense MLP's TP size unset, 1 or the whole TP group (issue 23 s69c)."""
    dense = config.moe_dense_tp_size
    if dense not in (None, 1, config.tp_size):
        return _refused(f"moe_dense_tp_size only supports None, 1, or tp_size currently "
                        f"(got {dense}, tp_size {config.tp_size})", "207-211")
    return None


def problem(config: EngineSettings, changes: Mapping[str, Any]) -> str | None:
    """The first of these refusals in SGLang's order, or None."""
    for said in (nodes_problem(config), compile_problem(config),
                 pipeline_problem(config, changes), replicas_problem(config),
                 dense_problem(config)):
        if said:
            return said
    return None


__all__ = ["attn_dp_enabled", "compile_problem", "dense_problem", "nodes_problem",
           "pipeline_problem", "problem", "replicas_problem"]
