"""DeepSeek-V4's KV pools from a byte budget, SGLang 0.5.23 vs graphfit (shared by
tests/oracle/test_sglang_dsv4_pool_oracle.py and tests/oracle/measure_sglang_dsv4_pool.py).

SGLang's side: the line resolved by its own argument pipeline over a DeepSeek-V4 model
directory (tests/oracle/sglang_post_capture_oracle.SPARSE), the record published, then its own
`DSV4PoolConfigurator` (model_executor/pool_configurator.py:1067-1712) built over a stand-in
`KVCacheConfigurator` holding the attributes its constructor reads (the drawn shape, the page,
attention DP, the speculative algorithm) and asked `calculate_pool_sizes(budget, page)`; the
request pool is its `KVCacheConfigurator.resolve_max_num_reqs` over the full tokens
(kv_cache_configurator.py:3119-3133), and `finalize_with_max_running_requests` sizes the c128
state with it, as `_configure_pools` does (:3182-3189). The budget stands for
`_profile_available_bytes`, the one figure SGLang measures.

graphfit's side: `graphfit.planner.engines.sglang_dsv4_pool` over the same draw.
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import json
import random
import shutil
import tempfile
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_post_capture_oracle as pc
from tests.oracle import sglang_stubs

GIB = 1 << 30
FIELDS = ("full", "swa", "c4", "c128", "c4_state", "c128_state", "requests")


@dataclass(frozen=True)
class Case:
    """One draw: the model's shape, the line and the budget."""

    nope: int
    rope: int
    index: int
    ratios: tuple[int, ...]
    sources: tuple[int, ...]
    window: int
    context: int
    page: int
    budget: int
    requests: int | None = None  # --max-running-requests (None: not on the line)
    drafts: int | None = None  # EAGLE topk 1 with steps = drafts - 1 (None: off)
    dp: int = 1  # attention DP (TP = DP)
    mode: str = "null"
    swa_ratio: float | None = None
    tails: int | None = None
    no_radix: bool = False
    chunk: int | None = None
    state_dtype: str | None = None
    v41: bool = False  # a config.json of model_type deepseek_v41 (the override's ratio off)
    # --gpu-memory-gb: the budget then comes from the GPU, the weights and each side's own
    # default mem_fraction_static (the preload memory taken as the whole GPU), not `budget`
    gpu_gb: float | None = None
    weights_gb: float = 0.0
    extra_slots: int | None = None  # --disaggregation-decode-extra-slots
    decode_radix: bool = False  # --disaggregation-decode-enable-radix-cache

    def argv(self) -> tuple[str, ...]:
        out: list[str] = ["--page-size", str(self.page)]
        if self.dp > 1:
            out += ["--tp", str(self.dp), "--dp", str(self.dp), "--enable-dp-attention"]
        if self.requests is not None:
            out += ["--max-running-requests", str(self.requests)]
        if self.drafts is not None:
            out += ["--speculative-algorithm", "EAGLE", "--speculative-eagle-topk", "1",
                    "--speculative-num-steps", str(max(1, self.drafts - 1)),
                    "--speculative-num-draft-tokens", str(self.drafts)]
        if self.mode != "null":
            out += ["--disaggregation-mode", self.mode]
        if self.swa_ratio is not None:
            out += ["--swa-full-tokens-ratio", str(self.swa_ratio)]
        if self.tails is not None:
            out += ["--swa-prefix-tails", str(self.tails)]
        if self.no_radix:
            out.append("--disable-radix-cache")
        if self.chunk is not None:
            out += ["--chunked-prefill-size", str(self.chunk)]
        if self.extra_slots is not None:
            out += ["--disaggregation-decode-extra-slots", str(self.extra_slots)]
        if self.decode_radix:
            out.append("--disaggregation-decode-enable-radix-cache")
        return tuple(out)


def sglang_side(case: Case) -> dict[str, int] | str:
    """SGLang's pool sizes, or its refusal (the exception's first words)."""
    with pc.environment(None, (("SGLANG_DSV4_COMPRESS_STATE_DTYPE", case.state_dtype),)
                        if case.state_dtype else ()):
        r = so.resolve(case.argv(), gpu_mem_gb=case.gpu_gb or 80,
                       model=v41_dir() if case.v41 else pc.model_dir("dsv4"),
                       capability=(9, 0))
        if isinstance(r, so.Rejected):
            return f"rejected: {r}"[:120]
        with so.published(r), sglang_stubs.stubbed():
            budget = case.budget if case.gpu_gb is None else _profiled(case, r)
            if isinstance(budget, str):
                return budget
            return _configure(case, r, budget)


