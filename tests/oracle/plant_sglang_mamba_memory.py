"""Planted errors in graphfit's mamba state cache from memory, each run over a few of the
measure's lines against SGLang 0.5.23's own code: every plant must make some lines differ
(or be refused by one side only), the unplanted code none. Patched in this process only.
Run: python -m tests.oracle.plant_sglang_mamba_memory [word ...]  (only the plants whose
label holds one of the words)"""

from __future__ import annotations

import contextlib
import copy
import sys
from collections.abc import Callable, Iterator
from typing import Any

from graphfit.inputs import environment
from graphfit.inputs import mamba_state as ms
from graphfit.inputs import sglang_mamba_env as sme
from graphfit.planner.engines import sglang_mamba_memory as smm
from graphfit.planner.engines import sglang_mamba_pool as smp
from graphfit.planner.engines import sglang_reserve as sr
from tests.oracle import sglang_mamba_memory_oracle as mm
from tests.oracle.test_sglang_mamba_memory_oracle import (
    ENV_VALUES,
    SPECS,
    _line,
    agree,
    sglang_side,
)

ORIGINAL_CACHE_SIZE = smm.MambaMemory.cache_size


def _joint_without_ratio(self: smm.MambaMemory) -> int:
    # the intermediate states charged for every slot, not 1 in ratio
    return ORIGINAL_CACHE_SIZE(smm.MambaMemory(**{**self.__dict__, "slots_per_request": 1}))


def _ratio_ignoring_pp(self: smp.MambaCache) -> int:
    return ORIGINAL_RATIO(smp.MambaCache(**{**self.__dict__, "pipeline": False}))


ORIGINAL_RATIO = smp.MambaCache.slots_per_request
ORIGINAL_KIMI, ORIGINAL_LFM2 = ms.kimi_linear_shape, ms.lfm2_shape


def _kda_zero_based(data: dict[str, Any]) -> tuple[int, ...] | None:
    # kda_layers read as 0-based layer indices (they are 1-based, kimi_linear.py:158-162)
    attn = dict(data["linear_attn_config"])
    attn["kda_layers"] = [k + 1 for k in attn["kda_layers"]]
    return ORIGINAL_KIMI({**data, "linear_attn_config": attn})


def _lfm2_full_kernel(data: dict[str, Any]) -> tuple[int, ...] | None:
    # conv_L_cache taken as the cached length (it is the kernel: L - 1 kept, lfm2.py:72)
    shape = ORIGINAL_LFM2(data)
    return None if shape is None else (*shape[:6], shape[6] + 1)


def _no_fixed_check(*args: Any) -> None:
    return None


ORIGINAL_MAMBA_ENV = sme.mamba_environment


def _env_without(field: str) -> Callable[..., Any]:
    def read(environ: Any) -> list[Any]:
        return [s for s in ORIGINAL_MAMBA_ENV(environ) if s.field != field]
    return read


def _mm_sizes_swapped(config: Any) -> float:
    # the two reservation variables read for each other (kv_cache_configurator.py:210-212)
    if not config.multimodal:
        return 0.0
    vlm = smm.VLM_CACHE_MB if config.vlm_cache_size_mb is None else config.vlm_cache_size_mb
    feature = (smm.MM_FEATURE_CACHE_MB if config.mm_feature_cache_mb is None
               else config.mm_feature_cache_mb)
    reserved = feature + (vlm if config.mm_feature_transport in ("cuda_ipc", "cuda_vmm")
                          else 0)
    return reserved / 1024


ENV = {f"{n}={v}": (n, v) for n, v in ENV_VALUES}

ORIGINAL_GLM5_KDA = ms.glm5_kda_layers
ORIGINAL_JET = ms.jet_nemotron_shape


def _jet_values_as_keys(data: dict[str, Any]) -> tuple[int, ...] | None:
    # expand_v ignored: the value heads as wide as the key heads (jet_nemotron.py:64)
    jet = {**data["efficient_attention_config"]["jet"], "expand_v": 1}
    return ORIGINAL_JET({**data, "efficient_attention_config": {"jet": jet}})


