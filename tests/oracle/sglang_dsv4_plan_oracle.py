"""DeepSeek-V4's KV pools and request pool as `graphfit plan` shows them for a pasted line,
vs SGLang 0.5.23 (shared by tests/oracle/test_sglang_dsv4_plan_oracle.py and
tests/oracle/measure_sglang_dsv4_plan.py).

Each draw (tests/oracle/sglang_dsv4_pool_oracle.generate_gpu: a DeepSeek-V4 / V4.1 shape, a
line with `--gpu-memory-gb`, the weights' size) is written as a model directory: the
oracle's DeepSeek-V4 config.json with the drawn head_dim (nope + rope), qk_rope_head_dim,
index_head_dim, compress_ratios, kv_source_layer_ids, sliding_window, num_hidden_layers,
max_position_embeddings (the context) and, for V4.1, model_type deepseek_v41.

SGLang's side: the line resolved by its own argument pipeline over that directory, the record
published, its own ModelConfig of the directory (`model_config_of`), its own
`_profile_available_bytes` with the one measured figure (free memory after the weights)
replaced by gpu - weights, its `DSV4PoolConfigurator.calculate_pool_sizes`, the
`--max-total-tokens` constraint as `config_from_budget` applies it (its own
`_apply_token_constraints`, then `calculate_pool_sizes_from_max_tokens`),
`resolve_max_num_reqs` and `finalize_with_max_running_requests`
(tests/oracle/sglang_dsv4_pool_oracle._profiled / _configure's calls, here over the real
ModelConfig).

graphfit's side: the pasted line (`python -m sglang.launch_server --model-path DIR ...`)
through graphfit's line reader with --gpu-memory-gb / --weights-gb, planned
(`graphfit.plan`), the figures read back from the plan's `dsv4_kv_pools` line
(`Plan.engine_inputs`) -- or, for "before" (another tree, in a child process), whatever that
tree's plan shows and its request pool.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import random
import re
import shutil
import tempfile
import types
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.oracle import sglang_dsv4_pool_oracle as po
from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_post_capture_oracle as pc
from tests.oracle import sglang_stubs
from tests.oracle.sglang_dspark_compare import draft_dir

FIELDS = po.FIELDS


@dataclass(frozen=True)
class PlanCase(po.Case):
    """A draw with `--max-total-tokens` (None: not on the line) and `--dp-size` data-parallel
    replicas (1: not on the line; without attention DP)."""

    max_total_tokens: int | None = None
    replicas: int = 1
    gpu_name: str | None = None  # "B200": SGLang resolves on SM100, graphfit is told the name
    pp: int = 1  # --pp-size (issue 23, s47k)
    partition: str | None = None  # SGLANG_PP_LAYER_PARTITION (None: unset)
    backend: str | None = None  # --dsv4-attn-backend (None: not on the line; s47k)
    layout: str | None = None  # SGLANG_DSV4_KV_LAYOUT (None: unset; s47k)
    kv_dtype: str | None = None  # --kv-cache-dtype (None: not on the line; s48k)
    tp: int = 1  # --tp-size without attention DP (1: not on the line; s48k)
    replay: bool = False  # --enable-encoder-swa-bounded-replay (s50k)
    extra_flags: tuple[str, ...] = ()  # more flags at the end of the line (s50k)
    # DSPARK with the oracle's draft (sglang_dspark_compare.draft_dir: the oracle's Llama
    # config, 32 layers, with the Markov head and mask id SGLang's worker needs), `dspark`
    # (a JSON object) merged into its config.json; None: no DSPARK (issue 23, s51k)
    dspark: str | None = None

    def argv(self) -> tuple[str, ...]:
        extra = () if self.max_total_tokens is None else (
            "--max-total-tokens", str(self.max_total_tokens))
        dp = () if self.replicas == 1 else ("--dp-size", str(self.replicas))
        pp = () if self.pp == 1 else ("--pp-size", str(self.pp))
        backend = () if self.backend is None else ("--dsv4-attn-backend", self.backend)
        kv = () if self.kv_dtype is None else ("--kv-cache-dtype", self.kv_dtype)
        tp = () if self.tp == 1 else ("--tp-size", str(self.tp))
        replay = ("--enable-encoder-swa-bounded-replay",) if self.replay else ()
        dspark = ("--speculative-algorithm", "DSPARK", "--speculative-draft-model-path",
                  draft_dir(None, None, None, self.dspark)) if self.dspark is not None else ()
        return (*super().argv(), *extra, *dp, *pp, *backend, *kv, *tp, *replay, *dspark,
                *self.extra_flags)


def with_cap(case: po.Case, rng: random.Random) -> PlanCase:
    """The draw with a `--max-total-tokens` from 200 to 2e8 tokens (log-uniform), which
    caps the full pool on some draws and not on others."""
    return PlanCase(**dataclasses.asdict(case),
                    max_total_tokens=int(10 ** rng.uniform(2.3, 8.3)))
def with_replicas(case: po.Case, rng: random.Random) -> PlanCase:
    """The draw as a decode server with 2 to 8 `--dp-size` replicas (no attention DP), a
    small `--max-running-requests` on most draws (the extra-slot default needs <= 32 per
    DP rank) and, on some, a negative `--disaggregation-decode-extra-slots`."""
    fields = {**dataclasses.asdict(case), "mode": "decode", "dp": 1, "decode_radix": False,
              "requests": rng.choice((None, 16, 32, 64, 128)),
              "extra_slots": rng.choice((None, None, None, -4, -40))}
    return PlanCase(**fields, replicas=rng.choice((2, 4, 8)))


def with_stages(case: po.Case, rng: random.Random) -> PlanCase:
    """The draw as a DeepSeek-V4 model (V4.1 refuses PP, deepseek_v4_hook.py:333-353) on 2 to
    4 pipeline stages, some with an SGLANG_PP_LAYER_PARTITION of the draw's layers (a stage
    of one layer among them), some with a `--max-total-tokens`; the draw's ratio-1 / 2
    layers and kv_source layers kept (their owners are counted per stage), no speculation."""
    pp = min(rng.choice((2, 2, 3, 4)), len(case.ratios))
    partition = None
    if pp > 1 and rng.random() < 0.4:
        counts = [1] * pp
        for _ in range(len(case.ratios) - pp):
            counts[rng.randrange(pp)] += 1
        partition = ",".join(map(str, counts))
    fields = {**dataclasses.asdict(case), "v41": False, "drafts": None}
    cap = int(10 ** rng.uniform(5, 8.3)) if rng.random() < 0.3 else None
    return PlanCase(**fields, pp=pp, partition=partition, max_total_tokens=cap)


def on_b200(case: po.Case, rng: random.Random) -> PlanCase:
    """The draw on a B200 (SM100, 179.1 GiB) as a DeepSeek-V4 model (model_type deepseek_v4,
    its ratio-1 / 2 layers made ratio 4, no kv_source layers): the lines whose pools
    graphfit restates on SM100 (sglang_dsv4_plan.layout_unmodelled)."""
    fields = {**dataclasses.asdict(case), "v41": False, "sources": (), "gpu_gb": 179.1,
              "ratios": tuple(4 if r in (1, 2) else r for r in case.ratios),
              "weights_gb": round(rng.uniform(0.3, 0.95) * 179.1, 2)}
    return PlanCase(**fields, gpu_name="B200")


def on_b200_v41(case: po.Case, rng: random.Random) -> PlanCase:
    """The draw as a DeepSeek-V4.1 model (model_type deepseek_v41, its ratio-1 / 2 and
    kv_source layers kept) on a B200, with `--dsv4-attn-backend flashmla_mega` (the V4.1
    layouts) or `flashmla` (the V4 layout), or SGLANG_DSV4_KV_LAYOUT=auto (V4.1 under either),
    or neither (the default backend, s48k: drawn with a `--kv-cache-dtype`, attention TP
    2 on some and SGLANG_DSV4_KV_LAYOUT=v4 on some, which turn it to flashmla)."""
    backend, layout = rng.choice((("flashmla_mega", None),) * 3 + (("flashmla", None),)
                                  + (("flashmla", "auto"), (None, "auto"), (None, None),
                                     (None, None), (None, "v4")))
    fields = {**dataclasses.asdict(case), "v41": True, "gpu_gb": 179.1, "dp": 1,
              "weights_gb": round(rng.uniform(0.3, 0.95) * 179.1, 2)}
    kv_dtype = rng.choice((None, None, "auto", "fp8_e4m3", "bfloat16"))
    tp = rng.choice((1, 1, 2)) if fields["mode"] == "null" else 1
    return PlanCase(**fields, gpu_name="B200", backend=backend, layout=layout,
                    kv_dtype=kv_dtype, tp=tp)



def with_replay(case: po.Case, rng: random.Random) -> PlanCase:
    """The draw as a DeepSeek-V4.1 model with `--enable-encoder-swa-bounded-replay` (s50k):
    no draft (V4.1 runs DSPARK only) and no PD decode role (both refused or said); a chunk
    of at least 128 + one page per attention-DP rank on most draws (SGLang's budget,
    deepseek_v4_hook.py:250-267); on some, a B200 (the V4.1 layouts) or a
    `--max-total-tokens`."""
    fields = {**dataclasses.asdict(case), "v41": True, "drafts": None,
              "mode": rng.choice(("null", "null", "prefill"))}
    if rng.random() < 0.8:  # else the draw's own chunk, which may fall short (both refuse)
        chunk = rng.choice((None, 1024, 4096, 16384))  # None: SGLang's default for the GPU
        fields["chunk"] = None if chunk is None else max(chunk, (128 + case.page) * case.dp)
    cap = int(10 ** rng.uniform(5, 8.3)) if rng.random() < 0.2 else None
    if rng.random() < 0.3:
        fields |= {"gpu_gb": 179.1, "dp": 1,
                   "weights_gb": round(rng.uniform(0.3, 0.95) * 179.1, 2)}
        return PlanCase(**fields, gpu_name="B200", replay=True, max_total_tokens=cap)
    return PlanCase(**fields, replay=True, max_total_tokens=cap)


def with_dspark(case: po.Case, rng: random.Random) -> PlanCase:
    """The draw with a DSPARK draft (issue 23, s51k; V4.1's only speculation, the EAGLE
    draws' draft tokens dropped): a draft of 1 to 40 layers (num_hidden_layers) and a block
    size of 1 to 12 on some, the target's context, a `dspark_target_layer_ids` list on some
    (SGLang's window counts the draft's own layers either way), V4.1 on most and, on half,
    with
    `--enable-encoder-swa-bounded-replay` as `with_replay` draws it."""
    # as long as the target: a shorter draft is refused when its worker builds its
    # ModelConfig at the target's length (model_config.py:1295-1316), past what this oracle
    # runs, and graphfit refuses it (inputs/sglang_context_length.check_draft)
    fields: dict[str, object] = {"max_position_embeddings": max(131072, case.context)}
    if rng.random() < 0.7:
        fields["num_hidden_layers"] = rng.choice((1, 2, 3, 5, 8, 40))
    if rng.random() < 0.5:
        fields["block_size"] = rng.randint(1, 12)
    if rng.random() < 0.2:
        fields["dspark_target_layer_ids"] = sorted(rng.sample(range(len(case.ratios)),
                                                              min(2, len(case.ratios))))
    spark = json.dumps(fields, sort_keys=True)
    if rng.random() < 0.5:
        return dataclasses.replace(with_replay(case, rng), drafts=None, dspark=spark)
    base = {**dataclasses.asdict(case), "drafts": None,
            "v41": case.v41 or rng.random() < 0.6}
    return PlanCase(**base, dspark=spark)


LINE = re.compile(r"full (\d+) tokens, SWA (\d+), c4 (\d+), c128 (\d+), c4 state (\d+), "
                  r"c128 state (\d+); request pool (\d+)")
# a later pipeline stage's layers and compress-state pools (issue 23, s47k)
STAGE = re.compile(r"\[(\d+), (\d+)\) c4 state (\d+), c128 state (\d+)")


@functools.cache
def model_dir(case: po.Case) -> str:
    """The draw's model directory (module docstring)."""
    root = Path(tempfile.mkdtemp(prefix="graphfit-dsv4-plan-")) / "dsv4"
    shutil.copytree(pc.model_dir("dsv4"), root)
    data = json.loads((root / "config.json").read_text())
    data.update({"head_dim": case.nope + case.rope, "qk_rope_head_dim": case.rope,
                 "index_head_dim": case.index, "compress_ratios": list(case.ratios),
                 "kv_source_layer_ids": list(case.sources), "sliding_window": case.window,
                 "num_hidden_layers": len(case.ratios),
                 "max_position_embeddings": case.context})
    if case.v41:
        data["model_type"] = "deepseek_v41"
    (root / "config.json").write_text(json.dumps(data))
    return str(root)


def line(case: po.Case) -> list[str]:
    return ["python", "-m", "sglang.launch_server", "--model-path", model_dir(case),
            *case.argv()]


def environ(case: po.Case) -> tuple[tuple[str, str], ...]:
    """The draw's environment: the compress-state dtype and the PP layer partition."""
    out = (("SGLANG_DSV4_COMPRESS_STATE_DTYPE", case.state_dtype),) if case.state_dtype else ()
    partition = getattr(case, "partition", None)
    if partition is not None:
        out = (*out, ("SGLANG_PP_LAYER_PARTITION", partition))
    layout = getattr(case, "layout", None)
    return out if layout is None else (*out, ("SGLANG_DSV4_KV_LAYOUT", layout))


@functools.cache
def sglang_side(case: po.Case) -> dict[str, int] | str:
    """SGLang's figures for the draw, or its refusal (the exception's first words)."""
    with pc.environment(None, environ(case)):
        r = so.resolve(case.argv(), gpu_mem_gb=case.gpu_gb, model=model_dir(case),
                       capability=capability(case))
        if isinstance(r, so.Rejected):
            return f"rejected: {r.text}"[:160]
        with so.published(r), sglang_stubs.stubbed():
            budget = po._profiled(case, r)
            if isinstance(budget, str):
                return budget
            with on_sm100(capability(case) == (10, 0)):
                if getattr(case, "pp", 1) > 1:
                    return _configure_stages(r, budget, case.pp)  # type: ignore[attr-defined]
                return _configure(r, budget)


@contextlib.contextmanager
def on_sm100(sm100: bool) -> Iterator[None]:
    """SGLang's configurator on an SM100 device: `select_dsv4_kv_layout` reads the device
    from torch (deepseek_v4_memory_pool.py:214-218), which this CPU has not, so torch's three
    answers are stood in for; and the low-ratio indexer page, fixed at import from the
    installed DeepGEMM (`DSV41_INDEX_PAGE_SIZE`, :532-542), is set to 128, the page of a
    DeepGEMM with the paged sparse MQA logits, which graphfit assumes on SM100 and says so
    (the one machine fact the oracle supplies)."""
    if not sm100:
        yield
        return
    import torch
    from sglang.srt.mem_cache import deepseek_v4_memory_pool as pool

    saved = (torch.cuda.is_available, torch.cuda.get_device_capability, torch.version.cuda,
             pool.DSV41_INDEX_PAGE_SIZE)
    torch.cuda.is_available = lambda: True
    torch.cuda.get_device_capability = lambda *a, **k: (10, 0)
    torch.version.cuda = "12.9"
    pool.DSV41_INDEX_PAGE_SIZE = 128
    try:
        yield
    finally:
        (torch.cuda.is_available, torch.cuda.get_device_capability, torch.version.cuda,
         pool.DSV41_INDEX_PAGE_SIZE) = saved


def capability(case: po.Case) -> tuple[int, int]:
    """The device SGLang resolves for: SM100 for a case named B200, else a Hopper."""
    return (10, 0) if getattr(case, "gpu_name", None) == "B200" else (9, 0)


def _kv_dtype(r: Any) -> str:
    """The KV cache dtype SGLang's resolution left (auto is fp8_e4m3 for DeepSeek-V4,
    arg_groups/overrides.py:892-913), as its configurator reads it."""
    from sglang.srt.arg_groups.overrides import resolved_view

    return str(resolved_view(r.record).kv_cache_dtype)


def _configure(r: Any, budget: int) -> dict[str, int] | str:
    """SGLang's configurator over its own ModelConfig of the draw's directory."""
    from sglang.srt.arg_groups.model_override_base import model_config_of
    from sglang.srt.mem_cache.kv_cache_configurator import KVCacheConfigurator
    from sglang.srt.model_executor.pool_configurator import DSV4PoolConfigurator
    from sglang.srt.runtime_context import get_schedule, get_spec
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    mc = model_config_of(r.record)
    page = get_schedule().page_size
    kvc = types.SimpleNamespace(
        kv_cache_dtype_str=_kv_dtype(r), model_config=mc,
        layer_info=types.SimpleNamespace(start_layer=0, end_layer=mc.num_hidden_layers),
        pp_size=1, sliding_window_size=mc.sliding_window_size, page_size=page,
        attn_dp_size=max(1, r.attn_dp_size), mambaish_config=None,
        spec_algorithm=SpeculativeAlgorithm.from_string(get_spec().speculative_algorithm),
        spec_aux_config=None)
    try:
        kvc.spec_aux_config = _aux_config(r, mc, kvc.spec_algorithm)
        configurator = DSV4PoolConfigurator(kvc)  # type: ignore[arg-type]
        config = configurator.calculate_pool_sizes(budget, page)
        # `config_from_budget`'s token constraints (kv_cache_configurator.py:3211-3226)
        max_tokens = KVCacheConfigurator._apply_token_constraints(
            kvc, config.max_total_num_tokens)  # type: ignore[arg-type]
        if max_tokens != config.max_total_num_tokens:
            config = configurator.calculate_pool_sizes_from_max_tokens(max_tokens, page)
        config.max_running_requests = KVCacheConfigurator.resolve_max_num_reqs(
            kvc, config.max_total_num_tokens)  # type: ignore[arg-type]
        config = configurator.finalize_with_max_running_requests(config)
        free = _decode_free_slots(int(config.max_running_requests))
    except (AssertionError, ValueError, RuntimeError, ZeroDivisionError) as exc:
        return f"{type(exc).__name__}: {exc}"[:160]
    if free is not None and free < 1:
        return f"admits no request: the decode request pool keeps {free} free slots"
    return {"full": config.full_max_total_num_tokens, "swa": config.swa_max_total_num_tokens,
            "c4": config.c4_max_total_num_tokens, "c128": config.c128_max_total_num_tokens,
            "c4_state": config.c4_state_pool_size, "c128_state": config.c128_state_pool_size,
            "requests": int(config.max_running_requests)}


def _aux_config(r: Any, mc: Any, spec: Any) -> Any:
    """The target's aux hidden-state config as its model runner resolves it
    (`resolve_spec_aux_hidden_state_config`, spec_aux_hidden_state.py:53-81): for DSPARK its
    `dspark_num_stages` / `dflash_draft_num_layers` from the draft's config (:199-283), which
    the configurator reads under encoder replay (pool_configurator.py:1200-1210; issue 23
    s51k). None for other algorithms, as before."""
    if not spec.is_dspark():
        return None
    from sglang.srt.model_executor.model_runner_components.spec_aux_hidden_state import (
        resolve_spec_aux_hidden_state_config,
    )

    return resolve_spec_aux_hidden_state_config(
        server_args=r.record, model_config=mc, spec_algorithm=spec, is_draft_worker=False)


def _configure_stages(r: Any, budget: int, pp: int) -> dict[str, int] | str:
    """Pipeline parallelism: SGLang's configurator on each stage (`get_pp_indices`' layers,
    distributed/utils.py:110-150, as `layer_info`), each stage's count through SGLang's own
    `_apply_token_constraints` twice -- once to collect the stages' capped counts, once with
    the all-reduce answering their minimum (kv_cache_configurator.py:3107-3115; the
    collective is the one thing stood in for) -- then `calculate_pool_sizes_from_max_tokens`,
    `resolve_max_num_reqs` and `finalize_with_max_running_requests` per stage. The figures:
    the first stage's, plus `stage<i>_c4_state` / `stage<i>_c128_state` /
    `stage<i>_layers` of each later stage."""
    import torch
    from sglang.srt.arg_groups.model_override_base import model_config_of
    from sglang.srt.distributed.utils import get_pp_indices
    from sglang.srt.mem_cache.kv_cache_configurator import KVCacheConfigurator
    from sglang.srt.model_executor.pool_configurator import DSV4PoolConfigurator
    from sglang.srt.runtime_context import get_parallel, get_schedule, get_spec
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    mc = model_config_of(r.record)
    page = get_schedule().page_size
    spec = SpeculativeAlgorithm.from_string(get_spec().speculative_algorithm)

    def kvc(rank: int) -> Any:
        start, end = get_pp_indices(mc.num_hidden_layers, rank, pp)
        return types.SimpleNamespace(
            kv_cache_dtype_str=_kv_dtype(r), model_config=mc,
            layer_info=types.SimpleNamespace(start_layer=start, end_layer=end),
            pp_size=pp, pp_group=types.SimpleNamespace(rank_in_group=rank),
            sliding_window_size=mc.sliding_window_size, page_size=page,
            attn_dp_size=max(1, r.attn_dp_size), mambaish_config=None,
            spec_algorithm=spec, spec_aux_config=None)

    seen: list[int] = []
    real = torch.distributed.all_reduce

    def collect(tensor: Any, **_: Any) -> None:
        seen.append(int(tensor.item()))

    def minimum(tensor: Any, **_: Any) -> None:
        tensor.fill_(min(seen))

    out: dict[str, int] = {}
    try:
        with get_parallel().override(world_group=types.SimpleNamespace(cpu_group=None)):
            stages = [(kvc(rank), DSV4PoolConfigurator(kvc(rank))) for rank in range(pp)]
            configs = [c.calculate_pool_sizes(budget, page) for _, c in stages]
            for answer in (collect, minimum):
                torch.distributed.all_reduce = answer
                agreed = [KVCacheConfigurator._apply_token_constraints(
                    k, config.max_total_num_tokens)  # type: ignore[arg-type]
                    for (k, _), config in zip(stages, configs, strict=True)]
        for rank, ((k, c), config, tokens) in enumerate(zip(stages, configs, agreed,
                                                             strict=True)):
            if tokens != config.max_total_num_tokens:
                config = c.calculate_pool_sizes_from_max_tokens(tokens, page)
            config.max_running_requests = KVCacheConfigurator.resolve_max_num_reqs(
                k, config.max_total_num_tokens)  # type: ignore[arg-type]
            config = c.finalize_with_max_running_requests(config)
            if rank == 0:
                out = {"full": config.full_max_total_num_tokens,
                       "swa": config.swa_max_total_num_tokens,
                       "c4": config.c4_max_total_num_tokens,
                       "c128": config.c128_max_total_num_tokens,
                       "c4_state": config.c4_state_pool_size,
                       "c128_state": config.c128_state_pool_size,
                       "requests": int(config.max_running_requests)}
                continue
            out |= {f"stage{rank}_layers": k.layer_info.end_layer - k.layer_info.start_layer,
                    f"stage{rank}_c4_state": config.c4_state_pool_size,
                    f"stage{rank}_c128_state": config.c128_state_pool_size,
                    f"stage{rank}_full": config.full_max_total_num_tokens,
                    f"stage{rank}_requests": int(config.max_running_requests)}
        free = _decode_free_slots(out["requests"])  # the same request pool on every stage
    except (AssertionError, ValueError, RuntimeError, ZeroDivisionError) as exc:
        return f"{type(exc).__name__}: {exc}"[:160]
    finally:
        torch.distributed.all_reduce = real
    if free is not None and free < 1:
        return f"admits no request: the decode request pool keeps {free} free slots"
    return out


def _decode_free_slots(requests: int) -> int | None:
    """A decode server's request slots: SGLang's own `DecodeReqToTokenPool` (disaggregation/
    decode.py:186-215) built on the CPU over the request pool with the resolved extra slots
    (one context column; its size does not matter here), its `available_size()`; None off
    decode. A negative extra count below -(requests + 1) fails there (torch's negative
    dimension, a RuntimeError)."""
    from sglang.srt.disaggregation.decode import DecodeReqToTokenPool
    from sglang.srt.runtime_context import get_disagg

    disagg = get_disagg()
    if disagg.disaggregation_mode != "decode":
        return None
    pool = DecodeReqToTokenPool(size=requests, max_context_len=1, device="cpu",
                                enable_memory_saver=False,
                                pre_alloc_size=disagg.disaggregation_decode_extra_slots)
    return int(pool.available_size())


def graphfit_side(case: po.Case) -> dict[str, int] | str:
    """The figures `graphfit plan` shows for the pasted line, or its refusal / reason."""
    return plan_figures(line(case), getattr(case, "gpu_name", None) or case.gpu_gb,
                        case.weights_gb, case.state_dtype, getattr(case, "partition", None),
                        getattr(case, "layout", None))


def plan_figures(argv: list[str], gpu_gb: float | str | None, weights_gb: float,
                 state_dtype: str | None, partition: str | None = None,
                 layout: str | None = None) -> dict[str, int] | str:
    """The public path: graphfit's reader of a pasted line, `graphfit.plan`, the plan's
    `dsv4_kv_pools` line. Runs in any tree (the measure's "before" calls it in a child)."""
    import graphfit
    from graphfit import ConfigError
    from graphfit.cli.options import resolve_values
    from graphfit.inputs import commandline

    prefix = [] if state_dtype is None else [f"SGLANG_DSV4_COMPRESS_STATE_DTYPE={state_dtype}"]
    if partition is not None:
        prefix.append(f"SGLANG_PP_LAYER_PARTITION={partition}")
    if layout is not None:
        prefix.append(f"SGLANG_DSV4_KV_LAYOUT={layout}")
    try:
        config = resolve_values({"gpu_memory_gb": gpu_gb, "weights_gb": weights_gb},
                                environ={},
                                pasted=commandline.read([*prefix, *argv])).config()
        plan = graphfit.plan(config)
    except ConfigError as exc:
        return f"ConfigError: {exc}"[:160]
    shown = dict(plan.engine_inputs).get("dsv4_kv_pools")
    if shown is None:
        from graphfit.planner.engines.sglang_pool import request_pool

        return f"not shown (request pool {request_pool(plan.config)})"
    found = LINE.search(shown)
    if found is None:
        return f"not restated: {shown}"[:160]
    out = dict(zip(FIELDS, (int(v) for v in found.groups()), strict=True))
    later = shown.split("later stages:", 1)[1] if "later stages:" in shown else ""
    for rank, stage in enumerate(STAGE.finditer(later), start=1):
        start, end, c4, c128 = (int(v) for v in stage.groups())
        # the token pools and the request pool are the agreed ones on every stage
        out |= {f"stage{rank}_layers": end - start, f"stage{rank}_c4_state": c4,
                f"stage{rank}_c128_state": c128, f"stage{rank}_full": out["full"],
                f"stage{rank}_requests": out["requests"]}
    return out


def compare(case: po.Case) -> str | None:
    """None where both refuse or every figure agrees."""
    sg = sglang_side(case)
    gf = graphfit_side(case)
    if isinstance(sg, str) or isinstance(gf, str):
        if isinstance(sg, str) and isinstance(gf, str) and gf.startswith("ConfigError"):
            return None
        return f"SGLang {sg}, graphfit {gf}"
    diff = [f"{k}: SGLang {sg.get(k)}, graphfit {gf.get(k)}" for k in sorted(set(sg) | set(gf))
            if sg.get(k) != gf.get(k)]
    return "; ".join(diff) or None
