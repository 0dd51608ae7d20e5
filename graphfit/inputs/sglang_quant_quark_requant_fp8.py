"""The Fp8Config SGLang 0.5.23 builds from an accepted quark_mxfp4 source (issue 23, s68q).

Why: past the source test (graphfit.inputs.sglang_quant_quark_requant), QuarkConfig's
requantization branch still builds an Fp8Config from the source checkpoint's own dict in two
cases (layers/quantization/quark/quark.py):
- a dynamic FP8 source dequantizes through `Fp8Config.from_config(config)` (:602);
- a MIXED_PRECISION source whose quant_method is fp8 (an FP8-serialized base, e.g.
  DeepSeek-V4-Pro-NVFP4) loads its excluded layers through one (`_build_excluded_fp8_config`,
  :256-282, called at :571 after the layer groups and the excludes).
`Fp8Config.from_config` reads `activation_scheme` with `get_from_keys`, which refuses a missing
key (fp8.py:346-350, base_config.py:257-264), and `__init__` refuses a scheme other than static /
dynamic (fp8.py:285-286) and, with a `weight_block_size` (the source is fp8-serialized: "fp8" is
in its method, :348), a block that is not 2-D (:307-310) or a static scheme (:311-314). graphfit
planned these lines. A block whose `len` fails is SGLang's own TypeError: left to it. The
online MXFP4 scheme's own config (`_create_online_mxfp4_config`, :698-770) is fixed and never
refuses.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.planner.core.errors import excerpt

_FP8 = "fp8.py"
SCHEMES = ("static", "dynamic")  # fp8.py:188


def fp8_words(spec: Mapping[str, Any]) -> tuple[str, str] | None:
    """(the fp8.py / base_config.py lines, SGLang's words) of `Fp8Config.from_config`'s
    refusal of an fp8-serialized source dict `spec`, or None (also where SGLang stops on a
    TypeError of its own)."""
    if "activation_scheme" not in spec:
        return ("fp8.py:346-350, base_config.py:257-264",
                "Cannot find any of ['activation_scheme'] in the model's quantization config")
    scheme = spec["activation_scheme"]
    if not isinstance(scheme, str) or scheme not in SCHEMES:
        return f"{_FP8}:285-286", f"Unsupported activation scheme {excerpt(scheme, 16)}"
    block = spec.get("weight_block_size")
    if block is None:
        return None
    try:
        dims = len(block)
    except TypeError:
        return None  # `len(weight_block_size)`: SGLang's own TypeError
    if dims != 2:
        return (f"{_FP8}:307-310", f"The quantization block size of weight must have 2 "
                                   f"dimensions, but got {dims} dimensions")
    if scheme != "dynamic":
        return (f"{_FP8}:311-314", f"The block-wise quantization only supports dynamic "
                                   f"activation scheme for now, but got {scheme} activation scheme")
    return None


def refusal(spec: Mapping[str, Any], mixed: bool, method: str, source: str) -> str | None:
    """The error line for the Fp8Config an accepted source (`mixed`: a MIXED_PRECISION one,
    else a dynamic FP8 one) builds, or None; `mixed` sources build one only on an fp8 base."""
    if mixed and spec.get("quant_method") != "fp8":
        return None
    found = fp8_words(spec)
    if found is None:
        return None
    lines, words = found
    where = "quark.py:571" if mixed else "quark.py:602"
    what = "excluded layers" if mixed else "dequantization"
    # one error line holds 193 characters (graphfit.cli.errors): the cite first, then words
    return (f"--quantization {method}: SGLang's Fp8Config for {source}'s {what} ({lines}, "
            f"{where}): {words}")[:193]


__all__ = ["SCHEMES", "fp8_words", "refusal"]
