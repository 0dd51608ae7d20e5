"""graphfit == SGLang 0.5.23 on MoE all-to-all lines (tests.oracle.sglang_moe_a2a_compare).

Generated lines: every --moe-a2a-backend choice, --deepep-mode, TP / attention DP, two-batch
overlap and the decode graph flags, on a Qwen3-MoE config. graphfit must start exactly the
lines SGLang starts, except the backends it refuses as not modelled (never the reverse), and
agree on the decode ladder, the padded batch of every decode, the batch buffers, whether
prefill graphs are on and the default mem_fraction_static.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.planner.engines import sglang_model_quant as smq  # noqa: E402
from tests.helpers import HypothesisRandom  # noqa: E402
from tests.oracle import sglang_moe_a2a_compare as mc  # noqa: E402
from tests.oracle.sglang_quant_capability_compare import loader_refuses  # noqa: E402


@st.composite
def lines(draw: st.DrawFn, backend: str | None = None) -> tuple[str, ...]:
    """`mc.draw`'s lines (`backend`: only that --moe-a2a-backend, or "quant")."""
    return mc.draw(HypothesisRandom(draw), backend=backend)


def _lines_of(backend: str) -> Callable[[], st.SearchStrategy[tuple[str, ...]]]:
    """`lines` fixed to one backend, under the name each test's @given calls."""
    return functools.partial(lines, backend=backend)


def _planted(argv: tuple[str, ...], *patches: tuple[object, str, object]
             ) -> dict[str, list[mc.sc.Difference]]:
    """`mc.compare(argv)` with each (module, name, value) patched into graphfit, graphfit's
    cached answers dropped before and after."""
    with pytest.MonkeyPatch.context() as m:
        for target, name, value in patches:
            m.setattr(target, name, value)
        mc.graphfit_cli.cache_clear()
        try:
            return mc.compare(argv)
        finally:
            mc.graphfit_cli.cache_clear()


def _check(argv: tuple[str, ...]) -> None:
    diffs = mc.compare(argv)
    accept = diffs.pop("acceptance")
    if accept:
        gf = mc.graphfit_cli(argv)
        backend = argv[argv.index("--moe-a2a-backend") + 1]
        refused_by_us = gf.rejected is not None and (
            (backend in mc.REFUSED and "is not modelled" in gf.rejected)
            or (backend in mc.PARTIAL and mc.sglang(argv).rejected is None
                and "not modelled" in gf.rejected)
            # the model loader's GPU check, past this oracle's server arguments (s45q)
            or loader_refuses(argv, gf.rejected, mc.parts(argv)[2]))
        assert refused_by_us, f"{' '.join(argv)}: {accept[0].detail}"
    wrong = [d for found in diffs.values() for d in found]
    assert not wrong, f"{' '.join(argv)}: " + "; ".join(d.detail for d in wrong[:4])


@settings(max_examples=12, deadline=None)
@given(lines())
def test_generated_lines_agree(argv: tuple[str, ...]) -> None:
    _check(argv)


@pytest.mark.parametrize("argv", [
    ("--moe-a2a-backend", "deepep", "--tp-size", "4", "--disable-prefill-cuda-graph"),
    ("--moe-a2a-backend", "mooncake", "--tp-size", "8", "--attn-dp-size", "2"),
    ("--moe-a2a-backend", "ascend_tp", "--tp-size", "4"),  # resolved to none
    ("--moe-a2a-backend", "deepep", "--deepep-mode", "normal", "--tp-size", "2"),
    ("--moe-a2a-backend", "nixl", "--tp-size", "4", "--attn-dp-size", "4"),
    ("--moe-a2a-backend", "megamoe", "--tp-size", "2", "--enable-two-batch-overlap"),
    ("--moe-a2a-backend", "mooncake", "--tp-size", "4", "--enable-two-batch-overlap"),
    # mori / pplx: SGLang's start-up checks (moe_hook.py:543-622) restated by graphfit
    ("--moe-a2a-backend", "mori", "--tp-size", "4"),  # 8192 tokens > 4096: refused by both
    ("--moe-a2a-backend", "mori", "--tp-size", "4", "--attn-dp-size", "2"),  # 4096: starts
    ("--moe-a2a-backend", "pplx", "--tp-size", "4"),  # no attention DP: refused by both
    ("--moe-a2a-backend", "pplx", "--tp-size", "4", "--attn-dp-size", "4",
     "--chunked-prefill-size", "512", "--max-running-requests", "64"),  # 128: starts
    ("--moe-a2a-backend", "pplx", "--tp-size", "4", "--attn-dp-size", "2",
     "--chunked-prefill-size", "256", "--cuda-graph-max-bs-decode", "200"),  # decode > 128
    ("--moe-a2a-backend", "pplx", "--tp-size", "2", "--attn-dp-size", "2",
     "--chunked-prefill-size", "256", "--deepep-mode", "normal"),
])
def test_edge_lines_agree(argv: tuple[str, ...]) -> None:
    _check(argv)


deepep_lines = _lines_of("deepep")


@settings(max_examples=10, deadline=None)
@given(deepep_lines())
def test_generated_deepep_lines_agree(argv: tuple[str, ...]) -> None:
    """DeepEP lines, breakable prefill graphs mostly on: SGLang's 8-aligned buckets."""
    _check(argv)


