"""A pasted SGLang line's `--enable-prefill-cp` (prefill context parallelism) and
`--cp-strategy`, read as SGLang 0.5.23's resolution reads them (issue 23 s51c).

SGLang's refusals, in the order its resolution pipeline meets them (arg_groups/pipeline.py:
171 `handle_decode_context_parallelism`, :225 the model-specific adjustments, :278
`handle_context_parallelism`), each refused here with SGLang's sentence:

* `--dcp-size` > 1: "--dcp-size > 1 does not support --enable-prefill-cp."
  (parallel_hook.py:249-250);
* the model hook's backend asserts (GPT-OSS, Llama 4, Gemma 4, ...: model_hook.py:515-722,
  graphfit.inputs.sglang_prefill_cp_model_hook; issue 23 s67p);
* an HYV4 target: its attention has no DSA context-parallel metadata
  (model_overrides/deepseek_v2.py:60-68);
* a DeepSeek-V4 target: `--cp-strategy` must be interleave or zigzag, and zigzag needs the NPU
  backend (deepseek_v4_hook.py:161-176);
* a LongCat-Flash target (`model_type` longcat_flash) whose attention CP width is above 1:
  an MLA target, its width is TP over attention DP whatever `--attn-cp-size` says
  (parallel_hook.py:78-81 after model_overrides/deepseek_v2.py:191-210);
* a DeepSeek-V3.2 target with `--cp-strategy zigzag` (parallel_hook.py:123-130);
* a MiMo-V2 target with another strategy than zigzag (parallel_hook.py:132-140);
* no `--cp-strategy` (parallel_hook.py:151-154).

A line SGLang accepts is planned only where prefill CP changes nothing graphfit sizes: with
`--attn-cp-size` 1 SGLang binds no CP strategy (`init_cp_strategy`, layers/cp/base.py:279-285),
so the graph runners' `enable_prefill_cp` (`is_dsa_enable_prefill_cp() or
is_mla_cp_enabled()`, decode_cuda_graph_runner.py:327, prefill_cuda_graph_runner.py:478) is
off; with 1 < `--attn-cp-size` < `--tp-size` a strategy is bound, but on a target that is
neither DSA nor MLA those runner switches stay off, and the CP breakable prefill graphs need
`attn_cp_size == tp_size` (`supports_prefill_cp_bcg`, layers/cp/bcg/__init__.py:42-64), so the
prefill graphs are off as for any `--attn-cp-size` > 1 (cuda_graph_hook.py:205-211).
That holds only outside the paths that read the flag itself, which stay refused as not
modelled: the MLA targets outside the DeepSeek family's override and DeepSeek-V4
(deepseek_v4_hook.py:205-215; the family's DSA / MLA lines are planned with the widths its
override settles since issue 23 s60p, graphfit.inputs.sglang_prefill_cp_family; Glm5Next's
CP-TP group sharing among them since s63p; Qwen4-Exp, the other CP-TP group sharing model,
cp_tp_group_sharing_hook.py:20-24, is planned since s63p: its sharing, with the state split
over TP and the prefill graphs off, and its CP width 1),
`--attn-cp-size` equal to `--tp-size` (TP 1 included: the CP breakable prefill graphs, their
own capture list, layers/cp/bcg, cuda_graph_hook.py:104-125), pipeline parallelism
(cuda_graph_setup.py:570-580), a speculative draft (its graphs stay eager under interleave,
cuda_graph_setup.py:514-525) and MegaMoE (mega_moe_hook.py:199-210).

The same reading serves the live check (graphfit.inputs.sglang_live: the ServerArgs' values,
where a resolved record already holds SGLang's attention CP width, so only graphfit's
planned / not-modelled split applies) and graphfit's own `--config` file (`file`, issue 23
s52c); an SGLang `--config` YAML on a pasted line is merged into its flags first.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from graphfit.inputs import (
    sglang_kv_auto,
    sglang_prefill_cp_dsa,
    sglang_prefill_cp_family,
    sglang_prefill_cp_hooks,
    sglang_prefill_cp_model_hook,
    sglang_prefill_cp_platform,
)
from graphfit.inputs.model_config import local_config
from graphfit.inputs.settings import FILE, Setting
from graphfit.inputs.values import as_bool, normalize_key
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines.sglang_attn_default import MLA_ARCHITECTURES

NOT_MODELLED = "is not modelled"
HYV4 = ("HYV4ForCausalLM", "HYV4ForCausalLMNextN")  # deepseek_v2.py:61
MIMO_V2 = ("MiMoV2ForCausalLM", "MiMoV2FlashForCausalLM")  # parallel_hook.py:132-135
CP_TP_SHARING = ("Glm5NextForConditionalGeneration",  # cp_tp_group_sharing_hook.py:20-24
                 "Qwen4ExpForConditionalGeneration")
DEEPSEEK_V4 = "DeepseekV4ForCausalLM"
V4_KV_DTYPES = ("auto", "fp8_e4m3", "bfloat16")  # overrides.py:901-910 (auto: fp8_e4m3)
QWEN4_EXP = "Qwen4ExpForConditionalGeneration"
LONGCAT = ("LongcatFlashForCausalLM", "LongcatFlashForCausalLMNextN")  # deepseek_v2.py:47-48
DEEPSEEK_V32 = "DeepseekV32ForCausalLM"


def _int(value: Any, default: int) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return default  # the flag's own reader says what is wrong with it


def _text(data: Mapping[str, Any]) -> Mapping[str, Any]:
    text = data.get("text_config")
    return text if isinstance(text, dict) else data


def _architecture(data: Mapping[str, Any] | None) -> str | None:
    found = data.get("architectures") if data is not None else None
    if isinstance(found, list) and found and isinstance(found[0], str):
        return found[0]
    return None


def _longcat_cp(values: Mapping[str, Any]) -> int:
    """LongCat-Flash's attention CP width under prefill CP: an MLA target, SGLang sets
    attn_cp_size = tp_size // (attn_dp_size * dp_size) whatever the line says
    (model_overrides/deepseek_v2.py:37-49, 191-210; model_override_base.py:229-247)."""
    width = _int(values.get("attn_dp_size"), 1) * _int(values.get("dp_size"), 1)
    return _int(values.get("tp_size"), 1) // max(1, width)


def _refuse(sentence: str, where: str) -> ConfigError:
    """SGLang's sentence, named by the flag unless it names it itself (one short line)."""
    named = "" if "--enable-prefill-cp" in sentence else "--enable-prefill-cp: "
    return ConfigError(f"{named}{sentence} (SGLang refuses, {where})")


