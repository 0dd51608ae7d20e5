"""SGLang 0.5.23's prefill CUDA graphs as an oracle: its own resolution, capture list,
replay decision and buffers.

* `prefill(argv, gb)` resolves the line with SGLang's whole pipeline (sglang_oracle.resolve:
  `prepare_server_args` + `resolve_once`) and reads `cuda_graph_config.prefill` as resolved;
  then, with the record published under the fake CUDA device (sglang_oracle.published), runs
  the prefill runner's own code: `get_prefill_num_tokens_to_capture`
  (prefill_cuda_graph_runner.py:164) for the captured token counts,
  `PrefillInputBuffers.create` (runner_utils/buffers.py:286) on the meta device for the
  buffers, and `PrefillCudaGraphRunner.can_replay_locally` (:1325) + `_pad_to_bucket`
  (base_cuda_graph_runner.py:166) for the replay decision.
* Glue, cited: the runner's max_num_tokens = max(capture_num_tokens) and max_bs =
  req_to_token_pool.size (prefill_cuda_graph_runner.py:371-372; the pool from
  `KVCacheConfigurator.resolve_max_num_reqs` as in sglang_oracle), the static per-request
  fields allocated for the breakable / full backends (:601-606). The runner object for
  `can_replay_locally` is SGLang's class without its __init__ (which captures graphs); its
  fields are set as __init__ sets them for a dense CUDA model without LoRA, prefill CP or
  chunked-prefix capture (:314-700).
"""

from __future__ import annotations

import functools
import types
from dataclasses import dataclass, field
from typing import Any

from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_stubs


@dataclass(frozen=True)
class SglangPrefill:
    """SGLang's prefill graphs for one command line."""

    backend: str
    tokens: tuple[int, ...]  # cuda_graph_config.prefill.bs as resolved
    captured: tuple[int, ...]  # the runner's capture_num_tokens (() when disabled)
    chunked_prefill_size: int
    pool: int
    buffers: dict[str, tuple[tuple[int, ...], str]]
    raw: Any  # the ServerArgs fields as given (record._raw_input)
    runner: Any = None  # PrefillCudaGraphRunner without __init__, for `pad`
    # the token slots' PaddingPolicy values in SGLang's own build_prefill_registry
    fills: dict[str, str] = field(default_factory=dict)
    multimodal: bool = False  # SGLang's ModelConfig.is_multimodal for the line's model

    def pad(self, num_tokens: int, num_requests: int = 1) -> int | None:
        """SGLang's replay decision for a plain extend batch of `num_tokens` tokens from
        `num_requests` requests."""
        if self.runner is None:
            return None
        ok = self.runner.can_replay_locally(
            batch_size=num_requests, num_tokens=num_tokens, input_embeds=None, replace_embeds=None,
            prefix_lens=None, is_target_verify=False, capture_hidden_mode=None,
            return_logprob=False)
        if not ok:
            return None
        return int(self.runner._pad_to_bucket(num_tokens, self.runner.capture_num_tokens))


@functools.cache
def _runner_module() -> Any:
    with sglang_stubs.imports():
        from sglang.srt.model_executor.runner import prefill_cuda_graph_runner
    return prefill_cuda_graph_runner


TRACK_PREFIX = "mamba_track_"


@functools.cache
def full_tail_zeroed(pr: Any) -> tuple[str, ...]:
    """The registry slots the full backend's replay zeroes past the real requests, read from
    SGLang's own runner source (prefill_cuda_graph_runner.py:2106-2112: the `for name in
    (...)` loop whose body zeroes `registry.get_slot(name).buffer[bs:r]`); its replay method
    needs a live model runner, so the loop is read, not run."""
    import ast
    import inspect
    import textwrap

    tree = ast.parse(textwrap.dedent(inspect.getsource(pr.PrefillCudaGraphRunner)))
    for node in ast.walk(tree):
        if (isinstance(node, ast.For) and isinstance(node.iter, ast.Tuple)
                and "zero_" in ast.unparse(node) and "get_slot" in ast.unparse(node)):
            return tuple(str(e.value) for e in node.iter.elts if isinstance(e, ast.Constant))
    raise AssertionError("the full backend's tail-zeroing loop was not found")


