"""SGLang 0.5.23's DSPARK buffers outside static verify: the compact verify epilogue and the
draft's confidence outputs (SGLANG_RAGGED_VERIFY_MODE=compact / cap-accept).

Why a keyed component: under compact the target's verify graphs are filed under token tiers
(graphfit.planner.engines.sglang_dspark_compact), and the epilogue SGLang folds into each of
them as a capture tail hook reads its buffers up to the tier's capture slots, not up to a
batch size. So the epilogue's buffers sit in `target_compact`, a keyed component whose keys
are the tiers; its proof covers every (requests, tokens, longest) batch that replays one.

What SGLang allocates (speculative/dspark_components/ of the 0.5.23 wheel):

- the epilogue `DsparkVerifyEpilogue` (dspark_verify.py:576-665) exists under compact when
  decode graphs are on (dspark_worker_v2.py:409-417; the other trigger, a DeepSeek-V4.1 target
  with a MoE draft in static mode, :400-406, is not modelled), sized with
  max(cuda_graph_config.decode.bs), the declared list's maximum (:415): `inject_gate` [1]
  int32, `verify_lens` / `correct_len` / `bonus` / `new_seq_lens` [max_bs] int64,
  `cap_trim_lens` / `commit_lens` / `gated_commit_lens` [max_bs] int32, `draft_tokens`
  [max_bs * gamma] int64, `out_tokens` [max_bs, gamma + 1] int64, `sim_temperatures`
  [max_bs] float32, `sim_seed` [1] int32, all zeros (:606-656); the strided logits
  and hidden [max_bs * (gamma + 1), width] allocated by the first warmup call
  (`_ensure_out`, :971-990, called at :1001-1002), in the dtype and width of the compact
  logits (the process-wide float32 logits buffer, graph_shared_output.py) and hidden (the
  captured target layers side by side,
  layers/aux_hidden_states.py:97-102: SglangOptions.dspark_target_layers x hidden, model
  dtype); `block_accept_lens` [max_bs] int32 under SGLANG_OPT_DSV41_POST_FORWARD_CUDA_GRAPH
  (:657-661, environ.py:1903, off: SglangOptions.dspark_post_forward_graph), written `[:bs]`
  by the accept (build_accept_outs, :1174-1177);
- nothing more under compact from the V4.1 static epilogue's other buffers: the deferred
  context-KV commit (SGLANG_DSPARK_DEFER_CONTEXT_KV) is refused whenever the verify is not
  static (`defer_context_kv_refusal`, dspark_deferred_commit.py:280-300, asked by
  dspark_worker_v2.py:623-650, 652-668), and the future relay (FutureRelayBuffers,
  managers/overlap_utils.py:87-102) is built only by the static path under `post_fold`
  (dspark_verify.py:764-767, 930-946), which the worker passes as static_epilogue_supported
  and SGLANG_OPT_DSV41_DSPARK_POST_FOLD (dspark_worker_v2.py:428-431): false under compact;
- a graph of tier T is captured with slots(T) requests (decode_cuda_graph_runner.py:791-794)
  and its epilogue reads `[:bs]` of each per-request buffer (read_accept :948-955,
  `verify_lens_buf[:bs]` :1003), `draft_tokens[: bs * gamma]` and the strided buffers'
  `[: bs * stride]` (:1011-1019, 1026-1040);
- the folded draft sampler writes its tokens into the epilogue's `draft_tokens` (`out=`,
  dspark_worker_v2.py:696-711): one tensor, planned once, as `dspark_draft.sampler_out`, when
  the sampler is folded; the epilogue's own otherwise;
- the confidence head exists in every mode but static (`build_confidence_head`,
  models/dspark.py:487-507; deepseek_v4_dspark.py:538-562), whatever the draft config's
  `enable_confidence_head` says, and is float32 (its `proj` is built with dtype float32,
  models/dspark.py:424-437); the folded sampler then holds `confidence_out` float32 and
  `confidence_raw_out` in the proj's dtype, both [max_bs, gamma] (dspark_draft_sampler.py:
  69-81), written `[:bs]` by the graph tail (:167-172).

cap-accept (RaggedVerifyMode.CAP_ACCEPT, ragged_verify.py:13-16) keeps the static verify
graphs and builds no epilogue (the epilogue's static trigger asks for mode "static",
dspark_worker_v2.py:400-406): only the confidence outputs are added.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

from graphfit.planner.core.batches import Stream
from graphfit.planner.core.buffers import KEEP, ONLY_ZERO, ZERO, Axis, BufferSpec, Demand
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.keyed import BatchKey
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.base import KeyedComponentModel
from graphfit.planner.engines.sglang_dspark_compact import CompactVerify, compact_dispatch

COMPONENT = "target_compact"  # the target's compact verify graphs and their epilogue
LOGITS_DTYPE = "float32"  # the process-wide logits buffer (graph_shared_output.py)
_SRC = "dspark_verify.py"


def has_confidence_head(config: EngineSettings) -> bool:
    """The draft's confidence head: built in every ragged verify mode but static."""
    return config.ragged_verify_mode != "static"


