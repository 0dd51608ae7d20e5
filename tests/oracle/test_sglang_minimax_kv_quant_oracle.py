"""graphfit's MiniMax-M3 sparse KV price against SGLang's own `_compute_cell_size` where the
checkpoint's quantization config class names the KV quantization or the line gives
--page-size explicitly (issue 23 s55n; the oracle side is tests/oracle/sglang_minimax_kv_oracle,
whose `configure_kv_cache_dtype` now reads the quantization config SGLang's loader builds).

- `auto` KV: `configure_kv_cache_dtype` stores fp8 when the model's quant_config has
  kv_cache_quant_algo "FP8" (mem_cache/kv_cache_dtype.py:49-59): Fp8Config's key (fp8.py:
  366-386), minimax_m3_nvfp4's fixed "FP8" (minimax_m3_nvfp4.py:56-63), compressed-tensors'
  supported kv_cache_scheme (compressed_tensors.py:143-151, 1276-1285).
- An explicit --page-size 1: the MiniMax hook keeps it (minimax_m3.py:162-168, 181-186), the
  backends' page passes then move it (overrides.py:1173-1187, 1273-1297).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import test_sglang_minimax_kv_oracle as t  # noqa: E402

FP8 = {"quant_method": "fp8", "activation_scheme": "dynamic", "weight_block_size": [128, 128]}
CT_SCHEME = {"type": "float", "num_bits": 8, "strategy": "tensor", "symmetric": True,
             "dynamic": False}
CT = {"quant_method": "compressed-tensors", "format": "float-quantized", "config_groups": {}}
B200_FP8 = ("--kv-cache-dtype", "fp8_e4m3")


def quantized(c: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    """The case with `config` as its checkpoint's quantization_config."""
    return {**c, "fields": {**c["fields"], "quantization_config": config}}


# index_dim 128: the fp8 block [128, 128] must divide index_qkv_proj's output (fp8.py:601-609)
QUANT_CASES = {
    "fp8-FP8-H100": quantized(t.case([0, 1, 1], [0, 0, 1], index_dim=128),
                              {**FP8, "kv_cache_quant_algo": "FP8"}),
    "fp8-lower-B200": quantized(t.case([0, 1, 1], [0, 0, 1], index_dim=128, gpu="B200"),
                                {**FP8, "kv_cache_quant_algo": "fp8"}),
    "fp8-NVFP4-algo": quantized(t.case([0, 1], index_dim=128),
                                {**FP8, "kv_cache_quant_algo": "NVFP4"}),
    "fp8-A100-pp2": quantized(t.case([0, 1, 1, 0], index_dim=128, gpu="A100", pp=2),
                              {**FP8, "kv_cache_quant_algo": "FP8"}),
    "mxfp8-B200": quantized(t.case([0, 1], gpu="B200"),
                            {"quant_method": "mxfp8", "activation_scheme": "dynamic",
                             "kv_cache_quant_algo": "FP8"}),
    "nvfp4-H100": quantized(t.case([1, 1, 0, 1], kv_heads=8, tp=(2, 1)),
                            t.NVFP4["quantization_config"]),
    "ct-static-H100": quantized(t.case([0, 1, 1]), {**CT, "kv_cache_scheme": CT_SCHEME}),
    "ct-dynamic-H100": quantized(t.case([0, 1, 1]),
                                 {**CT, "kv_cache_scheme": {**CT_SCHEME, "dynamic": True}}),
}
PAGE_CASES = {
    "H100-fa3": t.case([0, 1], more=("--page-size", "1")),
    "B200-fa4": t.case([0, 1], gpu="B200", more=("--page-size", "1")),
    "B200-trtllm-mha": t.case([0, 1], gpu="B200", more=("--page-size", "1", *B200_FP8)),
    "B200-page-16": t.case([0, 1], gpu="B200", more=("--page-size", "16", *B200_FP8)),
    "B200-triton": t.case([0, 1], gpu="B200",
                          more=("--page-size", "1", "--attention-backend", "triton")),
}


@pytest.mark.parametrize("name", list(QUANT_CASES))
def test_auto_kv_on_a_quantized_checkpoint(name: str) -> None:
    outcome, theirs, ours = t.verdict(QUANT_CASES[name])
    assert outcome == "agree", (theirs, ours)


