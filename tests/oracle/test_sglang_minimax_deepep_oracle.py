"""MiniMax-M3 targets under the DeepEP-class MoE with JIT DeepGEMM off, graphfit against SGLang
0.5.23's own model class (issue 23, s50e; the oracle: tests.oracle.sglang_minimax_target_oracle,
which since s50e builds under the loader's dtype, model_loader/loader.py:838, and reports pplx
and Mooncake installed).

SGLang's rules compared here (paths under sglang/srt/):

- MiniMax-M3's model override turns the runner triton on an unquantized model when it is auto
  or deep_gemm (arg_groups/model_overrides/minimax_m3.py:227-235), before `handle_a2a_moe`
  (arg_groups/pipeline.py:295): pplx's runner assert then refuses the line
  (arg_groups/moe_hook.py:597-600), and DeepEPMoE's unquantized assert
  (layers/moe/ep_moe/layer.py:135-147) is reached only through a LoRA runner
  (fused_moe_triton/layer.py:439-442) with BF16 weights under deepep.
- The quantized legacy path's low-latency assert (ep_moe/layer.py:168-178) holds for every
  a2a backend that builds DeepEPMoE there (get_moe_impl_class, :352-365): deepep, Mooncake in
  low_latency and pplx (whose auto mode became low_latency, moe_hook.py:581-587).

Each line is resolved by SGLang on its own directory (the override reads its
quantization_config) and built by SGLang's class; `agree` asserts graphfit answers the same
way (plans what SGLang builds; refuses what SGLang refuses, with SGLang's exception and raising
line for a build failure, SGLang's sentence for the pplx refusal).
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("torch")

from tests.oracle import sglang_minimax_target_oracle as mo
from tests.oracle import test_sglang_minimax_target_oracle as mt

MOE: dict[str, Any] = {"qk_norm_type": "per_head", "moe_layer_freq": [1, 1],
                       "num_local_experts": 8, "num_experts_per_tok": 2, **mt.MOE_KEYS[0]}
BLOCK: dict[str, Any] = {**MOE, "quantization_config": {**mt._BLOCK,
                                                          "weight_block_size": [128, 128]}}
DEEPEP = ("--moe-a2a-backend", "deepep")
# pplx: attention DP 2 at TP 4 (moe_hook.py:591-594) and a dispatch budget the default
# SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK (128) holds (:614-621)
PPLX = ("--moe-a2a-backend", "pplx", "--chunked-prefill-size", "256",
        "--cuda-graph-max-bs-decode", "64")
MOONCAKE_LL = ("--moe-a2a-backend", "mooncake", "--deepep-mode", "low_latency")

Line = tuple[dict[str, Any], bool, int, int, tuple[str, ...], bool]


def _target(fields: dict[str, Any], nested: bool) -> str:
    """The target directory: a nested target carries the checkpoint's quantization_config on
    the VL wrapper, a plain one at the top."""
    fields = {"head_dim": 128, **fields}
    quant = fields.pop("quantization_config", None)
    vision = {"wrapper": {"quantization_config": quant}} if nested and quant else None
    if quant and not nested:
        fields["quantization_config"] = quant
    return mo.target_dir(fields, nested, vision)


def answers(fields: dict[str, Any], nested: bool, tp: int, attn_dp: int,
            extra: tuple[str, ...], jit: bool) -> tuple[str | None, int, str]:
    """(SGLang's answer, graphfit's exit code, graphfit's error line) for one line: a nested
    target carries the checkpoint's quantization_config on the VL wrapper."""
    path = _target(fields, nested)
    theirs = mo.build(path, tp, attn_dp, extra, jit, own=True)
    env = () if jit else ("SGLANG_ENABLE_JIT_DEEPGEMM=0",)
    code, said = mt.graphfit_line(path, tp, attn_dp, extra, env)
    return theirs, code, said


def agree(theirs: str | None, code: int, said: str) -> bool:
    """graphfit's answer is SGLang's (module docstring)."""
    if theirs is None:
        return code == 0
    if code != 2 or len(said) > 200:
        return False
    if theirs.startswith("Rejected: "):  # "Rejected: <Type>: <sentence>"
        sentence = theirs.split(": ", 2)[-1]
        # this module's rule (pplx's runner assert) is refused with SGLang's sentence; a
        # refusal by another rule need only be a refusal
        return sentence[:60] in said or not sentence.startswith("moe_a2a_backend='pplx'")
    kind, site = theirs.split(":", 1)[0], theirs.rsplit(" @ ", 1)[1]
    return "SGLang cannot build" in said and f"({kind}, " in said and mt.cites(said, site)


# (fields, nested, tp, attention DP, flags, JIT DeepGEMM on), each rule both ways
LINES: tuple[Line, ...] = (
    # unquantized: deep_gemm is made triton by the override (builds); a LoRA runner asserts
    (MOE, False, 2, 1, (*DEEPEP, "--moe-runner-backend", "deep_gemm"), False),
    (MOE, False, 2, 1, (*DEEPEP, "--moe-runner-backend", "lora_triton"), False),
    (MOE, True, 2, 1, (*DEEPEP, "--moe-runner-backend", "lora_marlin", "--deepep-mode",
                       "normal"), False),
    (MOE, False, 2, 1, (*DEEPEP, "--moe-runner-backend", "lora_triton", "--dtype",
                        "float16"), False),
    (MOE, False, 2, 1, (*DEEPEP, "--moe-runner-backend", "lora_triton"), True),
    (MOE, False, 2, 1, (*MOONCAKE_LL, "--moe-runner-backend", "lora_triton"), False),
    # pplx: refused on BF16 weights (the override's triton), low-latency assert when quantized
    (MOE, False, 4, 2, PPLX, True),
    (BLOCK, False, 4, 2, PPLX, False),
    (BLOCK, False, 4, 2, PPLX, True),
    (BLOCK, True, 2, 1, MOONCAKE_LL, False),
)
# the lines SGLang refuses, by index (a check that the set is not vacuous)
REFUSED = (1, 2, 3, 4, 5, 6, 7, 9)  # 1-5: the LoRA runner's checks (s65d)


def test_minimax_deepep_lines_agree() -> None:
    """Every line of LINES as SGLang answers it; both answers occur for each rule."""
    results = [answers(*line) for line in LINES]
    differing = [(LINES[i], r) for i, r in enumerate(results) if not agree(*r)]
    assert not differing, differing
    refused = tuple(i for i, (theirs, _, _) in enumerate(results) if theirs is not None)
    assert refused == REFUSED, results


# s52e: a named AMD GPU. SGLang's MiniMax-M3 build on an MI300X (the oracle's `rocm`: its
# platform facts at resolution, `_is_hip` in ep_moe/layer.py and the model modules) skips
# both DeepEP asserts (`not _is_hip`, ep_moe/layer.py:142, 172) and never fuses shared
# experts off gfx950 (minimax_m3.py:2040-2041, minimax_m3_vl.py:185-186); JIT DeepGEMM is
# off there whatever the variable says (deep_gemm_wrapper/configurer.py:32-36). graphfit is
# given `--gpu-memory-gb MI300X` and the line's SGLANG_ENABLE_JIT_DEEPGEMM=0 (s50e's lines).
SHARED2: dict[str, Any] = {**MOE, "n_shared_experts": 2}
GELU_DENSE: dict[str, Any] = {**MOE, "moe_layer_freq": [1, 0], "hidden_act": "gelu"}
LORA = ("--moe-runner-backend", "lora_triton")
DEEPEP_LL = (*DEEPEP, "--deepep-mode", "low_latency")
# (fields, nested, tp, attention DP, flags): each refused by SGLang on CUDA with JIT off
ROCM_LINES: tuple[tuple[dict[str, Any], bool, int, int, tuple[str, ...]], ...] = (
    (MOE, False, 2, 1, (*DEEPEP, *LORA)),  # the unquantized assert, skipped
    (MOE, True, 2, 1, (*DEEPEP, "--moe-runner-backend", "lora_marlin", "--deepep-mode",
                       "normal")),
    (BLOCK, False, 2, 1, DEEPEP_LL),  # the low-latency assert, skipped
    (BLOCK, True, 2, 1, MOONCAKE_LL),
    (BLOCK, False, 4, 2, PPLX),
    (GELU_DENSE, False, 2, 1, (*DEEPEP, *LORA)),  # skipped: the next layer's refusal
    (SHARED2, False, 2, 1, ()),  # two shared experts: fused (refused) on CUDA only
    (SHARED2, True, 2, 1, ()),
)


def rocm_answers(fields: dict[str, Any], nested: bool, tp: int, attn_dp: int,
                 extra: tuple[str, ...], jit: bool = False
                 ) -> tuple[str | None, str | None, int, str]:
    """(SGLang's answer on CUDA with JIT DeepGEMM `jit`, the control; SGLang's on an MI300X;
    graphfit's exit code and error line with the MI300X named and, when not `jit`,
    SGLANG_ENABLE_JIT_DEEPGEMM=0) for one line."""
    from graphfit.cli.options import PASTED

    path = _target(fields, nested)
    cuda = mo.build(path, tp, attn_dp, extra, jit, own=True)  # first: see mo.build
    rocm = mo.build(path, tp, attn_dp, extra, jit, own=True, rocm=True)
    env = () if jit else ("SGLANG_ENABLE_JIT_DEEPGEMM=0",)
    token = PASTED.set((*env, "python", "-m", "sglang.launch_server", "--model-path", path,
                        "--tp-size", str(tp), "--attn-dp-size", str(attn_dp), *extra))
    try:
        code, _, output = mt.sc.run_graphfit(["plan", "--gpu-memory-gb", "MI300X"])
    finally:
        PASTED.reset(token)
    errors = [ln for ln in output.splitlines() if ln.startswith("error:")]
    return cuda, rocm, code, (errors[-1] if errors else "")


def test_minimax_rocm_lines_agree() -> None:
    """Each of ROCM_LINES, which SGLang refuses on CUDA, as SGLang answers it on an MI300X;
    the asserts' lines build there, the next layer's refusal and nothing else remain."""
    results = [rocm_answers(*line) for line in ROCM_LINES]
    assert all(cuda is not None for cuda, _, _, _ in results), results  # the control
    differing = [(ROCM_LINES[i], r) for i, r in enumerate(results) if not agree(*r[1:])]
    assert not differing, differing
    refused = tuple(i for i, (_, rocm, _, _) in enumerate(results) if rocm is not None)
    assert refused == ROCM_REFUSED, results


# the LoRA runner lines (check_server_args, lora_hook.py:200-203; s65d)
ROCM_REFUSED = (0, 1, 5)


# s52e: NixlEP (the oracle reports its package installed, mo._nixl_glue). Its dispatcher, made
# by FusedMoE before DeepEPMoE's body, raises in auto / normal mode (token_dispatcher/nixl.py:
# 481-482) as Mooncake's does (mooncake.py:343-344), before the low-latency assert; in
# low_latency mode the quantized assert holds for it as for deepep (ep_moe/layer.py:168-178),
# the unquantized one does not (deepep / pplx only, :139).
NIXL_LL = ("--moe-a2a-backend", "nixl", "--deepep-mode", "low_latency")
DISPATCH_LINES: tuple[Line, ...] = (
    (BLOCK, False, 2, 1, NIXL_LL, False),
    (BLOCK, False, 2, 1, NIXL_LL, True),
    (MOE, False, 2, 1, (*NIXL_LL, *LORA), False),
    (MOE, False, 2, 1, ("--moe-a2a-backend", "nixl"), True),
    (BLOCK, True, 2, 1, ("--moe-a2a-backend", "mooncake"), False),  # not the LL assert
)
DISPATCH_REFUSED = (0, 2, 3, 4)  # 2: the LoRA runner's checks (s65d)


def test_minimax_dispatch_lines_agree() -> None:
    """Each of DISPATCH_LINES as SGLang answers it (the raising line cited, the exception
    kind SGLang's); both answers occur."""
    results = [answers(*line) for line in DISPATCH_LINES]
    differing = [(DISPATCH_LINES[i], r) for i, r in enumerate(results) if not agree(*r)]
    assert not differing, differing
    refused = tuple(i for i, (theirs, _, _) in enumerate(results) if theirs is not None)
    assert refused == DISPATCH_REFUSED, results