def _glm5_one_based(text: dict[str, Any]) -> list[int] | None:
    # a stated linear_attn_config's kda_layers read 1-based, as Kimi-Linear's (they are
    # 0-based indices for Glm5Next, glm5_next.py:243-247)
    if not isinstance(text.get("linear_attn_config"), dict):
        return ORIGINAL_GLM5_KDA(text)
    kda = text["linear_attn_config"]["kda_layers"]
    return [i for i in range(int(text["num_hidden_layers"])) if i + 1 in kda]


ORIGINAL_BAILING, ORIGINAL_GIGACHAT_LAYERS = ms.bailing_shape, ms.gigachat_layers
ORIGINAL_ZAYA = ms.zaya_shape


def _bailing_kv_heads(data: dict[str, Any]) -> tuple[int, ...] | None:
    # the linear heads taken from num_key_value_heads (they are num_attention_heads,
    # num_linear_key_value_heads, bailing_hybrid.py:147)
    return ORIGINAL_BAILING({**data, "num_attention_heads": data["num_key_value_heads"]})


def _gigachat_all_linear(data: dict[str, Any]) -> list[int] | None:
    # full_attention_layers ignored: every layer linear (gigachat35.py:183-188)
    return ORIGINAL_GIGACHAT_LAYERS({k: v for k, v in data.items()
                                     if k != "full_attention_layers"})


def _zaya_no_full_conv(data: dict[str, Any]) -> tuple[int, ...] | None:
    # the whole (hidden_size, 1) conv state left out (zaya.py:286-287)
    shape = ORIGINAL_ZAYA(data)
    return None if shape is None else shape[:7]



ORIGINAL_MAMBA1, ORIGINAL_MAMBA2 = ms.mamba1_shape, ms.mamba2_shape
ORIGINAL_MINICPM = ms.minicpm_layers


def _mamba1_one_group(data: dict[str, Any]) -> tuple[int, ...] | None:
    # create() with one group: conv_dim = I + 2 x state (it is I alone, mamba_utils.py:274)
    shape = ORIGINAL_MAMBA1(data)
    return None if shape is None else (shape[0], shape[1], 1, *shape[3:])


def _mamba2_from_expand(data: dict[str, Any]) -> tuple[int, ...] | None:
    # intermediate_size taken as expand x hidden_size when the file lacks it
    return ORIGINAL_MAMBA2({"intermediate_size": int(data["expand"] * data["hidden_size"]),
                            **data})


def _minicpm_unrepeated(data: dict[str, Any]) -> list[int] | None:
    # only the listed mixer types, not repeated over num_hidden_layers (minicpm.py:103-104)
    layers = ORIGINAL_MINICPM(data)
    return None if layers is None else [i for i in layers if i < len(data["mixer_types"])]


def _qwen4_interval(text: dict[str, Any]) -> list[int] | None:
    layers, interval = text["num_hidden_layers"], text["full_attention_interval"]
    return [i for i in range(layers) if (i + 1) % interval != 0]