def builds_epilogue(config: EngineSettings) -> bool:
    """Whether the worker builds `DsparkVerifyEpilogue` (dspark_worker_v2.py:409-417; the
    DeepSeek-V4.1 static trigger is not modelled)."""
    return config.ragged_verify_mode == "compact"


def confidence_buffers(gamma: int, declared_max_bs: int, runner: str
                       ) -> tuple[BufferSpec, ...]:
    """The folded sampler's confidence outputs (dspark_draft_sampler.py:69-81)."""
    written = "written [:bs] by the graph tail before it is read (dspark_draft_sampler.py:" \
              "167-172)"
    return tuple(
        BufferSpec(f"sampler_{name}", "float32", Axis.FIXED, (), declared_max_bs, KEEP,
                   trailing=(gamma,),
                   source=f"{runner}: dspark_draft_sampler.py:{line} ({why}; {written})")
        for name, line, why in (
            ("confidence_out", "72-75", "sigmoid of the raw logit, float32"),
            ("confidence_raw_out", "76-80", "the proj's dtype: float32, models/dspark.py:"
                                            "432-437")))


def _per_request(name: str, dtype: str, declared: int, line: str, *,
                 trailing: tuple[int, ...] = (), fill_zero: bool = False, why: str = ""
                 ) -> BufferSpec:
    return BufferSpec(name, dtype, Axis.REQUESTS, (Demand(Stream.TARGET_REQUESTS),),
                      declared, ZERO if fill_zero else KEEP, trailing=trailing,
                      source=f"{COMPONENT}: {_SRC}:{line}" + (f" ({why})" if why else ""),
                      safe_fills=ONLY_ZERO if fill_zero else None)


