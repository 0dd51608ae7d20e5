"""`graphfit plan` on a pasted DeepSeek-V4 / V4.1 `sglang.launch_server` line with
--gpu-memory-gb / --weights-gb: the KV pools and the request pool the plan shows
(graphfit.planner.engines.sglang_dsv4_plan) vs SGLang 0.5.23's own argument pipeline,
ModelConfig, `_profile_available_bytes` and `DSV4PoolConfigurator` over the same model
directory (tests/oracle/sglang_dsv4_plan_oracle.py). A line one side refuses the other must
refuse, graphfit in one `error:` line.
"""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_dsv4_plan_oracle as pl  # noqa: E402
from tests.oracle.sglang_dsv4_plan_oracle import PlanCase  # noqa: E402
from tests.oracle.sglang_dsv4_pool_oracle import Case, generate_gpu  # noqa: E402

V4 = dict(nope=448, rope=64, index=128, window=128, context=65536, page=256, budget=0)
FLASH = (0, 0) + (4, 128) * 6 + (4,)
GRID = [
    Case(**V4, ratios=FLASH, sources=(), gpu_gb=80.0, weights_gb=40.0),  # ratio 0.1, 256
    Case(**V4, ratios=FLASH, sources=(), gpu_gb=141.0, weights_gb=70.0, v41=True),  # cap
    Case(**V4, ratios=FLASH, sources=(), gpu_gb=80.0, weights_gb=30.0, v41=True, requests=64,
         dp=4),
    Case(**V4, ratios=FLASH, sources=(), gpu_gb=96.0, weights_gb=40.0, v41=True,
         mode="decode", requests=32),  # extra slots 2 x 32, radix off
    Case(**V4, ratios=FLASH, sources=(), gpu_gb=96.0, weights_gb=40.0, v41=True,
         mode="decode", requests=32, decode_radix=True),  # prefix tails kept
    Case(**V4, ratios=FLASH, sources=(), gpu_gb=96.0, weights_gb=40.0, v41=True,
         mode="decode", requests=32, extra_slots=8),
    Case(**V4, ratios=FLASH, sources=(), gpu_gb=80.0, weights_gb=40.0, drafts=4),  # EAGLE
    Case(**V4, ratios=FLASH, sources=(), gpu_gb=80.0, weights_gb=40.0, swa_ratio=0.5,
         state_dtype="bfloat16", tails=16),
    Case(**V4, ratios=(1, 2, 4, 128, 0, 2), sources=(0, 1, 5), gpu_gb=80.0, weights_gb=50.0,
         v41=True),
    Case(**V4, ratios=FLASH, sources=(), gpu_gb=192.0, weights_gb=100.0, chunk=16384, dp=2),
    # --max-total-tokens: binding (ratio / cap mode), above the budget's pool, below the SWA
    # floor (refused by both)
    PlanCase(**V4, ratios=FLASH, sources=(), gpu_gb=80.0, weights_gb=40.0,
             max_total_tokens=1_000_000),
    PlanCase(**V4, ratios=FLASH, sources=(), gpu_gb=141.0, weights_gb=70.0, v41=True,
             max_total_tokens=300_000),
    PlanCase(**V4, ratios=FLASH, sources=(), gpu_gb=80.0, weights_gb=40.0,
             max_total_tokens=10**12),
    PlanCase(**V4, ratios=FLASH, sources=(), gpu_gb=80.0, weights_gb=40.0,
             max_total_tokens=3000),
    # refused by both: past the c4 ring, weights leaving nothing, a bad ratio / tails / dtype,
    # the decode radix cache with the fake transfer backend is in test_refusals
    Case(**V4, ratios=FLASH, sources=(), gpu_gb=80.0, weights_gb=40.0, drafts=11),
    Case(**V4, ratios=FLASH, sources=(), gpu_gb=80.0, weights_gb=76.0),
    Case(**V4, ratios=FLASH, sources=(), gpu_gb=80.0, weights_gb=40.0, swa_ratio=1.5),
    Case(**V4, ratios=FLASH, sources=(), gpu_gb=80.0, weights_gb=40.0, tails=-1),
    Case(**V4, ratios=FLASH, sources=(), gpu_gb=80.0, weights_gb=40.0, state_dtype="fp8"),
    # a negative --disaggregation-decode-extra-slots (issue 23, s44k): planned (ratio / cap
    # mode), no free request slot, a negative request-pool allocation
    Case(**V4, ratios=FLASH, sources=(), gpu_gb=96.0, weights_gb=40.0, mode="decode",
         requests=32, extra_slots=-8),
    Case(**V4, ratios=FLASH, sources=(), gpu_gb=96.0, weights_gb=40.0, v41=True,
         mode="decode", requests=32, extra_slots=-31),
    Case(**V4, ratios=FLASH, sources=(), gpu_gb=96.0, weights_gb=40.0, v41=True,
         mode="decode", requests=32, extra_slots=-32),
    Case(**V4, ratios=FLASH, sources=(), gpu_gb=96.0, weights_gb=40.0, mode="decode",
         requests=32, extra_slots=-40),
    # --dp-size replicas on a decode server: the extra-slot default per replica (s44k)
    PlanCase(**V4, ratios=FLASH, sources=(), gpu_gb=96.0, weights_gb=40.0, mode="decode",
             requests=32, replicas=2),
    PlanCase(**V4, ratios=FLASH, sources=(), gpu_gb=96.0, weights_gb=40.0, v41=True,
             mode="decode", requests=64, replicas=4),
]


@pytest.mark.parametrize("case", GRID, ids=[str(i) for i in range(len(GRID))])
def test_grid(case: Case) -> None:
    assert pl.compare(case) is None


