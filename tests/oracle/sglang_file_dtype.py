"""A config file's `dtype` read as SGLang 0.5.23's --dtype (graphfit.inputs.sglang_file_dtype):
SGLang's own server given the key in its `--config` YAML, against `graphfit plan --config
FILE` (the same key, `engine: sglang`) of the line without it.

SGLang's side: the oracle's line with `--config` (SGLang merges the file into its arguments),
its runners' target `input_embeds` dtype (the target ModelConfig's, model_config.py:881) and
the draft-extend runner's `hidden_states` dtype (the draft ModelConfig's,
eagle_draft_extend_cuda_graph_runner.py); graphfit's: the same buffers of its plan.
"""

from __future__ import annotations

import json
from typing import Any

from tests.oracle import sglang_compare as sc
from tests.oracle import sglang_draft_shape as ds
from tests.oracle import sglang_oracle as so

# (runner, buffer) whose dtype is a ModelConfig's
DTYPED = (("target", "input_embeds"), ("draft_extend", "hidden_states"))


_file = ds.named_file  # a --config file named by its content


def sglang_dtypes(argv: tuple[str, ...], dtype: str) -> dict[str, str] | str:
    """SGLang's dtypes of DTYPED with `dtype: <dtype>` in its --config file, or its refusal."""
    sg = sc.sglang(("--config", _file(".yaml", f"dtype: {dtype}\n"), *argv), 80)
    if sg.rejected is not None:
        return str(sg.rejected)
    assert sg.runners is not None
    return {f"{run}.{buf}": str(sg.runners[run].buffers[buf].dtype) for run, buf in DTYPED
            if run in sg.runners and buf in sg.runners[run].buffers}


def graphfit_dtypes(argv: tuple[str, ...], dtype: str,
                    extra: dict[str, Any] | None = None) -> dict[str, str] | str:
    """graphfit's dtypes of the same buffers with the file's `dtype`, or its error line."""
    from tests.helpers import run_cli

    body = json.dumps({"engine": "sglang", "dtype": dtype, **(extra or {})}, sort_keys=True)
    code, out, text = run_cli(["plan", "--json", "--gpu-memory-gb", "80", "--config",
                               _file(".json", body), "--", "python", "-m",
                               "sglang.launch_server", "--model-path",
                               str(so.oracle().model_dir), *argv])
    if code != 0:
        return (text.strip().splitlines() or [f"exit {code}"])[-1]
    plan = sc.graphfit.plan(sc.EngineConfig.from_dict(json.loads(out)["config"]))
    out_: dict[str, str] = {}
    for run, buf in DTYPED:
        comp = plan.components.get(sc.GF_COMPONENT.get(run, run))
        found = [b for b in comp.buffers if b.name == buf] if comp is not None else []
        if found:
            out_[f"{run}.{buf}"] = found[0].dtype
    return out_