def epilogue_buffers(config: EngineSettings, verify: CompactVerify, declared_max_bs: int,
                     *, shares_draft_tokens: bool) -> tuple[BufferSpec, ...]:
    """The epilogue's buffers, SGLang's rows (declared max_bs) as the reference."""
    layers = config.dspark_target_layers
    if layers is None:
        # a hub-id draft (or a config naming neither layer ids nor layers): the count is
        # SGLang's len(dflash_target_layer_ids), spec_aux_hidden_state.py:260-283
        raise ConfigError(
            "SGLANG_RAGGED_VERIFY_MODE=compact: the epilogue holds the captured target layers "
            "(dspark_verify.py:971-990); no local draft config names them: give --config "
            "FILE with dspark_target_layers: N")
    bs, gamma, stride = declared_max_bs, verify.width - 1, verify.width
    out = "written by the graph's accept before it is read"
    specs = [
        _per_request("verify_lens", "int64", bs, "617-619", fill_zero=True,
                     why="staged by begin_step: padded rows 0 so the accept cuts them off, "
                         ":696-704"),
        _per_request("inject_gate", "int32", 1, "616",
                     why="one flag staged by begin_step, :705"),
        *(_per_request(name, dtype, bs, line, why=out) for name, dtype, line in (
            ("correct_len", "int64", "623-625"), ("bonus", "int64", "626"),
            ("cap_trim_lens", "int32", "627-629"), ("commit_lens", "int32", "630-632"),
            ("new_seq_lens", "int64", "633-635"),
            ("gated_commit_lens", "int32", "654-656"))),
        _per_request("out_tokens", "int64", bs, "636-638", trailing=(stride,), why=out),
        _per_request("sim_temperatures", "float32", bs, "606-608",
                     why="read only under SGLANG_DSPARK_SIMULATE_FOLD"),
        _per_request("sim_seed", "int32", 1, "609",
                     why="read only under SGLANG_DSPARK_SIMULATE_FOLD"),
        _per_request("strided_logits", LOGITS_DTYPE, bs * stride, "971-990",
                     trailing=(config.vocab_size,),
                     why="allocated by the warmup call, the compact logits' dtype"),
        _per_request("strided_hidden", config.dtype, bs * stride, "971-990",
                     trailing=(layers * config.hidden_size,),
                     why=f"allocated by the warmup call: {layers} captured target layers"),
    ]
    if not shares_draft_tokens:
        specs.append(_per_request("draft_tokens", "int64", bs * gamma, "620-622",
                                  why="staged from the eager proposal"))
    if config.dspark_post_forward_graph:  # SGLANG_OPT_DSV41_POST_FORWARD_CUDA_GRAPH
        specs.append(_per_request(
            "block_accept_lens", "int32", bs, "657-661",
            why="commit_lens + cap_trim_lens, written [:bs] by the graph's accept before it "
                "is read, :958-962, 1174-1177"))
    return tuple(specs)


def _rows_rule(verify: CompactVerify, per_slot: int, tier: int) -> int:
    return verify.slots(tier) * per_slot


def _one(tier: int) -> int:
    del tier
    return 1


def _witness(verify: CompactVerify, tier: int) -> BatchKey:
    """A batch that replays `tier`: tier / width requests, each verifying width tokens."""
    return (tier // verify.width, tier, verify.width)


def compact_component(config: EngineSettings, capture_bs: tuple[int, ...],
                      declared_max_bs: int, pool: int, *, shares_draft_tokens: bool
                      ) -> KeyedComponentModel:
    """`target_compact`: the tiers of a target that captures `capture_bs` (verify width
    config.uniform_query_len), the epilogue's buffers read per tier (module docstring);
    batches of up to `pool` requests (and each tier's witness) reach it."""
    verify = CompactVerify(capture_bs, config.uniform_query_len)
    if verify.max_bs > declared_max_bs:
        raise ConfigError(f"compact verify: captured batch size {verify.max_bs} above the "
                          f"declared maximum {declared_max_bs}")
    specs = epilogue_buffers(config, verify, declared_max_bs,
                             shares_draft_tokens=shares_draft_tokens)
    per_slot = {"draft_tokens": verify.width - 1, "strided_logits": verify.width,
                "strided_hidden": verify.width}
    rules = {s.name: (_one if s.name in ("inject_gate", "sim_seed")
                      else partial(_rows_rule, verify, per_slot.get(s.name, 1)))
             for s in specs}
    dispatch = replace(compact_dispatch(verify), buffer_rows=rules)
    witnesses = {tier: _witness(verify, tier) for tier in verify.tiers}
    requests = max(pool, verify.max_bs)
    return KeyedComponentModel(
        COMPONENT, dispatch, (requests, requests * verify.width, verify.width), specs,
        witnesses, (("token_tiers", verify.tiers), ("capture_bs", verify.capture_bs)),
        summary=(f"SGLang DSPARK compact ragged verify: target graphs filed under "
                 f"{len(verify.tiers)} token tiers (bs x {verify.width}), captured with "
                 f"min(tier, {verify.max_bs}) requests; the verify epilogue folded into each"))


__all__ = ["COMPONENT", "builds_epilogue", "compact_component", "confidence_buffers",
           "epilogue_buffers", "has_confidence_head"]