PLANTS: dict[str, tuple[str, Any, Any, list[dict]]] = {
    "joint solve: D instead of D / ratio": (
        "cache_size", smm.MambaMemory, _joint_without_ratio,
        [_line(spec=s, shape=shape) for s in (SPECS[1], SPECS[3]) for shape in (0, mm.NEMOTRON)]),
    "PP: the overlap schedule kept on": (
        "slots_per_request", smp.MambaCache, _ratio_ignoring_pp,
        [_line(pp=p, shape=shape) for p in (2, 3) for shape in (0, mm.FALCON)]),
    "multimodal: no reservation": (
        "mm_reserve_gb", smm, lambda config: 0.0,
        [_line(shape=mm.QWEN35_VL, mmt=t) for t in (None, "cuda_ipc")]
        + [_line(shape=mm.QWEN35_VL, mmt="cuda_vmm", M=3500, weights=0.55)]),
    "fixed cache: the weights refusal dropped": (
        "_check_fixed_cache", smm, _no_fixed_check,
        [_line(M=m, weights=0.5) for m in (4000, 4500)]
        + [_line(M=2100, weights=0.5, spec=SPECS[3])]),
    "SGLANG_MAMBA_SSM_DTYPE ignored": (
        "_mamba_ssm_dtype", environment, lambda environ: [],
        [_line(shape=1, env_ssm="float32"), _line(env_ssm="bfloat16")]),
    "Kimi-Linear: kda_layers read 0-based": (
        "kimi_linear_shape", ms, _kda_zero_based,
        [_line(shape=mm.KIMI, tp=tp) for tp in ((1, 1), (4, 1))]),
    "Kimi-Linear: prefill graphs kept on (memory reserve)": (
        "uses_kda", sr, lambda *args: False,
        [_line(shape=mm.KIMI, tp=tp) for tp in ((1, 1), (4, 2))]),
    "CP: the state over the whole TP group": (
        "state_tp", smm, lambda config: config.tp_size // config.attn_dp_size,
        [_line(cp=2, tp=(4, 1)), _line(shape=mm.KIMI, cp=4, tp=(4, 1))]),
    "CP: Nemotron-H's refusal dropped": (
        "NEMOTRON_H_ARCHS", smm, frozenset(), [_line(shape=mm.NEMOTRON, cp=2, tp=(4, 1))]),
    "SGLANG_MAMBA_CONV_DTYPE ignored": (
        "mamba_environment", sme, _env_without("mamba_conv_dtype"),
        [_line(shape=shape, env=(ENV["SGLANG_MAMBA_CONV_DTYPE=float32"],))
         for shape in (0, mm.KIMI)]
        + [_line(shape=mm.LFM2, env=(ENV["SGLANG_MAMBA_CONV_DTYPE=float32"],))]),
    "SGLANG_PP_LAYER_PARTITION ignored": (
        "layer_partition", smm, lambda config: None,
        [_line(pp=2, env=(ENV["SGLANG_PP_LAYER_PARTITION=0,4"],)),
         _line(shape=mm.NEMOTRON, pp=2, env=(ENV["SGLANG_PP_LAYER_PARTITION=0,4"],)),
         _line(pp=2, env=(ENV["SGLANG_PP_LAYER_PARTITION=a,b"],))]),
    "SGLANG_VLM_CACHE_SIZE_MB ignored": (
        "mamba_environment", sme, _env_without("vlm_cache_size_mb"),
        [_line(shape=mm.QWEN35_VL, env=(ENV["SGLANG_VLM_CACHE_SIZE_MB=4096"],)),
         _line(shape=mm.QWEN35_VL, M=3500, weights=0.55,
               env=(ENV["SGLANG_VLM_CACHE_SIZE_MB=4096"],))]),
    "multimodal sizes: the two variables swapped": (
        "mm_reserve_gb", smm, _mm_sizes_swapped,
        [_line(shape=mm.QWEN35_VL, mmt=t, env=(ENV["SGLANG_VLM_CACHE_SIZE_MB=4096"],))
         for t in (None, "cuda_ipc")]),
    "PD prefill: the intermediate states kept": (
        "_pd_prefill", smm, lambda config: False,
        [_line(pd="prefill", spec=s) for s in (SPECS[1], SPECS[4])]
        + [_line(pd="prefill", spec=SPECS[3], M=2100, weights=0.5)]),
    "PD role switch: its refusal with speculation dropped": (
        "check_inputs", smm, lambda config: None,
        [_line(pd="prefill+switch", spec=SPECS[1])]),
    "Kimi-K3: text_config not read": (
        "KIMI_K3", ms, "none", [_line(shape=mm.KIMI_K3, tp=tp) for tp in ((1, 1), (4, 2))]),
    "Glm5Next: linear_attn_config read 1-based": (
        "glm5_kda_layers", ms, _glm5_one_based,
        [_line(shape=mm.GLM5_ATTN, tp=tp) for tp in ((1, 1), (4, 1))]),
    "Glm5Next: breakable prefill graphs off like other KDA models": (
        "KDA_ARCHITECTURES", smp, smp.KDA_ARCHITECTURES | {"Glm5NextForConditionalGeneration"},
        [_line(shape=mm.GLM5, tp=tp) for tp in ((1, 1), (4, 2))]),
    "Jet-Nemotron: expand_v ignored": (
        "jet_nemotron_shape", ms, _jet_values_as_keys,
        [_line(shape=mm.JET, tp=tp) for tp in ((1, 1), (4, 2))]),
    "Bailing: linear heads from num_key_value_heads": (
        "bailing_shape", ms, _bailing_kv_heads,
        [_line(shape=shape, tp=tp) for shape in (mm.BAILING_LIGHTNING, mm.BAILING_KDA)
         for tp in ((1, 1), (4, 1))]),
    "Bailing: every g-th layer read as the linear one": (
        "bailing_layers", ms, lambda data: [
            i for i in range(int(data["num_hidden_layers"]))
            if (i + 1) % int(data["layer_group_size"]) == 0],
        [_line(shape=shape, pp=stages) for shape in (mm.BAILING_LIGHTNING, mm.BAILING_KDA)
         for stages in (1, 2)]),
    "GigaChat3.5: registry-only arch not hybrid": (
        "REGISTRY_MAMBA_ARCHS", smp, frozenset(),
        [_line(shape=shape) for shape in (mm.GIGACHAT, mm.GIGACHAT_FULL)]),
    "GigaChat3.5: full_attention_layers ignored": (
        "gigachat_layers", ms, _gigachat_all_linear,
        [_line(shape=mm.GIGACHAT_FULL, tp=tp) for tp in ((1, 1), (4, 1))]),
    "Zaya: the whole conv state dropped": (
        "zaya_shape", ms, _zaya_no_full_conv,
        [_line(shape=shape, tp=tp) for shape in (mm.ZAYA, mm.ZAYA_LIST)
         for tp in ((1, 1), (4, 1))]),
    "Zaya: attention DP accepted (the state on the attention-TP width)": (
        "ZAYA", smm, "none", [_line(shape=shape, tp=(4, 2)) for shape in (mm.ZAYA, mm.ZAYA_LIST)]),
    "Glm5Next without a vision tower: no embedding-cache reserve": (
        "MULTIMODAL_BY_ARCHITECTURE", smm, frozenset(),
        [_line(shape=mm.GLM5_TEXT_ONLY, mmt=t) for t in (None, "cuda_ipc")]),
    "LFM2-VL: not counted as mamba-ish": (
        "MAMBAISH_ONLY_ARCHS", smp, frozenset(),
        [_line(shape=mm.LFM2_VL, M=3000, weights=0.5), _line(shape=mm.LFM2_VL)]),
    "PD decode: the radix cache kept on": (
        "radix_off", smp, lambda config: config.disable_radix_cache,
        [_line(pd="decode"), _line(pd="decode", spec=SPECS[1]),
         _line(pd="decode", spec=SPECS[4], S=None)]),
    "LFM2: conv_L_cache read as the cached length": (
        "lfm2_shape", ms, _lfm2_full_kernel,
        [_line(shape=shape) for shape in (mm.LFM2, mm.LFM2_MOE)]),
    "Pure Mamba: the state on the attention-TP width": (
        "WHOLE_TP_ARCHS", smm, frozenset({smm.ZAYA}),
        [_line(shape=shape, tp=(4, 2)) for shape in (mm.MAMBA1, mm.FALCON_MAMBA, mm.MAMBA2)]),
    "Mamba-1: the conv over B and C too (one group)": (
        "mamba1_shape", ms, _mamba1_one_group,
        [_line(shape=shape, tp=tp) for shape in (mm.MAMBA1, mm.FALCON_MAMBA)
         for tp in ((1, 1), (4, 1))]),
    "Mamba-2: a file without intermediate_size planned": (
        "mamba2_shape", ms, _mamba2_from_expand,
        [_line(shape=mm.MAMBA2_BARE, tp=tp) for tp in ((1, 1), (4, 1))]),
    "MiniCPM-SALA: the radix cache kept on": (
        "radix_off", smp, lambda config: config.disable_radix_cache,
        # little memory left: 3 slots a request with the radix cache would cap the pool
        [_line(shape=mm.MINICPM, weights=w) for w in (0.78, 0.8)]
        + [_line(shape=mm.MINICPM, weights=0.8, spec=SPECS[1])]),
    "MiniCPM-SALA: attention DP accepted": (
        "MINICPM_ARCHS", smm, frozenset(), [_line(shape=mm.MINICPM, tp=(4, 2))]),
    "MiniCPM-SALA: mixer_types not repeated over the layers": (
        "minicpm_layers", ms, _minicpm_unrepeated,
        [_line(shape=mm.MINICPM, S=None, radix_off=True, tp=tp) for tp in ((1, 1), (4, 1))]),
    "Nemotron-H Nano VL: the VLM fraction applied": (
        "VISION_CONFIG_UNREAD", sr, frozenset(),
        [_line(shape=mm.NEMOTRON_VL, tp=tp) for tp in ((1, 1), (4, 1))]),
    "Nemotron-H Nano VL: attention CP accepted": (
        "NEMOTRON_VL", smm, "none", [_line(shape=mm.NEMOTRON_VL, tp=(4, 1), cp=2)]),
    "InternS2-Preview: not read as a GDN model": (
        "GDN_ARCHITECTURES", ms,
        ms.GDN_ARCHITECTURES - {"InternS2PreviewForConditionalGeneration"},
        [_line(shape=mm.INTERNS2, tp=tp) for tp in ((1, 1), (4, 2))]),
    "Qwen4-Exp: layer_types ignored (the interval rule)": (
        "qwen4_exp_layers", ms, _qwen4_interval,
        [_line(shape=mm.QWEN4_EXP, tp=tp) for tp in ((1, 1), (4, 1))]),
    "Bailing: a list layer_group_size / null head_dim planned": (
        "_bailing_fields", ms, lambda data: None,
        [_line(shape=mm.BAILING_LIST), _line(shape=mm.BAILING_NULL_HEAD)]),
    "Zaya: the head-count assertions dropped": (
        "_check_zaya_heads", smm, lambda counts, tp: None,
        [_line(shape=mm.ZAYA_ODD, tp=(4, 1)), _line(shape=mm.ZAYA_GQA),
         _line(shape=mm.ZAYA_GQA, tp=(2, 1))]),
}


