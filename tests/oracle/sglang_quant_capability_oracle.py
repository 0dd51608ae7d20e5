"""SGLang 0.5.23's own checks on one (--quantization, checkpoint config, GPU), in its order:
the server arguments' quantization checks (argparse's choices, then
`_moe_runner_backend_quant_constraints` on a view of a line with no MoE flags),
`ModelConfig._verify_quantization` (configs/model_config.py:2000-2160), then the loader's
`_get_quantization_config` (model_loader/loader.py:174-278), whose CUDA branch refuses a GPU
below the built config's `get_min_capability()` (:253-262). graphfit.planner.engines.
sglang_quant_capability restates that last check.

The ModelConfig is built without its constructor, as in sglang_quantization_oracle: only the
attributes these two methods read are set. hf_config is a real transformers PretrainedConfig
(`resolve_checkpoint_quant_spec` takes nothing else). The model class lookup is glue, not a
restatement: `get_model_architecture` is replaced by an empty class. The loader only reads the
class's packed_modules_mapping / remap_prefix / hf_to_sglang_mapper, and none of them plays
a part in the check. model_path is an empty directory unless `model_dir` names one (then
its files are SGLang's to find). The GPU is a fake CUDA one of the given capability. The
dtype is SGLang's own `_get_and_verify_dtype` (configs/model_config.py:2284-2345) on the
line's --dtype and the checkpoint's torch_dtype (default: auto on bfloat16).
"""

from __future__ import annotations

import copy
import types
from dataclasses import dataclass
from typing import Any

from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_quantization_oracle as qo
from tests.oracle import sglang_stubs

_MARK = "Minimum capability: "
_DTYPE_MARK = "is not supported for quantization method"


@dataclass(frozen=True)
class Answer:
    """What SGLang did with the line.

    stage: "args" (the server arguments refused: argparse's --quantization choices,
    arg_groups/fields/model.py:181, or the quantization post-process,
    arg_groups/overrides.py:1449-1483), "verify" (ModelConfig refused or stopped), "capability" (the
    loader's check refused), "passed" (the check passed: the config was built, or a later
    check of the same function refused, e.g. the dtype at loader.py:263-270), "before"
    (the loader stopped before the check, e.g. a missing config file or key), or "none"
    (no quantization). method: ModelConfig's final quantization. need: the config class's
    minimum capability, where SGLang says it."""

    stage: str
    method: str | None = None
    need: int | None = None
    said: str = ""


def load(flag: str | None, layout: dict[str, Any] | None, capability: int,
         model_dir: str | None = None, dtype: str = "auto",
         checkpoint_dtype: str | None = "bfloat16",
         architecture: str = "LlamaForCausalLM",
         key: str = "quantization_config") -> Answer:
    """SGLang's answer for `--quantization flag` on a checkpoint whose config.json
    quantization_config is `layout` (None: absent), on a GPU of `capability` (86: SM 8.6).
    `model_dir`: the model directory SGLang looks in for quantization files (default: an
    empty one). `dtype`: the line's --dtype; `checkpoint_dtype`: config.json's torch_dtype
    (None: absent). A dtype refusal (loader.py:263-270) is stage "passed" with its message
    in `said` (`dtype_refused`). `architecture`: config.json's first architecture. `key`:
    the config.json key `layout` sits under (compression_config: the old key)."""
    so.oracle()
    cap = divmod(capability, 10)
    with sglang_stubs.stubbed(), sglang_stubs.fake_cuda(80 * 1024, capability=cap):
        from sglang.srt.arg_groups import overrides
        from sglang.srt.arg_groups.choices import QUANTIZATION_CHOICES
        from sglang.srt.configs.load_config import LoadConfig
        from sglang.srt.configs.model_config import ModelConfig
        from sglang.srt.model_loader import loader
        from transformers import PretrainedConfig

        if flag is not None and flag not in QUANTIZATION_CHOICES:  # argparse's choices
            return Answer("args", said=f"invalid choice: {flag!r}")
        view = types.SimpleNamespace(quantization=flag, moe_runner_backend="auto",
                                     moe_a2a_backend="none")
        try:  # the server arguments' quantization post-process, before any ModelConfig
            overrides._moe_runner_backend_quant_constraints(view)
        except ValueError as exc:
            return Answer("args", said=str(exc)[:200])
        config = ModelConfig.__new__(ModelConfig)
        hf = PretrainedConfig(architectures=[architecture])
        if layout is not None:
            setattr(hf, key, copy.deepcopy(layout))
        config.hf_config = hf
        config.model_path = model_dir or qo._empty_dir()
        config.revision = None
        config.quantization = flag
        config.is_draft_model = False
        config.is_draft_quantization_explicit = False
        try:
            config._verify_quantization()
        except (ValueError, AttributeError, TypeError) as exc:
            return Answer("verify", said=str(exc)[:200])
        if config.quantization is None:
            return Answer("none")
        from sglang.srt.configs import model_config as mc

        written = {"model_type": "llama"}
        if checkpoint_dtype is not None:
            written["torch_dtype"] = checkpoint_dtype
        config.dtype = mc._get_and_verify_dtype(written, dtype)
        config.is_fp4_experts = False
        config.nvfp4_moe_meta = None
        method = str(config.quantization)
        saved = loader.get_model_architecture
        loader.get_model_architecture = lambda model_config: (type("Glue", (), {}), "Glue")
        try:
            built = loader._get_quantization_config(config, LoadConfig())
        except ValueError as exc:
            text = str(exc)
            if _MARK in text:
                need = int(text.split(_MARK)[1].split(".")[0])
                return Answer("capability", method, need, text[:200])
            if _DTYPE_MARK in text:  # the dtype, after it
                return Answer("passed", method, said=text[:200])
            return Answer("before", method, said=text[:200])
        except Exception as exc:  # any other stop is reported, not judged
            return Answer("before", method, said=f"{type(exc).__name__}: {exc}"[:200])
        finally:
            loader.get_model_architecture = saved
        need = None if built is None else int(built.get_min_capability())
        return Answer("passed", method, need)


def dtype_refused(answer: Answer) -> bool:
    """Whether the loader's dtype check (loader.py:263-270) refused the line."""
    return answer.stage == "passed" and _DTYPE_MARK in answer.said
