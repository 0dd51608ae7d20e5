"""SGLang 0.5.23's refusal of data-parallel replicas beside attention DP (issue 23, s70o):
`handle_data_parallelism` raises "--dp-size D with --attn-dp-size A: data-parallel replicas
combined with attention data parallelism are not supported." when both are above 1
(arg_groups/parallel_hook.py:287-292), at pipeline.py:274, before its own
`tp_size % attn_dp_size` assert (:326) and the DP LM head's validation (:368).

Why in the planner: `SglangOptions.dp_replicas` and `attn_dp_size` already hold both widths
for every route (a pasted line, graphfit's config file, a live ServerArgs record), after the
rewrites SGLang runs before the check: the deprecated `--enable-dp-attention` spelling
(parallel_hook.py:39-62; graphfit.inputs.sglang_dsv4.dp_replicas,
graphfit.inputs.sglang_file_dp_attention), DWDP's `dp_size=1` (:466-470;
graphfit.planner.engines.sglang_dwdp.rewrite) and a DeepSeek-family context-parallel
layout's fold of the replicas into attention DP (model_override_base.py:229-247;
graphfit.inputs.sglang_prefill_cp_family). A prefill-CP line meets the same refusal earlier,
in graphfit.inputs.sglang_prefill_cp_hooks.data_parallelism (before the prefill-CP model
refusals, as SGLang's :278), with this sentence.
"""

from __future__ import annotations

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings

WHERE = "parallel_hook.py:287-292"


def sentence(dp_size: int, attn_dp_size: int) -> str | None:
    """SGLang's words where replicas (`dp_size`) meet attention DP (`attn_dp_size`), else
    None."""
    if attn_dp_size > 1 and dp_size > 1:
        return (f"--dp-size {dp_size} with --attn-dp-size {attn_dp_size}: data-parallel "
                "replicas combined with attention data parallelism are not supported.")
    return None


def check(config: EngineSettings) -> None:
    """Refuse the resolved line's replicas beside attention DP (module docstring)."""
    said = sentence(config.dp_replicas, config.attn_dp_size)
    if said is not None:
        raise ConfigError(f"{said} (SGLang refuses, {WHERE})")


__all__ = ["WHERE", "check", "sentence"]