@contextlib.contextmanager
def planted(name: str, owner: Any, replacement: Callable[..., Any]) -> Iterator[None]:
    original = owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name)
    setattr(owner, name, replacement)
    try:
        yield
    finally:
        setattr(owner, name, original)


def _pool_lines(**kw: Any) -> dict:
    from tests.oracle.test_sglang_mamba_pool_oracle import _line as pool_line
    return pool_line(**kw)


# plants of the pool's strategy checks, run over the pool oracle's lines
# (tests/oracle/test_sglang_mamba_pool_oracle)
POOL_PLANTS: dict[str, tuple[str, Any, Any, list[dict]]] = {
    "PD: extra_buffer_lazy accepted": (
        "_check_extra_buffer", smp.MambaCache,
        lambda self: ORIGINAL_CHECK(_with(self, disaggregation_mode="null")),
        [_pool_lines(M=100, strategy="extra_buffer_lazy", pd="prefill")]),
    "no_buffer: trtllm_mha accepted": (
        "__post_init__", smp.MambaCache,
        lambda self: ORIGINAL_POST(_with(self, attention_backend=None)),
        [_pool_lines(M=100, overlap=False, attn="trtllm_mha")]),
}
ORIGINAL_CHECK = smp.MambaCache._check_extra_buffer
ORIGINAL_POST = smp.MambaCache.__post_init__