def _not_modelled(why: str) -> ConfigError:
    return ConfigError(f"--enable-prefill-cp: {NOT_MODELLED} ({why})")


def undeprecated(values: Mapping[str, Any]) -> Mapping[str, Any]:
    """The line as SGLang's first hook leaves it (`handle_deprecated_dp_attention`,
    arg_groups/parallel_hook.py:39-62, run first at pipeline.py:42-45): `--enable-dp-attention`
    with no attention-DP width moves `--dp-size` to `--attn-dp-size` (replicas 1), and the
    flag is cleared, so every later reading sees the new spelling (issue 23 s63p)."""
    if values.get("enable_dp_attention") is not True:
        return values
    out = {**values, "enable_dp_attention": False}
    if _int(values.get("attn_dp_size"), 1) == 1:
        out |= {"attn_dp_size": _int(values.get("dp_size"), 1), "dp_size": 1}
    return out


def family(values: Mapping[str, Any]) -> list[Setting]:
    """The widths SGLang's DeepSeek-family override settles on a prefill-CP line graphfit
    plans (graphfit.inputs.sglang_prefill_cp_family; issue 23 s60p); run after `line`."""
    if values.get("enable_prefill_cp") is not True:
        return []
    values = undeprecated(values)
    model = values.get("model_path")
    data = local_config(model) if isinstance(model, str) else None
    arch = _architecture(data)
    found = sglang_prefill_cp_dsa.widths(values, data, arch)
    if found is None and arch == QWEN4_EXP and _int(values.get("attn_cp_size"), 1) > 1:
        # Qwen4-Exp's sharing, outside the DeepSeek family (issue 23 s63p; `_planned`)
        return [Setting("cp_tp_group_sharing", True, sglang_prefill_cp_family.SHARING_ORIGIN,
                        priority=sglang_prefill_cp_family.RESOLVED)]
    return sglang_prefill_cp_family.settings(values, found, arch)


