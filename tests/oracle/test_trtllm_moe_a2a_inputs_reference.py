"""What TensorRT-LLM's one-sided MoE all-to-all workspace reads beyond the LLM API, graphfit
against the restated engine (tests/oracle/trtllm_reference.py):

* `TRTLLM_MOE_A2A_WORKSPACE_MB`: a non-empty value replaces the size with int(value) MiB
  (`ref.cite_fact("moe_a2a_env_override")`; `ref.moe_a2a_workspace_size(..., env_mb=)`);
  int() raising is the engine's ValueError when the method is built;
* the checkpoint's hidden size, top-k and dtype (`ref.cite_fact("moe_a2a_workspace_size")`),
  read from a local config.json: the plan's total bytes per process are the reference's.

Lines are pasted serving commands (`trtllm-serve MODEL --tp_size T --ep_size E`) read by
graphfit's own command-line reader, with the environment given beside them, as the CLI does.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import plan
from graphfit.cli.options import build_config
from tests.oracle import trtllm_reference as ref

WHY = (ref.cite_fact("moe_a2a_env_override"), ref.cite_fact("moe_a2a_workspace_size"))
ENV = "TRTLLM_MOE_A2A_WORKSPACE_MB"
TOKENS = 8192  # BaseLlmArgs.max_num_tokens, the line's default


def shown(model: str, tp: int, environ: dict[str, str], options: Path) -> str | None:
    """The plan's moe_a2a_workspace line for `trtllm-serve MODEL --tp_size tp --ep_size tp
    --extra_llm_api_options FILE`, FILE turning attention DP on (the one-sided method needs
    it: `ref.cite_fact("moe_a2a_select")`)."""
    options.write_text("enable_attention_dp: true\n")
    config = build_config({}, environ, ["trtllm-serve", model, "--tp_size", str(tp),
                                        "--ep_size", str(tp), "--extra_llm_api_options",
                                        str(options)])
    return dict(plan(config).engine_inputs).get("moe_a2a_workspace")


def engine_bytes(raw: str, ep: int) -> int | None:
    """The engine's per-process size with the variable set to `raw` (hidden and top-k do not
    matter once it is set); None where its int() raises."""
    try:
        return ref.moe_a2a_workspace_size(ep, 8, TOKENS, 7168, 2, env_mb=raw)
    except ValueError:
        return None


@settings(max_examples=25, deadline=None)
@given(raw=st.text(alphabet="0123456789 _+-x.", max_size=6), tp=st.sampled_from([1, 2, 8]))
def test_the_environment_is_read_as_the_engine_reads_it(tmp_path_factory: Any, raw: str,
                                                      tp: int) -> None:
    """Unset or empty: nothing (the engine's truth test); else the engine's bytes, or the
    ValueError its int() raises; at TP 1 (no attention DP ranks) no line at all (the
    variable is read only when the one-sided method is built)."""
    options = Path(tmp_path_factory.mktemp("adp")) / "adp.yaml"
    line = shown("meta-llama/Llama-3.1-8B", tp, {ENV: raw} if raw else {}, options)
    if tp == 1:
        assert line is None
        return
    assert line is not None
    expected = engine_bytes(raw, tp) if raw else None
    if not raw:
        assert "=" not in line, line
    elif expected is None:
        assert f"{ENV}={raw!r} is not an integer" in line, (line, WHY)
    elif expected < 1:
        assert "not modelled" in line, line
    else:
        match = re.search(rf"{ENV}=.* replaces it: (\d+) bytes", line)
        assert match and int(match[1]) == expected, (raw, line, WHY)


def _config(hidden: int, top_k: int, dtype: str | None, nested: bool, mxfp4: bool
            ) -> dict[str, Any]:
    text: dict[str, Any] = {"hidden_size": hidden, "num_experts_per_tok": top_k,
                            "num_hidden_layers": 2, "num_attention_heads": 8}
    if dtype is not None:
        text["torch_dtype"] = dtype
    quant = {"quantization_config": {"quant_method": "mxfp4"}} if mxfp4 else {}
    if nested:
        return {"architectures": ["Llama4ForConditionalGeneration"], "text_config": text,
                **quant}
    return {"architectures": ["DeepseekV3ForCausalLM"], **text, **quant}


@settings(max_examples=20, deadline=None)
@given(hidden=st.integers(64, 8192), top_k=st.integers(1, 22),
       dtype=st.sampled_from(["bfloat16", "float16", "float32", None]),
       nested=st.booleans(), mxfp4=st.booleans(), tp=st.sampled_from([2, 4, 8]))
def test_a_local_checkpoint_gives_the_engines_bytes(tmp_path_factory: Any, hidden: int,
                                                   top_k: int, dtype: str | None,
                                                   nested: bool, mxfp4: bool,
                                                   tp: int) -> None:
    """With a two-byte dtype, float32 (s66t) or none (`ref.moe_a2a_itemsize`: bfloat16 on
    ConfigurableMoE, s61t), the plan's total is the engine's size for the checkpoint's hidden
    size and top-k; with an MXFP4 hidden size the engine may pad
    (`ref.cite_fact("moe_a2a_hidden_pad")`), the payload stays a formula."""
    model = Path(tmp_path_factory.mktemp("ckpt"))
    (model / "config.json").write_text(json.dumps(_config(hidden, top_k, dtype, nested,
                                                          mxfp4)))
    line = shown(str(model), tp, {}, model / "adp.yaml")
    assert line is not None
    match = re.search(r"(\d+) bytes \([\d.]+ MiB\) in all", line)
    if not (mxfp4 and hidden % 128):
        expected = ref.moe_a2a_workspace_size(tp, top_k, TOKENS, hidden,
                                              ref.moe_a2a_itemsize(dtype, True))
        assert match and int(match[1]) == expected, (line, WHY)
    else:
        assert match is None and "2 x hidden x itemsize" in line, line
