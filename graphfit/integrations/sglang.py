"""graphfit in front of SGLang: `python -m graphfit.integrations.sglang <sglang args>`.

Runs SGLang 0.5.23's own start-up up to its server arguments, exactly as
`python -m sglang.launch_server` does (sglang/launch_server.py:70-87: `load_plugins()`, then
`prepare_server_args(sys.argv[1:])`, then `run_server(server_args)`), checks those arguments
with graphfit, and only then starts SGLang:

    python -m graphfit.integrations.sglang --model-path M --max-running-requests 64 \\
        --speculative-algorithm EAGLE --speculative-num-steps 3 ...

The check reads the `ServerArgs` SGLang built (`EngineConfig.from_sglang`), plans it, and
verifies the buffers at the rows SGLang's code allocates against every batch SGLang's code
runs (`Plan.verify_engine`). It prints one line: SAFE with the check count, or the first
buffer and batch that would go short. GRAPHFIT_SGLANG=check (the default here) exits 2
instead of starting when unsafe; =warn starts anyway.

SGLang 0.5.23's own plugin mechanism is used too: installing graphfit registers
`graphfit = graphfit.integrations.sglang:register` in the `sglang.srt.plugins` entry-point
group, which `load_plugins()` runs in every SGLang process before it builds its ServerArgs
(srt/plugins/__init__.py:29, 103-144; entrypoints/engine.py:284-286 says so for the Python
Engine). Off unless GRAPHFIT_SGLANG=check or warn, `register` adds an AFTER hook on
`prepare_server_args` (srt/server_args.py:668-720) through SGLang's `HookRegistry`
(srt/plugins/hook_registry.py:84-143, 350-371; the patch is propagated to the modules that
imported the function by name, :320), so `sglang serve` and `python -m sglang.launch_server`
check their arguments as they are parsed. (`ServerArgs.__post_init__` cannot be hooked:
ServerArgs is a msgspec Struct, which binds `__post_init__` when the class is made;
`sglang.Engine(**kwargs)` builds ServerArgs without `prepare_server_args` and is not covered.)
Arguments that leave max_running_requests to the scheduler cannot be checked: the plugin
says so in one line and lets SGLang start.

The plugin also checks the live tensors, in the scheduler's process (which runs
`load_plugins()` too, managers/scheduler.py:6323): a BEFORE hook on each graph runner's
`capture` (the decode runner's, decode_cuda_graph_runner.py:600, and the EAGLE draft and
draft-extend runners', eagle_draft_cuda_graph_runner.py:294 and
eagle_draft_extend_cuda_graph_runner.py:303; each allocated `self.buffers` just before)
reads that runner's tensors -- every buffer graphfit models for its component, with its
shape and dtype -- and verifies their rows against every batch SGLang's code runs
(`check_live_runners`), refusing before the first capture in check mode. DSPARK's compact
verify epilogue and folded sampler (confidence outputs included) are read from the model
runners' capture hooks (graphfit.integrations.sglang_dspark_live). Nothing of SGLang is
imported at graphfit's import time.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graphfit.integrations.sglang_platform import UNRUN, server_generation
from graphfit.planner.config import EngineConfig
from graphfit.planner.core.errors import ConfigError, GraphfitError
from graphfit.planner.core.verify import Verification
from graphfit.planner.plan import BufferPlan, Plan, plan

ENV = "GRAPHFIT_SGLANG"
HOOK_TARGET = "sglang.srt.server_args.prepare_server_args"
logger = logging.getLogger("graphfit.integrations.sglang")
_launcher_active = False  # the launcher checks itself: the plugin then stays out


class UnsafeServerArgsError(GraphfitError):
    """GRAPHFIT_SGLANG=check: SGLang's buffers would go short on a batch it runs."""


@dataclass(frozen=True)
class SglangCheck:
    plan: Plan
    verification: Verification
    unrun: str = ""  # the rules not run for want of the GPU's generation (s50l)
    # what the check could not judge, as a pasted line's notes say it (hub ids: the
    # processor's tokenizer path, the target's and the draft's quantization file search;
    # graphfit.inputs.sglang_live.notes, issue 23 s63c); logged after the line
    notes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.verification.ok

    def line(self) -> str:
        v = self.verification
        tail = f"; {self.unrun}" if self.unrun else ""
        if v.ok:
            return f"graphfit: SAFE: every buffer x every reachable batch, {v.checked} checks " \
                   f"(SGLang {self.plan.engine_version.split()[-1]}){tail}"
        first = v.ranges()[0].describe() if v.ranges() else v.fill_ranges[0].describe()
        return f"graphfit: UNSAFE: {first}{tail}"