def line(values: Mapping[str, Any], bcg: bool = False, family: bool = False) -> list[str]:
    """SGLang's refusals of a prefill-CP line (module docstring), then graphfit's: the notes
    for a line it plans as without prefill CP, or "not modelled". `bcg`: the caller hands
    the strategy to the planner, which plans CP's breakable prefill graphs
    (graphfit.planner.engines.sglang_prefill_cp_bcg, issue 23 s54g), so `--attn-cp-size`
    equal to `--tp-size` is planned (a pasted line; since issue 23 s55g graphfit's config
    file and the live check too, graphfit.inputs.sglang_prefill_cp_live). `family`: the
    caller hands the DeepSeek-family widths to the planner (`family`: a pasted line; graphfit's
    config file, `file_family`; issue 23 s60p), so such a line is planned; the live check's
    stays "not modelled"."""
    if values.get("enable_prefill_cp") is not True:
        return []
    values = undeprecated(values)
    strategy = values.get("cp_strategy")
    sglang_prefill_cp_hooks.prefill_only(values)  # pipeline.py:170 (s54c)
    if _int(values.get("dcp_size"), 1) > 1:
        raise _refuse("--dcp-size > 1 does not support --enable-prefill-cp.",
                      "parallel_hook.py:249-250")
    model = values.get("model_path")
    data = local_config(model) if isinstance(model, str) else None
    arch = _architecture(data)
    attn_cp = _int(values.get("attn_cp_size"), 1)
    # the model hook's backend asserts (pipeline.py:225), before the attention hook's GPU
    # refusals, the DP refusal and the CP hook (issue 23 s67p)
    sglang_prefill_cp_model_hook.check(values, data, arch)
    if arch in HYV4:
        # SGLang's sentence goes on "Got architecture=... and enable_prefill_cp=True.":
        # left out here to keep the error line short
        raise _refuse("--enable-prefill-cp is not supported for HYV4 because its attention "
                      "path does not implement DSA context-parallel metadata and sharding.",
                      "deepseek_v2.py:60-68")
    if arch == DEEPSEEK_V4:
        # its model hook's KV dtype check (`_deepseek_v4_kv_cache_dtype`, overrides.py:
        # 901-910, from deepseek_v4_hook.py:83) comes before its CP checks (issue 23 s66p)
        kv = values.get("kv_cache_dtype")
        if isinstance(kv, str) and kv not in V4_KV_DTYPES:
            raise _refuse(f"{kv} is not supported for {DEEPSEEK_V4}", "overrides.py:907-910")
        if strategy not in ("interleave", "zigzag"):
            raise _refuse(f"DeepSeekV4 only supports interleave/zigzag CP strategy, got "
                          f"{strategy}", "deepseek_v4_hook.py:167-170")
        if strategy == "zigzag":
            raise _refuse("DeepSeekV4 zigzag CP requires the NPU backend; CUDA/HIP backends "
                          "reindex with interleave order.", "deepseek_v4_hook.py:172-176")
        # next on HIP its backend check (deepseek_v4_hook.py:177-186), which only the GPU
        # tells: every later answer carries it (AfterHip.hip_first; issue 23 s66p)
        hip_first = sglang_prefill_cp_platform.v4_hip(values)
        try:
            return _after_model_checks(values, bcg, family, strategy, data, arch, attn_cp)
        except sglang_prefill_cp_platform.AfterHip as exc:
            exc.hip_first = hip_first
            raise
        except ConfigError as exc:
            if hip_first is None:
                raise
            raise sglang_prefill_cp_platform.AfterHip(str(exc), None,
                                                      hip_first=hip_first) from None
    return _after_model_checks(values, bcg, family, strategy, data, arch, attn_cp)


