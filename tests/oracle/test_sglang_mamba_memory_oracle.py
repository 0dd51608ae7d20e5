"""The mamba state cache sized from GPU memory: graphfit (a pasted line read by graphfit's own
reader with --gpu-memory-gb / --weights-gb / --preload-avail-gb, then `graphfit.plan`) vs
SGLang 0.5.23's own `_profile_available_bytes` + `_handle_max_mamba_cache` +
`resolve_max_num_reqs` (kv_cache_configurator.py:2990-3410) over generated lines on
Qwen3-Next-shaped models, a GraniteMoeHybrid, a Nemotron-H, two Falcon-H1 and a Qwen3.5 one
with its vision tower
(tests/oracle/sglang_mamba_memory_oracle), with and without speculative decoding, and with the
line's SGLANG_MAMBA_SSM_DTYPE, SGLANG_MAMBA_CONV_DTYPE, SGLANG_PP_LAYER_PARTITION,
SGLANG_VLM_CACHE_SIZE_MB and SGLANG_MM_FEATURE_CACHE_MB prefixes, on a disaggregated prefill
server and on Kimi-K3, Glm5Next, Jet-Nemotron, Bailing hybrid (lightning and KDA),
GigaChat3.5 (registered only through the linear-attention registry), Zaya and LFM2-VL
directories, and on decode servers."""

from __future__ import annotations

import shlex
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")

import graphfit  # noqa: E402
from graphfit.cli.options import resolve_values  # noqa: E402
from graphfit.inputs import commandline  # noqa: E402
from graphfit.planner.core.errors import ConfigError  # noqa: E402
from graphfit.planner.engines.sglang_pool import request_pool  # noqa: E402
from tests.oracle import sglang_mamba_memory_oracle as mm  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402

# speculative decoding: (algorithm, steps, topk, draft tokens); None: off. The joint solve
# with the intermediate SSM states (kv_cache_configurator.py:3344-3360)
SPECS = (None, ("NEXTN", 3, 1, 4), ("NEXTN", 1, 1, 2), ("NEXTN", 5, 1, 6), ("NGRAM",))

# (variable, value) pairs: the conv dtype (an unknown name: bfloat16), the stage partition
# (uneven, one stage empty, wrong count or sum, not numbers: refused by both under PP,
# ignored at one stage), the multimodal reservation sizes (0, larger, unparsable: default)
ENV_VALUES = (
    ("SGLANG_MAMBA_CONV_DTYPE", "float32"), ("SGLANG_MAMBA_CONV_DTYPE", "float16"),
    ("SGLANG_MAMBA_CONV_DTYPE", "bfloat16"), ("SGLANG_MAMBA_CONV_DTYPE", "Float32"),
    ("SGLANG_PP_LAYER_PARTITION", "1,3"), ("SGLANG_PP_LAYER_PARTITION", "0,4"),
    ("SGLANG_PP_LAYER_PARTITION", "2,2"), ("SGLANG_PP_LAYER_PARTITION", "1, 2,1"),
    ("SGLANG_PP_LAYER_PARTITION", "4,1"), ("SGLANG_PP_LAYER_PARTITION", "a,b"),
    ("SGLANG_VLM_CACHE_SIZE_MB", "0"), ("SGLANG_VLM_CACHE_SIZE_MB", "4096"),
    ("SGLANG_VLM_CACHE_SIZE_MB", "lots"), ("SGLANG_MM_FEATURE_CACHE_MB", "0"),
    ("SGLANG_MM_FEATURE_CACHE_MB", "3072"), ("SGLANG_MM_FEATURE_CACHE_MB", " 512 "))