def _with(cache: smp.MambaCache, **fields: Any) -> smp.MambaCache:
    # a copy with other fields, built without running the (planted) checks again
    other = copy.copy(cache)
    for name, value in fields.items():
        object.__setattr__(other, name, value)
    return other


def main(only: list[str]) -> None:
    from tests.oracle import test_sglang_mamba_pool_oracle as pool

    def pool_agree(p: dict, theirs: Any) -> bool | None:
        return pool.agree(p)

    groups = [(PLANTS, agree, sglang_side), (POOL_PLANTS, pool_agree, lambda p: None)]
    for plants, agree_, side in groups:
        _run(plants, agree_, side, only)


def _run(plants: dict[str, tuple[str, Any, Any, list[dict]]], agree: Any, sglang_side: Any,
         only: list[str]) -> None:
    for label, (name, owner, replacement, lines) in plants.items():
        if only and not any(word in label for word in only):
            continue
        theirs = [sglang_side(p) for p in lines]
        clean = [agree(p, t) for p, t in zip(lines, theirs, strict=True)]
        with planted(name, owner, replacement):
            dirty = [agree(p, t) for p, t in zip(lines, theirs, strict=True)]
        print(f"{label}: unplanted {clean.count(True)}/{len(lines)} agree; planted "
              f"{dirty.count(True)} agree, {dirty.count(False)} differ, {dirty.count(None)} "
              f"refused by SGLang only", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