@pytest.mark.parametrize("name", list(PAGE_CASES))
def test_explicit_page_size(name: str) -> None:
    outcome, theirs, ours = t.verdict(PAGE_CASES[name])
    assert outcome == "agree", (theirs, ours)


def test_cases_are_not_vacuous() -> None:
    """SGLang's own figures show each rule binds: the FP8 class halves the main price against
    the same checkpoint without the key, and an explicit page 1 is not the hook's 128 on the
    H100 (each from SGLang, not graphfit)."""
    with_key = t.sglang_prices(QUANT_CASES["fp8-FP8-H100"])
    without = t.sglang_prices(quantized(QUANT_CASES["fp8-FP8-H100"], FP8))
    assert not isinstance(with_key, str) and not isinstance(without, str)
    assert with_key[0][0] < without[0][0]
    explicit = t.sglang_prices(PAGE_CASES["H100-fa3"])
    unset = t.sglang_prices(t.case([0, 1]))
    assert not isinstance(explicit, str) and not isinstance(unset, str)
    assert (explicit[1], unset[1]) == (1, 128)


ROCM_OPTION = "SGLANG_OPT_MINIMAX_M3_FP8_INDEX_CACHE"  # EnvBool, default on (environ.py:2072)


def _sglang_index_bytes(gfx95: bool, option: str) -> int:
    """SGLang's own `get_minimax_sparse_index_dtype` (memory_pool.py:5831-5844) on a HIP build
    (`_is_cuda` False) of the given gfx generation, fp8 KV, with the option set to `option`."""
    import torch

    from tests.oracle import sglang_oracle, sglang_stubs
    from tests.oracle.environ_patch import patched_environ

    sglang_oracle.oracle()  # SGLang's sources on the import path, with the stubs
    with sglang_stubs.stubbed(), sglang_stubs.fake_cuda(80 * 1024), \
            patched_environ({ROCM_OPTION: option}):
        from sglang.srt.mem_cache import memory_pool as mp

        saved = (mp._is_cuda, mp._is_gfx95_supported)
        mp._is_cuda, mp._is_gfx95_supported = False, gfx95
        try:
            dtype = mp.get_minimax_sparse_index_dtype(
                fp8_attn_gemm=False, kv_cache_dtype=torch.float8_e4m3fnuz,
                model_dtype=torch.bfloat16)
        finally:
            mp._is_cuda, mp._is_gfx95_supported = saved
    return int(torch._utils._element_size(dtype))


def test_rocm_fp8_index_option_on_graphfit_amd_gpus() -> None:
    """The ROCm fp8 index option binds on gfx950 only (SGLang's own function: 1 byte there,
    the model dtype's 2 on gfx942), and graphfit's AMD names (MI300X / MI325X) are gfx942:
    graphfit's index part on an MI300X line, option on or off, is the index layers' count x
    sparse_index_dim x SGLang's gfx942 bytes."""
    from graphfit.planner.engines.sglang_minimax_kv import prices

    assert (_sglang_index_bytes(True, "1"), _sglang_index_bytes(True, "0")) == (1, 2)
    for option in ("1", "0"):
        gfx942 = _sglang_index_bytes(False, option)
        c = {**t.case([0, 1, 1], [0, 0, 1], more=("--kv-cache-dtype", "fp8_e4m3")),
             "gpu": "MI300X", "env": ((ROCM_OPTION, option),)}
        config = _planned(c)
        priced = prices(config)
        assert not isinstance(priced, str) and priced is not None
        # one index-KV sparse layer (K and V) and one K-only layer, sparse_index_dim 64
        assert priced[0].index == (1 * 2 + 1) * 64 * gfx942


def _planned(c: dict[str, Any]) -> Any:
    """graphfit's planned config of the case's pasted line (as t.graphfit_prices reads it)."""
    import shlex

    import graphfit
    from graphfit.cli.options import resolve_values
    from graphfit.inputs import commandline

    line = [*(f"{k}={v}" for k, v in c["env"]), "python", "-m", "sglang.launch_server",
            "--model-path", t.path_of(c), *t.argv_of(c)]
    return graphfit.plan(resolve_values({"gpu_memory_gb": c["gpu"]}, environ={},
                                        pasted=commandline.read([shlex.join(line)])).config()
                         ).config