LINES = st.fixed_dictionaries({
    # Qwen3-Next shapes, then GraniteMoeHybrid, Nemotron-H, two Falcon-H1, the Qwen3.5 VLM,
    # Kimi-Linear, LFM2, LFM2-MoE, ..., Bailing, GigaChat3.5 and Zaya (mm.OTHER_CONFIGS)
    "shape": st.sampled_from(range(mm.ALL_SHAPES)),
    "tp": st.sampled_from(((1, 1), (2, 1), (4, 1), (4, 2), (2, 2))),
    "gb": st.sampled_from((24.0, 40.0, 80.0, 141.0)),
    "weights": st.floats(0.0, 1.05),  # x the GPU's memory
    "preload": st.none() | st.floats(0.0, 4.0),  # GiB below the GPU's memory
    "fraction": st.none() | st.sampled_from((0.5, 0.7, 0.88, 0.93)),
    "ratio": st.none() | st.sampled_from((0.05, 0.5, 0.9, 2.0, 4.0)),
    "ssm": st.sampled_from((None, "float32", "bfloat16", "float16")),
    "radix_off": st.booleans(), "overlap": st.booleans(),
    "S": st.none() | st.integers(1, 3000),
    "spec": st.sampled_from(SPECS),
    "M": st.none() | st.integers(1, 400000),  # --max-mamba-cache-size: the flags fix it
    "pp": st.sampled_from((1, 1, 2, 3, 4)),  # pipeline stages: the widest stage's share
    "cp": st.sampled_from((1, 1, 1, 2)),  # --attn-cp-size: the state's attention-TP width
    "mmt": st.sampled_from((None, "cpu", "cuda_ipc", "cuda_vmm")),  # --mm-feature-transport
    # a disaggregated prefill server: no intermediate states under speculation (:172-181)
    # (a role switch refuses speculation and PP; --enable-unified-memory, whose own checks
    # graphfit does not read, is left out: with speculation graphfit does not restate it);
    # a decode server: its radix cache off (pd_disaggregation_hook.py:98-127)
    "pd": st.sampled_from((None, None, None, "prefill", "prefill+switch", "decode")),
    # the line's SGLANG_MAMBA_SSM_DTYPE prefix ("fp8": one SGLang ignores with a warning)
    "env_ssm": st.sampled_from((None, "float16", "bfloat16", "float32", "fp8")),
    # the line's other variables the solve reads (sglang_mamba_memory_oracle.OTHER_ENV)
    "env": st.lists(st.sampled_from(ENV_VALUES), max_size=3, unique_by=lambda kv: kv[0])
    .map(tuple)})


def argv_of(p: dict) -> tuple[str, ...]:
    tp, dp = p["tp"]
    argv: tuple[str, ...] = ("--tp", str(tp)) if tp > 1 else ()
    argv += ("--attn-dp-size", str(dp)) if dp > 1 else ()
    argv += () if p["fraction"] is None else ("--mem-fraction-static", str(p["fraction"]))
    argv += () if p["ratio"] is None else ("--mamba-full-memory-ratio", str(p["ratio"]))
    argv += () if p["ssm"] is None else ("--mamba-ssm-dtype", p["ssm"])
    argv += ("--disable-radix-cache",) if p["radix_off"] else ()
    argv += () if p["overlap"] else ("--disable-overlap-schedule",)
    argv += () if p["S"] is None else ("--max-running-requests", str(p["S"]))
    argv += () if p.get("M") is None else ("--max-mamba-cache-size", str(p["M"]))
    argv += () if p.get("pp", 1) == 1 else ("--pp-size", str(p["pp"]))
    argv += () if p.get("cp", 1) == 1 else ("--attn-cp-size", str(p["cp"]))
    argv += () if p.get("mmt") is None else ("--mm-feature-transport", p["mmt"])
    pd = p.get("pd")
    argv += () if pd is None else ("--disaggregation-mode", pd.split("+")[0])
    argv += ("--enable-pd-role-switch",) if pd == "prefill+switch" else ()
    argv += tuple(p.get("more", ()))  # other flags (the Inkling lines' scattered sconv)
    spec = p.get("spec")
    if spec is not None:
        argv += ("--speculative-algorithm", spec[0])
        if len(spec) > 1:
            argv += ("--speculative-num-steps", str(spec[1]), "--speculative-eagle-topk",
                     str(spec[2]), "--speculative-num-draft-tokens", str(spec[3]))
    return argv