def _after_model_checks(values: Mapping[str, Any], bcg: bool, family: bool, strategy: Any,
                        data: Mapping[str, Any] | None, arch: str | None, attn_cp: int
                        ) -> list[str]:
    """`line` from the DeepSeek family's widths on: the attention hook's refusals of the
    line's backends come before the DP refusal, LongCat's and the CP hook's (`AfterHip`
    carries them, graphfit.inputs.sglang_prefill_cp_platform.after_hip)."""
    # the DeepSeek family's DSA / MLA widths and asserts (pipeline.py:225, s54c)
    found = sglang_prefill_cp_dsa.widths(values, data, arch)
    # then the model hook's DSA KV dtype asserts (model_hook.py:343; issue 23 s67p)
    kv = values.get("kv_cache_dtype")
    sglang_kv_auto.dsa_asserts(kv if isinstance(kv, str) else None,
                               sglang_kv_auto.rule(data, arch))
    # the attention hook (pipeline.py:242): trtllm_mha on the resolved CP width (issue 23
    # s63p), and its GPU refusals of the line's backends (s64p trtllm_mha, s66p the rest)
    text = _text(data) if data is not None else {}
    longcat = text.get("model_type") == "longcat_flash" or arch in LONGCAT
    # LongCat's override set its width before the hook (s66p)
    longcat_cp = found.attn_cp_size if found is not None else _longcat_cp(values)
    backends = sglang_prefill_cp_platform.backends_of(values)
    trtllm_cp = backends[0] == "trtllm_mha" and (
        longcat_cp if longcat else found.attn_cp_size if found is not None else attn_cp) > 1
    # DeepSeek-V4's model hook sets its own backends before the attention hook
    # (model_overrides/deepseek_v4.py:24; deepseek_v4_hook.py:177-186)
    hook = None if arch == DEEPSEEK_V4 else sglang_prefill_cp_platform.hook_line(values)
    try:  # after the attention hook, before the HIP check (s64p): a DeepSeek-family /
        # LongCat target's own override raised the DP refusal before the attention hook
        sglang_prefill_cp_hooks.data_parallelism(values)  # pipeline.py:274
        # then its DP LM head assert on the widths the family override settled (s68p)
        sglang_prefill_cp_hooks.dp_lm_head(values, found)
    except ConfigError as exc:
        if found is None and not longcat:
            raise sglang_prefill_cp_platform.AfterHip(str(exc), None, trtllm_cp,
                                                      hook) from None
        raise
    if longcat and longcat_cp > 1:  # the CP hook's boundary check, after the attention hook
        raise sglang_prefill_cp_platform.AfterHip(str(_refuse(
            "LongCat-Flash does not support --enable-prefill-cp with --attn-cp-size > 1",
            "parallel_hook.py:78-81")), None, trtllm_cp, hook)
    try:  # SGLang's HIP check comes here (parallel_hook.py:114-121; issue 23 s60r)
        return _after_hip(values, bcg, strategy, data, arch, attn_cp, found, family)
    except ConfigError as exc:
        raise sglang_prefill_cp_platform.AfterHip(str(exc), arch, trtllm_cp,
                                                  hook) from None