def _profiled(case: Case, r: Any) -> int | str:
    """SGLang's own `_profile_available_bytes` (kv_cache_configurator.py:2990-3060) with the
    one measured figure, the free memory after the weights, replaced by gpu - weights."""
    from sglang.srt.mem_cache import kv_cache_configurator as kvc
    from sglang.srt.runtime_context import get_parallel

    this = types.SimpleNamespace(
        mambaish_config=None, post_capture_kv_active=False, device="cuda", gpu_id=0,
        model_config=types.SimpleNamespace(is_multimodal=False))
    measured = kvc.get_available_gpu_memory
    kvc.get_available_gpu_memory = lambda *a, **k: case.gpu_gb - case.weights_gb
    # its `gc.collect()` before measuring (kv_cache_configurator.py:2999) frees the loader's CUDA
    # temporaries on a server; here it only walks the test process's heap, and the measured
    # figure is the one given above
    kvc.gc = types.SimpleNamespace(collect=lambda *args: 0)
    try:
        with get_parallel().override(world_group=types.SimpleNamespace(cpu_group=None)):
            return int(kvc.KVCacheConfigurator._profile_available_bytes(
                this, case.gpu_gb))  # type: ignore[arg-type]
    except ValueError as exc:
        return f"ValueError: {exc}"[:120]
    finally:
        kvc.get_available_gpu_memory = measured
        kvc.gc = gc


@functools.cache
def v41_dir() -> str:
    """The DeepSeek-V4 model directory with model_type deepseek_v41 (SGLang loads it with
    DeepseekV41Config, configs/deepseek_v41.py, and its override leaves the SWA ratio unset)."""
    root = Path(tempfile.mkdtemp(prefix="graphfit-dsv41-pool-")) / "dsv41"
    shutil.copytree(pc.model_dir("dsv4"), root)
    data = json.loads((root / "config.json").read_text())
    (root / "config.json").write_text(json.dumps({**data, "model_type": "deepseek_v41"}))
    return str(root)


def _configure(case: Case, r: Any, budget: int) -> dict[str, int] | str:
    from sglang.srt.mem_cache.kv_cache_configurator import KVCacheConfigurator
    from sglang.srt.model_executor.pool_configurator import DSV4PoolConfigurator
    from sglang.srt.runtime_context import get_spec
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    model = types.SimpleNamespace(
        qk_nope_head_dim=case.nope, qk_rope_head_dim=case.rope, index_head_dim=case.index,
        context_len=case.context, window_size=case.window, compress_ratios=list(case.ratios),
        hf_config=types.SimpleNamespace(kv_source_layer_ids=list(case.sources)))
    kvc = types.SimpleNamespace(
        kv_cache_dtype_str="fp8_e4m3", model_config=model,
        layer_info=types.SimpleNamespace(start_layer=0, end_layer=len(case.ratios)),
        pp_size=1, sliding_window_size=case.window, page_size=case.page,
        attn_dp_size=max(1, r.attn_dp_size), mambaish_config=None,
        spec_algorithm=SpeculativeAlgorithm.from_string(get_spec().speculative_algorithm),
        spec_aux_config=None)
    try:
        configurator = DSV4PoolConfigurator(kvc)  # type: ignore[arg-type]
        config = configurator.calculate_pool_sizes(budget, case.page)
        config.max_running_requests = KVCacheConfigurator.resolve_max_num_reqs(
            kvc, config.max_total_num_tokens)  # type: ignore[arg-type]
        config = configurator.finalize_with_max_running_requests(config)
    except (AssertionError, ValueError, RuntimeError, ZeroDivisionError) as exc:
        return f"{type(exc).__name__}: {exc}"[:120]
    return {"full": config.full_max_total_num_tokens, "swa": config.swa_max_total_num_tokens,
            "c4": config.c4_max_total_num_tokens, "c128": config.c128_max_total_num_tokens,
            "c4_state": config.c4_state_pool_size, "c128_state": config.c128_state_pool_size,
            "requests": int(config.max_running_requests)}