def memory(p: dict) -> tuple[float, float]:
    """(preload, weights) in GiB: what SGLang measures, what graphfit is told."""
    preload = p["gb"] - (p["preload"] or 0.0)
    return preload, p["gb"] * p["weights"]


def sglang_side(p: dict) -> mm.Sized | str:
    r = mm.resolve(argv_of(p), p["gb"], p["shape"], p.get("env_ssm"), p.get("env", ()))
    if not isinstance(r, so.Resolved):
        return r.text
    preload, weights = memory(p)
    return mm.sized(r, preload, weights)


def graphfit_side(p: dict, argv: tuple[str, ...] | None = None,
                  more_env: tuple[str, ...] = ()) -> Any:
    """graphfit's resolved config of the pasted line (ConfigError when it refuses it);
    `argv` / `more_env` replace the flags and add NAME=value prefixes (the post-capture
    oracle's lines)."""
    env = () if p.get("env_ssm") is None else (f"{mm.SSM_ENV}={p['env_ssm']}",)
    env += tuple(f"{name}={value}" for name, value in p.get("env", ())) + more_env
    line = [*env, "python", "-m", "sglang.launch_server", "--model-path",
            mm.model_dir(p["shape"]), *(argv_of(p) if argv is None else argv)]
    preload, weights = memory(p)
    own: dict[str, Any] = {"gpu_memory_gb": p["gb"], "weights_gb": weights}
    if p["preload"] is not None:
        own["preload_avail_gb"] = preload
    # pasted as one string, as a shell would take it (a value with spaces quoted)
    config = resolve_values(own, environ={},
                            pasted=commandline.read([shlex.join(line)])).config()
    return graphfit.plan(config).config


def _plan_of(shape: int, *argv: str) -> Any:
    """graphfit's plan of a plain line (80 GB, 20 GB of weights, 3000 requests) of `shape`
    with `argv` added; raises ConfigError where graphfit refuses it (the families' and
    hybrid leftovers' refusal tests)."""
    line = ["python", "-m", "sglang.launch_server", "--model-path", mm.model_dir(shape),
            "--max-running-requests", "3000", *argv]
    config = resolve_values({"gpu_memory_gb": 80.0, "weights_gb": 20.0}, environ={},
                            pasted=commandline.read([shlex.join(line)])).config()
    return graphfit.plan(config)


def agree(p: dict, theirs: mm.Sized | str | None = None) -> bool | None:
    """True: the same state cache size (when SGLang sizes it from memory), static fraction
    and, with --max-running-requests, request pool, or both refuse; False: they differ or
    graphfit refuses a line SGLang serves; None: SGLang refuses a line graphfit plans.
    `theirs`: SGLang's side when already computed."""
    theirs = sglang_side(p) if theirs is None else theirs
    try:
        ours = graphfit_side(p)
    except ConfigError:
        ours = None
    if isinstance(theirs, str):
        return True if ours is None else None
    if ours is None:
        return False
    # a request count: given, or the speculative hook's default 48 (speculative_hook.py)
    counted = p["S"] is not None or p.get("spec") is not None
    # the radix cache as SGLang resolved it (a decode server turns it off,
    # pd_disaggregation_hook.py:98-127)
    from_memory = not (theirs.radix_off and counted) and p.get("M") is None
    if from_memory and ours.mamba_memory_slots != theirs.cache_size:
        return False
    if ours.mem_fraction_static != theirs.mem_fraction_static:
        return False
    return not counted or request_pool(ours) == theirs.pool


def _line(**kw: object) -> dict:
    return {"shape": 0, "tp": (1, 1), "gb": 80.0, "weights": 0.25, "preload": None,
            "fraction": None, "ratio": None, "ssm": None, "radix_off": False,
            "overlap": True, "S": 3000, "spec": None, "env_ssm": None, "M": None, "pp": 1, "cp": 1,
            "mmt": None, "env": (), "pd": None, **kw}


