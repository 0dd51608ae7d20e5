"""DeepSeek-V4's default memory reserve and prefill graphs, SGLang 0.5.23 vs graphfit (shared
by tests/oracle/test_sglang_dsv4_reserve_oracle.py and
tests/oracle/measure_sglang_dsv4_reserve.py).

SGLang turns a DeepSeek-V4 target's breakable prefill graphs off unless the backend is given
(`disable_breakable_cudagraph_if_incompatible`, arg_groups/cuda_graph_hook.py:193-202), so its
memory hook reserves nothing for them (`reserve_for_graph_mb`, memory_hook.py:380-389). SGLang's
side is its own pipeline on a DeepSeek-V4 model directory
(tests/oracle/sglang_post_capture_oracle.SPARSE) with SGLANG_ENABLE_POST_CAPTURE_KV_SIZING set
as drawn; graphfit's is the same line pasted.
"""

from __future__ import annotations

import functools
import random

from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_post_capture_oracle as pc
from tests.oracle.sglang_dspark_compare import draft_dir

DSV4 = "dsv4"
S = ("--max-running-requests", "48")
EAGLE = ("--speculative-algorithm", "EAGLE", "--speculative-eagle-topk", "1")
Line = tuple[tuple[str, ...], float, str | None]


@functools.cache
def sglang_side(argv: tuple[str, ...], gb: float, name: str, value: str | None
                ) -> tuple[float, str] | None:
    """SGLang's default fraction and its resolved prefill backend, or None (refused)."""
    with pc.environment(value):
        r = so.resolve(argv, gpu_mem_gb=gb, model=pc.model_dir(name), capability=pc.AMPERE)
    if isinstance(r, so.Rejected):
        return None
    from sglang.srt.arg_groups.overrides import resolving_view

    cfg = resolving_view(r.record)
    backend = cfg.cuda_graph_config.prefill.backend
    return float(cfg.mem_fraction_static), str(getattr(backend, "value", backend))


def graphfit_side(argv: tuple[str, ...], gb: float, name: str, value: str | None
                  ) -> tuple[float | None, str] | str:
    """graphfit's fraction and prefill backend for the pasted line, or its refusal."""
    from graphfit import ConfigError
    from graphfit.cli.options import resolve_values
    from graphfit.inputs import commandline
    from graphfit.planner.engines.sglang_prefill_plan import prefill_graphs

    try:
        config = resolve_values({"gpu_memory_gb": gb}, environ={}, pasted=commandline.read(
            pc.graphfit_line(argv, name, value))).config()
        return config.mem_fraction_static, prefill_graphs(config).phase_backend
    except ConfigError as exc:
        return str(exc)


def compare(argv: tuple[str, ...], gb: float, value: str | None = None, name: str = DSV4
            ) -> str | None:
    """None where graphfit and SGLang agree: both refuse, or the same fraction and prefill
    backend (graphfit's "not modelled" counts as agreeing, as in pc.disagreement)."""
    sg = sglang_side(argv, gb, name, value)
    gf = graphfit_side(argv, gb, name, value)
    if sg is None:
        return None if isinstance(gf, str) else f"SGLang refused, graphfit {gf}"
    if isinstance(gf, str):
        return pc.disagreement(sg[0], gf)
    fraction = pc.disagreement(sg[0], gf[0])
    if fraction is not None:
        return fraction
    return None if sg[1] == gf[1] else f"prefill backend: SGLang {sg[1]}, graphfit {gf[1]}"


def generate(rng: random.Random) -> Line:
    """A DeepSeek-V4 line: TP, DP attention, page size, KV dtype (fp8_e5m2 refused by both),
    running requests, the speculative algorithm (EAGLE topk 1 or DSPARK with a draft; the
    others SGLang refuses for the class, deepseek_v4_hook.py:148-158), PD role, prefill flags,
    chunk, decode graphs, GPU size and the post-capture variable."""
    tp = rng.choice((1, 2, 4, 8))
    argv: list[str] = ["--tp", str(tp)] if tp > 1 else []
    if tp > 1 and rng.random() < 0.5:
        argv += ["--enable-dp-attention", "--dp", str(rng.choice([d for d in (2, 4, 8)
                                                                    if d <= tp]))]
    if rng.random() < 0.5:
        argv += ["--page-size", str(rng.choice((1, 64, 128, 256)))]
    dtype = rng.choice(("", "auto", "bfloat16", "fp8_e4m3", "fp8_e5m2"))
    if dtype:
        argv += ["--kv-cache-dtype", dtype]
    if rng.random() < 0.5:
        argv += list(S)
    spec = rng.choice(("", "", "eagle", "dspark"))
    if spec == "eagle":
        steps = rng.randint(1, 7)
        argv += [*EAGLE, "--speculative-num-steps", str(steps),
                 "--speculative-num-draft-tokens", str(steps + 1)]
    elif spec == "dspark":
        argv += ["--speculative-algorithm", "DSPARK", "--speculative-draft-model-path",
                 draft_dir(None, None, None)]
    mode = rng.choice(("", "", "prefill", "decode"))
    if mode:
        argv += ["--disaggregation-mode", mode]
    prefill = rng.choice(("", "", "breakable", "off"))
    if prefill == "breakable":
        argv += ["--cuda-graph-backend-prefill", "breakable"]
    elif prefill == "off":
        argv.append("--disable-prefill-cuda-graph")
    if rng.random() < 0.5:
        argv += ["--chunked-prefill-size", str(rng.choice((256, 2048, 8192, 16384)))]
    if rng.random() < 0.2:
        argv.append("--disable-decode-cuda-graph")
    return tuple(argv), rng.choice((24, 48, 80, 141, 192)), rng.choice((None, "1", "0", "bogus"))
