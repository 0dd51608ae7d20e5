"""Layer fields whose absence makes SGLang 0.5.23's model build fail before any MoE block
(issue 23, s70t), for two classes of `graphfit.inputs.sglang_more_moe_experts.BLOCKS`, whose
`problem` asks here first:

* Cohere2-MoE: a layer below `first_k_dense_replace` builds a dense `Cohere2MoeMLP` whose width
  is `prefix_dense_intermediate_size` (models/cohere2_moe.py:387-398). The config class sets
  that field to None when config.json leaves it out (configs/cohere2_moe.py:45, :78), so the
  `getattr` fallback to `intermediate_size` never applies and `MergedColumnParallelLinear`'s
  `output_size % tp_size` raises a TypeError (layers/linear.py:693) on layer 0.
* Step3.5: each decoder layer asks `_is_moe_layer`, which splits `moe_layers_enum` on commas
  (models/step3p5.py:543-546). Absent, the config class's default is a tuple
  (configs/step3p5.py:32, :95): AttributeError (a token that is no int fails earlier, in
  the config load graphfit already restates).

Why: graphfit planned these lines while SGLang's server does not start. Only the failures
above are judged; a field of another type than SGLang's reads is left to SGLang.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _layers(data: Mapping[str, Any]) -> bool:
    """Whether config.json gives a layer count of at least one (absent: not judged)."""
    value = data.get("num_hidden_layers")
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def cohere2_problem(data: Mapping[str, Any]) -> str | None:
    """Cohere2-MoE's TypeError on a dense prefix with no width, or None."""
    first = data.get("first_k_dense_replace")
    if (not _layers(data) or not isinstance(first, int) or isinstance(first, bool)
            or first < 1 or data.get("prefix_dense_intermediate_size") is not None):
        return None
    return ("SGLang cannot build Cohere2MoeForCausalLM: dense first layers, no "
            "prefix_dense_intermediate_size; unsupported operand type(s) for %: 'NoneType' "
            "and 'int'. (TypeError, layers/linear.py:693)")


def step3p5_problem(data: Mapping[str, Any]) -> str | None:
    """Step3.5's AttributeError on a MoE layer list SGLang cannot split, or None."""
    if not _layers(data):
        return None
    enum = data.get("moe_layers_enum")
    head = "SGLang cannot build Step3p5ForCausalLM: "
    site = "models/step3p5.py:544"
    if "moe_layers_enum" not in data:
        return (f"{head}the target's moe_layers_enum (absent: a tuple) fails the model "
                f"build: 'tuple' object has no attribute 'split'. (AttributeError, {site})")
    if not isinstance(enum, str):
        return (f"{head}the target's moe_layers_enum fails the model build: "
                f"'{type(enum).__name__}' object has no attribute 'split'. "
                f"(AttributeError, {site})")
    return None  # a token that is no int: refused at config load (target_layer_entries)


def problem(arch: str | None, data: Mapping[str, Any]) -> str | None:
    """The build failure of a missing layer field for this class, or None."""
    if arch == "Cohere2MoeForCausalLM":
        return cohere2_problem(data)
    if arch == "Step3p5ForCausalLM":
        return step3p5_problem(data)
    return None


__all__ = ["cohere2_problem", "problem", "step3p5_problem"]