@example(_line())  # the state cache caps the pool (719 < 3000)
@example(_line(tp=(4, 2), ssm="bfloat16", preload=1.5))
@example(_line(shape=1, tp=(4, 1), S=50))  # key heads widened to the TP width
@example(_line(ratio=0.05, fraction=0.5, overlap=False))  # no_buffer: 3 slots a request
@example(_line(radix_off=True, S=None))  # radix off, no request count: from memory
@example(_line(weights=1.0))  # no memory left: both refuse
@example(_line(shape=mm.GRANITE, tp=(2, 1)))  # GraniteMoeHybrid: mamba layers from layer_types
@example(_line(shape=mm.GRANITE, overlap=False, ssm="bfloat16"))
@example(_line(shape=mm.NEMOTRON, tp=(4, 1), ssm="bfloat16"))  # the legacy layer pattern
@example(_line(shape=mm.FALCON, tp=(2, 1), overlap=False))  # a mamba mixer in every layer
@example(_line(shape=mm.FALCON_AUTO, tp=(4, 2)))  # d_ssm from expand, "auto" head dim
@example(_line(shape=1, env_ssm="float32"))  # the variable over the config's bfloat16
@example(_line(env_ssm="bfloat16", ssm="float32"))  # the flag over the variable
@example(_line(shape=1, env_ssm="fp8"))  # a value SGLang ignores: the config's bfloat16
@example(_line(env_ssm="bfloat16"))  # over the default float32
@example(_line(M=4500, weights=0.5))  # a fixed cache the memory cannot hold: both refuse
@example(_line(M=4000, weights=0.5))  # ... and one it can
@example(_line(M=2100, weights=0.5, spec=SPECS[3]))  # with 6 intermediate states: refused
@example(_line(M=1900, weights=0.5, spec=SPECS[3]))
@example(_line(radix_off=True, S=3000, weights=0.75, spec=SPECS[1]))  # S slots fixed
@example(_line(pp=3))  # 3 stages over 4 layers, 3 of them linear: the widest holds 2
@example(_line(shape=mm.NEMOTRON, pp=2, spec=SPECS[1]))
@example(_line(shape=mm.FALCON, pp=4, M=4000, weights=0.6))
@example(_line(shape=mm.QWEN35_VL))  # multimodal: its 100 MiB embedding cache reserved
@example(_line(shape=mm.QWEN35_VL, mmt="cuda_ipc", spec=SPECS[1]))  # + the 1 GiB GPU pool
@example(_line(shape=mm.QWEN35_VL, mmt="cuda_vmm", M=3500, weights=0.55))  # refused ...
@example(_line(shape=mm.QWEN35_VL, M=3500, weights=0.55))  # ... served without the GPU pool
@example(_line(pp=2, mmt="cuda_vmm", overlap=False))  # refused by both (serving_hook.py:894)
@example(_line(shape=mm.KIMI, tp=(4, 1)))  # Kimi-Linear's KDA state; prefill graphs off
@example(_line(shape=mm.KIMI, env_ssm="bfloat16", spec=SPECS[1]))  # the config's dtype unread
@example(_line(shape=mm.LFM2, tp=(2, 1)))  # LFM2: a conv state only
@example(_line(shape=mm.LFM2_MOE, tp=(4, 2), pp=2))
@example(_line(tp=(4, 1), cp=2))  # attention CP: the state on the attention-TP width
@example(_line(shape=mm.NEMOTRON, tp=(4, 1), cp=2))  # Nemotron-H refuses CP
@example(_line(spec=SPECS[1]))  # the joint solve with 4 intermediate states a request
@example(_line(spec=SPECS[3], S=None, ssm="bfloat16"))  # S: the speculative default 48
@example(_line(spec=SPECS[1], radix_off=True, S=None))  # radix off: 48 slots, not memory
@example(_line(spec=SPECS[4], overlap=False))  # NGRAM: no draft model, the same solve
@example(_line(env=(ENV_VALUES[0],)))  # the conv state in float32
@example(_line(shape=mm.LFM2, tp=(2, 1), env=(ENV_VALUES[1],)))  # a conv-only state in fp16
@example(_line(env=(ENV_VALUES[3],)))  # a name SGLang does not know: bfloat16
@example(_line(pp=2, env=(ENV_VALUES[5],)))  # 0 + 4 layers: the last stage holds all 3
@example(_line(pp=3, spec=SPECS[1], env=(ENV_VALUES[7],)))  # 1, 2, 1: spaces pass int()
@example(_line(shape=mm.NEMOTRON, pp=2, env=(ENV_VALUES[5],)))  # 4 of 7 layers: refused
@example(_line(pp=2, env=(ENV_VALUES[6], ENV_VALUES[0])))  # with the conv dtype
@example(_line(pp=2, env=(ENV_VALUES[9],)))  # not numbers: refused by both
@example(_line(env=(ENV_VALUES[9],)))  # ... and ignored at one stage
@example(_line(pp=3, env=(ENV_VALUES[4],)))  # 2 counts for 3 stages: refused
@example(_line(shape=mm.QWEN35_VL, env=(ENV_VALUES[11],)))  # a 4 GiB embedding cache
@example(_line(shape=mm.QWEN35_VL, mmt="cuda_ipc", env=(ENV_VALUES[14], ENV_VALUES[10])))
@example(_line(shape=mm.QWEN35_VL, mmt="cuda_vmm", env=(ENV_VALUES[15], ENV_VALUES[12])))
@example(_line(shape=mm.QWEN35_VL, M=3500, weights=0.55, env=(ENV_VALUES[11],)))  # refused
@example(_line(pd="prefill", spec=SPECS[1]))  # PD prefill: the plain solve, no D states
@example(_line(pd="prefill", spec=SPECS[3], M=2100, weights=0.5))  # served there (cf. above)
@example(_line(pd="prefill", spec=SPECS[4], radix_off=True, S=None))
@example(_line(pd="prefill+switch", spec=SPECS[1]))  # a role switch refuses speculation
@example(_line(pd="prefill+switch", pp=2))  # ... and PP
@example(_line(pd="prefill+switch", shape=mm.KIMI))  # ... and serves the rest
@example(_line(shape=mm.KIMI_K3))  # Kimi-K3: Kimi-Linear's state under text_config, a VLM
@example(_line(shape=mm.KIMI_K3, tp=(4, 2), spec=SPECS[1], mmt="cuda_ipc"))
@example(_line(shape=mm.KIMI_K3, pp=2, env=(ENV_VALUES[0],)))
@example(_line(shape=mm.GLM5))  # Glm5Next: KDA by layer_types + linear_num_heads
@example(_line(shape=mm.GLM5_ATTN, tp=(4, 1)))  # ... by a 0-based linear_attn_config
@example(_line(shape=mm.GLM5, tp=(4, 2), spec=SPECS[1], pp=2))
@example(_line(shape=mm.JET))  # Jet-Nemotron: values 1.5 x the key dim
@example(_line(shape=mm.JET, tp=(4, 2), spec=SPECS[1], pp=2, env_ssm="float32"))
@example(_line(shape=mm.BAILING_LIGHTNING))  # Bailing lightning: an SSM-only state
@example(_line(shape=mm.BAILING_KDA, tp=(4, 1), env_ssm="bfloat16"))  # KDA: env dtype only
@example(_line(shape=mm.GIGACHAT_FULL, tp=(4, 1), pp=3))  # registry-only GDN: full layers
@example(_line(shape=mm.ZAYA, tp=(4, 1)))  # Zaya: (C / tp, P) + (hidden, 1) conv states
@example(_line(shape=mm.ZAYA, tp=(4, 2)))  # attention DP: the model's assertion
@example(_line(shape=mm.ZAYA_LIST, tp=(2, 1), pp=2, env=(ENV_VALUES[0],)))  # zaya_layers
@example(_line(shape=mm.GLM5_TEXT_ONLY))  # no vision tower: the embedding cache still held
@example(_line(pd="decode", spec=SPECS[1]))  # decode: radix off, 3000 fixed slots: refused
@example(_line(shape=mm.LFM2_VL, M=3000, weights=0.5))  # LFM2-VL: 3 slots a request, no
@example(_line(shape=mm.LFM2_VL, tp=(4, 2), spec=SPECS[1]))  # strategy resolution
@given(LINES)
@settings(max_examples=25)  # 76 pinned examples above; the measure script draws thousands
def test_state_cache_from_memory_equals_sglang(p: dict) -> None:
    # strict: SGLang's refusals on these lines are all restated (None would be one missed)
    assert agree(p) is True, (argv_of(p), p, sglang_side(p))


