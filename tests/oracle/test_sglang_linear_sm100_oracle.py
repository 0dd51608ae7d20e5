"""SGLang 0.5.23's linear-attention checks on SM100+ (arg_groups/attention_hook.py:334-395)
and Qwen3-Next's SM100 default backend under --enable-unified-memory
(model_overrides/qwen3_5.py:26-49), SGLang's own pipeline vs graphfit's resolution of the
same pasted line (issue 23 s44m; tests/oracle/sglang_linear_sm100_oracle.py)."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_linear_sm100_oracle as ls  # noqa: E402

MRR = ls.MRR
FI = "flashinfer"
# (argv, GPU), then what SGLang does: "dtype" (the bf16 refusal), "cuda" (the CUDA 13
# refusal graphfit notes), "serves"
LINEAR_GRID: list[tuple[ls.Case, str]] = [
    (((*MRR, "--linear-attn-backend", FI), "B200"), "dtype"),  # dtype None
    (((*MRR, "--linear-attn-decode-backend", FI, "--mamba-ssm-dtype", "float32"), "B200"),
     "dtype"),
    (((*MRR, "--linear-attn-verify-backend", FI), "B200"), "dtype"),
    (((*MRR, "--linear-attn-backend", FI, "--mamba-ssm-dtype", "bfloat16"), "B200"), "cuda"),
    (((*MRR, "--linear-attn-decode-backend", FI, "--mamba-ssm-dtype", "bfloat16"), "B200"),
     "serves"),
    (((*MRR, "--mamba-ssm-dtype", "float32"), "B200"), "serves"),  # triton decode
    (((*MRR, "--linear-attn-backend", FI), "H100"), "serves"),  # below SM100
]


@pytest.mark.parametrize(("case", "sglang"), LINEAR_GRID)
def test_linear_grid_matches_sglang(case: ls.Case, sglang: str) -> None:
    theirs, text = ls.sglang_side(case)
    premise = ("serves" if theirs is not None else "dtype" if ls.DTYPE_WORDS in text
               else "cuda" if ls.CUDA_WORDS in text else text[-160:])
    assert premise == sglang, f"grid line's premise: SGLang {premise}"
    assert ls.linear_verdict(case) is None, ls.linear_verdict(case)
    ours = ls.graphfit_side(case)
    assert isinstance(ours, str) is (sglang == "dtype"), ours


def test_generated_linear_lines_match_sglang() -> None:
    """Drawn kernels, dtypes and GPUs: every outcome of the checks is reached and agrees."""
    seen = set()
    for case in ls.generate_linear(18, 44):
        why = ls.linear_verdict(case)
        assert why is None, f"{case}: {why}"
        theirs, text = ls.sglang_side(case)
        seen.add("serves" if theirs is not None else "dtype" if ls.DTYPE_WORDS in text
                 else "cuda")
    assert seen == {"serves", "dtype", "cuda"}, seen


def test_refusal_is_one_short_line() -> None:
    ours = ls.graphfit_side(((*MRR, "--linear-attn-backend", FI), "B200"))
    assert isinstance(ours, str) and "\n" not in ours and len(ours) <= 200, ours
    assert "attention_hook.py:334-345" in ours


UNIFIED = ("--enable-unified-memory", *MRR)
# B200 lines naming no --attention-backend: SGLang's (prefill, decode) backends
DEFAULT_GRID: list[tuple[ls.Case, tuple[str, str]]] = [
    ((UNIFIED, "B200"), ("triton", "triton")),  # "auto" reads as no extra buffer
    (((*UNIFIED, "--disable-radix-cache"), "B200"), ("trtllm_mha", "trtllm_mha")),
    (((*UNIFIED, "--mamba-radix-cache-strategy", "extra_buffer"), "B200"),
     ("trtllm_mha", "trtllm_mha")),
    (((*UNIFIED, "--mamba-radix-cache-strategy", "extra_buffer_lazy"), "B200"),
     ("trtllm_mha", "trtllm_mha")),
    (((*UNIFIED, "--decode-attention-backend", "fa4"), "B200"), ("triton", "fa4")),
    (((*UNIFIED, "--prefill-attention-backend", "fa4", "--disable-radix-cache"), "B200"),
     ("fa4", "trtllm_mha")),
]


@pytest.mark.parametrize(("case", "backends"), DEFAULT_GRID)
def test_default_grid_matches_sglang(case: ls.Case, backends: tuple[str, str]) -> None:
    theirs, _ = ls.sglang_side(case)
    assert theirs == backends, f"grid line's premise: SGLang {theirs}"
    assert ls.default_verdict(case) is None, ls.default_verdict(case)


def test_generated_default_lines_match_sglang() -> None:
    """Drawn strategies, radix cache, overlap, phase flags and speculation on a B200: both
    backends SGLang writes are reached and graphfit resolves the same phases."""
    seen = set()
    for case in ls.generate_default(14, 44):
        why = ls.default_verdict(case)
        assert why is None, f"{case}: {why}"
        theirs, _ = ls.sglang_side(case)
        if theirs is not None:
            seen.add(theirs[1])
    assert {"triton", "trtllm_mha"} <= seen, seen


NO_BUFFER = {"mamba_radix_cache_strategy": "no_buffer", "disable_overlap_schedule": True}
# a config file naming `engine: sglang` holds SGLang's --attention-backend (issue 23 s44m): the
# no_buffer check reads it as given (mamba_hook.py:161-163); (keys, SGLang refuses)
FILE_GRID: list[tuple[dict, bool]] = [
    ({"attention_backend": "trtllm_mha", **NO_BUFFER}, True),
    ({"attention_backend": "fa3", **NO_BUFFER}, False),
    ({"attention_backend": "trtllm_mha"}, False),  # auto with overlap: extra_buffer
    ({"attention_backend": "trtllm_mha", "linear_attn_backend": "flashinfer",
      "disable_overlap_schedule": True}, True),  # auto with no extra buffer: no_buffer
]


def _file_argv(keys: dict) -> tuple[str, ...]:
    argv: list[str] = list(MRR)
    for key, value in keys.items():
        flag = "--" + key.replace("_", "-")
        argv += [flag] if value is True else [flag, str(value)]
    return tuple(argv)


@pytest.mark.parametrize(("keys", "refused"), FILE_GRID)
def test_attention_backend_in_an_sglang_file_as_sglang(keys: dict, refused: bool,
                                                       tmp_path: object) -> None:
    import json
    from pathlib import Path

    from graphfit import ConfigError, plan
    from graphfit.cli.options import resolve_values
    from tests.oracle import sglang_post_capture_oracle as pc

    theirs, text = ls.sglang_side((_file_argv(keys), "H100"))
    assert (theirs is None and "no_buffer do not support trtllm_mha" in text) is refused, text
    path = Path(str(tmp_path), "serve.json")
    path.write_text(json.dumps({"engine": "sglang", "model_path": pc.model_dir("qnext"),
                                "max_running_requests": 48, **keys}))
    try:
        plan(resolve_values({"gpu_memory_gb": "H100", "config_file": str(path)},
                            environ={}, pasted=None).config())
        ours = None
    except ConfigError as exc:
        ours = str(exc)
    assert (ours is not None and "mamba_hook.py:161" in ours) is refused, ours
    if not refused:
        assert ours is None, ours


TRT = ("--attention-backend", "trtllm_mha")
# the live check on SGLang's own unresolved ServerArgs (from_sglang), (argv, GPU)
LIVE_GRID: list[ls.Case] = [
    ((*MRR, *TRT, "--mamba-radix-cache-strategy", "no_buffer", "--disable-overlap-schedule"),
     "H100"),
    ((*MRR, *TRT, "--linear-attn-backend", FI), "H100"),  # auto: no_buffer on flashinfer
    ((*MRR, *TRT), "H100"),  # auto with overlap: extra_buffer
    ((*MRR, *TRT, "--linear-attn-backend", FI, "--disable-radix-cache"), "H100"),
    ((*MRR, "--decode-attention-backend", "trtllm_mha", "--linear-attn-backend", FI), "H100"),
]


@pytest.mark.parametrize("case", LIVE_GRID)
def test_live_check_reads_the_attention_flag_as_sglang(case: ls.Case) -> None:
    assert ls.live_verdict(case) is None, ls.live_verdict(case)


def test_live_check_refuses_where_sglang_asserts() -> None:
    """The grid reaches both sides of the rule on the live path."""
    refused = [ls.live_case(*case)[1] for case in LIVE_GRID[:2]]
    assert all(r is not None and "mamba_hook.py:161" in r for r in refused), refused
    assert ls.live_case(*LIVE_GRID[2]) == (None, None)


SPEC = ("--speculative-algorithm", "EAGLE", "--speculative-num-steps", "2",
        "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "3")
NB = ("--mamba-radix-cache-strategy", "no_buffer", "--disable-overlap-schedule")
# Qwen3-Next's SM100 override writes the page size over the line's (qwen3_5.py:46-49), before
# the no_buffer checks read it (mamba_hook.py:156-157); (argv, GPU)
PAGE_GRID: list[ls.Case] = [
    ((*MRR, "--page-size", "64", *NB), "B200"),  # reset to 1: SGLang serves
    ((*MRR, *SPEC, *NB), "B200"),  # trtllm_mha's 64: SGLang refuses
    ((*MRR, "--page-size", "64", "--disable-overlap-schedule"), "B200"),
    ((*MRR, "--disable-radix-cache"), "B200"),  # trtllm_mha: 64
    ((*MRR, "--page-size", "64", *NB), "H100"),  # no override off SM100: refused
    ((*MRR, "--attention-backend", "triton", "--page-size", "64", *NB), "B200"),  # flag given
]


@pytest.mark.parametrize("case", PAGE_GRID)
def test_qwen3_5_sm100_page_size_as_sglang(case: ls.Case) -> None:
    assert ls.page_verdict(case) is None, ls.page_verdict(case)


# the live path with the GPU named (issue 23 s45m): `from_sglang(server_args,
# gpu_memory_gb="B200")` runs the same checks on the ServerArgs' fields as given
@pytest.mark.parametrize(("case", "sglang"), LINEAR_GRID)
def test_live_path_with_a_named_gpu_matches_sglang(case: ls.Case, sglang: str) -> None:
    theirs, ours = ls.live_linear_case(case)
    premise = ("serves" if theirs is None else "dtype" if ls.DTYPE_WORDS in theirs
               else "cuda" if ls.CUDA_WORDS in theirs else theirs[-160:])
    assert premise == sglang, f"live premise: SGLang {premise}"
    assert ls.live_linear_verdict(case) is None, ls.live_linear_verdict(case)
    assert (ours is not None) == (sglang == "dtype"), ours


def test_live_path_generated_lines_match_sglang() -> None:
    differ = [(case, why) for case in ls.generate_linear(12, 45)
              if (why := ls.live_linear_verdict(case)) is not None]
    assert not differ, differ[:3]


# the live path's page size with the GPU named (issue 23 s45m): Qwen3-Next's SM100 override
# (model_overrides/qwen3_5.py:46-49) on SGLang's own ServerArgs; lines whose page size it
# changes (premise), and one off SM100
LIVE_PAGE_GRID: list[ls.Case] = [
    ((*MRR, "--page-size", "16"), "B200"),  # triton: 1 over 16
    ((*MRR, "--disable-radix-cache"), "B200"),  # trtllm_mha: 64
    ((*MRR, "--page-size", "64", "--mamba-radix-cache-strategy", "no_buffer",
      "--disable-overlap-schedule"), "B200"),  # reset to 1: SGLang serves it
    ((*MRR, "--page-size", "16"), "H100"),
]


@pytest.mark.parametrize("case", LIVE_PAGE_GRID)
def test_live_page_size_with_a_named_gpu_matches_sglang(case: ls.Case) -> None:
    assert ls.live_page_verdict(case) is None, ls.live_page_verdict(case)


def test_live_page_size_generated_lines_match_sglang() -> None:
    differ = [(case, why) for case in ls.generate_page(10, 47)
              if (why := ls.live_page_verdict(case)) is not None]
    assert not differ, differ[:3]
