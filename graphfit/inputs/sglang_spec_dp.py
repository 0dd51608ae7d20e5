"""A pasted SGLang line's attention-DP rules that need more than one flag or the draft's
config.json (the planner's rules: graphfit.planner.engines.sglang_spec_dp).

* `--enable-dp-lm-head` with data-parallel replicas but no attention DP: SGLang asserts
  ("--enable-dp-lm-head requires attention DP (--attn-dp-size).", arg_groups/overrides.py:
  1421-1427); with one DP rank it turns the flag off (:1366-1370), which changes nothing
  graphfit plans.
* DSPARK under attention DP keys the draft's graphs by the rank's own batch only for a dense
  draft: a DeepSeek-V4 draft (`draft_is_deepseek_v4`, dspark_config.py:34-48, the draft's
  `architectures[0]` after --json-model-override-args, configs/model_config.py:395-400)
  keeps the DP-global path (decode_cuda_graph_runner.py:776-789) and its own attention
  backend, and SGLang refuses it with attention TP > 1 (dspark_worker_v2.py:211-222).
  graphfit refuses that draft (SGLang's reason where SGLang refuses, else "not modelled"),
  and a draft whose config.json it cannot read (a hub id), since it cannot tell.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from graphfit.inputs.model_config import config_path
from graphfit.inputs.reading import load_json, shown_path
from graphfit.inputs.settings import COMMAND_LINE, Setting
from graphfit.planner.core.errors import ConfigError

COORDINATION = "SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION"  # environ.py:1558, EnvBool, off
DEEPSEEK_V4 = ("DeepseekV4ForCausalLM", "DeepseekV4ForCausalLMNextN",
               "DeepseekV4ForCausalLMDSpark")  # configs/model_config.py:395-400


def _int(value: Any, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except (TypeError, ValueError):
        return default  # the flag's own reader says what is wrong with it


def attention_dp_size(values: Mapping[str, Any]) -> int:
    """--attn-dp-size, or the deprecated --dp-size N --enable-dp-attention."""
    attn = _int(values.get("attn_dp_size"), 1)
    if values.get("enable_dp_attention") is True and attn == 1:
        return _int(values.get("dp_size"), 1)
    return attn


def size_or_one(value: Any) -> int:
    """A parallel size as given (`--tp-size`, `--attn-cp-size`, ...), 1 where it is absent or
    not a positive integer: the flag's own reader says what is wrong with it."""
    number = _int(value, 1)
    return number if number > 0 else 1


def line(values: Mapping[str, Any]) -> None:
    """The pasted line's checks (module docstring)."""
    attn_dp = attention_dp_size(values)
    if (values.get("enable_dp_lm_head") is True and attn_dp == 1
            and _int(values.get("dp_size"), 1) > 1):
        raise ConfigError("--enable-dp-lm-head: --enable-dp-lm-head requires attention DP "
                          "(--attn-dp-size). (SGLang asserts, arg_groups/overrides.py:"
                          "1421-1427)")
    dspark_draft(values, attn_dp)


def dspark_draft(values: Mapping[str, Any], attn_dp: int) -> None:
    """A DSPARK draft under attention DP must be a dense one graphfit can read (module
    docstring); the live check runs this on the ServerArgs' values too."""
    if str(values.get("speculative_algorithm") or "").upper() != "DSPARK" or attn_dp <= 1:
        return
    draft = values.get("speculative_draft_model_path")
    path = config_path(str(draft)) if draft else None
    if path is None:
        raise ConfigError(
            f"--speculative-draft-model-path: DSPARK under attention DP keys a dense draft's "
            f"graphs by the rank's own batch, a DeepSeek-V4 draft's by the largest rank's "
            f"(decode_cuda_graph_runner.py:776-789); graphfit reads no config.json at "
            f"{str(draft)[:60]!r} to tell them apart: not modelled")
    data = load_json(path, "DSPARK draft config")
    arch = _architecture(data, values.get("json_model_override_args"))
    if arch not in DEEPSEEK_V4:
        return
    tp = _int(values.get("tp_size") or values.get("tp"), 1)
    attn_tp = tp // max(1, attn_dp * _int(values.get("attn_cp_size"), 1))
    if attn_tp > 1:
        raise ConfigError("--attn-dp-size: DSpark + dp attention with a DeepSeek-V4 (MoE) "
                          "draft requires attn_tp == 1 (set --dp-size == --tp) "
                          "(dspark_worker_v2.py:211-222)")
    raise ConfigError(f"{shown_path(path)}: a DeepSeek-V4 DSPARK draft ({arch}) under "
                      f"attention DP keys its graphs by the largest rank's batch with its own "
                      f"attention backend (decode_cuda_graph_runner.py:776-789): not modelled")


def _architecture(data: object, overrides: object) -> str | None:
    """`architectures[0]` of the draft's config, --json-model-override-args applied as
    SGLang's `get_config` applies them (dspark_config.py:41-47)."""
    found = data.get("architectures") if isinstance(data, dict) else None
    if isinstance(overrides, str) and overrides.strip():
        try:
            parsed = json.loads(overrides)
        except ValueError:
            parsed = None  # its own reader refuses it
        if isinstance(parsed, dict) and "architectures" in parsed:
            found = parsed["architectures"]
    if isinstance(found, list) and found and isinstance(found[0], str):
        return found[0]
    return None


def environment(environ: Mapping[str, str]) -> list[Setting]:
    """SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION as SGLang's EnvBool parses it (environ.py:
    143-150: true/1/yes/y, false/0/no/n, any case; another value warns and keeps the default
    off, :67-86, so no setting)."""
    raw = environ.get(COORDINATION)
    if raw is None or raw.lower() not in ("true", "1", "yes", "y", "false", "0", "no", "n"):
        return []
    return [Setting("dp_spec_prefill_coordination", raw.lower() in ("true", "1", "yes", "y"),
                    f"{COORDINATION}={raw}", COMMAND_LINE)]