def test_unified_memory_with_speculation_on_a_prefill_server_is_refused_as_sglang_refuses_it(
) -> None:
    """--enable-unified-memory with speculation on a PD server over the default Mooncake
    backend: SGLang refuses it (arg_groups/kv_cache_hook.py:547-553), and so does graphfit,
    with that place (restated since s39u), rather than planning a state cache it does not size."""
    p = _line(pd="prefill", spec=SPECS[1])
    line = ["python", "-m", "sglang.launch_server", "--model-path", mm.model_dir(0),
            *argv_of(p), "--enable-unified-memory"]
    with pytest.raises(ConfigError, match=r"kv_cache_hook\.py:547-553"):
        graphfit.plan(resolve_values({"gpu_memory_gb": 80.0, "weights_gb": 20.0}, environ={},
                                     pasted=commandline.read(line)).config())
    r = mm.resolve((*argv_of(p), "--enable-unified-memory"), 80.0, 0)
    assert not isinstance(r, so.Resolved) and "Mooncake" in r.text


def test_cp_tp_group_sharing_splits_the_state_over_tp() -> None:
    """Glm5Next with --enable-prefill-cp and --attn-cp-size == --tp: SGLang shares the CP
    group with TP (arg_groups/cp_tp_group_sharing_hook.py:26-130) and splits the KDA state
    over the whole TP group (runtime_context.py:477-486: a quarter of the bytes at TP 4);
    graphfit sizes it the same way since issue 23 s63p (SglangOptions.cp_tp_group_sharing;
    more lines in test_sglang_prefill_cp_sharing_oracle)."""
    shared = ("--tp", "4", "--attn-cp-size", "4", "--enable-prefill-cp", "--cp-strategy",
              "interleave", "--max-running-requests", "64")
    plain = mm.resolve(shared[:4] + shared[-2:], 80.0, mm.GLM5)
    sharing = mm.resolve(shared, 80.0, mm.GLM5)
    assert isinstance(plain, so.Resolved) and isinstance(sharing, so.Resolved)
    ours, theirs = mm.sized(plain, 80.0, 20.0), mm.sized(sharing, 80.0, 20.0)
    assert isinstance(ours, mm.Sized) and isinstance(theirs, mm.Sized)
    assert theirs.per_request * 4 == ours.per_request
    line = ["python", "-m", "sglang.launch_server", "--model-path", mm.model_dir(mm.GLM5),
            *shared, "--attention-backend", "fa3"]  # the prefill backend CP's graphs read
    config = resolve_values({"gpu_memory_gb": 80.0, "weights_gb": 20.0}, environ={},
                            pasted=commandline.read(line)).config()
    assert graphfit.plan(config).config.mamba_memory_slots == theirs.cache_size