MODEL_CONTEXT_LENGTH = 131072  # the oracle model's max_position_embeddings (sglang_stubs)


class _Stop(Exception):
    """Raised by the model stub at the first step after the capture-size filter."""


class _ModelStub:
    """`model_runner.model` for `capture_prefill_graph`: has a `.model` (the language model,
    cuda_graph_setup.py:555) and stops the setup when it is next written (:621)."""

    def __init__(self) -> None:
        object.__setattr__(self, "model", types.SimpleNamespace())

    def __setattr__(self, name: str, value: Any) -> None:
        raise _Stop


def _setup_filter(r: so.Resolved, pool: int) -> tuple[list[int] | None, int]:
    """SGLang's `capture_prefill_graph` (cuda_graph_setup.py:473-615) up to the runner: the
    token counts kept (None: it returns the eager runner) and the request slots. The
    published prefill config it edits in place is restored afterwards."""
    from sglang.srt.model_executor.model_runner_components import cuda_graph_setup as cgs
    from sglang.srt.runtime_context import get_exec
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    phase = get_exec().graph.cuda_graph_config.prefill
    saved = (phase.bs, phase.full_prefill_max_req)
    context = r.record.context_length or MODEL_CONTEXT_LENGTH
    mr = types.SimpleNamespace(
        is_draft_worker=False, model=_ModelStub(), lora_manager=None,
        spec_algorithm=SpeculativeAlgorithm.from_string(r.speculative_algorithm),
        model_config=types.SimpleNamespace(context_len=context),
        req_to_token_pool=types.SimpleNamespace(size=pool))
    try:
        cgs.capture_prefill_graph(model_runner=mr, eager_runner=object())
    except _Stop:
        slots = phase.full_prefill_max_req if phase.backend == "full" else pool
        return [int(t) for t in phase.bs], int(slots)
    else:
        return None, pool
    finally:
        phase.bs, phase.full_prefill_max_req = saved


def cp_bcg(r: so.Resolved, captured: tuple[int, ...]
           ) -> tuple[tuple[int, ...], dict[str, tuple[tuple[int, ...], str]]]:
    """Prefill CP's breakable graphs (issue 23 s54g), as the runner's __init__ runs them
    once its backend is breakable (prefill_cuda_graph_runner.py:609-620): SGLang's own
    `supports_prefill_cp_bcg`, `filter_prefill_cp_bcg_capture_num_tokens` and
    `PrefillCPBCGInput.create` (on the meta device, a stand-in runner with the fields
    `create` reads: device, max_num_tokens = the unfiltered largest bucket (:371), the
    model's hidden size and dtype). Run under the published record (so.published), with
    the process' bound strategy cleared first, so `get_cp_strategy` binds it from the
    published bags as a worker does (layers/cp/base.py:302-328). Returns the kept buckets
    and the two inputs, named `cp_bcg_<field>`; the buckets unchanged and no inputs when
    CP BCG is off. Raises SGLang's ValueError where the runner would."""
    from sglang.srt.layers.cp import base
    from sglang.srt.layers.cp.bcg import supports_prefill_cp_bcg

    if not supports_prefill_cp_bcg(r.record):
        return captured, {}
    from sglang.srt.arg_groups.model_override_base import model_config_of
    from sglang.srt.layers.cp.bcg.bcg import (
        PrefillCPBCGInput,
        filter_prefill_cp_bcg_capture_num_tokens,
    )

    kept = tuple(int(t) for t in filter_prefill_cp_bcg_capture_num_tokens(
        list(captured), r.record))
    mc = model_config_of(r.record)
    stand_in = types.SimpleNamespace(device="meta", max_num_tokens=max(captured),
                                     model_runner=types.SimpleNamespace(
                                         model_config=mc, dtype=mc.dtype))
    base._STRATEGY = None  # what a fresh worker process starts with
    made = PrefillCPBCGInput.create(stand_in)
    return kept, {f"cp_bcg_{name}": (tuple(int(d) for d in t.shape), so._describe(t))
                  for name, t in (("input_embeds", made.input_embeds),
                                  ("positions", made.positions))}