def refusal_first(values: Mapping[str, Any], exc: ConfigError) -> None:
    """A flag's own reader called the line "not modelled" (`exc`; e.g. `--language-only`,
    graphfit.inputs.sglang FILE_KEYS; `--chunked-prefill-size -1` was one until issue 23
    s68b): SGLang refuses the prefill-CP
    line before it serves anything, so its refusal is raised instead, where `line` gives one
    (issue 23 s60r). Where SGLang accepts the line up to its HIP check, `exc` comes back as an
    `AfterHip` (SGLang's HIP refusal on a ROCm GPU); nothing is raised where `exc` is not a
    "not modelled" or `line` answers "not modelled" before that check."""
    if NOT_MODELLED not in str(exc) or values.get("enable_prefill_cp") is not True:
        return
    try:
        line(values, bcg=True)
    except sglang_prefill_cp_platform.AfterHip as refused:
        if NOT_MODELLED not in str(refused):
            raise refused from None
        arch, hook, hip_first = refused.architecture, refused.hook, refused.hip_first
    except ConfigError as refused:
        if NOT_MODELLED not in str(refused):
            raise refused from None
        return
    else:
        model = values.get("model_path")
        arch = _architecture(local_config(model) if isinstance(model, str) else None)
        hook = sglang_prefill_cp_platform.hook_line(values) if arch != DEEPSEEK_V4 else None
        hip_first = None
    # the flag's answer; on a ROCm GPU SGLang's HIP refusal (graphfit.cli.options.read_pasted)
    raise sglang_prefill_cp_platform.AfterHip(str(exc), arch, hook=hook,
                                              hip_first=hip_first) from None


def _after_hip(values: Mapping[str, Any], bcg: bool, strategy: Any,
               data: Mapping[str, Any] | None, arch: str | None, attn_cp: int,
               found: Any, planned_family: bool = False) -> list[str]:
    """`line`'s reading from SGLang's HIP check on (parallel_hook.py:123-192);
    `planned_family`: `line`'s `family`."""
    if arch == DEEPSEEK_V32 and strategy == "zigzag":
        raise _refuse("DeepSeek V3.2 prefill CP does not support --cp-strategy zigzag; use "
                      "interleave.", "parallel_hook.py:123-130")
    if arch in MIMO_V2 and strategy != "zigzag":
        raise _refuse("MiMo V2 prefill CP only supports --cp-strategy zigzag.",
                      "parallel_hook.py:132-140")
    sglang_prefill_cp_hooks.mimo_text_only(values, arch)  # s54c
    sglang_prefill_cp_hooks.cp_tp_sharing(values, arch, (
        (found.attn_cp_size, found.ep_size, 1) if found is not None else
        (attn_cp, _int(values.get("ep_size"), 1), _int(values.get("dp_size"), 1))), data)
    if strategy is None:
        raise _refuse("--cp-strategy must be set when --enable-prefill-cp is enabled.",
                      "parallel_hook.py:151-154")
    if found is None and arch == QWEN4_EXP:  # its widths as the line gives them (s63p)
        sglang_prefill_cp_dsa.hook_asserts(values, sglang_prefill_cp_dsa.CpWidths(
            "MLA", _int(values.get("attn_dp_size"), 1), attn_cp, _int(values.get("ep_size"), 1),
            deepep=False))
    if found is not None:
        sglang_prefill_cp_dsa.hook_asserts(values, found)  # parallel_hook.py:156-192
        why = (sglang_prefill_cp_family.unplanned(values, found, arch) if planned_family else
               "the live check does not hand its widths to the plan")  # s60p
        if why is not None:
            raise _not_modelled(f"{found.describe()}, model_overrides/deepseek_v2.py:106-145, "
                                f"191-210; {why}")
        return [f"--enable-prefill-cp: {found.describe()}: planned with those widths "
                "(model_overrides/deepseek_v2.py:106-145, 191-210)"]
    return [_planned(values, data, arch, attn_cp, bcg)]