def test_without_weights_the_pool_is_not_capped() -> None:
    """No --weights-gb: graphfit keeps today's pool (not capped by memory) and says why;
    SGLang's own pool on the same line is capped (719 < 3000, the @example above)."""
    line = ["python", "-m", "sglang.launch_server", "--model-path", mm.model_dir(0),
            "--max-running-requests", "3000"]
    config = resolve_values({"gpu_memory_gb": 80.0}, environ={},
                            pasted=commandline.read(line)).config()
    plan = graphfit.plan(config)
    assert plan.config.mamba_memory_slots is None
    assert request_pool(plan.config) == 3000
    assert "needs --weights-gb" in dict(plan.engine_inputs)["max_mamba_cache_size"]


@pytest.mark.parametrize("page", [64, 128, 192])
def test_granite_chunk_size_decides_the_page(page: int) -> None:
    """overrides.py:1916-1921: the page size and the model's mamba_chunk_size (256 in the
    GraniteMoeHybrid dir) must divide one another; 192 fails only against 256 (against FLA's
    64 it would pass). SGLang and graphfit refuse the same pages."""
    argv = ("--page-size", str(page), "--mamba-track-interval", "768",
            "--max-running-requests", "64")
    r = mm.resolve(argv, 80.0, mm.GRANITE)
    line = ["python", "-m", "sglang.launch_server", "--model-path", mm.model_dir(mm.GRANITE),
            *argv]
    try:
        graphfit.plan(resolve_values({"gpu_memory_gb": 80.0}, environ={},
                                     pasted=commandline.read(line)).config())
        graphfit_refuses = False
    except ConfigError:
        graphfit_refuses = True
    assert (not isinstance(r, so.Resolved)) == graphfit_refuses == (page == 192)