S48 = ("--max-running-requests", "48")
DEEPEP_PREFILL = [
    # the default: generate(2048) rounded to 8s, max 2048 whatever the chunk (8192 here)
    ("--moe-a2a-backend", "deepep", "--tp-size", "4", *S48),
    # attention DP: chunk 2048 // 2 = 1024 < 2048, the clamp regenerates an unaligned ladder
    ("--moe-a2a-backend", "deepep", "--tp-size", "4", "--attn-dp-size", "2",
     "--chunked-prefill-size", "2048", *S48),
    ("--moe-a2a-backend", "deepep", "--tp-size", "8", "--attn-dp-size", "8", *S48),
    ("--moe-a2a-backend", "deepep", "--cuda-graph-max-bs-prefill", "6", *S48),  # -> (8,)
    ("--moe-a2a-backend", "deepep", "--cuda-graph-max-bs-prefill", "3", *S48),  # nothing
    ("--moe-a2a-backend", "deepep", "--cuda-graph-max-bs-prefill", "9000", *S48),
    ("--moe-a2a-backend", "deepep", "--cuda-graph-bs-prefill", "5", "13", "100", *S48),
    ("--moe-a2a-backend", "deepep", "--cuda-graph-bs-prefill", "8", "16", *S48),  # aligned
    ("--moe-a2a-backend", "deepep", "--deepep-mode", "low_latency", "--tp-size", "2", *S48),
    ("--moe-a2a-backend", "deepep", "--cuda-graph-backend-prefill", "full", *S48),
    ("--moe-a2a-backend", "deepep", "--chunked-prefill-size", "512", *S48),
    # normal mode: no graphs, yet the memory hook (which runs first) reserved for them
    ("--moe-a2a-backend", "deepep", "--deepep-mode", "normal", "--tp-size", "2", *S48),
]


# every line at 80 GB, the first two also at 40 and 192 GB (other GPU memory classes)
DEEPEP_CASES = [(a, 80) for a in DEEPEP_PREFILL] + [(a, g) for a in DEEPEP_PREFILL[:2]
                                                     for g in (40, 192)]


@pytest.mark.parametrize(("argv", "gb"), DEEPEP_CASES,
                         ids=[f"{' '.join(a[2:])}@{g}" for a, g in DEEPEP_CASES])
def test_deepep_breakable_prefill_agrees(argv: tuple[str, ...], gb: float) -> None:
    """Prefill ladder, dispatch, buffers and the default mem_fraction_static (with DeepEP's
    extra 1 GiB, memory_hook.py:391-397), from the pasted line and from the raw ServerArgs."""
    diffs = mc.compare(argv, gb)
    assert not diffs["acceptance"], diffs["acceptance"]
    wrong = [d.detail for found in diffs.values() for d in found]
    assert not wrong and "prefill" in diffs, wrong
    # the same default from SGLang's raw ServerArgs (EngineConfig.from_sglang's reading)
    from graphfit.planner.engines.sglang_memory import mem_fraction_static
    from graphfit.planner.engines.sglang_native import memory_inputs_from_sglang
    from tests.oracle import sglang_prefill_oracle as po

    answer = po.mem_fraction(argv, gb, mc.model_dir())
    assert not isinstance(answer, po.so.Rejected)
    raw, theirs = answer
    assert mem_fraction_static(memory_inputs_from_sglang(raw, gb)) == pytest.approx(theirs)


def test_deepep_default_buckets_are_sglangs() -> None:
    """SGLang's own resolution gives the 8-aligned list capped at 2048 tokens, not the
    chunked-prefill-sized default (8192 at 80 GB) a dense backend gets."""
    from tests.oracle import sglang_prefill_oracle as po

    sg = po.prefill(DEEPEP_PREFILL[0], 80, mc.model_dir())
    assert not isinstance(sg, po.so.Rejected)
    assert sg.backend == "breakable" and sg.captured[-1] == 2048
    assert all(t % 8 == 0 for t in sg.captured) and 4 not in sg.captured


def test_a_planted_deepep_error_is_caught() -> None:
    """Drop DeepEP's bucket rewrite, or its 1 GiB, from graphfit: the comparison sees it."""
    from graphfit.planner.engines import sglang_memory, sglang_moe_a2a

    argv = DEEPEP_PREFILL[0]
    for target, name, value in ((sglang_moe_a2a, "deepep_prefill_buckets", lambda *a: None),
                                (sglang_memory, "DEEPEP_BREAKABLE_PREFILL_MIB", 0)):
        diffs = _planted(argv, (target, name, value))
        assert diffs["mem_fraction"], name
        if name == "deepep_prefill_buckets":
            assert diffs["prefill"]


def _eagle(*extra: str) -> tuple[str, ...]:
    return ("--max-running-requests", "40", "--speculative-algorithm", "EAGLE",
            "--speculative-num-steps", "3", "--speculative-eagle-topk", "1",
            "--speculative-num-draft-tokens", "4", "--speculative-draft-model-path",
            mc.model_dir(), *extra)


