"""Agreement counts: graphfit's mamba state cache sized from GPU memory (and the pool it caps,
and the lines either refuses) vs SGLang 0.5.23's own code over a grid of lines on
Qwen3-Next-shaped, GraniteMoeHybrid, Nemotron-H, Falcon-H1, Kimi-Linear and LFM2 models:
plain, speculative (the joint solve), with the cache fixed by the flags (the weights
refusal), with the state dtype from SGLANG_MAMBA_SSM_DTYPE, under pipeline parallelism, on a
multimodal model, on the KDA / conv-only state shapes, with attention context parallelism and
with the line's other variables (conv dtype, stage partition, multimodal reservation sizes)
and on a disaggregated prefill server; the Bailing, GigaChat3.5 and Zaya states (hybrids);
a decode server (decode); the pure Mamba-1 / Falcon-Mamba / Mamba-2 models, MiniCPM-SALA,
Nemotron-H Nano VL V2 and InternS2-Preview (families, families_modes); Zaya's head counts
and Qwen4-Exp (families_more).
Run: python -m tests.oracle.measure_sglang_mamba_memory [part ...]   (parts: plain, spec,
fixed, env, pp, mm, kinds, cp, envvars, pd, hybrids, decode, families, families_modes,
families_more, families_omni, omni_full, inkling, qwen4_exp_bare; all by default)"""

from __future__ import annotations

import itertools
import sys

from tests.oracle.sglang_mamba_memory_oracle import (
    ALL_SHAPES,
    BAILING_KDA,
    BAILING_LIGHTNING,
    FALCON_MAMBA,
    GIGACHAT,
    GIGACHAT_FULL,
    GLM5,
    GLM5_ATTN,
    INKLING,
    INKLING_DEFAULTS,
    INKLING_MTP_BAD,
    INKLING_ODD,
    INTERNS2,
    JET,
    KIMI,
    KIMI_K3,
    LFM2,
    LFM2_MOE,
    LFM2_VL,
    MAMBA1,
    MAMBA2,
    MAMBA2_BARE,
    MINICPM,
    NANO_OMNI,
    NEMOTRON_VL,
    OMNI_FULL,
    OMNI_FULL_ODD,
    QWEN4_EXP,
    QWEN4_EXP_BARE,
    QWEN35_VL,
    SHAPES,
    ZAYA,
    ZAYA_GQA,
    ZAYA_LIST,
    ZAYA_ODD,
)
from tests.oracle.test_sglang_mamba_memory_oracle import (
    ENV_VALUES,
    SPECS,
    _line,
    agree,
    argv_of,
    sglang_side,
)

TPS = ((1, 1), (4, 1), (4, 2))


def plain() -> list[dict]:
    return [_line(shape=shape, tp=tp, weights=weights, ssm=ssm, radix_off=radix_off, S=s,
                  ratio=ratio)
            for shape, tp, weights, ssm, (radix_off, s, ratio) in itertools.product(
                range(ALL_SHAPES), TPS, (0.2, 0.9), (None, "bfloat16"),
                ((False, None, None), (False, 3000, 0.5), (True, None, 2.0)))]


def spec() -> list[dict]:
    """The joint solve with the intermediate states (NEXTN 4 and 6 draft tokens, NGRAM's
    12), request count given or the speculative default."""
    return [_line(shape=shape, tp=tp, weights=0.3, spec=algorithm, S=s, overlap=overlap)
            for shape, tp, algorithm, s, overlap in itertools.product(
                range(ALL_SHAPES), TPS, (SPECS[1], SPECS[3], SPECS[4]), (None, 3000),
                (True, False))]


def fixed() -> list[dict]:
    """--max-mamba-cache-size (or radix off with a request count) around what the memory
    holds: SGLang's 'Loaded weights leave no GPU memory' refusal."""
    return [_line(shape=shape, weights=0.5, M=m, spec=algorithm, radix_off=radix_off,
                  S=1000 if radix_off else 3000)
            for shape, m, algorithm, radix_off in itertools.product(
                range(len(SHAPES)), (1000, 2000, 4000, 4500, 9000, 40000),
                (None, SPECS[3]), (False, True))
            if not (radix_off and m != 1000)]


def env() -> list[dict]:
    return [_line(shape=shape, env_ssm=value, ssm=flag)
            for shape, value, flag in itertools.product(
                range(ALL_SHAPES), ("float32", "bfloat16", "float16", "fp8"),
                (None, "float32"))]


def pp() -> list[dict]:
    """Pipeline stages: each rank charged the widest stage's share of the state layers, the
    overlap schedule off (so fewer tracking slots a request)."""
    return [_line(shape=shape, pp=stages, spec=algorithm, overlap=overlap, M=m)
            for shape, stages, algorithm, overlap, m in itertools.product(
                range(ALL_SHAPES), (2, 3, 4), (None, SPECS[1]), (True, False),
                (None, 4000))]