@pytest.mark.parametrize("spec", [None, SPECS[1]])
def test_rl_on_policy_target_leaves_the_state_cache(spec: tuple | None) -> None:
    """--rl-on-policy-target turns deterministic inference on (attention_hook.py:586-593)
    but leaves the state cache, the static fraction and the pool SGLang sizes as they are
    (the solve reads none of it): graphfit's figures match SGLang's with the flag too."""
    p = _line(spec=spec)
    argv = (*argv_of(p), "--rl-on-policy-target", "fsdp")
    r = mm.resolve(argv, p["gb"], p["shape"])
    assert isinstance(r, so.Resolved)
    preload, weights = memory(p)
    theirs = mm.sized(r, preload, weights)
    assert isinstance(theirs, mm.Sized)
    line = ["python", "-m", "sglang.launch_server", "--model-path", mm.model_dir(0), *argv]
    ours = graphfit.plan(resolve_values({"gpu_memory_gb": p["gb"], "weights_gb": weights},
                                        environ={}, pasted=commandline.read(line)).config()
                         ).config
    assert (ours.mamba_memory_slots, ours.mem_fraction_static, request_pool(ours)) == (
        theirs.cache_size, theirs.mem_fraction_static, theirs.pool)


@pytest.mark.parametrize("strategy", ["extra_buffer", "no_buffer"])
def test_lfm2_vl_is_not_routed_through_the_mamba_radix_cache(strategy: str) -> None:
    """LFM2-VL's state is mamba-ish (configs/hybrid_arch.py:84) but SGLang does not route it
    through the hybrid-mamba radix cache (overrides.py:369-399): an explicit extra buffer is
    refused (model_hook.py:1059-1066), no_buffer is served with the overlap schedule on (no
    validation runs), and both sides size the same cache."""
    argv = ("--mamba-radix-cache-strategy", strategy, "--max-mamba-cache-size", "3000")
    r = mm.resolve(argv, 80.0, mm.LFM2_VL)
    line = ["python", "-m", "sglang.launch_server", "--model-path", mm.model_dir(mm.LFM2_VL),
            *argv]
    try:
        ours = graphfit.plan(resolve_values({"gpu_memory_gb": 80.0, "weights_gb": 20.0},
                                            environ={}, pasted=commandline.read(line)).config()
                             ).config
    except ConfigError:
        ours = None
    if strategy == "extra_buffer":
        assert not isinstance(r, so.Resolved) and "needs mamba state" in r.text
        assert ours is None
        return
    assert isinstance(r, so.Resolved) and ours is not None
    theirs = mm.sized(r, 80.0, 20.0)
    assert isinstance(theirs, mm.Sized) and request_pool(ours) == theirs.pool == 1000