@pytest.mark.parametrize("extra", [
    ("--moe-a2a-backend", "deepep", "--tp-size", "4"),  # the draft inherits deepep
    ("--moe-a2a-backend", "deepep", "--tp-size", "4", "--speculative-moe-a2a-backend", "none"),
    # s54e: low_latency, as the Qwen3-MoE draft's Mooncake dispatcher raises in auto mode
    # (graphfit.inputs.sglang_draft_a2a; tests/oracle/test_sglang_draft_dispatch_oracle.py)
    ("--moe-a2a-backend", "none", "--tp-size", "4", "--speculative-moe-a2a-backend",
     "mooncake", "--deepep-mode", "low_latency"),
    ("--moe-a2a-backend", "mooncake", "--tp-size", "4", "--speculative-moe-a2a-backend",
     "ascend_tp", "--deepep-mode", "low_latency"),  # auto fails at build (mooncake.py:344)
    ("--moe-a2a-backend", "deepep", "--tp-size", "4", "--attn-dp-size", "2",
     "--speculative-moe-a2a-backend", "none"),
])
def test_speculative_moe_a2a_backend_agrees(extra: tuple[str, ...]) -> None:
    """The EAGLE draft runners are captured under the draft's backend (eagle_worker_v2.py:
    286-296): their ladders, padding and buffers follow its gather rule, not the target's."""
    argv = _eagle(*extra)
    diffs = mc.compare(argv)
    assert "drafts" in diffs and not diffs["acceptance"], diffs
    wrong = [d.detail for found in diffs.values() for d in found]
    assert not wrong, wrong


def test_the_draft_backend_changes_what_sglang_captures() -> None:
    """Not vacuous: with deepep on the target and none on the draft at TP 4, SGLang's draft
    runner captures unaligned sizes while the target's verify stays aligned."""
    sg = mc.sglang(_eagle("--moe-a2a-backend", "deepep", "--tp-size", "4",
                          "--speculative-moe-a2a-backend", "none"))
    same = mc.sglang(_eagle("--moe-a2a-backend", "deepep", "--tp-size", "4"))
    assert sg.runners is not None and same.runners is not None
    assert tuple(sg.runners["draft"].capture_bs[:2]) == (1, 2)
    assert all(b % 4 == 0 for b in same.runners["draft"].capture_bs)


def test_the_alignment_is_what_sglang_captures() -> None:
    """Without attention DP a live backend aligns the ladder to the TP width (utils/common.py:
    4133-4180): SGLang's own runner captures only multiples of 4 at TP 4."""
    sg = mc.sglang(("--moe-a2a-backend", "deepep", "--tp-size", "4",
                    "--disable-prefill-cuda-graph"))
    assert sg.runners is not None
    assert sg.runners["target"].alignment == 4
    assert all(b % 4 == 0 for b in sg.runners["target"].capture_bs)


def test_a_planted_error_is_caught() -> None:
    """The comparison is not vacuous: drop the all-to-all gather from graphfit's model and
    the ladder of a deepep line at TP 4 no longer matches SGLang's."""
    from graphfit.planner.engines import sglang_moe_a2a

    argv = ("--moe-a2a-backend", "deepep", "--tp-size", "4", "--max-running-requests", "40",
            "--disable-prefill-cuda-graph")
    diffs = _planted(argv, (sglang_moe_a2a, "gathers_attention", lambda *a: False),
                     (sglang_moe_a2a, "_gathers", lambda *a: False))  # the configs' path
    assert diffs["target_ladder"] and diffs["target_padding"]


def test_measurement_lines_are_reproducible() -> None:
    assert mc.lines(5, seed=3) == mc.lines(5, seed=3)
    first = mc.draw(random.Random(0))
    assert "--moe-a2a-backend" in first and mc.parts(first)[3][0] == "--moe-a2a-backend"


megamoe_lines = _lines_of("megamoe")


@settings(max_examples=12, deadline=None)
@given(megamoe_lines())
def test_generated_megamoe_lines_agree(argv: tuple[str, ...]) -> None:
    """megamoe lines on named GPUs (SM90 / SM100 or not), Qwen3-MoE or quantized checkpoints
    of a class with or without a fallback, budgets from the environment: SGLang and graphfit
    start the same lines, refuse the others by the same rule and plan the same graphs."""
    _check(argv)


def _nvfp4(arch: str = "Glm4MoeForCausalLM") -> tuple[str, ...]:
    return ("--model-path", mc.quantized_model_dir("NVFP4", arch))