def planned_buffers(comp: Any) -> dict[str, tuple[tuple[int, ...], str]]:
    """A graphfit prefill component's buffers as SGLang's runner records them (`prefill`'s
    `SglangPrefill.buffers`): name -> (shape at the reference capacity, dtype), so the
    prefill oracles compare like with like (shared; issue 23, s56x)."""
    planned = {}
    for b in comp.buffers:
        shape = list(b.shape)
        if b.axis.value != "fixed":
            shape[b.axis_dim] = b.reference_capacity
        else:
            shape = [b.reference_capacity]
        planned[b.name] = (tuple(shape), b.dtype)
    return planned


def raw_args(r: so.Resolved) -> types.SimpleNamespace:
    """The record's fields as the caller gave them (pipeline.py: `_raw_input`)."""
    return types.SimpleNamespace(**r.record._raw_input)


@functools.lru_cache(maxsize=4096)
def prefill(argv: tuple[str, ...], gb: float | None = 80, model: str | None = None,
            capability: tuple[int, int] | None = None) -> SglangPrefill | so.Rejected:
    """SGLang's prefill graphs for the line (`model`: a model directory other than the
    oracle's Llama one; `capability`: the fake device's, a Hopper unless given)."""
    r = so.resolve(argv, gpu_mem_gb=gb, model=model, capability=capability)
    if isinstance(r, so.Rejected):
        return r
    from sglang.srt.arg_groups.overrides import resolving_view

    phase = resolving_view(r.record).cuda_graph_config.prefill
    tokens = tuple(int(t) for t in phase.bs or ())
    cps = int(r.chunked_prefill_size or 0)
    raw = raw_args(r)
    with so.published(r):
        pool = so._pool_size(r, so.DEFAULT_TOKEN_CAPACITY)
    if phase.backend == "disabled":
        return SglangPrefill("disabled", tokens, (), cps, pool, {}, raw)
    import torch

    with so.published(r):
        kept, slots = _setup_filter(r, pool)
        if kept is None:  # capture_prefill_graph: no size fits, eager prefill
            return SglangPrefill("disabled", tokens, (), cps, pool, {}, raw)
        pr = _runner_module()
        captured = tuple(int(t) for t in pr.get_prefill_num_tokens_to_capture(kept))
        try:
            cp_captured, cp_bufs = cp_bcg(r, captured)
        except ValueError as exc:  # the runner's CP filter / input type refuse: no server
            return so.Rejected(argv, f"ValueError: {exc}", "ValueError")
        from sglang.srt.arg_groups.model_override_base import model_config_of
        from sglang.srt.model_executor.cuda_graph_buffer_registry import (
            build_prefill_registry,
        )
        from sglang.srt.model_executor.runner_utils.buffers import PrefillInputBuffers

        # the target runner's own inputs (prefill_cuda_graph_runner.py:337, 435-446): the
        # model's is_multimodal, its text hidden size (no target model declares a wider
        # `input_embeds_hidden_size`, :713-731; only qwen4_exp_mtp.py:56, a draft) and dtype
        mc = model_config_of(r.record)
        multimodal = bool(mc.is_multimodal)
        hidden, dtype = int(mc.hidden_size), mc.dtype
        # the runner's own switch (:427, :705-708): it reads only the published bags
        track = bool(pr.PrefillCudaGraphRunner._is_mamba_track_enabled(object()))
        bufs = PrefillInputBuffers.create(
            device="meta", max_bs=pool, max_num_tokens=max(captured),
            cache_loc_dtype=torch.int64, is_multimodal=multimodal, hidden_size=hidden,
            dtype=dtype, enable_mamba_track=track, enable_input_embeds=multimodal)
        registry = build_prefill_registry(  # :459-482, adopting the buffers above
            device=torch.device("meta"), max_bs=pool, max_num_token=max(captured),
            cache_loc_dtype=torch.int64, is_multimodal=multimodal, hidden_size=hidden,
            embed_dtype=dtype, register_input_embeds=multimodal, share_pool=False,
            enable_mamba_track=track, source=bufs)
        fills = {name: str(registry.get_slot(name).padding_policy.value)
                 for name in registry.slot_names()
                 if registry.get_slot(name).axis == "tokens"
                 or name.startswith(TRACK_PREFIX)}
        if phase.backend == "full":  # the full backend's replay zeroes these past the real
            # requests (:2106-2112), over the registry's policy
            fills.update({name: "zero" for name in full_tail_zeroed(pr) if name in fills})
    buffers: dict[str, tuple[tuple[int, ...], str]] = dict(cp_bufs)
    for name in ("input_ids", "out_cache_loc", "num_token_non_padded", "positions",
                 "input_embeds", "mrope_positions", "mamba_track_indices",
                 "mamba_track_mask", "mamba_track_seqlens"):
        t = getattr(bufs, name)
        if t is not None:
            buffers[name] = (tuple(int(d) for d in t.shape), so._describe(t))
    for name in pr._PREFILL_STATIC_FIELDS:  # allocated as (max_bs,) int64, :601-606
        buffers[name] = ((pool,), "int64")
    # the two-batch-overlap plugin BaseRunner.__init__ builds (base_runner.py:245; the
    # prefill runner calls it, prefill_cuda_graph_runner.py:321)
    buffers["tbo_children_num_token_non_padded"] = so.tbo_plugin_buffer()
    if phase.backend == "full":  # _full_cg_seq_lens_cpu, (slots,) int64 (:550-554)
        buffers["full_cg_seq_lens_cpu"] = ((slots,), "int64")
    runner = object.__new__(pr.PrefillCudaGraphRunner)
    runner.__dict__.update(
        enable_cp_bcg_capture=False, _qwen_bcg_hc_sidechannel=False, _qwen_bcg_mtp_draft=False,
        _is_full_backend=phase.backend == "full", _fa4_prefill=False,
        _capture_req_slots=slots, _captured_attn_metadata_max_bs=None,
        prefer_eager_mixed_prefill=False, prefill_backend_name=phase.backend,
        has_mha_companion_layers=False, _capture_chunked_prefix=False,
        capture_hidden_mode=None, max_context_size=None, max_seq_len=None,
        max_num_tokens=max(captured), capture_num_tokens=list(cp_captured))
    return SglangPrefill(str(phase.backend), tokens, cp_captured, cps, pool, buffers, raw, runner,
                         fills, multimodal)