def _planned(values: Mapping[str, Any], data: Mapping[str, Any] | None, arch: str | None,
             attn_cp: int, bcg: bool = False) -> str:
    """The note for a line SGLang accepts whose prefill CP changes nothing graphfit sizes;
    "not modelled" for every other accepted line (module docstring)."""
    if data is None:
        raise _not_modelled("graphfit reads no local config.json to tell whether the target "
                            "takes SGLang's DeepSeek / MLA prefill-CP overrides, "
                            "model_overrides/deepseek_v2.py:106-145")
    text = _text(data)
    # Qwen4-Exp with an attention CP width above 1 takes CP-TP group sharing, which the hook
    # accepted (attn_cp == tp, zigzag): its state split and prefill graphs off are planned
    # (`family`; SglangOptions.cp_tp_group_sharing; issue 23 s63p)
    # (and at width 1 none: planned as without prefill CP, the oracle's Qwen4-Exp lines)
    sharing = arch == QWEN4_EXP and attn_cp > 1
    if arch in MLA_ARCHITECTURES or arch in MIMO_V2 or (
            arch in CP_TP_SHARING and arch != QWEN4_EXP) or (
            arch in LONGCAT or text.get("model_type") == "longcat_flash") or (
            text.get("kv_lora_rank") is not None) or arch == DEEPSEEK_V4:
        raise _not_modelled(f"{arch or 'the target'} takes SGLang's own prefill-CP "
                            "resolution, model_overrides/deepseek_v2.py:106-145, "
                            "model_hook.py:421-430, deepseek_v4_hook.py:205-215")
    if attn_cp == _int(values.get("tp_size"), 1) and not bcg:
        raise _not_modelled("with --attn-cp-size equal to --tp-size SGLang may capture the CP "
                            "strategy's own breakable prefill graphs, layers/cp/bcg/"
                            "__init__.py:42-64")
    if _int(values.get("pp_size"), 1) > 1:
        raise _not_modelled("with pipeline parallelism, cuda_graph_setup.py:570-580")
    if values.get("speculative_algorithm") is not None:
        raise _not_modelled("a draft's graphs under prefill CP, cuda_graph_setup.py:514-525")
    if values.get("moe_a2a_backend") == "megamoe":
        raise _not_modelled("MegaMoE's prefill-CP token partition, mega_moe_hook.py:199-210")
    if sharing:
        return ("--enable-prefill-cp: CP-TP group sharing on Qwen4-Exp: its linear-attention "
                "state split over TP, prefill graphs off (cp_tp_group_sharing_hook.py:122-130)")
    if attn_cp == _int(values.get("tp_size"), 1):  # bcg (issue 23 s54g)
        return ("--enable-prefill-cp: --attn-cp-size equals --tp-size: CP's breakable prefill "
                "graphs where the strategy and prefill attention backend support them "
                "(layers/cp/bcg/__init__.py:42-64), else none (cuda_graph_hook.py:203-211)")
    if attn_cp <= 1:
        return ("--enable-prefill-cp: with --attn-cp-size 1 SGLang binds no CP strategy "
                "(layers/cp/base.py:279-285) and the graph runners see none "
                "(decode_cuda_graph_runner.py:327); planned as without prefill CP")
    return ("--enable-prefill-cp: CP's prefill graphs need --attn-cp-size == --tp-size "
            "(layers/cp/bcg/__init__.py:42-64); the decode runners read no CP state off DSA / "
            "MLA (decode_cuda_graph_runner.py:327)")


