"""More of SGLang 0.5.23's refusals of a prefill-CP line (issue 23 s54c), each with
SGLang's sentence, at the place its resolution pipeline meets them
(graphfit.inputs.sglang_prefill_cp calls them in that order):

* `prefill_only`: `--prefill-only-disable-kv-cache` is validated first of all
  (arg_groups/pipeline.py:170, `validate_prefill_only_disable_kv_cache_args`,
  kv_cache_hook.py:865-930): it needs `--is-embedding`, no FP4 / MXFP8 KV cache,
  `--chunked-prefill-size -1` and `--disable-radix-cache`, and then refuses the line's
  `--attn-cp-size` > 1 and prefill CP itself (the no-op pool cannot take CP's K/V writes).
  The checks before the CP ones are restated too, so that SGLang's first reason is the one
  given; a line without prefill CP never reaches this module.
* `data_parallelism`: DP replicas beside attention DP (parallel_hook.py:287-292), which
  SGLang refuses before the prefill-CP model checks;
* `mimo_text_only`: a MiMo-V2 target SGLang serves as multimodal must be served text-only
  (`--language-only` or `--language-model-only`), parallel_hook.py:141-146; "multimodal" is
  graphfit.inputs.sglang_processor_path.served_multimodal (configs/model_config.py:670-828),
  which answers only where it is sure.
* `cp_tp_sharing`: the CP-TP group sharing checks (cp_tp_group_sharing_hook.py:27-99) for
  the two architectures that share the CP group with TP, with an attention CP width above 1
  (resolved: Glm5Next takes the DeepSeek family's width, graphfit.inputs.
  sglang_prefill_cp_dsa): CP width == TP, the architecture's strategy, the draft rule, and
  the flags the hook refuses (GLM-5.3-Flash's disaggregation ones included). Since
  issue 23 s60r also the Qwen4-Exp-only flags (ep / a2a / waterfill / pp / decode, :73-83,
  on the line's values: the a2a backend Waterfill turns on comes after the hook) and the
  linear-attention head divisibility (:107-120); SGLANG_DISAGG_STAGING_BUFFER (:100-105, an
  environment variable on a prefill node) is not. Lines that pass are planned since issue 23
  s63p (SglangOptions.cp_tp_group_sharing).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs.sglang_prefill_cp_dsa import CpWidths
from graphfit.inputs.sglang_processor_path import served_multimodal
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines import sglang_dp_replicas

MIMO_V2 = ("MiMoV2ForCausalLM", "MiMoV2FlashForCausalLM")  # parallel_hook.py:132-135
GLM5_NEXT = "Glm5NextForConditionalGeneration"
QWEN4_EXP = "Qwen4ExpForConditionalGeneration"
SHARING = (GLM5_NEXT, QWEN4_EXP)  # `_SUPPORTED_MODELS`, cp_tp_group_sharing_hook.py:21-24


def _int(value: Any, default: int) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return default


def _refuse(sentence: str, where: str) -> ConfigError:
    named = "" if "--enable-prefill-cp" in sentence else "--enable-prefill-cp: "
    return ConfigError(f"{named}{sentence} (SGLang refuses, {where})")


def prefill_only(values: Mapping[str, Any]) -> None:
    """kv_cache_hook.py:865-930 on a prefill-CP line (module docstring)."""
    if values.get("prefill_only_disable_kv_cache") is not True:
        return
    dtype = values.get("kv_cache_dtype")
    checks = (
        (values.get("is_embedding") is not True,
         "--prefill-only-disable-kv-cache currently requires --is-embedding.", "878-883"),
        (dtype in ("nvfp4", "fp4_mx_block16"),
         "--prefill-only-disable-kv-cache does not currently support --kv-cache-dtype=nvfp4 "
         "or --kv-cache-dtype=fp4_mx_block16", "884-889"),
        (dtype == "mxfp8", "--prefill-only-disable-kv-cache does not currently support "
         "--kv-cache-dtype=mxfp8", "890-895"),
        (values.get("chunked_prefill_size") != -1, "--prefill-only-disable-kv-cache requires "
         "--chunked-prefill-size=-1", "903-909"),
        (values.get("disable_radix_cache") is not True, "--prefill-only-disable-kv-cache "
         "requires --disable-radix-cache", "910-914"),
        (_int(values.get("attn_cp_size"), 1) > 1, "--prefill-only-disable-kv-cache is "
         "incompatible with --attn-cp-size > 1", "919-924"),
        (True, "--prefill-only-disable-kv-cache is incompatible with --enable-prefill-cp",
         "925-930"))
    for failed, sentence, where in checks:
        if failed:
            raise _refuse(sentence, f"kv_cache_hook.py:{where}")


def data_parallelism(values: Mapping[str, Any]) -> None:
    """`handle_data_parallelism`'s refusal of DP replicas beside attention DP
    (parallel_hook.py:287-292), which SGLang meets (pipeline.py:274) before the prefill-CP
    model refusals (:278); on a DeepSeek-family target its override raised it first."""
    attn_dp, dp = _int(values.get("attn_dp_size"), 1), _int(values.get("dp_size"), 1)
    said = sglang_dp_replicas.sentence(dp, attn_dp)  # every route's (s70o)
    if said is not None:
        raise _refuse(said, sglang_dp_replicas.WHERE)


def dp_lm_head(values: Mapping[str, Any], found: CpWidths | None) -> None:
    """`_dp_lm_head_validation` (overrides.py:1421-1427), which `handle_data_parallelism`
    runs right after the replicas refusal (parallel_hook.py:368, pipeline.py:274), so before
    the CP hook's refusals (:278; a MiMo-V2 strategy, say): `--enable-dp-lm-head` with more
    than one DP rank and no attention DP (with one rank SGLang turns the flag off,
    overrides.py:1366-1370). The widths are the line's, or those a DeepSeek-family override
    settled (`found`, graphfit.inputs.sglang_prefill_cp_dsa.CpWidths: its replicas folded
    into attention DP; issue 23 s68p)."""
    from graphfit.inputs.sglang_spec_dp import attention_dp_size

    if values.get("enable_dp_lm_head") is not True:
        return
    if found is not None:
        attn_dp, dp = found.attn_dp_size, 1
    else:
        attn_dp, dp = attention_dp_size(values), _int(values.get("dp_size"), 1)
    if attn_dp == 1 and dp > 1:
        raise _refuse("--enable-dp-lm-head requires attention DP (--attn-dp-size).",
                      "overrides.py:1421-1427")


def mimo_text_only(values: Mapping[str, Any], arch: str | None) -> None:
    """parallel_hook.py:141-146 (module docstring); the strategy check before it is
    graphfit.inputs.sglang_prefill_cp's."""
    if arch not in MIMO_V2 or values.get("language_only") is True or values.get(
            "language_model_only") is True:
        return
    if served_multimodal(values):
        raise _refuse("MiMo V2 prefill CP only supports text inference; add --language-only.",
                      "parallel_hook.py:141-146")