def mm() -> list[dict]:
    """The multimodal Qwen3.5: its reservation (100 MiB, + 1 GiB with a GPU transport)."""
    return [_line(shape=QWEN35_VL, mmt=transport, spec=algorithm, M=m, weights=weights)
            for transport, algorithm, m, weights in itertools.product(
                (None, "cpu", "cuda_ipc", "cuda_vmm"), (None, SPECS[1]), (None, 3400, 3500),
                (0.3, 0.55))]


def kinds() -> list[dict]:
    """Kimi-Linear's KDA state (Kimi-K3's under its text_config, Glm5Next's in both forms),
    Jet-Nemotron's JetBlock state and LFM2 / LFM2-MoE's conv-only state: TP widths, state
    dtype by flag and variable, speculation, pipeline stages, memory left or not."""
    return [_line(shape=shape, tp=tp, ssm=ssm, env_ssm=env_ssm, spec=algorithm, pp=stages,
                  weights=weights)
            for shape, tp, (ssm, env_ssm), algorithm, stages, weights in itertools.product(
                (KIMI, LFM2, LFM2_MOE, KIMI_K3, GLM5, GLM5_ATTN, JET), TPS,
                ((None, None), ("bfloat16", None), (None, "float16")),
                (None, SPECS[1]), (1, 2), (0.3, 0.9))]


def cp() -> list[dict]:
    """--attn-cp-size 2 / 4 with TP 4 (and attention DP 2): the state on the attention-TP
    width; Nemotron-H refused by both."""
    return [_line(shape=shape, tp=tp, cp=size, spec=algorithm, S=s)
            for shape, (tp, size), algorithm, s in itertools.product(
                range(ALL_SHAPES), (((4, 1), 2), ((4, 1), 4), ((4, 2), 2), ((2, 1), 2)),
                (None, SPECS[1]), (None, 3000))]


def envvars() -> list[dict]:
    """The line's SGLANG_MAMBA_CONV_DTYPE (every model, with the SSM dtype flag or not),
    SGLANG_PP_LAYER_PARTITION (every model, 2 and 3 stages, good and refused partitions) and
    the multimodal reservation sizes (the Qwen3.5 VLM, each transport)."""
    conv = [_line(shape=shape, tp=tp, ssm=ssm, env=(value,))
            for shape, tp, ssm, value in itertools.product(
                range(ALL_SHAPES), ((1, 1), (4, 2)), (None, "bfloat16"), ENV_VALUES[:4])]
    parts = [_line(shape=shape, pp=stages, spec=algorithm, env=(value,))
             for shape, stages, algorithm, value in itertools.product(
                 range(ALL_SHAPES), (1, 2, 3), (None, SPECS[1]), ENV_VALUES[4:10])]
    sizes = [_line(shape=QWEN35_VL, mmt=transport, weights=weights, M=m, env=pair)
             for transport, weights, m, pair in itertools.product(
                 (None, "cuda_ipc", "cuda_vmm"), (0.3, 0.55), (None, 3500),
                 itertools.combinations((None, *ENV_VALUES[10:]), 2))
             if pair[0] is None or pair[0][0] != pair[1][0]]  # one value a variable
    return conv + parts + [{**p, "env": tuple(v for v in p["env"] if v)} for p in sizes]


def pd() -> list[dict]:
    """A disaggregated prefill server (no intermediate states: the plain solve, the fixed
    cache's refusal without them) with and without a role switch (which SGLang refuses
    with speculation or PP), every model."""
    return [_line(shape=shape, pd=mode, spec=algorithm, M=m, weights=0.5 if m else 0.3,
                  pp=stages)
            for shape, mode, algorithm, m, stages in itertools.product(
                range(ALL_SHAPES), ("prefill", "prefill+switch"),
                (None, SPECS[1], SPECS[3], SPECS[4]), (None, 2100), (1, 2))]


def hybrids() -> list[dict]:
    """The Bailing hybrids (lightning's SSM-only state, KDA), GigaChat3.5 (registry-only GDN,
    both layer forms), Zaya (the head-split and whole conv states, both layer forms) and
    LFM2-VL (LFM2's conv state, not routed through the mamba radix cache):
    TP widths with attention DP (Zaya's model refuses it), state dtype by flag and
    variable, the conv dtype, speculation, pipeline stages, memory left or not."""
    return [_line(shape=shape, tp=tp, ssm=ssm, env_ssm=env_ssm, spec=algorithm, pp=stages,
                  weights=weights, env=conv)
            for shape, tp, (ssm, env_ssm), algorithm, stages, weights, conv in
            itertools.product(
                (BAILING_LIGHTNING, BAILING_KDA, GIGACHAT, GIGACHAT_FULL, ZAYA, ZAYA_LIST,
                 LFM2_VL),
                TPS, ((None, None), ("bfloat16", None), (None, "float16")),
                (None, SPECS[1]), (1, 2), (0.3, 0.9), ((), (ENV_VALUES[0],)))]