# a config file's keys `line` reads, in SGLang's spelling (dashes and underscores alike)
FILE_READ = ("enable_prefill_cp", "cp_strategy", "dcp_size", "model_path", "attn_cp_size",
             "attn_dp_size", "dp_size", "tp_size", "pp_size", "speculative_algorithm",
             "moe_a2a_backend",
             # s54c: the DeepSeek-family widths' asserts and the hooks' refusals
             "moe_dp_size", "ep_size", "enable_aiter_allreduce_fusion",
             "prefill_only_disable_kv_cache", "is_embedding", "kv_cache_dtype",
             "chunked_prefill_size", "disable_radix_cache", "language_only",
             "language_model_only", "enable_multimodal", "model_impl", "enable_mixed_chunk",
             "enable_dsa_cache_layer_split", "disaggregation_mode",
             "disaggregation_transfer_backend", "speculative_draft_model_path",
             "speculative_eagle_topk",
             # s60p: the family rule's "not modelled" lines; s60r: Qwen4-Exp's sharing flags
             "enable_dp_lm_head", "enable_dp_attention", "enable_waterfill",
             # s63p / s64p: the attention hook's trtllm_mha checks (`backends_of`)
             "attention_backend", "prefill_attention_backend", "decode_attention_backend",
             # s66p: the attention hook's KV dtype checks (`hook_line`)
             "kv_cache_dtype",
             # s67p: what SGLang's default backend reads (sglang_prefill_cp_platform.
             # DEFAULT_READS)
             "page_size", "enable_deterministic_inference", "rl_on_policy_target",
             # s68p: what the model overrides and the nvfp4 hook read before the attention
             # hook (sglang_prefill_cp_platform.DEFAULT_READS, sglang_prefill_cp_hook_set)
             *sglang_prefill_cp_platform.OVERRIDE_READS)
# graphfit's own spellings of the widths (graphfit.inputs.sglang FILE_KEYS)
FILE_ALIASES = {"tp": "tp_size", "attention_data_parallel_size": "attn_dp_size",
                "attention_context_parallel_size": "attn_cp_size"}


def _file_values(data: Mapping[Any, Any], name: str) -> dict[str, Any] | None:
    """A config file's keys `line` reads, in SGLang's spelling; None where the file's
    `enable_prefill_cp` is off or absent."""
    keys: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(key, str):
            normalized = normalize_key(key)
            keys[FILE_ALIASES.get(normalized, normalized)] = value
    given = keys.get("enable_prefill_cp")
    if given is None or not as_bool(f"{name}: enable_prefill_cp", given):
        return None
    values = {key: keys.get(key) for key in FILE_READ}
    values["enable_prefill_cp"] = True
    return values


def file(data: Mapping[Any, Any], name: str) -> list[str]:
    """graphfit's own `--config` file (issue 23 s52c): its `enable_prefill_cp` read with the
    file's other keys as a pasted line's flags are read (`line`): SGLang's refusals with its
    sentences, the note of a line graphfit plans, else "not modelled". (An SGLang `--config`
    YAML on a pasted line becomes flags first, and goes through `line` with the line.)"""
    values = _file_values(data, name)
    if values is None:
        return []
    # CP's breakable prefill graphs planned as on a pasted line (issue 23 s55g): the strategy
    # (graphfit.inputs.sglang_prefill_cp_bcg.file_settings) and the prefill backend
    # (its settle_file) reach the planner; the DeepSeek-family widths too (`file_family`,
    # issue 23 s60p)
    return [f"{name}: {note}" for note in line(values, bcg=True, family=True)]


def file_family(data: Mapping[Any, Any], name: str) -> list[Setting]:
    """`family` for graphfit's own config file (issue 23 s60p), at the file's layer; run
    after `file`, which refuses what SGLang refuses."""
    values = _file_values(data, name)
    return [] if values is None else [replace(s, layer=FILE) for s in family(values)]


def file_refusal_first(data: Mapping[Any, Any], name: str, exc: ConfigError) -> None:
    """`refusal_first` for graphfit's own config file: a key's reader called the file "not
    modelled" (e.g. `language_only: true`) before `file` read its prefill CP (issue 23
    s60r)."""
    try:
        values = _file_values(data, name)
    except ConfigError:
        return  # the flag's reader says what is wrong with it
    if values is not None:
        refusal_first(values, exc)