MEGAMOE = ("--moe-a2a-backend", "megamoe")
MEGAMOE_EDGE = [
    (*MEGAMOE, "--gpu-memory-gb", "H100", "--tp-size", "4"),  # 8192 per rank: starts
    (*MEGAMOE, "--gpu-memory-gb", "B200", "--tp-size", "4"),  # 16384 per rank: refused
    (*MEGAMOE, "--gpu-memory-gb", "B200", "--tp-size", "4", "--attn-dp-size", "4"),  # 1024
    # attention DP divides the chunk twice (parallel_hook.py:326-332, mega_moe_hook.py:206-213)
    (f"{mc.MEGAMOE_ENV}=1000", *MEGAMOE, "--gpu-memory-gb", "H100", "--tp-size", "8",
     "--attn-dp-size", "2", "--max-running-requests", "64"),
    (f"{mc.MEGAMOE_ENV}=2048", *MEGAMOE, "--gpu-memory-gb", "H100", "--tp-size", "8",
     "--attn-dp-size", "2", "--max-running-requests", "64"),
    # decode / verify: 48 requests x 4 draft tokens against the budget
    (f"{mc.MEGAMOE_ENV}=100", *MEGAMOE, "--gpu-memory-gb", "H100",
     "--disaggregation-mode", "decode", "--speculative-algorithm", "EAGLE",
     "--speculative-num-steps", "3", "--speculative-eagle-topk", "1",
     "--speculative-num-draft-tokens", "4", "--speculative-draft-model-path", "MODEL"),
    (f"{mc.MEGAMOE_ENV}=300", *MEGAMOE, "--gpu-memory-gb", "H100", "--cuda-graph-max-bs-decode",
     "256", "--chunked-prefill-size", "256"),
    # a class with a fallback: no budget, unless its experts are NVFP4
    (f"{mc.MEGAMOE_ENV}=16", *MEGAMOE, "--gpu-memory-gb", "H200", "--model-path",
     mc.quantized_model_dir("FP8", "Glm4MoeForCausalLM")),
    (f"{mc.MEGAMOE_ENV}=16", *MEGAMOE, "--gpu-memory-gb", "H200", *_nvfp4()),
    (*MEGAMOE, "--gpu-memory-gb", "H200", "--quantization", "modelopt_fp4", "--model-path",
     mc.quantized_model_dir("FP8", "Glm4MoeForCausalLM"), "--chunked-prefill-size", "9000"),
    (*MEGAMOE, "--gpu-memory-gb", "A100"), (*MEGAMOE, "--gpu-memory-gb", "RTX5090"),
    (*MEGAMOE, "--gpu-memory-gb", "H100", "--enable-two-batch-overlap", "--tp-size", "2"),
    # the runner alias overrides the given backend (mega_moe_hook.py:259-276)
    ("--moe-a2a-backend", "deepep", "--moe-runner-backend", "megamoe", "--gpu-memory-gb",
     "H100", "--tp-size", "4", "--max-running-requests", "32"),
    ("--moe-a2a-backend", "none", "--moe-runner-backend", "megamoe", "--gpu-memory-gb", "A100"),
    # the draft runners under a megamoe draft backend
    ("--moe-a2a-backend", "none", "--speculative-moe-a2a-backend", "megamoe", "--gpu-memory-gb",
     "H100", "--tp-size", "4", "--max-running-requests", "40", "--speculative-algorithm",
     "EAGLE", "--speculative-num-steps", "2", "--speculative-eagle-topk", "1",
     "--speculative-num-draft-tokens", "3", "--speculative-draft-model-path", "MODEL"),
]