def decode() -> list[dict]:
    """A disaggregated decode server (its radix cache off, pd_disaggregation_hook.py:98-127):
    the fixed cache of --max-running-requests (or the speculative default 48) and its
    refusal when it leaves no KV memory, or the memory solve without a request count;
    every model."""
    return [_line(shape=shape, pd="decode", spec=algorithm, S=s, weights=0.3)
            for shape, algorithm, s in itertools.product(
                range(ALL_SHAPES), (None, SPECS[1], SPECS[4]), (None, 3000))]


NEW_FAMILIES = (MAMBA1, FALCON_MAMBA, MAMBA2, MAMBA2_BARE, MINICPM, NEMOTRON_VL, INTERNS2)


def families() -> list[dict]:
    """Issue 23's remaining families (configs/hybrid_arch.py:46-108): pure Mamba-1 /
    Falcon-Mamba (full-rank state, whole TP group), Mamba-2 (with and without the
    intermediate_size transformers no longer sets), MiniCPM-SALA (lightning's SSM-only state,
    radix cache off, attention DP refused), Nemotron-H Nano VL V2 (its llm_config's state)
    and InternS2-Preview (Qwen3.5-MoE's GDN state): TP widths with attention DP, state dtype
    by flag and variable, the conv dtype, speculation, pipeline stages."""
    return [_line(shape=shape, tp=tp, ssm=ssm, env_ssm=env_ssm, spec=algorithm, pp=stages,
                  weights=0.3, env=conv)
            for shape, tp, (ssm, env_ssm), algorithm, stages, conv in itertools.product(
                NEW_FAMILIES, TPS, ((None, None), ("bfloat16", None), (None, "float16")),
                (None, SPECS[1]), (1, 2), ((), (ENV_VALUES[0],)))]


def families_modes() -> list[dict]:
    """The same families with the cache fixed or the radix cache off (with and without a
    request count), attention CP, a disaggregated prefill / decode server, memory left or
    not (a fixed cache of 40000 the memory cannot hold)."""
    return [_line(shape=shape, tp=tp, cp=cp, radix_off=radix_off, S=s, M=m, pd=pd,
                  weights=0.5 if m else 0.3, spec=algorithm)
            for shape, (tp, cp), (radix_off, s, m), pd, algorithm in itertools.product(
                NEW_FAMILIES, (((1, 1), 1), ((4, 1), 2), ((4, 2), 2)),
                ((False, 3000, None), (True, None, None), (True, 3000, None),
                 (False, 3000, 4000), (False, 3000, 40000)),
                (None, "prefill", "decode"), (None, SPECS[1]))]


def families_more() -> list[dict]:
    """Zaya's head-count assertions at load (both lists, an odd and a non-multiple head
    count) and Qwen4-Exp's GDN state (its PLE short-conv states priced apart): TP widths with
    attention DP, speculation, pipeline stages, a decode server, state dtypes."""
    return [_line(shape=shape, tp=tp, spec=algorithm, pp=stages, pd=pd, ssm=ssm)
            for shape, tp, algorithm, stages, pd, ssm in itertools.product(
                (ZAYA, ZAYA_LIST, ZAYA_ODD, ZAYA_GQA, QWEN4_EXP), ((1, 1), (2, 1), *TPS[1:]),
                (None, SPECS[1]), (1, 2), (None, "decode"), (None, "float32"))]


def _omni_grid(shapes: tuple[int, ...]) -> list[dict]:
    """The `families` and `families_modes` grids on `shapes`."""
    return [_line(shape=shape, tp=tp, ssm=ssm, env_ssm=env_ssm, spec=algorithm, pp=stages,
                  weights=0.3, env=conv)
            for shape, tp, (ssm, env_ssm), algorithm, stages, conv in itertools.product(
                shapes, TPS, ((None, None), ("bfloat16", None), (None, "float16")),
                (None, SPECS[1]), (1, 2), ((), (ENV_VALUES[0],)))] + [
        _line(shape=shape, tp=tp, cp=cp, radix_off=radix_off, S=s, M=m, pd=pd,
              weights=0.5 if m else 0.3, spec=algorithm)
        for shape, (tp, cp), (radix_off, s, m), pd, algorithm in itertools.product(
            shapes, (((1, 1), 1), ((4, 1), 2), ((4, 2), 2)),
            ((False, 3000, None), (True, None, None), (True, 3000, None),
             (False, 3000, 4000), (False, 3000, 40000)),
            (None, "prefill", "decode"), (None, SPECS[1]))]