def test_grid_is_not_vacuous() -> None:
    """Both modes sized, the request pool below 256 somewhere, refusals of several kinds."""
    results = [pl.sglang_side(c) for c in GRID]
    sized = [r for r in results if isinstance(r, dict)]
    refused = [r for r in results if isinstance(r, str)]
    assert len(sized) >= 9 and len(refused) >= 4
    assert {r["requests"] for r in sized} >= {256, 16}
    ratio = [r for r in sized if r["swa"] == int(r["full"] * 0.1) // 256 * 256]
    assert ratio and len(ratio) < len(sized)
    capped = [pl.sglang_side(c) for c in GRID[10:13]]
    assert [r["full"] for r in capped if isinstance(r, dict)][:2] == [
        1_000_000 // 256 * 256, 300_000 // 256 * 256]  # the caps bind, page aligned
    decode = {str(pl.sglang_side(c)) for c in GRID[3:6]}
    assert len(decode) == 3  # extra slots, radix cache and default differ
    assert {r.split(":")[0] for r in refused} >= {"AssertionError", "ValueError", "rejected"}


@settings(max_examples=8, deadline=None, derandomize=True)
@given(st.integers(0, 2**31))
def test_generated(seed: int) -> None:
    rng = random.Random(seed)
    case = generate_gpu(rng)
    draw = rng.random()
    if draw < 0.5:
        case = pl.with_cap(case, rng)
    elif draw < 0.65:
        case = pl.with_replicas(case, rng)  # --dp-size replicas on a decode server (s44k)
    elif draw < 0.8:
        case = pl.with_stages(case, rng)  # pipeline stages (s47k)
    elif draw < 0.9:  # V4.1 on a B200 (s47k), its default backend among them (s48k)
        case = pl.on_b200_v41(case, rng)
    elif draw < 0.95:  # V4.1 with encoder replay (s50k)
        case = pl.with_replay(case, rng)
    elif draw < 0.98:  # a DSPARK draft, half of them beside encoder replay (s51k)
        case = pl.with_dspark(case, rng)
    # graphfit's --weights-gb keeps two decimals; so does the draw
    assert pl.compare(case) is None, case


def test_refusals_are_one_error_line() -> None:
    """The CLI refuses what SGLang refuses, in one `error:` line, exit 2."""
    from tests.helpers import run_cli
    from tests.oracle import sglang_oracle as so

    base = GRID[0]
    for extra in (["--swa-full-tokens-ratio", "1.5"], ["--swa-prefix-tails", "-1"],
                  ["--disaggregation-mode", "decode",
                   "--disaggregation-decode-enable-radix-cache",
                   "--disaggregation-transfer-backend", "fake"]):
        r = so.resolve([*base.argv(), *extra], gpu_mem_gb=80, model=pl.model_dir(base),
                       capability=(9, 0))
        assert isinstance(r, so.Rejected), extra
        code, out, err = run_cli(["plan", "--gpu-memory-gb", "80", "--weights-gb", "40", "--",
                                  *pl.line(base), *extra])
        assert code == 2 and out == "" and err.startswith("error: "), err
        assert len(err.strip().splitlines()) == 1 and len(err.strip()) <= 200 + 7, err


def test_other_models_keep_the_decode_radix_refusal() -> None:
    from tests.helpers import run_cli
    from tests.oracle import sglang_post_capture_oracle as pc

    code, _, err = run_cli(["plan", "--gpu-memory-gb", "80", "--", "python", "-m",
                            "sglang.launch_server", "--model-path", pc.model_dir("llama"),
                            "--disaggregation-mode", "decode",
                            "--disaggregation-decode-enable-radix-cache"])
    assert code == 2 and "not modelled" in err and len(err.strip().splitlines()) == 1


def test_without_weights_the_plan_says_why() -> None:
    """No --weights-gb: the pools are not restated and the plan says so; the request pool is
    still SGLang's DeepSeek-V4 default, 256 (deepseek_v4_hook.py:138-144), which SGLang's
    pipeline resolves."""
    from tests.oracle import sglang_oracle as so

    case = GRID[0]
    got = pl.plan_figures(pl.line(case), case.gpu_gb, 0.0, None)
    assert isinstance(got, dict)  # weights 0 is a figure, not a missing one
    import graphfit
    from graphfit.cli.options import resolve_values
    from graphfit.inputs import commandline

    config = resolve_values({"gpu_memory_gb": 80.0}, environ={},
                            pasted=commandline.read(pl.line(case))).config()
    plan = graphfit.plan(config)
    shown = dict(plan.engine_inputs)["dsv4_kv_pools"]
    assert "not restated (needs --weights-gb -- the weights' GiB per rank" in shown
    assert "Load weight end" in shown  # the figure to give (s47k)
    r = so.resolve(case.argv(), gpu_mem_gb=80, model=pl.model_dir(case), capability=(9, 0))
    assert not isinstance(r, so.Rejected)
    assert plan.config.max_num_seqs == r.max_running_requests == 256


def test_negative_extra_slots_grid_is_not_vacuous() -> None:
    """The negative --disaggregation-decode-extra-slots cases: SGLang sizes two (fewer c128
    state rows than with 0 extra slots), admits no request on one and fails the allocation on
    the last; graphfit's refusals are one `error:` line."""
    from tests.helpers import run_cli

    cases = GRID[-6:-2]
    results = [pl.sglang_side(c) for c in cases]
    assert [isinstance(r, dict) for r in results] == [True, True, False, False]
    assert str(results[2]).startswith("admits no request")
    assert str(results[3]).startswith("RuntimeError")
    zero = pl.sglang_side(dataclasses.replace(cases[0], extra_slots=0))
    assert isinstance(zero, dict) and isinstance(results[0], dict)
    assert results[0]["c128_state"] < zero["c128_state"]
    for case in cases[2:]:
        code, out, err = run_cli(["plan", "--gpu-memory-gb", "96", "--weights-gb", "40", "--",
                                  *pl.line(case)])
        assert code == 2 and out == "" and err.startswith("error: "), err
        assert len(err.strip().splitlines()) == 1 and len(err.strip()) <= 200 + 7, err


def test_replicas_grid_is_not_vacuous() -> None:
    """--dp-size replicas change SGLang's decode extra slots (2 x 16 instead of 2 x 32; 2 x 16
    instead of 0), so its c128 state differs from the same line without them."""
    for case in GRID[-2:]:
        with_replicas, alone = (pl.sglang_side(c) for c in (
            case, dataclasses.replace(case, replicas=1)))
        assert isinstance(with_replicas, dict) and isinstance(alone, dict)
        assert with_replicas["c128_state"] != alone["c128_state"]


def test_unified_memory_refused_by_both() -> None:
    """--enable-unified-memory on DeepSeek-V4 / V4.1 (s44k): SGLang's pipeline refuses it
    (it implies the page-major layout, whose backend allow-list has no dsv4,
    kv_cache_hook.py:770-826), as would its pool builder (`_init_pools`: DeepSeek-V4 is
    excluded, kv_cache_configurator.py:608-643); graphfit refuses the same lines, with or
    without an --attention-backend SGLang overrides."""
    from tests.oracle import sglang_oracle as so

    for case in (GRID[0], GRID[1], GRID[3]):
        for extra in (["--enable-unified-memory"],
                      ["--enable-unified-memory", "--attention-backend", "triton"]):
            r = so.resolve([*case.argv(), *extra], gpu_mem_gb=case.gpu_gb,
                           model=pl.model_dir(case), capability=(9, 0))
            assert isinstance(r, so.Rejected) and "page-major" in r.text, r
            got = pl.plan_figures([*pl.line(case), *extra], case.gpu_gb, case.weights_gb, None)
            assert isinstance(got, str) and got.startswith("ConfigError") \
                and "page-major" in got, got


def test_post_capture_never_sizes_dsv4() -> None:
    """SGLANG_ENABLE_POST_CAPTURE_KV_SIZING=1 (s44k): SGLang never plans post-capture KV
    sizing for DeepSeek-V4 (an MLA backend, arg_groups/overrides.py:1809-1810), so the pools
    are the pre-capture ones; graphfit answers the same and shows SGLang's figures."""
    import graphfit
    from graphfit.cli.options import resolve_values
    from graphfit.inputs import commandline
    from graphfit.planner.engines.sglang_reserve import post_capture
    from tests.oracle import sglang_oracle as so
    from tests.oracle import sglang_post_capture_oracle as pc

    for case in (GRID[0], GRID[1], GRID[3], GRID[6]):
        with pc.environment("1") as asked:
            r = so.resolve(case.argv(), gpu_mem_gb=case.gpu_gb, model=pl.model_dir(case),
                           capability=(9, 0))
        assert not isinstance(r, so.Rejected) and asked and not any(asked), (asked, r)
        config = resolve_values(
            {"gpu_memory_gb": case.gpu_gb, "weights_gb": case.weights_gb},
            environ={"SGLANG_ENABLE_POST_CAPTURE_KV_SIZING": "1"},
            pasted=commandline.read(pl.line(case))).config()
        plan = graphfit.plan(config)
        assert post_capture(plan.config) is False
        found = pl.LINE.search(dict(plan.engine_inputs)["dsv4_kv_pools"])
        assert found is not None
        sglang = pl.sglang_side(case)  # the same pre-capture sizing
        assert dict(zip(pl.FIELDS, (int(v) for v in found.groups()), strict=True)) == sglang


B200 = dict(gpu_gb=179.1, gpu_name="B200")
# SM100 (s44k): DeepSeek-V4 (model_type deepseek_v4) keeps the V4 layout there
SM100 = [
    PlanCase(**V4, ratios=FLASH, sources=(), weights_gb=80.0, **B200),
    PlanCase(**V4, ratios=FLASH, sources=(), weights_gb=80.0, drafts=4, **B200),
    PlanCase(**V4, ratios=FLASH, sources=(), weights_gb=80.0, mode="decode", requests=32,
             replicas=2, **B200),
    PlanCase(**V4, ratios=FLASH, sources=(), weights_gb=90.0, swa_ratio=0.5, tails=16,
             max_total_tokens=2_000_000, **B200),
    PlanCase(**V4, ratios=FLASH, sources=(), weights_gb=176.0, **B200),  # refused by both
]


@pytest.mark.parametrize("case", SM100, ids=[str(i) for i in range(len(SM100))])
def test_sm100_grid(case: Case) -> None:
    assert pl.compare(case) is None


def test_sm100_is_not_vacuous_and_v41_is_sized() -> None:
    """SGLang resolves these lines on SM100 (its backend default flashmla for DeepSeek-V4,
    flashmla_mega for V4.1; deepseek_v4_hook.py:45-60); graphfit sizes both, V4.1's default
    from the KV cache dtype since s48k (the default's other inputs: test_v41_default_backend;
    the V4.1 layouts themselves are compared in test_sm100_v41_grid)."""
    from tests.oracle import sglang_oracle as so

    results = [pl.sglang_side(c) for c in SM100]
    assert sum(isinstance(r, dict) for r in results) == 4 and isinstance(results[-1], str)

    def backend(case: PlanCase) -> str:
        r = so.resolve(case.argv(), gpu_mem_gb=case.gpu_gb, model=pl.model_dir(case),
                       capability=(10, 0))
        assert not isinstance(r, so.Rejected), r
        with so.published(r):
            from sglang.srt.runtime_context import get_exec

            return str(get_exec().kernel.dsv4_attn_backend)

    v41 = dataclasses.replace(SM100[0], v41=True)
    assert backend(SM100[0]) == "flashmla" and backend(v41) == "flashmla_mega"
    # V4.1's default backend turns on --kv-cache-dtype, read since s48k: sized
    assert isinstance(pl.graphfit_side(v41), dict) and pl.compare(v41) is None
    hopper_auto = pl.plan_figures(["SGLANG_DSV4_KV_LAYOUT=auto", *pl.line(SM100[0])], 179.1,
                                  80.0, None)
    assert isinstance(hopper_auto, dict)  # before SM100 auto is the V4 layout
    trtllm = pl.plan_figures([*pl.line(SM100[0]), "--dsv4-attn-backend", "trtllm"], "B200",
                             80.0, None)
    assert isinstance(trtllm, str) and "trtllm" in trtllm, trtllm


def test_v41_feature_refusals_are_sglangs() -> None:
    """DeepSeek-V4.1 with EAGLE, two-batch overlap or PP (s44k): SGLang refuses
    (`validate_deepseek_v41_features`, deepseek_v4_hook.py:333-353) and graphfit refuses with
    the same sentence; the same flags on DeepSeek-V4 are not refused for that."""
    from tests.oracle import sglang_oracle as so

    eagle = ["--speculative-eagle-topk", "1", "--speculative-num-steps", "1",
             "--speculative-num-draft-tokens", "2"]
    for case in (GRID[1], GRID[0]):
        for extra in (["--speculative-algorithm", "EAGLE", *eagle],
                      ["--enable-two-batch-overlap"], ["--pp-size", "2"]):
            r = so.resolve([*case.argv(), *extra], gpu_mem_gb=case.gpu_gb,
                           model=pl.model_dir(case), capability=(9, 0))
            got = pl.plan_figures([*pl.line(case), *extra], case.gpu_gb, case.weights_gb, None)
            if case.v41:
                assert isinstance(r, so.Rejected) and "DeepSeek-V4.1 does not support" in r.text
                sentence = r.text.split(": ", 1)[-1].split(" yet;")[0]
                assert isinstance(got, str) and sentence in got, (r.text, got)
            else:
                assert "DeepSeek-V4.1" not in (r.text if isinstance(r, so.Rejected) else "")
                assert "DeepSeek-V4.1" not in str(got)


HISPARSE_LINES = (
    # HiSparse needs the radix cache off (hisparse_hook.py:109-111; issue 23 s67b: the oracle
    # now runs all of check_server_args, where that check runs)
    ["--enable-hisparse", "--disable-radix-cache"],
    ["--enable-hisparse", "--disable-radix-cache", "--pp-size", "2"],
    ["--enable-hisparse"],
    ["--disaggregation-mode", "decode", "--disaggregation-decode-enable-radix-cache",
     "--enable-hisparse"],
    ["--disaggregation-mode", "decode", "--disaggregation-decode-enable-radix-cache",
     "--enable-hisparse", "--disaggregation-transfer-backend", "fake"],
    ["--disaggregation-mode", "decode", "--disaggregation-decode-enable-radix-cache",
     "--disaggregation-transfer-backend", "fake", "--enable-two-batch-overlap"],
)


def test_hisparse_refusals_are_sglangs() -> None:
    """--enable-hisparse read as a setting (s45k): SGLang refuses it with the decode radix
    cache (pd_disaggregation_hook.py:100-104, before the fake backend's :105-109, any model)
    and on DeepSeek-V4.1 (deepseek_v4_hook.py:333-353, second in its list, before PP; the PD
    hook runs first, pipeline.py:147 vs 225), and with the radix cache on at its
    `check_server_args` slot (hisparse_hook.py:109-111, s67b); graphfit refuses each line
    SGLang refuses with SGLang's sentence and, where SGLang resolves the line (DeepSeek-V4),
    says the pools."""
    from tests.oracle import sglang_oracle as so

    refused = said = 0
    for case in (GRID[1], GRID[0]):
        for extra in HISPARSE_LINES:
            r = so.resolve([*case.argv(), *extra], gpu_mem_gb=case.gpu_gb,
                           model=pl.model_dir(case), capability=(9, 0))
            got = pl.plan_figures([*pl.line(case), *extra], case.gpu_gb, case.weights_gb, None)
            if isinstance(r, so.Rejected):
                refused += 1
                sentence = r.text.split(": ", 1)[-1].split(" yet;")[0]
                assert isinstance(got, str) and got.startswith("ConfigError") \
                    and sentence in got, (case.v41, extra, r.text, got)
            else:
                said += 1
                assert isinstance(got, str) and "not restated (HiSparse" in got, (extra, got)
    assert refused == 10 and said == 2  # V4: only the radix-cache lines are refused


def test_hisparse_with_the_decode_radix_cache_on_another_model() -> None:
    """The PD hook's refusal holds for any model (pd_disaggregation_hook.py:100-104): on a
    llama line SGLang refuses it, and graphfit with SGLang's sentence (before its own
    'not modelled' for the decode radix cache off DeepSeek-V4)."""
    from tests.helpers import run_cli
    from tests.oracle import sglang_oracle as so
    from tests.oracle import sglang_post_capture_oracle as pc

    flags = ["--disaggregation-mode", "decode", "--disaggregation-decode-enable-radix-cache",
             "--enable-hisparse"]
    model = pc.model_dir("llama")
    r = so.resolve(flags, gpu_mem_gb=80, model=model,
                   capability=(9, 0))
    assert isinstance(r, so.Rejected) and "incompatible with --enable-hisparse" in r.text, r
    code, out, err = run_cli(["plan", "--gpu-memory-gb", "80", "--", "python", "-m",
                              "sglang.launch_server", "--model-path", model, *flags])
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert r.text.split(": ", 1)[-1] in err, (r.text, err)


TRTLLM = ["--dsv4-attn-backend", "trtllm"]
MEGA = ["--dsv4-attn-backend", "flashmla_mega"]
REPLAY = "--enable-encoder-swa-bounded-replay"
# (V4.1?, GPU, flags): DeepSeek-V4's backend asserts (deepseek_v4_hook.py:92-130)
BACKEND_LINES = (
    (False, "B200", MEGA), (False, "B200", [*TRTLLM, "--enable-hisparse"]),
    (False, "B200", [*TRTLLM, "--disaggregation-mode", "decode"]),
    (False, "B200", [*TRTLLM, "--dcp-size", "2", "--tp-size", "2"]),
    (False, "H100", TRTLLM), (True, "B200", MEGA), (True, "B200", [*MEGA, "--enable-hisparse"]),
    (True, "B200", [*TRTLLM, "--attn-cp-size", "2", "--tp-size", "2"]),
    (True, "B200", [*TRTLLM, "--disaggregation-mode", "prefill"]),
    (True, "H100", MEGA), (True, "H100", [*TRTLLM, "--enable-hisparse"]),
    (False, "H100", [REPLAY]), (True, "B200", [REPLAY]), (True, "B200", [REPLAY, *TRTLLM]),
    # trtllm's KV dtype (:108-111; s48k): bfloat16 refused on SM100, auto / fp8_e4m3 pass
    # (their pools said); off SM100 the GPU assert comes first
    (False, "B200", [*TRTLLM, "--kv-cache-dtype", "bfloat16"]),
    (True, "B200", [*TRTLLM, "--kv-cache-dtype", "bfloat16", "--enable-hisparse"]),
    (False, "H100", [*TRTLLM, "--kv-cache-dtype", "bfloat16"]),
    (True, "B200", [*TRTLLM, "--kv-cache-dtype", "fp8_e4m3"]),
    (False, "B200", [*TRTLLM, "--kv-cache-dtype", "auto"]),
    # chunking off (:127-131; s68b: graphfit read --chunked-prefill-size -1 as not modelled)
    (False, "B200", [*TRTLLM, "--chunked-prefill-size", "-1"]),
)


def test_dsv4_attn_backend_asserts_are_sglangs() -> None:
    """--dsv4-attn-backend flashmla_mega / trtllm read as a setting (s45k): SGLang's
    `apply_deepseek_v4_defaults` asserts (flashmla_mega: V4.1 on SM100, :92-99; trtllm: SM100,
    no HiSparse, no CP, no PD, :101-126) run before V4.1's feature list (model_hook.py:265 vs
    479); graphfit refuses each line SGLang refuses with SGLang's sentence, and says the
    pools (not restated) of the lines SGLang resolves. Encoder replay (s45k): refused off V4.1
    (:276-280) and with trtllm on V4.1 (:341-344)."""
    from tests.oracle import sglang_oracle as so

    v4 = SM100[0]
    kinds: set[str] = set()
    for v41, gpu, extra in BACKEND_LINES:
        case = dataclasses.replace(v4, v41=v41)
        r = so.resolve([*case.argv(), *extra], gpu_mem_gb=case.gpu_gb,
                       model=pl.model_dir(case), capability=(10, 0) if gpu == "B200" else (9, 0))
        got = pl.plan_figures([*pl.line(case), *extra], gpu, case.weights_gb, None)
        if isinstance(r, so.Rejected):
            sentence = r.text.split(": ", 1)[-1].split(" yet")[0].rstrip(".")
            kinds.add(sentence)
            assert isinstance(got, str) and got.startswith("ConfigError") \
                and sentence in got, (v41, gpu, extra, r.text, got)
        elif extra == MEGA:  # the V4.1 layouts, sized since s47k (test_sm100_v41_grid)
            assert (v41, gpu) == (True, "B200") and isinstance(got, dict), got
        elif extra[:3] == [*TRTLLM, "--kv-cache-dtype"]:  # uniform FP8: said (s48k)
            assert gpu == "B200" and extra[3] in ("fp8_e4m3", "auto"), r
            assert isinstance(got, str) and "trtllm" in got, got
        else:
            assert (v41, gpu) == (True, "B200") and extra == [REPLAY], r
            # the replay window, sized since s50k (its figures: REPLAY_WINDOW)
            assert isinstance(got, dict) and got["swa"] == 0, got
    # mega, trtllm's SM100 / HiSparse / CP / PD, V4.1's HiSparse and TRT-LLM with encoder
    # replay, encoder replay off V4.1 (:276-280), trtllm's KV dtype (s48k), chunking off (s68b)
    assert len(kinds) == 10, kinds


# pipeline parallelism (issue 23, s47k): each stage sized over its own layers, the smallest
# stage's count on every stage (sglang_dsv4_stages)
STAGES = [
    PlanCase(**V4, ratios=FLASH, sources=(), gpu_gb=80.0, weights_gb=40.0, pp=2),
    PlanCase(**V4, ratios=FLASH, sources=(), gpu_gb=80.0, weights_gb=40.0, pp=3,
             partition="2,11,2"),  # a first stage of ratio-0 layers only
    PlanCase(**V4, ratios=FLASH, sources=(), gpu_gb=80.0, weights_gb=40.0, pp=2,
             max_total_tokens=1_000_000),
    PlanCase(**V4, ratios=FLASH, sources=(), gpu_gb=96.0, weights_gb=40.0, pp=4,
             mode="decode", requests=16),
    PlanCase(**V4, ratios=(0, 0, 4, 2, 2, 2), sources=(3, 4, 5), gpu_gb=80.0,
             weights_gb=40.0, pp=2),  # the later stage's ratio-2 kv_source layers bind
    PlanCase(**V4, ratios=FLASH, sources=(), gpu_gb=80.0, weights_gb=40.0, pp=2,
             partition="0,15"),  # an empty stage: both refuse
    PlanCase(**V4, ratios=FLASH, sources=(), gpu_gb=80.0, weights_gb=40.0, pp=2,
             partition="3,3"),  # not the model's layers: both refuse
]


@pytest.mark.parametrize("case", STAGES, ids=[str(i) for i in range(len(STAGES))])
def test_pipeline_stages(case: Case) -> None:
    assert pl.compare(case) is None


def test_pipeline_stages_are_not_vacuous() -> None:
    """SGLang sizes the first five lines: its stages' compress-state pools differ (stage
    slices), its agreed count differs from the one-stage line's (each stage sizes fewer
    layers, the smallest binds), the cap binds; it refuses the last two. graphfit's
    refusals are one `error:` line."""
    from tests.helpers import run_cli

    results = [pl.sglang_side(c) for c in STAGES]
    sized = [r for r in results if isinstance(r, dict)]
    assert len(sized) == 5 and all(isinstance(r, str) for r in results[5:])
    one = pl.sglang_side(GRID[0])
    assert isinstance(one, dict) and sized[0]["full"] > one["full"]
    assert sized[1]["c4_state"] == 0 < sized[1]["stage1_c4_state"]
    assert sized[2]["full"] == 1_000_000 // 256 * 256
    for case in STAGES[5:]:
        env = [] if case.partition is None else [f"SGLANG_PP_LAYER_PARTITION={case.partition}"]
        code, out, err = run_cli(["plan", "--gpu-memory-gb", "80", "--weights-gb", "40", "--",
                                  *env, *pl.line(case)])
        assert code == 2 and out == "" and err.startswith("error: "), err
        assert len(err.strip().splitlines()) == 1 and len(err.strip()) <= 200 + 7, err


# DeepSeek-V4.1 on SM100 (s47k): the V4.1 layouts under flashmla_mega or
# SGLANG_DSV4_KV_LAYOUT=auto, the V4 layout under flashmla, the indexer page of 128 (the
# DeepGEMM graphfit assumes there, tests/oracle/sglang_dsv4_plan_oracle.on_sm100)
LOW = dict(ratios=(1, 2, 4, 128, 0, 2), sources=(0, 1, 5))
SM100_V41 = [
    PlanCase(**V4, ratios=FLASH, sources=(), weights_gb=80.0, v41=True,
             backend="flashmla_mega", **B200),  # cap mode
    PlanCase(**V4, **LOW, weights_gb=80.0, v41=True, backend="flashmla_mega", **B200),
    PlanCase(**V4, **LOW, weights_gb=80.0, v41=True, backend="flashmla", **B200),
    PlanCase(**V4, **LOW, weights_gb=80.0, layout="auto", **B200),  # a V4 model under auto
    PlanCase(**V4, **LOW, weights_gb=80.0, **B200),  # a V4 model's low-ratio layers, V4 layout
    PlanCase(**V4, **LOW, weights_gb=80.0, v41=True, backend="flashmla_mega", swa_ratio=0.2,
             max_total_tokens=3_000_000, **B200),
]


@pytest.mark.parametrize("case", SM100_V41, ids=[str(i) for i in range(len(SM100_V41))])
def test_sm100_v41_grid(case: Case) -> None:
    assert pl.compare(case) is None


def test_sm100_v41_grid_is_not_vacuous() -> None:
    """SGLang sizes every line, and the layout moves its figures: flashmla_mega's V4.1
    layouts vs flashmla's V4 layout on the same line, auto vs the default on a V4 model. (The
    indexer page graphfit assumes, 128, moves a figure only where its padding crosses a full
    page: SGLang with 64 gives these lines' figures too.)"""
    results = [pl.sglang_side(c) for c in SM100_V41]
    assert all(isinstance(r, dict) for r in results), results
    assert results[1] != results[2] and results[3] != results[4]
    assert results[0] != pl.sglang_side(dataclasses.replace(SM100_V41[0], backend="flashmla"))


# DeepSeek-V4.1's prefill-graph rule and encoder replay's own refusals (s47k): (GPU, flags);
# SGLang refuses all but the last two
PREFILL = "--cuda-graph-backend-prefill"
REPLAY_LINES = [
    (80.0, ["--enable-encoder-swa-bounded-replay", PREFILL, "full"]),
    ("B200", ["--dsv4-attn-backend", "trtllm", PREFILL, "full"]),
    (80.0, ["--enable-encoder-swa-bounded-replay", "--disaggregation-mode", "decode"]),
    (80.0, ["--enable-encoder-swa-bounded-replay", "--tp", "2", "--attn-cp-size", "2"]),
    (80.0, ["--enable-encoder-swa-bounded-replay", "--enable-unified-memory"]),
    (80.0, ["--enable-encoder-swa-bounded-replay", "--chunked-prefill-size", "256"]),
    (80.0, ["--enable-encoder-swa-bounded-replay", "--chunked-prefill-size", "700", "--tp", "2",
            "--dp", "2", "--enable-dp-attention"]),  # 350 per attention-DP rank
    # 384 is not a multiple of the page (256, deepseek_v4.py:51-61): check_server_args
    # refuses it (validation_hook.py:243-246; issue 23 s67b); 512 is
    (80.0, ["--enable-encoder-swa-bounded-replay", PREFILL, "breakable",
            "--chunked-prefill-size", "384"]),
    (80.0, ["--enable-encoder-swa-bounded-replay", PREFILL, "breakable",
            "--chunked-prefill-size", "512"]),
    (80.0, ["--enable-encoder-swa-bounded-replay", "--disaggregation-mode", "prefill"]),
]


def test_v41_replay_refusals_are_sglangs() -> None:
    """Each line SGLang's pipeline refuses (deepseek_v4_hook.py:250-267, 282-330) graphfit
    refuses with SGLang's sentence, in one `error:` line; the two it resolves graphfit plans
    (the replay window sized, issue 23 s50k)."""
    from tests.helpers import run_cli
    from tests.oracle import sglang_oracle as so

    case = dataclasses.replace(GRID[0], v41=True)
    sentences: set[str] = set()
    for gpu, extra in REPLAY_LINES:
        r = so.resolve([*case.argv(), *extra], gpu_mem_gb=80, model=pl.model_dir(case),
                       capability=(10, 0) if gpu == "B200" else (9, 0))
        got = pl.plan_figures([*pl.line(case), *extra], gpu, case.weights_gb, None)
        if isinstance(r, so.Rejected):
            sentence = r.text.split(": ", 1)[-1].split(" (")[0].rstrip(".")
            sentences.add(sentence)
            assert isinstance(got, str) and got.startswith("ConfigError") \
                and sentence[:120] in got, (extra, r.text, got)
        else:
            assert extra in (REPLAY_LINES[-2][1], REPLAY_LINES[-1][1]), r
            # the window sized (s50k; its figures: test_replay_window_is_sized_as_sglang_does)
            assert isinstance(got, dict) and got["swa"] == 0, got
    assert len(sentences) == 7, sentences  # the budget's sentence twice
    code, out, err = run_cli(["plan", "--gpu-memory-gb", "80", "--weights-gb", "40", "--",
                              *pl.line(case), *REPLAY_LINES[6][1]])
    assert code == 2 and out == "" and err.startswith("error: "), err
    assert len(err.strip().splitlines()) == 1 and len(err.strip()) <= 200 + 7, err


# the replay clauses for flags graphfit read only for them (issue 23, s50k): mixed
# prefill/decode, LoRA, radix sessions (deepseek_v4_hook.py:323-325), alone, together (the
# first in SGLang's order wins), behind an earlier clause (PD decode, :317) and ahead of the
# feature list (HiSparse, :333-353) and the chunk budget (:250-267, run later); `--lora-paths`
# alone turns LoRA on only after the model's hook (lora_hook.py:39-41), so SGLang plans it
REPLAY_BLOCKERS = [
    ["--enable-mixed-chunk"],
    ["--enable-lora"],
    ["--enable-session-radix-cache"],
    ["--enable-session-radix-cache", "--enable-lora", "--enable-mixed-chunk"],
    ["--enable-session-radix-cache", "--disaggregation-mode", "decode"],
    ["--enable-lora", "--enable-hisparse", "--chunked-prefill-size", "256"],
    ["--lora-paths", "a=/tmp/s50k-lora"],
]


def test_v41_replay_blockers_are_sglangs() -> None:
    """Each REPLAY_BLOCKERS line with encoder replay on a V4.1 model: where SGLang's pipeline
    refuses, graphfit refuses with SGLang's sentence; where it plans, graphfit plans (the
    replay window sized). Not vacuous: SGLang gives four sentences and plans one."""
    from tests.oracle import sglang_oracle as so

    case = dataclasses.replace(GRID[0], v41=True)
    sentences: list[str] = []
    for extra in REPLAY_BLOCKERS:
        extra = ["--enable-encoder-swa-bounded-replay", *extra]
        r = so.resolve([*case.argv(), *extra], gpu_mem_gb=80, model=pl.model_dir(case),
                       capability=(9, 0))
        got = pl.plan_figures([*pl.line(case), *extra], 80.0, case.weights_gb, None)
        if isinstance(r, so.Rejected):
            sentence = r.text.split(": ", 1)[-1].split(" (")[0].rstrip(".")
            sentences.append(sentence)
            assert isinstance(got, str) and got.startswith("ConfigError") \
                and sentence in got, (extra, r.text, got)
        else:
            sentences.append("plans")
            assert isinstance(got, dict) and got["swa"] == 0, (extra, got)  # the window sized
    assert len(set(sentences)) == 5 and sentences[-1] == "plans", sentences


# the encoder-replay request window sized (issue 23, s50k; pool_configurator.py:1200-1247):
# a V4.1 model without a draft, the line's requests per attention-DP rank and its chunk
# (the scratch rows: the chunk, or slots x 128 past it), low-ratio layers, a PD prefill
# server, a --swa-full-tokens-ratio the window overrides, a binding --max-total-tokens, the
# V4.1 layouts on a B200
REPLAY_WINDOW = [
    PlanCase(**V4, ratios=FLASH, sources=(), gpu_gb=80.0, weights_gb=40.0, v41=True,
             replay=True),
    PlanCase(**V4, ratios=FLASH, sources=(), gpu_gb=80.0, weights_gb=30.0, v41=True,
             requests=1024, chunk=4096, replay=True),  # slots x 128 > the chunk
    PlanCase(**V4, ratios=FLASH, sources=(), gpu_gb=141.0, weights_gb=60.0, v41=True, dp=4,
             requests=64, chunk=16384, replay=True, mode="prefill"),
    PlanCase(**V4, **LOW, gpu_gb=80.0, weights_gb=50.0, v41=True, swa_ratio=0.5,
             replay=True),
    PlanCase(**V4, ratios=FLASH, sources=(), gpu_gb=80.0, weights_gb=40.0, v41=True,
             max_total_tokens=300_000, replay=True),
    PlanCase(**V4, **LOW, weights_gb=80.0, v41=True, replay=True, **B200),
]


@pytest.mark.parametrize("case", REPLAY_WINDOW,
                         ids=[str(i) for i in range(len(REPLAY_WINDOW))])
def test_replay_window_is_sized_as_sglang_does(case: PlanCase) -> None:
    """Each figure agrees with SGLang's configurator, and the window moves them: SGLang's
    own figures for the same line without replay differ (the SWA pool and its c4 state come
    back; the full pool moves unless --max-total-tokens binds both)."""
    assert pl.compare(case) is None
    plain = pl.sglang_side(dataclasses.replace(case, replay=False))
    sized = pl.sglang_side(case)
    assert isinstance(sized, dict) and sized["swa"] == sized["c4_state"] == 0, sized
    assert isinstance(plain, dict) and plain["swa"] > 0, plain
    assert plain["full"] != sized["full"] or case.max_total_tokens is not None  # cap binds


# DeepSeek-V4.1's default --dsv4-attn-backend on SM100 (issue 23, s48k): SGLang's
# `_default_dsv4_attention_backend` (deepseek_v4_hook.py:45-60) from the KV cache dtype,
# attention TP off PD and an explicit SGLANG_DSV4_KV_LAYOUT; low-ratio layers, whose pools
# the V4.1 and V4 layouts size apart
DEFAULTS = [
    PlanCase(**V4, **LOW, weights_gb=80.0, v41=True, **B200),
    PlanCase(**V4, **LOW, weights_gb=80.0, v41=True, kv_dtype="bfloat16", **B200),
    PlanCase(**V4, **LOW, weights_gb=80.0, v41=True, tp=2, **B200),
    PlanCase(**V4, **LOW, weights_gb=80.0, v41=True, kv_dtype="auto", tp=2, mode="decode",
             **B200),
    PlanCase(**V4, **LOW, weights_gb=80.0, v41=True, layout="v4", **B200),
    PlanCase(**V4, **LOW, weights_gb=80.0, v41=True, kv_dtype="fp8_e4m3", tp=2,
             mode="prefill", **B200),
]


@pytest.mark.parametrize("case", DEFAULTS, ids=[str(i) for i in range(len(DEFAULTS))])
def test_v41_default_backend(case: Case) -> None:
    assert pl.compare(case) is None


def test_v41_default_backend_is_not_vacuous() -> None:
    """SGLang's own resolution picks both backends over DEFAULTS (each input of the default
    turns it to flashmla once: the bfloat16 cache, attention TP, an explicit v4 layout; a PD
    role keeps flashmla_mega under TP), and the backend moves SGLang's figures."""
    from tests.oracle import sglang_oracle as so
    from tests.oracle import sglang_post_capture_oracle as pc

    def backend(case: PlanCase) -> str:
        with pc.environment(None, pl.environ(case)):
            r = so.resolve(case.argv(), gpu_mem_gb=case.gpu_gb, model=pl.model_dir(case),
                           capability=(10, 0))
            assert not isinstance(r, so.Rejected), r
            with so.published(r):
                from sglang.srt.runtime_context import get_exec

                return str(get_exec().kernel.dsv4_attn_backend)

    picked = [backend(c) for c in DEFAULTS]
    assert picked == ["flashmla_mega", "flashmla", "flashmla", "flashmla_mega", "flashmla",
                      "flashmla_mega"], picked
    results = [pl.sglang_side(c) for c in DEFAULTS]
    assert all(isinstance(r, dict) for r in results), results
    assert results[0] != results[1] and results[0] != results[4]


# DSPARK drafts on DeepSeek-V4 / V4.1 (issue 23, s51k): the pools without encoder replay
# (speculation's (layers + 1) / layers inflation, the draft tokens in the compress-state
# rings, pool_configurator.py:1191-1198, 1250-1257), then beside replay, where the window takes
# the draft tokens and, on CUDA, one SWA ring per draft layer (:1200-1239,
# deepseek_v4_memory_pool.py:135-147): the draft's own num_hidden_layers
# (`dflash_draft_num_layers`, spec_aux_hidden_state.py:219, 280), not its target layer ids
ONE, FOUR = '{"num_hidden_layers": 1}', '{"num_hidden_layers": 4}'
DSPARK_POOLS = [
    PlanCase(**V4, ratios=FLASH, sources=(), gpu_gb=80.0, weights_gb=40.0, dspark="{}"),
    PlanCase(**V4, **LOW, gpu_gb=80.0, weights_gb=50.0, v41=True, dspark=ONE),
    PlanCase(**V4, ratios=FLASH, sources=(), gpu_gb=80.0, weights_gb=40.0, v41=True,
             replay=True, dspark="{}"),
    PlanCase(**V4, ratios=FLASH, sources=(), gpu_gb=80.0, weights_gb=40.0, v41=True,
             replay=True, dspark=FOUR),
    PlanCase(**{**V4, "window": 250}, ratios=FLASH, sources=(), gpu_gb=80.0, weights_gb=30.0,
             v41=True, requests=1024, chunk=4096, replay=True,
             dspark='{"block_size": 9, "num_hidden_layers": 2}'),  # window + 10 > a page
    PlanCase(**V4, **LOW, gpu_gb=80.0, weights_gb=50.0, v41=True, replay=True,
             dspark='{"dspark_target_layer_ids": [1, 3, 4], "num_hidden_layers": 1}'),
    PlanCase(**V4, ratios=FLASH, sources=(), gpu_gb=141.0, weights_gb=60.0, v41=True, dp=4,
             requests=64, chunk=16384, replay=True, mode="prefill", dspark=ONE,
             extra_flags=("--enable-dp-lm-head",)),  # DSPARK's need under attention DP
    PlanCase(**V4, **LOW, weights_gb=80.0, v41=True, replay=True, dspark=FOUR, **B200),
    PlanCase(**V4, ratios=FLASH, sources=(), gpu_gb=80.0, weights_gb=40.0, v41=True,
             max_total_tokens=300_000, replay=True, dspark=FOUR),
    # 130 draft tokens (the c128 ring's most, no c4 layer): past 128 a scratch slot row
    PlanCase(**V4, ratios=(0, 128, 0, 128, 0), sources=(), gpu_gb=80.0, weights_gb=30.0,
             v41=True, requests=1024, chunk=4096, replay=True,
             dspark='{"block_size": 129, "num_hidden_layers": 2}'),
]


@pytest.mark.parametrize("case", DSPARK_POOLS, ids=[str(i) for i in range(len(DSPARK_POOLS))])
def test_dspark_pools_are_sized_as_sglang_does(case: PlanCase) -> None:
    assert pl.compare(case) is None


def test_dspark_pools_are_not_vacuous() -> None:
    """Every DSPARK_POOLS line is sized by SGLang; beside replay the draft moves SGLang's
    figures (the same line without the draft, and with 1 vs 4 draft layers, differ), and
    a draft's target layer ids do not (the ring counts the draft's own layers)."""
    sized = [pl.sglang_side(c) for c in DSPARK_POOLS]
    assert all(isinstance(r, dict) for r in sized), sized
    bare = pl.sglang_side(dataclasses.replace(DSPARK_POOLS[2], dspark=None))
    assert isinstance(bare, dict) and bare["full"] != sized[2]["full"]  # type: ignore[index]
    assert sized[2]["full"] != sized[3]["full"]  # type: ignore[index]  # 32 vs 4 layers
    ids = DSPARK_POOLS[5]
    same = pl.sglang_side(dataclasses.replace(ids, dspark=ONE))
    three = pl.sglang_side(dataclasses.replace(ids, dspark='{"num_hidden_layers": 3}'))
    assert same == sized[5] != three, (same, sized[5], three)