def pasted_mem_fraction(line: list[str], gb: float) -> float | str | None:
    """graphfit's `mem_fraction_static` for a pasted SGLang line on a `gb` GB GPU, read as the
    CLI reads it (no environment of its own), or its refusal's message."""
    from graphfit import ConfigError
    from graphfit.cli.options import resolve_values
    from graphfit.inputs import commandline

    try:
        config = resolve_values({"gpu_memory_gb": gb}, environ={},
                                pasted=commandline.read(line)).config()
    except ConfigError as exc:
        return str(exc)
    return config.mem_fraction_static


@functools.lru_cache(maxsize=4096)
def mem_fraction(argv: tuple[str, ...], gb: float | None = 80, model: str | None = None,
                 capability: tuple[int, int] | None = None
                 ) -> tuple[types.SimpleNamespace, float] | so.Rejected:
    """SGLang's resolved `mem_fraction_static` (memory_hook.py:283-343) and the raw fields
    (`model`: a model directory other than the oracle's Llama one; `capability`: the fake
    device's, a Hopper unless given)."""
    r = so.resolve(argv, gpu_mem_gb=gb, model=model, capability=capability)
    if isinstance(r, so.Rejected):
        return r
    from sglang.srt.arg_groups.overrides import resolving_view

    return raw_args(r), float(resolving_view(r.record).mem_fraction_static)