def families_omni() -> list[dict]:
    """Nemotron-H Nano Omni V3 (the Nano VL V2 config class under its own model_type,
    configs/nano_nemotron_vl.py:180-186): the `families` and `families_modes` grids on it."""
    return _omni_grid((NANO_OMNI,))


def omni_full() -> list[dict]:
    """The full Nemotron-H Omni V3 (configs/nano_nemotron_vl.py:189-198: layer names
    aliased; a vision tower whose video_temporal_patch_size transformers' class refuses):
    the same grids on both files."""
    return _omni_grid((OMNI_FULL, OMNI_FULL_ODD))


def qwen4_exp_bare() -> list[dict]:
    """Qwen4-Exp without a vision_config (its class's default tower, configs/qwen4_exp.py:
    151-155, lowers the fraction): the `families_more` grid plus GPU sizes and transports."""
    return [_line(shape=QWEN4_EXP_BARE, tp=tp, spec=algorithm, pp=stages, pd=pd, ssm=ssm,
                  gb=gb, mmt=mmt)
            for tp, algorithm, stages, pd, ssm, gb, mmt in itertools.product(
                ((1, 1), (2, 1), *TPS[1:]), (None, SPECS[1]), (1, 2), (None, "decode"),
                (None, "float32"), (24.0, 80.0), (None, "cuda_ipc"))]


INKLINGS = (INKLING, INKLING_DEFAULTS, INKLING_ODD, INKLING_MTP_BAD)
SCATTERED = ("--enable-scattered-sconv",)


def inkling() -> list[dict]:
    """Inkling's short-conv state (configs/inkling.py:217-256; the MTP architecture, the
    class defaults, a hidden size TP 4 does not divide, a banded MTP geometry its config
    refuses): TP widths with attention DP, --enable-scattered-sconv, speculation, pipeline
    stages, the state dtype flag and conv dtype variable (both ignored: bfloat16), then the
    cache fixed (one the memory cannot hold), the radix cache off, a decode server, the
    overlap schedule off."""
    return [_line(shape=shape, tp=tp, more=more, spec=algorithm, pp=stages, ssm=ssm,
                  weights=weights, env=conv)
            for shape, tp, more, algorithm, stages, (ssm, conv), weights in itertools.product(
                INKLINGS, ((1, 1), (4, 1), (4, 2), (8, 1)), ((), SCATTERED),
                (None, SPECS[1]), (1, 2), ((None, ()), ("float16", (ENV_VALUES[0],))),
                (0.3,))] + [
        _line(shape=shape, tp=tp, more=more, radix_off=radix_off, S=s, M=m, pd=pd,
              weights=0.5 if m else 0.3, overlap=overlap)
        for shape, tp, more, (radix_off, s, m), pd, overlap in itertools.product(
            INKLINGS, ((1, 1), (4, 2)), ((), SCATTERED),
            ((False, 3000, None), (True, None, None), (True, 3000, None),
             (False, 3000, 4000), (False, 3000, 400000)),
            (None, "decode"), (True, False))]


PARTS = {"plain": plain, "spec": spec, "fixed": fixed, "env": env, "pp": pp, "mm": mm,
         "kinds": kinds, "cp": cp, "envvars": envvars,
         "pd": pd, "hybrids": hybrids, "decode": decode, "families": families,
         "families_modes": families_modes, "families_more": families_more,
         "families_omni": families_omni, "omni_full": omni_full,
         "inkling": inkling, "qwen4_exp_bare": qwen4_exp_bare}


def main(parts: list[str]) -> None:
    for part in parts:
        counts: dict[bool | None, int] = {True: 0, False: 0, None: 0}
        capped = refused = 0
        for p in PARTS[part]():
            theirs = sglang_side(p)
            verdict = agree(p, theirs)
            counts[verdict] += 1
            requests = p["S"] or (48 if p["spec"] else None)
            if isinstance(theirs, str):
                refused += verdict is True
            elif verdict and requests is not None and theirs.pool < requests // p["tp"][1]:
                capped += 1
            if verdict is not True:
                print("DIFFER" if verdict is False else "SGLANG ONLY REFUSES", argv_of(p),
                      p, str(theirs)[:160])
        print(f"mamba memory [{part}]: {counts[True]} agree ({capped} with the pool capped by "
              f"the state cache, {refused} refused by both), {counts[False]} differ, "
              f"{counts[None]} refused by SGLang only, of {sum(counts.values())} lines",
              flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or list(PARTS))