def _model(argv: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(mc.model_dir() if w == "MODEL" else w for w in argv)


@pytest.mark.parametrize("argv", MEGAMOE_EDGE, ids=range(len(MEGAMOE_EDGE)))
def test_megamoe_edge_lines_agree(argv: tuple[str, ...]) -> None:
    _check(_model(argv))


def test_megamoe_edges_are_not_vacuous() -> None:
    """SGLang itself starts some of the edge lines and refuses others by each rule."""
    starts, rules = 0, set()
    for argv in map(_model, MEGAMOE_EDGE):
        sg = mc.sglang(argv)
        if sg.rejected is None:
            starts += 1
        else:
            rules.add(mc.megamoe_rule(str(sg.rejected)))
    assert starts >= 5
    assert {"gpu", "overlap", "decode_budget", "prefill_budget"} <= rules


ENV_DISPATCH = [
    # the mori / pplx budgets from the environment (environ.py:930, 1453)
    (f"{mc.MORI_ENV}=8192", "--moe-a2a-backend", "mori", "--tp-size", "4"),  # starts now
    (f"{mc.MORI_ENV}=1024", "--moe-a2a-backend", "mori", "--tp-size", "4", "--attn-dp-size",
     "2"),  # 4096 > 1024: refused
    (f"{mc.PPLX_ENV}=512", "--moe-a2a-backend", "pplx", "--tp-size", "4", "--attn-dp-size",
     "2", "--chunked-prefill-size", "1024", "--cuda-graph-max-bs-decode", "200"),
    # the default kept; decode graphs to 128 requests, as 512 would fail pplx's dispatch at
    # capture (issue 23 s66k, graphfit.planner.engines.sglang_pplx_capture)
    (f"{mc.PPLX_ENV}=not-a-number", "--moe-a2a-backend", "pplx", "--tp-size", "4",
     "--attn-dp-size", "4", "--chunked-prefill-size", "512", "--cuda-graph-max-bs-decode",
     "128"),
]


@pytest.mark.parametrize("argv", ENV_DISPATCH, ids=range(len(ENV_DISPATCH)))
def test_dispatch_budgets_from_the_environment_agree(argv: tuple[str, ...]) -> None:
    _check(argv)


def test_planted_megamoe_errors_are_caught() -> None:
    """Empty the no-fallback class list, or divide the chunk by attention DP only once: the
    comparison sees a line SGLang refuses and graphfit starts, or the reverse."""
    from graphfit.planner.engines import sglang_megamoe

    budget = _model(MEGAMOE_EDGE[1])
    dp = _model(MEGAMOE_EDGE[4])
    assert mc.sglang(dp).rejected is None  # 2048 covers 8192 // 2 // 2 = 2048 per rank
    real = sglang_megamoe.prefill_tokens_per_rank
    for name, value, argv in (
            ("NO_FALLBACK_ARCHS", frozenset(), budget),
            ("prefill_tokens_per_rank",
             lambda c, tp, dp_, cp: real(c * dp_, tp, dp_, cp), dp)):
        diffs = _planted(argv, (sglang_megamoe, name, value))
        assert diffs["acceptance"], name


deepep_v2_lines = _lines_of("deepep_v2")


@settings(max_examples=12, deadline=None)
@given(deepep_v2_lines())
def test_generated_deepep_v2_lines_agree(argv: tuple[str, ...]) -> None:
    """DeepEP v2 lines: registered class or not, runner, budget from the environment, a
    prefill backend given (off after the memory hook), PD roles, drafts."""
    _check(argv)


V2 = (f"{mc.DEEPEP_V2_ENV}=4096", "--moe-a2a-backend", "deepep_v2")
DEEPEP_V2_EDGE = [
    ("--moe-a2a-backend", "deepep_v2", "--tp-size", "4"),  # 2048 per rank > 128
    (*V2, "--tp-size", "4", "--max-running-requests", "64"),  # starts
    (*V2, "--tp-size", "4", "--attn-dp-size", "4", "--max-running-requests", "64"),
    # the prefill backend given: SGLang's memory default still counts the prefill graphs
    (*V2, "--tp-size", "4", "--cuda-graph-backend-prefill", "breakable",
     "--max-running-requests", "64"),
    # decode graph: 512 > 300 unless the pool caps it
    (f"{mc.DEEPEP_V2_ENV}=300", "--moe-a2a-backend", "deepep_v2", "--tp-size", "8",
     "--disaggregation-mode", "decode", "--cuda-graph-max-bs-decode", "512"),
    (f"{mc.DEEPEP_V2_ENV}=300", "--moe-a2a-backend", "deepep_v2", "--tp-size", "8",
     "--disaggregation-mode", "decode", "--cuda-graph-max-bs-decode", "512",
     "--max-running-requests", "256"),
    (*V2, "--tp-size", "4", "--moe-runner-backend", "triton"),
    (*V2, "--tp-size", "4", "--model-path", "GLM"),  # not registered
    (*V2, "--tp-size", "4", "--max-running-requests", "40", "--speculative-algorithm", "EAGLE",
     "--speculative-num-steps", "1", "--speculative-eagle-topk", "1",
     "--speculative-num-draft-tokens", "2", "--speculative-draft-model-path", "MODEL"),
    (*V2, "--tp-size", "4", "--max-running-requests", "40", "--speculative-algorithm", "EAGLE",
     "--speculative-num-steps", "1", "--speculative-eagle-topk", "1",
     "--speculative-num-draft-tokens", "2", "--speculative-draft-model-path", "MODEL",
     "--speculative-moe-a2a-backend", "none"),
]


def _v2(argv: tuple[str, ...]) -> tuple[str, ...]:
    glm = mc.quantized_model_dir("FP8", "Glm4MoeForCausalLM")
    return tuple(glm if w == "GLM" else w for w in _model(argv))


@pytest.mark.parametrize("argv", DEEPEP_V2_EDGE, ids=range(len(DEEPEP_V2_EDGE)))
def test_deepep_v2_edge_lines_agree(argv: tuple[str, ...]) -> None:
    _check(_v2(argv))


def test_deepep_v2_edges_are_not_vacuous() -> None:
    started = [mc.sglang(_v2(a)).rejected is None for a in DEEPEP_V2_EDGE]
    assert started == [False, True, True, True, False, True, False, False, False, True]


def test_planted_deepep_v2_errors_are_caught() -> None:
    """Keep prefill graphs on, or accept every class: the comparison sees it."""
    from graphfit.planner.engines import sglang_deepep_v2

    for name, value, argv, aspect in (
            ("prefill_off", lambda backend: False, _v2(DEEPEP_V2_EDGE[3]), "prefill_on"),
            ("REGISTERED", ("Glm4MoeForCausalLM",), _v2(DEEPEP_V2_EDGE[7]), "acceptance")):
        diffs = _planted(argv, (sglang_deepep_v2, name, value))
        assert diffs[aspect], name


flashinfer_lines = _lines_of("flashinfer")


@settings(max_examples=12, deadline=None)
@given(flashinfer_lines())
def test_generated_flashinfer_lines_agree(argv: tuple[str, ...]) -> None:
    """FlashInfer A2A lines: topology, runner and --quantization, workspace from the
    environment, prefill graph max past it."""
    _check(argv)


FI = ("--moe-a2a-backend", "flashinfer", "--tp-size", "4", "--attn-dp-size", "4")
FI_ENV = f"{mc.FLASHINFER_ENV}=2048"
FLASHINFER_EDGE = [
    (*FI, "--moe-runner-backend", "deep_gemm", "--max-running-requests", "64"),  # starts
    (*FI,),  # auto: refused
    ("--moe-a2a-backend", "flashinfer", "--tp-size", "4", "--attn-dp-size", "2",
     "--moe-runner-backend", "deep_gemm"),  # attn_dp != tp
    (*FI, "--moe-runner-backend", "flashinfer_cutlass", "--quantization", "fp8"),
    (*FI, "--moe-runner-backend", "flashinfer_trtllm", "--quantization", "fp8",
     "--max-running-requests", "64"),  # starts
    # the workspace: default max(chunk per rank, 4096); a given prefill max past it
    (*FI, "--moe-runner-backend", "deep_gemm", "--cuda-graph-max-bs-prefill", "5000"),
    (FI_ENV, *FI, "--moe-runner-backend", "deep_gemm", "--cuda-graph-max-bs-prefill", "1000",
     "--cuda-graph-bs-prefill", "1351", "2680"),  # the given max is what is checked: starts
    (FI_ENV, *FI, "--moe-runner-backend", "deep_gemm", "--cuda-graph-bs-prefill", "1351",
     "2680"),  # an unlocked max is clamped to the chunk per rank: starts
    (FI_ENV, *FI, "--moe-runner-backend", "deep_gemm", "--chunked-prefill-size", "16384"),
    # two-batch overlap turns prefill graphs off (cuda_graph_hook.py:217-221): the budget
    # skips a prefill max past the workspace (moe_hook.py:741-744): starts (s47q's shrunk
    # failing draw, issue 23 s48a); without it, refused
    ("--moe-a2a-backend", "flashinfer", "--tp-size", "2", "--attn-dp-size", "2",
     "--moe-runner-backend", "flashinfer_cutlass", "--quantization", "modelopt_fp4",
     "--cuda-graph-max-bs-prefill", "6000", "--enable-two-batch-overlap"),
    ("--moe-a2a-backend", "flashinfer", "--tp-size", "2", "--attn-dp-size", "2",
     "--moe-runner-backend", "flashinfer_trtllm", "--cuda-graph-max-bs-prefill", "4998"),
]


@pytest.mark.parametrize("argv", FLASHINFER_EDGE, ids=range(len(FLASHINFER_EDGE)))
def test_flashinfer_edge_lines_agree(argv: tuple[str, ...]) -> None:
    _check(argv)


def test_flashinfer_edges_are_not_vacuous() -> None:
    started = [mc.sglang(a).rejected is None for a in FLASHINFER_EDGE]
    assert started == [True, False, False, False, True, False, True, True, False, True,
                       False]


def test_planted_flashinfer_error_is_caught() -> None:
    """Drop the 4096-token floor of the default workspace: the comparison sees it."""
    from graphfit.planner.engines import sglang_flashinfer_a2a

    # 1024 chunk tokens per rank, a decode graph of 2000: within 4096, past 1024
    argv = (*FI, "--moe-runner-backend", "deep_gemm", "--chunked-prefill-size", "4096",
            "--cuda-graph-max-bs-decode", "2000", "--max-running-requests", "8000")
    assert mc.sglang(argv).rejected is None
    diffs = _planted(argv, (sglang_flashinfer_a2a, "DEFAULT_WORKSPACE_FLOOR", 0))
    assert diffs["acceptance"]


def test_planted_flashinfer_prefill_backend_error_is_caught() -> None:
    """Read the prefill max whatever backend resolution leaves (prefill graphs counted on
    under two-batch overlap, as before s48a): the two-batch-overlap edge differs."""
    from graphfit.planner.engines import sglang_prefill_plan

    diffs = _planted(FLASHINFER_EDGE[-2], (sglang_prefill_plan, "prefill_backend",
                                          lambda config: "breakable"))
    assert diffs["acceptance"]


flashinfer_megamoe_lines = _lines_of("flashinfer_megamoe")


@settings(max_examples=12, deadline=None)
@given(flashinfer_megamoe_lines())
def test_generated_flashinfer_megamoe_lines_agree(argv: tuple[str, ...]) -> None:
    """FlashInfer MegaMoE lines: GPU names, checkpoints with or without FP4 routed experts /
    hybrid NVFP4 metadata, validated classes or not, --quantization, runners, environment."""
    _check(argv)


FIM = ("--moe-a2a-backend", "flashinfer_megamoe", "--tp-size", "2", "--attn-dp-size", "2",
       "--gpu-memory-gb", "B200")


def _fim_edge() -> list[tuple[str, ...]]:
    hybrid, mxfp4 = mc.layout_model_dir("hybrid_nvfp4"), mc.layout_model_dir("mxfp4_experts")
    return [
        (*FIM, "--quantization", "mxfp8", "--max-running-requests", "64"),  # starts
        (*FIM, "--quantization", "modelopt_fp4"),  # starts
        (*FIM, "--model-path", hybrid, "--max-running-requests", "32"),  # hybrid NVFP4: starts
        (*FIM, "--model-path", mxfp4),  # FP4 routed experts: starts
        (*FIM,),  # bf16: refused (quantization)
        (*FIM, "--model-path", mc.layout_model_dir("hybrid_no_group")),  # no group_size
        (*FIM, "--model-path", mc.layout_model_dir("hybrid_nvfp4", "MixtralForCausalLM")),
        ("--moe-a2a-backend", "flashinfer_megamoe", "--tp-size", "2", "--gpu-memory-gb",
         "B200", "--quantization", "mxfp8"),  # no attention DP
        (*FIM[:-1], "H100", "--quantization", "mxfp8"),  # not SM100
        (*FIM, "--quantization", "mxfp8", "--moe-runner-backend", "flashinfer_trtllm"),
        (*FIM, "--quantization", "mxfp8", "--moe-runner-backend", "triton"),  # -> megamoe
        (*FIM, "--quantization", "nvfp4_online"),  # runner flashinfer_trtllm, quantization
        (f"{mc.FIM_COMBINE_ENV}=fp32", *FIM, "--quantization", "mxfp8"),
        (f"{mc.FIM_COMBINE_ENV}=NVFP4", f"{mc.FIM_REDUCE_ENV}=yes", *FIM, "--quantization",
         "mxfp8"),
        (f"{mc.FIM_COMBINE_ENV}=nvfp4", *FIM, "--quantization", "mxfp8"),  # starts
        # the draft defaults to no all-to-all and the flashinfer_trtllm runner: starts
        (*FIM, "--quantization", "mxfp8", "--max-running-requests", "16",
         "--speculative-algorithm", "EAGLE", "--speculative-num-steps", "1",
         "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "2",
         "--speculative-draft-model-path", mc.model_dir()),
    ]


FIM_STARTS = [True, True, True, True, False, False, False, False, False, False, True, False,
              False, False, True, True]


@pytest.mark.parametrize("index", range(len(FIM_STARTS)))
def test_flashinfer_megamoe_edge_lines_agree(index: int) -> None:
    _check(_fim_edge()[index])


def test_flashinfer_megamoe_edges_are_not_vacuous() -> None:
    """SGLang itself starts and refuses these lines, each refusal by its own rule."""
    assert [mc.sglang(a).rejected is None for a in _fim_edge()] == FIM_STARTS


@pytest.mark.parametrize(("gpu", "arch", "starts"), [
    ("B200", "Qwen3MoeForCausalLM", True), ("B200", "Glm4MoeForCausalLM", True),
    ("H100", "Qwen3MoeForCausalLM", False)])
def test_a_modelopt_checkpoint_without_quantization_agrees(gpu: str, arch: str,
                                                           starts: bool) -> None:
    """A ModelOpt NVFP4 checkpoint without --quantization: on SM100 the class's override
    copies the parsed method, modelopt_fp4, into the flag (qwen3_moe.py:38-50,
    glm4_moe.py:19-33) and the line starts; elsewhere the flag stays unset and SGLang
    refuses (moe_hook.py:264-282). graphfit plans it as SGLang does."""
    argv = (*FIM[:-1], gpu, "--model-path", mc.quantized_model_dir("NVFP4", arch))
    assert (mc.sglang(argv).rejected is None) is starts
    assert (mc.graphfit_cli(argv).rejected is None) is starts
    _check(argv)


@pytest.mark.parametrize(("name", "value", "argv"), [
    # every class accepted: the Mixtral hybrid line starts in graphfit only
    ("VALIDATED_ARCHS", frozenset({"MixtralForCausalLM", "Qwen3MoeForCausalLM"}), "mixtral"),
    # mxfp8 no longer overrides a runner outside its list: triton refused in graphfit only
    ("MXFP8_RUNNERS", ("cutlass", "deep_gemm", "flashinfer_megamoe", "triton"), "triton"),
])
def test_planted_flashinfer_megamoe_errors_are_caught(name: str, value: object,
                                                      argv: str) -> None:
    from graphfit.planner.engines import sglang_flashinfer_megamoe as fim

    line = {"mixtral": (*FIM, "--model-path", mc.class_model_dir("MixtralForCausalLM"),
                        "--quantization", "mxfp8"),
            "triton": (*FIM, "--quantization", "mxfp8", "--moe-runner-backend", "triton")}[argv]
    assert not mc.compare(line)["acceptance"]
    diffs = _planted(line, (fim, name, value))
    assert diffs["acceptance"], name


quantization_lines = _lines_of("quant")


@settings(max_examples=12, deadline=None)
@given(quantization_lines())
def test_generated_quantization_lines_agree(argv: tuple[str, ...]) -> None:
    """SGLang's quantization rules on every backend (graphfit.planner.engines.
    sglang_quantization): checkpoints of each layout and class, a --quantization that may
    clash, runners, SM100 or not, the W4A16 mode."""
    _check(argv)


def _quant_edge() -> list[tuple[str, ...]]:
    nvfp4, fp8 = mc.quantized_model_dir("NVFP4"), mc.layout_model_dir("fp8")
    modelopt_fp8 = mc.quantized_model_dir("FP8")
    b200 = ("--moe-a2a-backend", "none", "--gpu-memory-gb", "B200")
    h100 = ("--moe-a2a-backend", "none", "--gpu-memory-gb", "H100")
    w4a16 = f"{mc.FIM_W4A16_ENV}=1"
    return [
        (*b200, "--model-path", nvfp4, "--quantization", "nvfp4_online"),  # clash
        (*b200, "--model-path", nvfp4, "--quantization", "fp8"),  # overridden: starts
        (*b200, "--model-path", fp8, "--quantization", "modelopt_fp4"),  # compatible: starts
        (*b200, "--model-path", fp8, "--quantization", "mxfp8"),  # clash
        (*h100, "--quantization", "nvfp4_online"),  # not SM100
        # the SM100 copy of the checkpoint's method meets the runner's assert
        (*b200, "--model-path", fp8, "--moe-runner-backend", "flashinfer_cutlass"),  # refused
        (*h100, "--model-path", fp8, "--moe-runner-backend", "flashinfer_cutlass"),  # starts
        (*b200, "--model-path", modelopt_fp8, "--moe-runner-backend", "flashinfer_cutlass"),
        ("--moe-a2a-backend", "mooncake", "--gpu-memory-gb", "B200", "--moe-runner-backend",
         "flashinfer_cutedsl", "--quantization", "modelopt_fp4",
         "--deepep-mode", "low_latency"),  # cutedsl's backends (auto: mooncake.py:343-344)
        (w4a16, *FIM, "--quantization", "nvfp4_online"),  # W4A16: starts
        (w4a16, f"{mc.FIM_COMBINE_ENV}=nvfp4", *FIM, "--quantization", "nvfp4_online"),
        (*FIM, "--model-path", mc.quantized_model_dir("NVFP4", "Glm4MoeForCausalLM")),
        (*FIM, "--model-path", mc.quantized_model_dir("NVFP4", "Qwen2MoeForCausalLM")),
        # unquant: no flag, and no SM100 copy (serving_hook.py:692-703)
        (*b200, "--model-path", nvfp4, "--quantization", "unquant"),
        (*FIM, "--model-path", nvfp4, "--quantization", "unquant"),
        (*h100, "--quantization", "gptq"),  # not a method SGLang knows on CUDA
    ]


QUANT_STARTS = [False, True, True, False, False, False, True, True, False, True, False, True,
                False, True, False, False]


@pytest.mark.parametrize("index", range(len(QUANT_STARTS)))
def test_quantization_edge_lines_agree(index: int) -> None:
    _check(_quant_edge()[index])


def test_quantization_edges_are_not_vacuous() -> None:
    """SGLang itself starts and refuses these lines."""
    assert [mc.sglang(a).rejected is None for a in _quant_edge()] == QUANT_STARTS


@pytest.mark.parametrize(("name", "value", "index"), [
    # no clash rule: nvfp4_online on a ModelOpt NVFP4 checkpoint starts in graphfit only
    ("check_clash", lambda flag, method, *rest: flag, 0),
    # no SM100 copy of the checkpoint's method: the FP8 checkpoint with the cutlass runner
    # starts in graphfit only, the GLM-4 MoE NVFP4 one on flashinfer_megamoe refused
    ("KIND", {a: k for a, k in smq.KIND.items() if k != "sm100_copy"}, 5),
    ("KIND", {a: k for a, k in smq.KIND.items() if k != "sm100_copy"}, 11),
    # no runner rule: cutedsl under mooncake starts in graphfit only
    ("check_runner", lambda *args, **kwargs: None, 8),
])
def test_planted_quantization_errors_are_caught(name: str, value: object,
                                                index: int) -> None:
    from graphfit.inputs import sglang_quant_config_file as sqcf
    from graphfit.planner.engines import sglang_quantization as sq

    line = _quant_edge()[index]
    assert not mc.compare(line)["acceptance"]
    # the clash rule also runs in the config-file reader once the line's GPU is known (s53q:
    # ModelConfig's refusal before the config class's): planted in both places
    also = [(sqcf, name, value)] if name == "check_clash" else []
    diffs = _planted(line, (smq if name == "KIND" else sq, name, value), *also)
    assert diffs["acceptance"], name


# deepep_v2 with chunked prefill off (issue 23, s69a): the prefill dispatch ceiling is
# --max-prefill-tokens, undivided by attention DP (moe_hook.py:641-653, overrides.py:1865-1884)
V2_OFF = (f"{mc.DEEPEP_V2_ENV}=4096", "--moe-a2a-backend", "deepep_v2",
          "--max-running-requests", "64", "--chunked-prefill-size")
DEEPEP_V2_OFF = [
    (*V2_OFF, "-1", "--tp-size", "4"),  # 16384 / 4 = 4096: starts
    (*V2_OFF, "-1", "--tp-size", "2"),  # 8192 > 4096
    (*V2_OFF, "0", "--tp-size", "2", "--max-prefill-tokens", "8192"),  # 4096: starts
    (*V2_OFF, "-1", "--tp-size", "4", "--attn-dp-size", "2"),  # 16384 / 2: no DP division
    (*V2_OFF, "-1", "--tp-size", "2", "--disaggregation-mode", "decode"),  # no prefill check
]


@pytest.mark.parametrize("argv", DEEPEP_V2_OFF, ids=range(len(DEEPEP_V2_OFF)))
def test_deepep_v2_chunking_off_agrees(argv: tuple[str, ...]) -> None:
    """Both start or both refuse (before s69a graphfit said "not modelled")."""
    line = _model(argv)
    assert not mc.compare(line)["acceptance"], " ".join(line)
    gf = mc.graphfit_cli(line)
    assert gf.rejected is None or "not modelled" not in gf.rejected, gf.rejected


def test_deepep_v2_chunking_off_is_not_vacuous() -> None:
    assert [mc.sglang(_model(a)).rejected is None for a in DEEPEP_V2_OFF] == [
        True, False, True, False, True]


@pytest.mark.parametrize(("value", "index"), [
    (lambda chunk, tokens: chunk, 1),  # chunk -1 as the ceiling: 0 tokens, starts
    (lambda chunk, tokens: max(chunk, 0) or tokens // 2, 3),  # divided by attention DP
])
def test_planted_deepep_v2_chunking_off_errors_are_caught(value: object, index: int) -> None:
    from graphfit.planner.engines import sglang_deepep_v2

    diffs = _planted(_model(DEEPEP_V2_OFF[index]), (sglang_deepep_v2, "prefill_ceiling", value))
    assert diffs["acceptance"]
