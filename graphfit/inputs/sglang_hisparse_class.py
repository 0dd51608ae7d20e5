"""Whether `--enable-hisparse`'s model is one SGLang 0.5.23 serves it for (issue 23, s68b):
`validate_hisparse` asserts `is_deepseek_dsa(hf_config) or is_deepseek_v4 or
is_minimax_sparse` first (arg_groups/hisparse_hook.py:100-107). `is_deepseek_dsa`
(configs/model_config.py:191-212) needs one of its architectures AND an `index_topk` that is
not None on the config transformers builds: config.json's, or 2048 from the
`deepseek_v32` / `glm_moe_dsa` config classes when the key is absent (as
graphfit.inputs.sglang_quant_gptq_deepseek reads it, s67q). A DeepSeek-V3 checkpoint without
`index_topk` is plain MLA, so SGLang refuses HiSparse on it.

Read with `--enable-hisparse` (or, s69m, a DSA backend named) on a local model directory; the
planner judges the class
(graphfit.planner.engines.sglang_server_hisparse) from the architecture and this setting.
With `--enable-hisparse`, the line's `--dsa-prefill-backend` / `--dsa-decode-backend` are
read too (`dsa_backends`, for graphfit.planner.engines.sglang_hisparse_dsa; issue 23 s69b);
since s69m on every line that names one, with `dsa_checkpoint` (graphfit.planner.engines.
sglang_dsa_backends).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs.model_config import local_config
from graphfit.inputs.settings import COMMAND_LINE, Setting

# transformers' config classes whose `index_topk` defaults to 2048 (so DSA when absent)
DSA_DEFAULT_TYPES = ("deepseek_v32", "glm_moe_dsa")


def dsa_checkpoint(data: Mapping[str, Any]) -> bool:
    """The `index_topk` half of `is_deepseek_dsa` on config.json's top level."""
    if "index_topk" not in data:
        return data.get("model_type") in DSA_DEFAULT_TYPES
    return data["index_topk"] is not None


def settings(values: Mapping[str, Any]) -> list[Setting]:
    """`dsa_checkpoint` and `dsa_learnable_sink` (config.json's `learnable_sink`, as SGLang's
    resolution reads it, overrides.py:524-525, 642) for a local model on a HiSparse line or
    one naming a DSA backend or with `--dcp-size` above 1, and
    the DSA backends the line names (none otherwise; issue 23 s69m: every line, as SGLang's
    resolution checks them without HiSparse too, graphfit.planner.engines.
    sglang_dsa_backends)."""
    model = values.get("model_path")
    backends = (values.get("dsa_prefill_backend"), values.get("dsa_decode_backend"))
    named = backends != (None, None)
    dcp = values.get("dcp_size")  # DCP names trtllm for unset sides (s69m)
    wide = isinstance(dcp, int) and dcp > 1
    read = values.get("enable_hisparse") is True or named or wide
    if not read or not isinstance(model, str):
        return []
    given = [Setting("dsa_backends", backends, "--dsa-prefill-backend / --dsa-decode-backend",
                     COMMAND_LINE)] if named else []
    data = local_config(model)
    if not isinstance(data, dict):
        return given
    return [Setting("dsa_checkpoint", dsa_checkpoint(data), f"{model}/config.json",
                    COMMAND_LINE),
            Setting("dsa_learnable_sink", bool(data.get("learnable_sink")),  # s69m
                    f"{model}/config.json", COMMAND_LINE), *given]


__all__ = ["DSA_DEFAULT_TYPES", "dsa_checkpoint", "settings"]