def graphfit_side(case: Case, module: Any = None) -> dict[str, int] | str:
    """graphfit's pool sizes for the same draw, or its refusal."""
    from graphfit import ConfigError
    from graphfit.planner.engines.sglang_prefill import default_chunked_prefill_size

    if module is None:
        from graphfit.planner.engines import sglang_dsv4_pool as module
    try:
        shape = module.Dsv4Shape(case.nope, case.rope, case.index, case.ratios, case.sources,
                                 case.window, case.context)
        line = module.resolved_inputs(
            page_size=case.page, max_running_requests=case.requests,
            draft_tokens=case.drafts,
            spec_steps=None if case.drafts is None else max(1, case.drafts - 1),
            attn_dp_size=case.dp, dp_size=case.dp, disaggregation_mode=case.mode,
            swa_full_tokens_ratio=case.swa_ratio, swa_prefix_tails=case.tails,
            disable_radix_cache=case.no_radix,
            chunked_prefill_size=(default_chunked_prefill_size(case.gpu_gb or 80)
                                  if case.chunk is None else case.chunk),
            state_dtype=case.state_dtype or "float32",
            disaggregation_decode_extra_slots=case.extra_slots,
            decode_radix_cache=case.decode_radix,
            model_type="deepseek_v41" if case.v41 else "deepseek_v4")
        budget = case.budget
        if case.gpu_gb is not None:
            budget = module.budget_bytes(case.weights_gb, graphfit_fraction(case),
                                         case.gpu_gb)
        pools = module.Dsv4Pool(shape, line).pools(budget)
    except ConfigError as exc:
        return f"ConfigError: {exc}"[:120]
    return {"full": pools.full_tokens, "swa": pools.swa_tokens, "c4": pools.c4_tokens,
            "c128": pools.c128_tokens, "c4_state": pools.c4_state,
            "c128_state": pools.c128_state, "requests": pools.request_pool}


def graphfit_fraction(case: Case) -> float:
    """graphfit's default mem_fraction_static for the pasted line on the case's GPU."""
    from graphfit.cli.options import resolve_values
    from graphfit.inputs import commandline

    model = v41_dir() if case.v41 else pc.model_dir("dsv4")
    line = ["python", "-m", "sglang.launch_server", "--model-path", model, *case.argv()]
    config = resolve_values({"gpu_memory_gb": case.gpu_gb}, environ={},
                            pasted=commandline.read(line)).config()
    fraction = config.mem_fraction_static
    assert fraction is not None
    return float(fraction)


def compare(case: Case, module: Any = None) -> str | None:
    """None where both refuse or every pool size agrees."""
    sg = _sglang_cached(case)
    gf = graphfit_side(case, module)
    if isinstance(sg, str) or isinstance(gf, str):
        if isinstance(sg, str) and isinstance(gf, str):
            return None
        return f"SGLang {sg}, graphfit {gf}"
    diff = [f"{k}: SGLang {sg[k]}, graphfit {gf[k]}" for k in FIELDS if sg[k] != gf[k]]
    return "; ".join(diff) or None


@functools.cache
def _sglang_cached(case: Case) -> dict[str, int] | str:
    return sglang_side(case)


def generate(rng: random.Random) -> Case:
    """A DeepSeek-V4 (or V4.1, with ratio 1 / 2 kv_source layers) shape and line."""
    layers = rng.randint(2, 12)
    v41 = rng.random() < 0.35
    choices = (0, 4, 128, 1, 2) if v41 else (0, 4, 128)
    ratios = tuple(rng.choice(choices) for _ in range(layers))
    sources = tuple(i for i in range(layers) if rng.random() < 0.6) if v41 else ()
    v41_type = rng.random() < 0.5
    # DeepSeek-V4.1 refuses EAGLE (deepseek_v4_hook.py; DSPARK drafts: not drawn here)
    spec = not v41_type and rng.random() < 0.35
    mode = rng.choice(("null", "null", "prefill", "decode"))
    dp = rng.choice((1, 1, 2, 4))
    return Case(
        nope=rng.choice((448, 192, 128)), rope=rng.choice((64, 32)),
        index=rng.choice((128, 64, 256)), ratios=ratios, sources=sources,
        window=rng.choice((128, 256, 512)), context=rng.choice((4096, 65536, 1048576)),
        page=rng.choice((128, 256, 256)),
        budget=int(rng.uniform(0.05, 60) * GIB),
        requests=rng.choice((None, None, 1, 16, 64, 512)),
        drafts=rng.randint(2, 12) if spec else None, dp=dp, mode=mode,
        swa_ratio=rng.choice((None, None, None, 0.1, 0.5, 0.02)),
        tails=rng.choice((None, None, None, 0, 32)), no_radix=rng.random() < 0.2,
        chunk=rng.choice((None, None, 2048, 16384)),
        state_dtype=rng.choice((None, None, None, "bfloat16")), v41=v41_type,
        extra_slots=rng.choice((None, None, 0, 8, -2, -20)) if mode == "decode" else None,
        decode_radix=mode == "decode" and rng.random() < 0.3)


def generate_gpu(rng: random.Random) -> Case:
    """A draw whose budget comes from a `--gpu-memory-gb` and the weights' size."""
    case = generate(rng)
    gpu = rng.choice((80.0, 96.0, 141.0, 192.0))
    # graphfit's line reader leaves the decode radix cache unmodelled for the fraction, so
    # the GPU draws keep it off (the budget draws cover it)
    return dataclasses.replace(case, gpu_gb=gpu, decode_radix=False,
                               weights_gb=round(rng.uniform(0.3, 0.95) * gpu, 2))