def engine_capacities(p: Plan) -> dict[str, int]:
    """The rows SGLang's own code allocates for each buffer (graphfit's model of it)."""
    return {b.key: b.reference_capacity for c in p.components.values() for b in c.buffers}


def environment_overrides(overrides: Mapping[str, Any],
                          environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """`overrides` plus what SGLang reads from the server's environment and graphfit models
    (`SGLANG_ENABLE_SINGLE_CG_DRAFT` -> `single_cg_draft`, parsed as SGLang's EnvBool does:
    graphfit.inputs.environment.sglang_environment), read here at the boundary because the
    planner never reads os.environ; a value the caller passes wins."""
    from graphfit.inputs.environment import sglang_environment

    found = {s.field: s.value
             for s in sglang_environment(os.environ if environ is None else environ)}
    return {**found, **overrides}


def live_overrides(server_args: Any, overrides: Mapping[str, Any],
                   environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """What the running server reads beside its ServerArgs, as a pasted line with the same
    `VAR=value` prefix reads it: the model directories the ServerArgs name (the draft's head
    kind and geometry, DSPARK's `sample_from_anchor`, the draft's and the target's widths,
    the target's derived context length and its checks: graphfit.inputs.sglang_live),
    post-capture KV sizing's inputs (the device, the transfer backend, PP dynamic chunking,
    --max-prefill-tokens, unified memory with the model's hybrid-SWA layout, and the rest
    the predicate reads: graphfit.inputs.sglang_live_post_capture), the mamba cap, the EPLB
    fields and Inkling's FULL prefill default (graphfit.inputs.sglang_live_flags) and the
    process environment (`environment_overrides`, with MOONCAKE_PROTOCOL); a value the
    caller passes wins. A
    `gpu_memory_gb` naming a GPU ("B200") is its memory in GiB, and runs SGLang's SM100+
    linear-attention kernel checks on the ServerArgs (graphfit.inputs.sglang_linear_sm100.
    live, attention_hook.py:334-377) and sets the page size Qwen3.5 / Qwen4-Exp's SM100
    override writes (graphfit.inputs.sglang_qwen3_5_page.live), and the generation fields
    (sm90, sm100, gpu_capability) a pasted line's GPU name sets. A figure in GiB tells no
    generation: those rules then run only where the caller gives the capability SGLang's
    probes read from the device (utils/common.py:274-313), `gpu_capability=major * 10 +
    minor` (from `torch.cuda.get_device_capability()` in the server's process) or
    `sm100=True`; with neither they are not run (the ServerArgs carry no device facts).
    Inside the server (the plugin's hook, the launcher) graphfit asks SGLang's own platform
    probes for them (graphfit.integrations.sglang_platform, issue 23 s50l)."""
    from graphfit.inputs import (
        sglang_beam_build,
        sglang_live,
        sglang_live_flags,
        sglang_live_graphless,
        sglang_live_post_capture,
        sglang_minimax_target,
        sglang_quant_live,
        sglang_qwen3_5_page,
        sglang_qwen_moe_experts,
    )
    from graphfit.inputs.gpus import gpu_memory_gb, gpu_name
    from graphfit.inputs.sglang_linear_sm100 import live
    from graphfit.inputs.sglang_live import config_settings, values_of

    post = sglang_live_post_capture.settings(server_args)
    flags = sglang_live_flags.settings(server_args, post.get("architecture"))
    gpu = overrides.get("gpu_memory_gb")
    stand_in = _stand_in(overrides)
    page: dict[str, Any] = {}
    if gpu_name(gpu):  # a named GPU: its GiB
        overrides = {**overrides, "gpu_memory_gb": gpu_memory_gb("gpu_memory_gb", gpu)}
    generation: dict[str, Any] = {}
    if stand_in:  # the SM100+ linear-attention kernel checks, Qwen3.5 / Qwen4-Exp's page
        live(server_args, post.get("architecture"), stand_in)
        written = sglang_qwen3_5_page.live(server_args, stand_in)
        page = {} if written is None else {"page_size": written}
        generation = _generation(stand_in)
    # a hub-id model's tokenizer path for its multimodal processor, judged on the ModelConfig
    # SGLang's resolution memoized (graphfit.inputs.sglang_live.processor, issue 23 s66c)
    sglang_live.processor(server_args)
    # the found quantization file's class on the server's GPU, as a pasted line's
    # --model-path gets it (graphfit.inputs.sglang_quant_live, issue 23 s54q)
    sglang_quant_live.check(server_args,
                            overrides.get("gpu_capability", generation.get("gpu_capability")))
    read = {**config_settings(server_args, os.environ if environ is None else environ),
            **post, **flags, **page}
    # a MiniMax-M3 target judged on the stand-in's platform, CUDA where none is named, with
    # the server's SGLANG_ENABLE_JIT_DEEPGEMM (issue 23 s53m; s52e's settle)
    sglang_minimax_target.settle(values_of(server_args),
                                 os.environ if environ is None else environ, stand_in)
    sglang_beam_build.line(values_of(server_args))  # Beam's class refusals (issue 23 s69n)
    sglang_qwen_moe_experts.line(values_of(server_args))  # TP above the expert count (s69n)
    # torch_native / flex_attention: no graphs, the flags' graphs in the default fraction
    # (graphfit.inputs.sglang_live_graphless)
    return {**read, **sglang_live_graphless.settings(server_args, read), **generation,
            **environment_overrides(overrides, environ)}


def _stand_in(overrides: Mapping[str, Any]) -> str:
    """The GPU standing for the server's generation: a named GPU (issue 23 s45m), else a
    stand-in of the capability the caller gives (issue 23 s47l: `gpu_capability=`, or
    `sm100=True`); "" when neither tells one."""
    from graphfit.inputs.gpus import gpu_name, gpu_of_capability

    gpu = overrides.get("gpu_memory_gb")
    return str(gpu) if gpu_name(gpu) else gpu_of_capability(
        overrides.get("gpu_capability"), overrides.get("sm100"))


def _generation(stand_in: str) -> dict[str, Any]:
    """SglangOptions.sm90 / sm100 / gpu_capability / mnnvl_fabric of the GPU standing for the
    server's, as a pasted line's `--gpu-memory-gb <name>` sets them (graphfit.cli.options.
    _gpu); the caller's own values win (they come later)."""
    from graphfit.inputs.gpus import (
        gpu_capability,
        gpu_mnnvl_fabric,
        gpu_rocm,
        gpu_sm90,
        gpu_sm100,
    )

    found = {"sm90": gpu_sm90(stand_in), "sm100": gpu_sm100(stand_in),
             "gpu_capability": gpu_capability(stand_in),
             "mnnvl_fabric": gpu_mnnvl_fabric(stand_in),  # a GB200's fabric (s55k)
             "gpu_rocm": gpu_rocm(stand_in)}  # an AMD name's platform (s68l)
    return {field: value for field, value in found.items() if value is not None}


def from_sglang(server_args: Any, environ: Mapping[str, str] | None = None,
                **overrides: Any) -> EngineConfig:
    """The config of an SGLang server, for an engine developer embedding graphfit: its
    `ServerArgs` (`EngineConfig.from_sglang`, which reads them alone) plus what the running
    server reads beside them (`live_overrides`): the model directories they name -- the
    draft's config.json, the target's, UNO's `adapter_config.json` at `uno_lora_path`
    (graphfit.inputs.sglang_uno_moe: an adapter on a MoE model's experts is refused with the
    reason a pasted line gets, as SGLang's LoRA manager refuses it at load,
    lora/backend/uno_cublas_backend.py:100-120) -- and the process environment
    (`environ`, default os.environ). A value the caller passes wins; ConfigError where the
    server would not start or graphfit cannot model it."""
    return EngineConfig.from_sglang(server_args,
                                    **live_overrides(server_args, overrides, environ))


def check_server_args(server_args: Any, **overrides: Any) -> SglangCheck:
    """Plan SGLang's ServerArgs and verify the engine's own sizing (ConfigError when the
    arguments leave a needed value to later start-up, e.g. max_running_requests). The
    server's environment switches and model directories count too (`from_sglang`). Without
    a GPU name or capability the check's line says which GPU-generation rules were not run
    (sglang_platform.UNRUN)."""
    from graphfit.inputs.sglang_live import notes

    p = plan(from_sglang(server_args, **overrides))
    return SglangCheck(p, p.verify(engine_capacities(p)), "" if _stand_in(overrides) else UNRUN,
                       tuple(notes(server_args)))


# SGLang's graph runners (0.5.23) -> the graphfit component whose buffers they hold, and the
# runner class whose `capture` the plugin checks before (each allocates `self.buffers` in its
# __init__ and captures from there: decode_cuda_graph_runner.py:470, 600;
# eagle_draft_cuda_graph_runner.py:267, 294; eagle_draft_extend_cuda_graph_runner.py:270, 303)
RUNNERS: Mapping[str, tuple[str, str]] = {
    "target": ("target", "sglang.srt.model_executor.runner.decode_cuda_graph_runner."
               "DecodeCudaGraphRunner"),
    "draft": ("drafter", "sglang.srt.speculative.eagle_draft_cuda_graph_runner."
              "EAGLEDraftCudaGraphRunner"),
    "draft_extend": ("draft_extend", "sglang.srt.speculative."
                     "eagle_draft_extend_cuda_graph_runner.EAGLEDraftExtendCudaGraphRunner"),
}
# runners whose `capture` is DecodeCudaGraphRunner's own (hooked through it): named here so
# that a runner is checked against its own component, never the target's (the multi-layer
# EAGLE per-step runner gets the composite's shared `.buffers` before it captures,
# multi_layer_eagle_draft_extend_cuda_graph_runner.py:200-205; frozen_kv_mtp_cuda_graph_
# runner.py:176-188)
INHERITED_CAPTURE: Mapping[str, tuple[str, str]] = {
    "mtp_draft_extend": ("mtp_draft_extend", "sglang.srt.speculative."
                         "multi_layer_eagle_draft_extend_cuda_graph_runner."
                         "MultiLayerEagleDraftExtendCudaGraphRunner"),
    "frozen_drafter": ("frozen_drafter", "sglang.srt.speculative."
                       "frozen_kv_mtp_cuda_graph_runner.FrozenKVMTPCudaGraphRunner"),
}
# runners of SGLang's own DecodeCudaGraphRunner class built on a draft model runner: told from
# the target's by their model runner (`is_draft_worker` and the speculative algorithm). DFLASH's
# draft TpModelWorker captures its graphs with that class (dflash_worker_v2.py:748-750 ->
# model_runner.init_cuda_graphs -> capture_decode_graph), after putting its in-graph greedy
# sampler in the model runner's capture_tail_hooks (:741-747, draft_worker_common.py:148-159);
# the DSPARK draft's own runner likewise (dspark_worker_v2.py:581-621), checked against its
# component (graphfit.planner.engines.sglang_dspark), never the target's
DRAFT_MODEL_RUNNERS: Mapping[str, tuple[str, str]] = {
    "dflash_draft": ("dflash_draft", "sglang.srt.model_executor.runner."
                     "decode_cuda_graph_runner.DecodeCudaGraphRunner"),
    "dspark_draft": ("dspark_draft", "sglang.srt.model_executor.runner."
                     "decode_cuda_graph_runner.DecodeCudaGraphRunner"),
    # UNO's tree-draft runner: an UnoDecodeCudaGraphRunner (a DecodeCudaGraphRunner) of width
    # F on the TARGET's model runner, told from the target by `_tree_draft_mode`
    # (speculative/uno_cuda_graph_runner.py:32-49; graphfit.planner.engines.sglang_uno)
    "uno_draft": ("uno_draft", "sglang.srt.model_executor.runner."
                  "decode_cuda_graph_runner.DecodeCudaGraphRunner"),
}
ALL_RUNNERS: Mapping[str, tuple[str, str]] = {**RUNNERS, **INHERITED_CAPTURE}
CHECKED_RUNNERS: Mapping[str, tuple[str, str]] = {**ALL_RUNNERS, **DRAFT_MODEL_RUNNERS}
SAMPLER_PREFIX = "sampler_"  # the DFLASH sampler's tensors in component dflash_draft
_RUNNER_TENSORS = ("temperatures", "top_ks")  # runner attributes outside `.buffers`


@dataclass(frozen=True)
class LiveTensor:
    key: str  # graphfit's "component.buffer"
    attr: str  # where SGLang keeps it, e.g. "draft.buffers.positions"
    shape: tuple[int, ...]
    dtype: str


@dataclass(frozen=True)
class SglangLiveCheck:
    """The verdict on SGLang's live runner buffers (rows read from the tensors)."""

    plan: Plan
    live: Mapping[str, LiveTensor]
    verification: Verification

    @property
    def ok(self) -> bool:
        return self.verification.ok

    def line(self) -> str:
        v = self.verification
        version = f"SGLang {self.plan.engine_version.split()[-1]}"
        if v.ok:
            return (f"graphfit: SAFE: {len(self.live)} live buffers x every reachable batch, "
                    f"{v.checked} checks ({version})")
        first = v.ranges()[0] if v.ranges() else None
        if first is None:
            return f"graphfit: UNSAFE: {v.fill_ranges[0].describe()} ({version})"
        t = self.live.get(first.key)
        where = f" [SGLang {t.attr}: {list(t.shape)} {t.dtype}]" if t else ""
        return f"graphfit: UNSAFE: {first.describe()}{where} ({version})"


def _live_tensors(name: str, runner: Any) -> dict[str, tuple[str, Any]]:
    """buffer name -> (SGLang attribute path, tensor) of one graph runner (or of its
    `ForwardInputBuffers` given directly)."""
    holder = getattr(runner, "buffers", None)
    prefix = f"{name}.buffers." if holder is not None else f"{name}."
    holder = runner if holder is None else holder
    found = {attr: (f"{prefix}{attr}", value) for attr, value in vars(holder).items()
             if hasattr(value, "shape") and hasattr(value, "dtype") and value.dim() > 0}
    for attr in _RUNNER_TENSORS:
        value = getattr(runner, attr, None)
        if value is not None and hasattr(value, "shape") and attr not in found:
            found[attr] = (f"{name}.{attr}", value)
    # the two-batch-overlap plugin every runner builds (base_runner.py:245: self.tbo_plugin)
    plugin = getattr(runner, "tbo_plugin", None)
    value = getattr(plugin, "_tbo_children_num_token_non_padded", None)
    if value is not None and hasattr(value, "shape"):
        found["tbo_children_num_token_non_padded"] = (
            f"{name}.tbo_plugin._tbo_children_num_token_non_padded", value)
    if name == "dflash_draft":
        found.update(_sampler_tensors(name, runner))
    if name == "dspark_draft":  # the folded sampler, its confidence outputs included
        from graphfit.integrations.sglang_dspark_live import sampler_tensors

        found.update(sampler_tensors(name, runner))
    return found


def _draft_sampler(runner: Any) -> Any:
    """DFLASH's `_DflashDraftSampler` (dflash_worker_v2.py:135-178) of a draft runner: the
    object SGLang's capture hook closes over (draft_worker_common.py:148-159), found in the
    runner's model_runner.capture_tail_hooks (model_runner.py:396); None when there is none
    (SGLang then samples outside the graph)."""
    hooks = getattr(getattr(runner, "model_runner", None), "capture_tail_hooks", None) or ()
    for hook in hooks:
        for cell in getattr(hook, "__closure__", None) or ():
            try:
                value = cell.cell_contents
            except ValueError:  # an empty cell
                continue
            if hasattr(value, "out") and hasattr(value, "block_size"):
                return value
    return None


def _sampler_tensors(name: str, runner: Any) -> dict[str, tuple[str, Any]]:
    """The sampler's static buffers as component buffers `sampler_<attr>` (its borrowed LM
    head `weight` is the target's, not a graph buffer; a LiLiCorr sampler's token table is
    `sampler_token_table`), and a LiLiCorr sampler's head's weight-sized buffers
    (`_head_tensors`)."""
    sampler = _draft_sampler(runner)
    if sampler is None:
        return {}
    where = f"{name}.model_runner.capture_tail_hooks[sampler]"
    found = {f"{SAMPLER_PREFIX}{attr}": (f"{where}.{attr}", value)
             for attr, value in vars(sampler).items()
             if attr != "weight" and hasattr(value, "shape") and hasattr(value, "dtype")
             and value.dim() > 0}
    return {**found, **_head_tensors(f"{where}.head", getattr(sampler, "head", None))}


# a LiLiCorr head's inference buffers (`materialize_inference_buffers`, models/lilicorr.py:
# 245-281) -> graphfit's names (graphfit.planner.engines.sglang_lilicorr_weights)
HEAD_TENSORS = {"_attn_bias": "lilicorr_attn_bias",
                "_fused_edge_weight": "lilicorr_fused_edge_weight",
                "_fused_edge_bias": "lilicorr_fused_edge_bias",
                "_rank_frac_col": "lilicorr_rank_frac_col",
                "_is_top1_col": "lilicorr_is_top1_col"}
FACTOR_SPLITS = ("self", "anchor", "cross")  # `_factor_input_splits`, :264-270


def _head_tensors(where: str, head: Any) -> dict[str, tuple[str, Any]]:
    """The LiLiCorr head's weight-sized tensors a folded `LiLiCorrDraftSampler` holds as
    `head` (lilicorr_utils.py:251); none for another sampler."""
    if head is None:
        return {}
    found = {ours: (f"{where}.{attr}", getattr(head, attr))
             for attr, ours in HEAD_TENSORS.items()
             if hasattr(getattr(head, attr, None), "shape")}
    splits = getattr(head, "_factor_input_splits", None)
    if isinstance(splits, tuple):
        for i, (part, tensor) in enumerate(zip(FACTOR_SPLITS, splits, strict=False)):
            if hasattr(tensor, "shape"):
                found[f"lilicorr_factor_input_{part}"] = (
                    f"{where}._factor_input_splits[{i}]", tensor)
    return found


def _is_dflash_draft(runner: Any) -> bool:
    """A DecodeCudaGraphRunner on DFLASH's draft model runner (`is_draft_worker`, algorithm
    DFLASH: model_runner.py:876-895, speculative/spec_info.py:135-136)."""
    mr = getattr(runner, "model_runner", None)
    algo = getattr(mr, "spec_algorithm", None)
    is_dflash = getattr(algo, "is_dflash", None)
    return bool(getattr(mr, "is_draft_worker", False)) and callable(is_dflash) \
        and bool(is_dflash())


def _state_component(p: Plan, component: str, runner: Any) -> str:
    """Under adaptive speculation the runner of another runtime state than the start-up one
    holds that state's component (`target.s7`): every runner keeps the step count it was
    built for (decode_cuda_graph_runner.py:344-348, eagle_draft_cuda_graph_runner.py:130-134,
    eagle_draft_extend_cuda_graph_runner.py:127-131; graphfit.planner.engines.
    sglang_adaptive)."""
    steps = getattr(runner, "speculative_num_steps", None)
    if (not p.config.speculative_adaptive or type(steps) is not int
            or steps == p.config.num_speculative_tokens):
        return component
    return f"{component}.s{steps}"


def check_live_runners(server_args: Any, runners: Mapping[str, Any],
                       **overrides: Any) -> SglangLiveCheck:
    """Plan SGLang's ServerArgs and verify the rows of the live runners' tensors.

    `runners` maps SGLang's runner names ("target", "draft", "draft_extend",
    "mtp_draft_extend", "frozen_drafter", "dspark_draft", "uno_draft" (UNO's tree draft),
    "dflash_draft": DFLASH's draft
    runner, its sampler's buffers read from its model runner's capture hook) to the runner
    objects (their `.buffers`) or to their input buffers. Each tensor that is a buffer of the
    runner's component counts with the rows it has (along the buffer's axis); buffers of
    runners not given count at the rows SGLang's code allocates. DSPARK's objects outside
    `.buffers` count too, read from the worker's hooks in the runners' model runners
    (graphfit.integrations.sglang_dspark_live): the compact verify epilogue's tensors (as
    `target_compact`, from the target runner) and the folded sampler's, its confidence
    outputs included (from "dspark_draft").
    """
    p = plan(from_sglang(server_args, **overrides))
    capacities = engine_capacities(p)
    live: dict[str, LiveTensor] = {}
    for name, runner in runners.items():
        if name not in CHECKED_RUNNERS:
            raise ConfigError(f"runners: {name!r} is not one of {', '.join(CHECKED_RUNNERS)}")
        component = p.components.get(_state_component(p, CHECKED_RUNNERS[name][0], runner))
        if component is None:
            continue
        tensors = _live_tensors(name, runner)
        found = [(buf, tensors[buf.name]) for buf in component.buffers if buf.name in tensors]
        if name == "target":  # DSPARK's compact verify epilogue, held by its model runner
            found += _epilogue_hits(p, name, runner)
        for buf, (attr, tensor) in found:
            shape = tuple(int(d) for d in tensor.shape)
            dim = buf.axis_dim  # after the leading dims, fixed-size buffers' too
            capacities[buf.key] = shape[dim] if dim < len(shape) else 0
            if buf.key in _WIDTH_CHECKED and _narrow(shape[dim + 1:], buf):
                capacities[buf.key] = 0  # no row holds what a graph writes into one
            live[buf.key] = LiveTensor(buf.key, attr, shape,
                                       str(tensor.dtype).removeprefix("torch."))
    return SglangLiveCheck(p, live, p.verify(capacities))


# DSPARK's epilogue buffers sized by gamma / the verify window (dspark_verify.py:606-656) and
# the confidence outputs [max_bs, gamma] (dspark_draft_sampler.py:69-81), read from the
# worker's objects (graphfit.integrations.sglang_dspark_live): a row narrower than the plan's
# is audited too, since the graph tail writes whole rows `[:bs]` (dspark_draft_sampler.py:
# 167-172, dspark_verify.py:1003-1040). The strided logits / hidden and the step logits
# are left out: SGLang sizes their width from the tensors it copies in (:971-990,
# dspark_draft_sampler.py:125-140), so their width is no capacity
_WIDTH_CHECKED = ("target_compact.out_tokens", "dspark_draft.sampler_confidence_out",
                  "dspark_draft.sampler_confidence_raw_out")


def _narrow(trailing: tuple[int, ...], buf: BufferPlan) -> bool:
    """Whether a live tensor's rows are narrower than the plan's (`spec.trailing`)."""
    want = buf.spec.trailing
    return len(trailing) != len(want) or any(a < b for a, b in zip(trailing, want, strict=True))


def _epilogue_hits(p: Plan, name: str, runner: Any) -> list[tuple[BufferPlan, tuple[str, Any]]]:
    """The live `DsparkVerifyEpilogue` tensors (graphfit.integrations.sglang_dspark_live)
    paired with the plan's `target_compact` buffers; its draft tokens, when the plan files
    them as the folded sampler's `out` (one tensor in SGLang, dspark_worker_v2.py:696-711),
    with `dspark_draft.sampler_out`."""
    from graphfit.integrations.sglang_dspark_live import epilogue_tensors
    from graphfit.planner.engines.sglang_dspark_epilogue import COMPONENT

    keyed = p.keyed.get(COMPONENT)
    tensors = epilogue_tensors(name, runner)
    if keyed is None or not tensors:
        return []
    hits = [(buf, tensors[buf.name]) for buf in keyed.buffers if buf.name in tensors]
    draft = p.components.get(DRAFT_MODEL_RUNNERS["dspark_draft"][0])
    if "draft_tokens" in tensors and draft is not None \
            and all(buf.name != "draft_tokens" for buf in keyed.buffers):
        hits += [(buf, tensors["draft_tokens"]) for buf in draft.buffers
                 if buf.name == "sampler_out"]
    return hits


def before_capture(runner: Any, *args: Any, **kwargs: Any) -> None:
    """The BEFORE hook on a graph runner's `capture`: its live buffers, one log line, refuse
    in check mode when unsafe (the runner's `model_runner.server_args` is the ServerArgs)."""
    # the most derived of SGLang's runner classes the runner is (the draft runners subclass
    # the decode runner)
    by_class = {path.rsplit(".", 1)[1]: n for n, (_, path) in {
        **RUNNERS, **INHERITED_CAPTURE}.items()}
    name = next((by_class[c.__name__] for c in type(runner).__mro__
                 if c.__name__ in by_class), None)
    overrides: dict[str, Any] = {}
    if name == "target" and _draft_decode(runner):
        # the draft's config.json as SGLang's draft model runner read it: sample_from_anchor
        # decides the runner's width (dspark_config.py:29-31, model_runner.py:880-889)
        name = "dspark_draft"
        hf_config = getattr(getattr(runner.model_runner, "model_config", None), "hf_config",
                            None)
        overrides["dspark_samples_anchor"] = bool(getattr(hf_config, "sample_from_anchor",
                                                          True))
    elif name == "target" and _is_dflash_draft(runner):
        name = "dflash_draft"
    elif name == "target" and getattr(runner, "_tree_draft_mode", False) is True:
        name = "uno_draft"  # UNO's tree-draft runner (uno_cuda_graph_runner.py:32-49)
    if name is None:
        logger.warning(f"graphfit: not checked: {type(runner).__name__} is not a graph "
                       "runner graphfit models"[:200])
        return None
    _report(lambda: check_live_runners(runner.model_runner.server_args, {name: runner},
                                       **overrides))
    return None


def _draft_decode(runner: Any) -> bool:
    """Whether a DecodeCudaGraphRunner is built on a DSPARK draft model runner
    (model_runner.is_draft_worker and spec_algorithm.is_dspark())."""
    model_runner = getattr(runner, "model_runner", None)
    algorithm = getattr(model_runner, "spec_algorithm", None)
    is_dspark = getattr(algorithm, "is_dspark", None)
    return bool(getattr(model_runner, "is_draft_worker", False) and callable(is_dspark)
                and is_dspark())


def _report(check_of: Callable[[], SglangLiveCheck | SglangCheck]) -> None:
    """Run one check and say it in one log line; in check mode an unsafe verdict refuses to
    start (UnsafeServerArgsError), in warn mode it is only logged. A config graphfit cannot
    plan is logged as not checked, never fatal."""
    mode = plugin_mode() or "warn"
    try:
        check = check_of()
    except GraphfitError as exc:
        logger.warning(f"graphfit: not checked: {exc}"[:200])
        return
    for note in getattr(check, "notes", ()):  # what the check did not judge (s63c)
        logger.info(f"graphfit: note: {note}")
    if check.ok:
        logger.info(check.line())
        return
    logger.warning(check.line())
    if mode == "check":
        raise UnsafeServerArgsError(f"{check.line()} ({ENV}=check refuses to start)")


def _mode(environ: Mapping[str, str]) -> str:
    value = environ.get(ENV, "check").strip().lower() or "check"
    if value not in ("check", "warn"):
        raise ConfigError(f"{ENV}: {value!r} is not one of check, warn")
    return value


def plugin_mode(environ: Mapping[str, str] | None = None) -> str | None:
    """The plugin's mode: "check", "warn" or None (off: unset, empty, "0", "off")."""
    value = (os.environ if environ is None else environ).get(ENV, "").strip().lower()
    if value in ("", "0", "off"):
        return None
    return _mode({ENV: value})


def after_server_args(server_args: Any, *args: Any, **kwargs: Any) -> None:
    """The AFTER hook on prepare_server_args (gets its result, the ServerArgs): check, one
    log line, refuse in check mode when unsafe."""
    _report(lambda: check_server_args(server_args, **server_generation()))
    return None


def register() -> None:
    """The `sglang.srt.plugins` entry point: off unless GRAPHFIT_SGLANG is check or warn."""
    if _launcher_active or plugin_mode() is None:
        return
    from sglang.srt.plugins.hook_registry import HookRegistry, HookType

    HookRegistry.register(HOOK_TARGET, after_server_args, HookType.AFTER)
    for _, path in RUNNERS.values():  # the live buffers, in the scheduler's process
        HookRegistry.register(f"{path}.capture", before_capture, HookType.BEFORE)


def _start(server_args: Any) -> None:
    """What launch_server's __main__ does after parsing (launch_server.py:84-87)."""
    from sglang.launch_server import run_server
    from sglang.srt.utils import kill_process_tree

    try:
        run_server(server_args)
    finally:
        kill_process_tree(os.getpid(), include_parent=False)


def main(argv: Sequence[str] | None = None, *, start: Callable[[Any], object] | None = None,
         environ: Mapping[str, str] | None = None,
         out: Callable[[str], object] | None = None) -> int:
    """Parse with SGLang, check, start (`start` injectable: tests pass a recorder)."""
    say = out or (lambda text: print(text, file=sys.stderr))
    try:
        mode = _mode(os.environ if environ is None else environ)
    except ConfigError as exc:
        say(f"error: {exc}")
        return 2
    from sglang.srt.plugins import load_plugins
    from sglang.srt.server_args import prepare_server_args

    global _launcher_active
    _launcher_active = True
    load_plugins()
    server_args = prepare_server_args(list(sys.argv[1:] if argv is None else argv))
    try:
        result = check_server_args(server_args, **server_generation())
    except GraphfitError as exc:
        say(f"error: graphfit cannot check this start-up: {exc}"[:200])
        if mode == "check":
            return 2
    else:
        for note in result.notes:  # what the check did not judge (s63c)
            say(f"note: {note}")
        say(result.line())
        if not result.ok and mode == "check":
            say(f"error: {ENV}=check refuses to start SGLang (set {ENV}=warn to start anyway)")
            return 2
    (start or _start)(server_args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
