"""SGLang 0.5.23's DSA backend checks on a DSA line without HiSparse (issue 23, s69m).

Why: `--dsa-prefill-backend` / `--dsa-decode-backend` were judged only on HiSparse lines
(graphfit.planner.engines.sglang_hisparse_dsa, s69b), yet SGLang's resolution refuses some
choices on every DSA line: `_dsa_split_backend_resolution` (arg_groups/overrides.py:600-742),
run by the model hook for a DSA checkpoint on CUDA or ROCm (model_hook.py:281, 300-344). It
needs a DeepSeek-family architecture (`_DEEPSEEK_FAMILY_ARCHS`, :745-760) whose config is DSA
(`is_deepseek_dsa`: an `index_topk`, configs/model_config.py:191-212). Off HiSparse, on CUDA:

* GLM-5 with an FP8 cache on SM12x takes flashinfer_sparse_mla and returns before any check
  (:637-641, 658-666).
* A backend left unset is trtllm under `--dcp-size` above 1 (`given`: the family's DCP
  override, model_overrides/deepseek_v2.py:18-34), else it takes the default (:714-730):
  with fp8_e4m3 trtllm from SM100 on, else flashmla_kv; otherwise prefill flashmla_sparse,
  decode trtllm from SM100 on, else fa3.
* `_check_dsa_backend_constraints` (:550-582, called at :732-738) then refuses, in order:
  triton on either side (ROCm only, :558-567); with fp8_e4m3 and tilelang on either side,
  a tilelang / other mix (:571-575), `--dcp-size` above 1 (:576-577) and a GPU below SM89
  (:579-582).

ROCm takes triton for unset sides and never meets these CUDA checks. Before them all, on
CUDA and ROCm, with HiSparse or not, a config with `learnable_sink` (read from config.json
with the backends) takes the sink arm (:642-656): every named backend must be
flashmla_sparse, and the constraint check is not reached (`sinks`). The KV dtype is the one
`sglang_hisparse_dsa.dtypes` gives; where it may be either, the line is judged only where
both agree. The defaults never name triton or tilelang, so a line naming neither is planned.
"""

from __future__ import annotations

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.sglang_attn_default import DSA_ARCHITECTURES
from graphfit.planner.engines.sglang_hisparse_dsa import FAMILY, dtypes

OVERRIDES = "arg_groups/overrides.py"
GLM = "GlmMoeDsaForCausalLM"
SINK_BACKEND = "flashmla_sparse"  # overrides.py:643
DCP_BACKEND = "trtllm"  # model_overrides/deepseek_v2.py:27-31
SM89 = 89


def given(config: EngineSettings) -> tuple[str | None, str | None]:
    """The backends the resolution meets: the line's, an unset side trtllm under
    `--dcp-size` above 1 (`_dsa_dcp_overrides`, model_overrides/deepseek_v2.py:18-34, 99-100,
    declared for the family before the model hook's pass)."""
    pair = config.dsa_backends or (None, None)
    if config.dcp_size > 1:
        return (pair[0] or DCP_BACKEND, pair[1] or DCP_BACKEND)
    return pair


def resolved(config: EngineSettings) -> bool:
    """Whether `_dsa_split_backend_resolution` runs on this line with a backend named (by the
    line, or DCP's override): a DSA family checkpoint graphfit read (model_hook.py:281, 344;
    overrides.py:608-611)."""
    return (given(config) != (None, None)
            and config.architecture in FAMILY and config.architecture in DSA_ARCHITECTURES
            and config.dsa_checkpoint is True)


def applies(config: EngineSettings) -> bool:
    """Whether the resolution's non-HiSparse CUDA arm runs on this line with a backend named
    (module docstring): `resolved`, without sinks, off HiSparse and ROCm."""
    return (not config.enable_hisparse and not config.gpu_rocm and resolved(config)
            and not config.dsa_learnable_sink)


def sinks(config: EngineSettings) -> str | None:
    """The learnable-sink arm's refusal (:642-656), on CUDA and ROCm, with HiSparse or not:
    each named backend, prefill first, must be flashmla_sparse."""
    if not (resolved(config) and config.dsa_learnable_sink):
        return None
    for side, value in zip(("prefill", "decode"), given(config), strict=True):
        if value is not None and value != SINK_BACKEND:
            return (f"{config.architecture} uses learnable attention sinks and requires "
                    f"--dsa-{side}-backend {SINK_BACKEND!r}; got {value!r} "
                    f"(ValueError, {OVERRIDES}:642-656)")
    return None


def chosen(config: EngineSettings, kv: str) -> tuple[str, str] | None:
    """(prefill, decode) after the defaults (:714-730) under dtype `kv`; None where a default
    reads a capability graphfit does not know."""
    pair = given(config)
    cap = config.gpu_capability
    if cap is None and None in pair:
        return None
    high = cap is not None and cap >= 100
    if kv == "fp8_e4m3":
        default = ("trtllm", "trtllm") if high else ("flashmla_kv", "flashmla_kv")
    else:
        default = ("flashmla_sparse", "trtllm" if high else "fa3")
    return (pair[0] or default[0], pair[1] or default[1])


def _refusal(config: EngineSettings, kv: str) -> str | None:
    """`_check_dsa_backend_constraints`' first refusal on CUDA under dtype `kv` (:550-582),
    or None; "" where graphfit cannot tell (a capability it does not know)."""
    cap = config.gpu_capability
    if config.architecture == GLM and kv == "fp8_e4m3":
        if cap is None:
            return ""
        if cap // 10 == 12:
            return None  # :637-641, 658-666: no check
    pair = chosen(config, kv)
    if pair is None:
        return ""
    if "triton" in pair:
        return ("The triton DSA backend is only supported on ROCm/HIP. Pick an alternative "
                f"DSA backend for CUDA (ValueError, {OVERRIDES}:558-567)")
    if kv != "fp8_e4m3" or "tilelang" not in pair:
        return None
    if pair != ("tilelang", "tilelang"):
        return ("CUDA TileLang FP8 KV requires both DSA backends to be tilelang; got "
                f"prefill {pair[0]}, decode {pair[1]} (ValueError, {OVERRIDES}:571-575)")
    if config.dcp_size > 1:
        return ("CUDA TileLang FP8 KV does not support --dcp-size > 1 "
                f"(ValueError, {OVERRIDES}:576-577)")
    if cap is None:
        return ""
    if cap < SM89:
        return f"CUDA TileLang FP8 KV requires SM89 or newer (ValueError, {OVERRIDES}:579-582)"
    return None


def problem(config: EngineSettings) -> str | None:
    """The resolution's refusal of a non-HiSparse DSA line's backends, or None: one answer
    only where every dtype `dtypes` gives refuses (the first's words) or none can be told."""
    sink = sinks(config)
    if sink or not applies(config):
        return sink
    said = [_refusal(config, kv) for kv in dtypes(config)]
    return said[0] if all(said) else None


def check(config: EngineSettings) -> None:
    """ConfigError with `problem`'s words, where it has some."""
    said = problem(config)
    if said:
        raise ConfigError(said)


__all__ = ["applies", "check", "chosen", "given", "problem", "resolved", "sinks"]