def cp_tp_sharing(values: Mapping[str, Any], arch: str | None,
                  widths: tuple[int, int, int], data: Mapping[str, Any] | None = None) -> None:
    """cp_tp_group_sharing_hook.py:27-120 (module docstring); `widths`: the resolved attention
    CP, `ep_size` and `dp_size`; `data`: the target's config.json (the linear heads)."""
    attn_cp, ep_size, dp_size = widths
    if arch not in SHARING or attn_cp <= 1:
        return
    tp = _int(values.get("tp_size"), 1)
    where = "cp_tp_group_sharing_hook.py"
    if attn_cp != tp:
        raise _refuse("CP-TP group sharing requires --attn-cp-size == --tp-size, got "
                      f"attn_cp_size={attn_cp}, tp_size={tp}.", f"{where}:36-40")
    strategy = "interleave" if arch == GLM5_NEXT else "zigzag"
    if values.get("cp_strategy") != strategy:
        raise _refuse(f"CP-TP group sharing requires --cp-strategy {strategy}.",
                      f"{where}:41-47")
    algorithm = values.get("speculative_algorithm")
    if isinstance(algorithm, str):
        if arch != GLM5_NEXT:
            raise _refuse("--speculative-algorithm is not supported with CP-TP group sharing.",
                          f"{where}:53-57")
        draft = values.get("speculative_draft_model_path")
        if algorithm != "DFLASH" and (
                algorithm.upper() not in ("EAGLE", "NEXTN")
                or draft not in (None, values.get("model_path"))
                or values.get("speculative_eagle_topk") not in (None, 1)):
            raise _refuse("CP/TP group sharing only supports DFLASH or native MTP with top-k "
                          "1.", f"{where}:58-65")
    flags: list[tuple[str, bool]] = [
        ("enable-dsa-cache-layer-split", values.get("enable_dsa_cache_layer_split") is True),
        ("dcp-size > 1", _int(values.get("dcp_size"), 1) > 1),
        ("enable-mixed-chunk", values.get("enable_mixed_chunk") is True),
        ("moe-dp-size > 1", _int(values.get("moe_dp_size"), 1) > 1)]
    mode = values.get("disaggregation_mode")
    if arch == GLM5_NEXT and mode not in (None, "null"):  # :84-96
        flags += [
            ("disaggregation-mode decode", mode == "decode"),
            ("disaggregation-transfer-backend != mooncake",
             # SGLang's default is mooncake (its flag's default, flags/sglang.json)
             values.get("disaggregation_transfer_backend") not in (None, "mooncake")),
            ("speculative-algorithm != DFLASH", algorithm != "DFLASH"),
            ("pp-size > 1", _int(values.get("pp_size"), 1) > 1),
            ("dp-size > 1", dp_size > 1),
            ("ep-size > 1", ep_size > 1)]
    elif arch == QWEN4_EXP:  # :73-83 (issue 23 s60r); the line's widths and a2a backend
        flags += [
            ("ep-size > 1", ep_size > 1),
            ("moe-a2a-backend", values.get("moe_a2a_backend") not in (None, "none")),
            ("enable-waterfill", values.get("enable_waterfill") is True),
            ("pp-size > 1", _int(values.get("pp_size"), 1) > 1),
            ("disaggregation-mode decode", mode == "decode")]
    for flag, enabled in flags:
        if enabled:
            raise _refuse(f"--{flag} is not supported with CP-TP group sharing.",
                          f"{where}:67-99")
    _linear_heads(data, tp)


def _linear_heads(data: Mapping[str, Any] | None, tp: int) -> None:
    """The linear attention keeps its TP head partition (cp_tp_group_sharing_hook.py:107-120):
    `linear_num_key_heads` / `linear_num_value_heads` of the text config, else its
    `linear_attn_config` `num_heads`, each divisible by `--tp-size` (issue 23 s60r; nothing
    where the config names neither)."""
    text = data.get("text_config") if data is not None else None
    config = text if isinstance(text, dict) else (data or {})
    if config.get("linear_num_key_heads") is not None:
        heads = {name: config.get(name)
                 for name in ("linear_num_key_heads", "linear_num_value_heads")}
    else:
        linear = config.get("linear_attn_config")
        heads = {"num_heads": linear.get("num_heads")} if isinstance(linear, dict) else {}
    for name, count in heads.items():
        if isinstance(count, int) and not isinstance(count, bool) and count % tp:
            raise _refuse(f"{name}={count} must be divisible by --tp-size={tp}.",
                          "cp_tp_group_sharing_hook.py:107-120")
