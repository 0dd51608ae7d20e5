"""SGLang 0.5.23's Beam model class run on a line (the oracle side of
graphfit.inputs.sglang_beam_build, issue 23 s69n).

A target directory holds a small Beam config.json (`BeamConfig`, configs/beam.py:42-140).
SGLang's argument pipeline resolves the line on it (sglang_oracle.resolve, check_server_args
included), check_server_args' LoRA checks run on the record (as the MiniMax-M3 oracle does),
and `BeamForCausalLM.__init__` (models/beam.py:1289-1318) runs under the published layout
with the loader's quantization config. Its checks all come before `BeamModel` is built
(:1319); the oracle stops there (glue: `BeamModel` replaced by a stand-in that raises
`_Reached`), since the layers' own build is not what graphfit's rule restates.
"""

from __future__ import annotations

import functools
import json
import tempfile
import traceback
from pathlib import Path
from typing import Any

from tests.oracle import sglang_oracle as so
from tests.oracle.config_dirs import content_dir

BEAM: dict[str, Any] = {
    "architectures": ["BeamForCausalLM"], "model_type": "beam", "hidden_size": 256,
    "intermediate_size": 512, "num_hidden_layers": 4, "num_attention_heads": 8,
    "num_key_value_heads": 4, "head_dim": 64, "vocab_size": 1024,
    "moe_intermediate_size": 128, "num_experts": 8, "num_experts_per_tok": 2, "n_group": 1,
    "topk_group": 1, "torch_dtype": "bfloat16"}
_DIRS = tempfile.TemporaryDirectory(prefix="graphfit-beam-build-")


def target_dir(fields: dict[str, Any] | None = None) -> str:
    """A Beam target directory: BEAM with `fields` (a quantization_config, ...)."""
    return content_dir(Path(_DIRS.name), json.dumps({**BEAM, **(fields or {})},
                                                    sort_keys=True))


class _Reached(Exception):
    """Raised by the `BeamModel` stand-in: every check of `BeamForCausalLM.__init__` passed."""


def _stop(*args: Any, **kwargs: Any) -> Any:
    raise _Reached


@functools.cache
def build(path: str, argv: tuple[str, ...]) -> str | None:
    """SGLang on `--model-path path *argv`: "Rejected: ..." where resolution or
    check_server_args refuses, "NotImplementedError: message @ models/beam.py:N" where
    Beam's class raises, None where its checks pass (once per line and process: the pasted,
    config-file and not-vacuous tests ask the same lines)."""
    from tests.oracle.sglang_minimax_target_oracle import _quant_config
    from tests.oracle.test_sglang_deepep_class_oracle import lora_check

    r = so.resolve(["--model-path", path, *argv])
    if not isinstance(r, so.Resolved):
        return f"Rejected: {getattr(r, 'text', r)}"
    said = lora_check(r.record)
    if said:
        return f"Rejected: {said}"
    quantized = "quantization_config" in Path(path, "config.json").read_text() or (
        "--quantization" in argv)
    with so.sglang_stubs.stubbed(), so.published(r):
        import sglang.srt.models.beam as beam
        from sglang.srt.utils.hf_transformers_utils import get_config

        config = get_config(path, trust_remote_code=False)
        quant = _quant_config(r, path) if quantized else None
        saved = beam.BeamModel
        beam.BeamModel = _stop  # glue: stop where the layers' build begins (:1319)
        try:
            beam.BeamForCausalLM(config, quant_config=quant)
        except _Reached:
            return None
        except NotImplementedError as exc:
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            site = frame.filename.split("/sglang/srt/", 1)[-1]
            return f"NotImplementedError: {exc} @ {site}:{frame.lineno}"
        finally:
            beam.BeamModel = saved
    raise AssertionError("unreachable")
