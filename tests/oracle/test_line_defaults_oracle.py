"""What a pasted line leaves open, settled by graphfit as the engine's own pipeline settles it.

vLLM: `AsyncEngineArgs.create_engine_config` (engine/arg_utils.py:3151-3240 in 0.33) runs on
CPU through vllm_args_oracle.build_vllm_config, on a GPU of the memory and name the case
gives (the oracle platform answers `get_device_total_memory` / `get_device_name`), with the
model replaced by a local config.json that graphfit reads too. graphfit's side is the public
path a user takes: `resolve_values` over the pasted line and `--gpu-memory-gb`.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import ConfigError
from graphfit.cli.options import resolve_values
from graphfit.inputs import commandline
from graphfit.inputs.gpus import GPU_MEMORY_GB
from tests.helpers import run_cli

GIB = 1 << 30
# GPU as graphfit is told it (--gpu-memory-gb) -> (bytes, name) the oracle platform reports
GPUS = {
    "24": (24 * GIB, "NVIDIA L4"),
    "48": (48 * GIB, "NVIDIA L40S"),
    "H100": (int(GPU_MEMORY_GB["H100"] * GIB), "NVIDIA H100 80GB HBM3"),
    "A100": (int(GPU_MEMORY_GB["A100"] * GIB), "NVIDIA A100-SXM4-80GB"),
    "H200": (int(GPU_MEMORY_GB["H200"] * GIB), "NVIDIA H200"),
    "B200": (int(GPU_MEMORY_GB["B200"] * GIB), "NVIDIA B200"),
    None: (80 * GIB, "NVIDIA H100 80GB HBM3"),  # graphfit's assumption when none is given
}


MIXTRAL = {"architectures": ["MixtralForCausalLM"], "model_type": "mixtral",
           "num_local_experts": 8, "num_experts_per_tok": 2}


def _model_dir(tmp: Path, positions: int, moe: bool = False) -> str:
    """A Llama-shaped config.json without rope scaling (Mixtral-shaped with `moe`): vLLM's
    max_model_len is max_position_embeddings, which graphfit reads too."""
    path = tmp / f"{'mixtral' if moe else 'llama'}-{positions}"
    path.mkdir(exist_ok=True)
    (path / "config.json").write_text(json.dumps({
        "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
        "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8,
        "num_hidden_layers": 32, "vocab_size": 128256, "max_position_embeddings": positions,
        "rms_norm_eps": 1e-05, "rope_theta": 500000.0, "torch_dtype": "bfloat16",
        **(MIXTRAL if moe else {})}))
    return str(path)


def agree(va: Any, flags: list[str], gpu: str | None, model: str) -> tuple[int, int]:
    """vLLM's and graphfit's (max_num_seqs, max_num_batched_tokens) for one line; equal."""
    line = f"vllm serve {shlex.quote(model)} {shlex.join(flags)}"
    memory, name = GPUS[gpu]
    previous = va.set_device(memory=memory, name=name)
    try:
        build = va.build_vllm_config(line, model_dir=model, runner="v1")
    finally:
        va.set_device(**previous)
    own = {} if gpu is None else {"gpu_memory_gb": gpu}
    resolved_all = resolve_values(own, environ={}, pasted=commandline.read([line]))
    if not build.ok:  # e.g. --max-num-seqs 4096 over a 2048-token default: both refuse
        assert "max_num_batched_tokens" in str(build.error), build.error
        with pytest.raises(ConfigError, match="max_num_batched_tokens"):
            resolved_all.config()
        return -1, -1
    theirs = (build.fields["max_num_seqs"], build.fields["max_num_batched_tokens"])
    resolved = resolved_all.values
    ours = (resolved["max_num_seqs"], resolved["max_num_batched_tokens"])
    assert ours == theirs, f"{line} on {gpu}: graphfit {ours}, vLLM {theirs}"
    return theirs


# Real lines (from the issue and the engines' docs) that leave one or both values open.
REAL = [
    (["-tp", "4", "--speculative-config",
      '{"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3}',
      "--max-num-batched-tokens", "512"], None, 8192, (512, 512)),
    (["--max-model-len", "4096"], "H100", 8192, (1024, 8192)),
    (["--max-model-len", "4096"], "A100", 8192, (256, 2048)),
    (["--performance-mode", "throughput"], "H200", 8192, (2048, 16384)),
    ([], "B200", 8192, (1024, 16384)),
    (["--no-enable-chunked-prefill"], "24", 32768, (256, 32768)),
    (["--max-num-seqs", "8"], "H100", 512, (8, 4096)),
    (["--enable-expert-parallel", "-dp", "2", "--all2all-backend", "deepep_low_latency"],
     "H100", 8192, (256, 256)),
]


@pytest.mark.parametrize(("flags", "gpu", "positions", "expected"), REAL,
                         ids=[" ".join(r[0])[:40] or "bare" for r in REAL])
def test_real_lines(va: Any, tmp_path: Path, flags: list[str], gpu: str | None,
                    positions: int, expected: tuple[int, int]) -> None:
    moe = "--enable-expert-parallel" in flags
    assert agree(va, flags, gpu, _model_dir(tmp_path, positions, moe)) == expected


@st.composite
def cases(draw: st.DrawFn) -> tuple[list[str], str | None, int]:
    positions = draw(st.sampled_from([256, 2048, 8192, 32768]))
    flags: list[str] = []
    seqs = draw(st.one_of(st.none(), st.sampled_from([1, 8, 96, 300, 1024, 4096])))
    tokens = draw(st.one_of(st.none(), st.sampled_from([64, 512, 2048, 8192, 40000])))
    if seqs is not None and tokens is not None and tokens < seqs:
        tokens = seqs  # vLLM refuses T < S; graphfit too (tested elsewhere)
    if seqs is not None:
        flags += ["--max-num-seqs", str(seqs)]
    if tokens is not None:
        flags += ["--max-num-batched-tokens", str(tokens)]
    length = draw(st.one_of(st.none(), st.sampled_from([128, 1024, 4096])))
    if length is not None and length <= positions:
        flags += ["--max-model-len", str(length)]
        positions_used = length
    else:
        positions_used = positions
    if tokens is None and draw(st.booleans()):
        flags.append("--no-enable-chunked-prefill")
    elif tokens is not None and tokens < positions_used:
        flags.append("--enable-chunked-prefill")  # else vLLM refuses T < max_model_len
    if draw(st.booleans()):
        flags += ["--performance-mode", draw(st.sampled_from(["throughput", "balanced"]))]
    gpu = draw(st.sampled_from(list(GPUS)))
    return flags, gpu, positions


@settings(max_examples=25, deadline=None)
@given(case=cases())
def test_generated_lines(va: Any, tmp_path_factory: pytest.TempPathFactory,
                         case: tuple[list[str], str | None, int]) -> None:
    flags, gpu, positions = case
    agree(va, flags, gpu, _model_dir(tmp_path_factory.getbasetemp(), positions))


# ------------------------------------------------------------------------------------------
# SGLang: lines without --max-running-requests, refusals and roles, against
# `prepare_server_args` + `ServerArgs.resolve_once` and the graph runners (sglang_oracle).


def sglang_pasted(argv: tuple[str, ...], gpu: float | None) -> Any:
    """graphfit's answer for `python -m sglang.launch_server --model-path DIR ARGV` pasted
    after `--` (the oracle's model directory), with `--gpu-memory-gb` when given."""
    from graphfit import EngineConfig
    from graphfit import plan as make_plan
    from tests.oracle import sglang_compare as sc
    from tests.oracle import sglang_oracle as so

    own = [] if gpu is None else ["--gpu-memory-gb", f"{gpu:g}"]
    line = ["python", "-m", "sglang.launch_server", "--model-path", str(so.oracle().model_dir),
            *argv]
    code, stdout, err = run_cli(["plan", "--json", *own, "--", *line])
    if code != 0:
        errors = [ln for ln in err.splitlines() if ln.startswith("error:")]
        return sc.GraphfitAnswer(argv, (errors or [f"exit {code}"])[-1])
    config = EngineConfig.from_dict(json.loads(stdout)["config"])
    return sc.GraphfitAnswer(argv, None, make_plan(config))


def sglang_agree(argv: tuple[str, ...], gpu: float | None) -> Any:
    """Same acceptance, same target and draft ladders, same max_running_requests where SGLang
    settles one at start-up. SGLang runs on an 80 GB GPU when graphfit is told none."""
    from tests.oracle import sglang_compare as sc

    sg = sc.sglang(argv, 80 if gpu is None else gpu)
    gf = sglang_pasted(argv, gpu)
    diffs = sc.compare_acceptance(sg, gf)
    if not diffs and sg.rejected is None and gf.rejected is None:
        diffs += sc.compare_target_ladder(sg, gf) + sc.compare_draft_ladder(sg, gf)
        settled = sg.resolved.max_running_requests
        if settled is not None and gf.plan.config.max_num_seqs != settled:
            diffs.append(sc.Difference("max_running_requests",
                                       f"SGLang {settled} vs graphfit "
                                       f"{gf.plan.config.max_num_seqs}"))
    assert not diffs, f"{' '.join(argv)} on {gpu} GB: " + "; ".join(map(str, diffs))
    return sg, gf


EAGLE_DOCS = ("--speculative-algorithm", "EAGLE", "--speculative-num-steps", "3",
              "--speculative-eagle-topk", "4", "--speculative-num-draft-tokens", "16")
SGLANG_REAL: list[tuple[tuple[str, ...], float | None]] = [
    # SGLang's EAGLE documentation lines, less the hub draft model and old flags
    (EAGLE_DOCS, None),
    ((*EAGLE_DOCS, "--cuda-graph-max-bs-decode", "8"), None),
    (("--speculative-algorithm", "EAGLE3", "--speculative-num-steps", "5",
      "--speculative-eagle-topk", "8", "--speculative-num-draft-tokens", "32"), 80),
    (("--speculative-algorithm", "EAGLE", "--speculative-num-steps", "3",
      "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4"), 140.4),
    (("--speculative-algorithm", "NGRAM", "--speculative-num-draft-tokens", "12"), 80),
    (("--tp", "2"), None),
    (("--tp", "8", "--cuda-graph-max-bs-decode", "128"), 79.6),
    (("--tp", "4"), 24.0),
    (("--disaggregation-mode", "prefill"), None),
    (("--disaggregation-mode", "prefill", "--cuda-graph-backend-decode", "full"), None),
    (("--disaggregation-mode", "decode", "--tp", "2"), None),
    # refused by SGLang at start-up: graphfit refuses too
    ((*EAGLE_DOCS, "--attention-backend", "trtllm_mha"), None),
    ((*EAGLE_DOCS, "--decode-attention-backend", "trtllm_mha"), None),
    ((*EAGLE_DOCS, "--speculative-use-rejection-sampling"), None),
    (("--speculative-algorithm", "EAGLE", "--speculative-use-rejection-sampling"), None),
    (("--speculative-algorithm", "STANDALONE", "--speculative-use-rejection-sampling",
      "--speculative-eagle-topk", "1", "--speculative-num-steps", "3",
      "--speculative-num-draft-tokens", "4"), None),
    ((*EAGLE_DOCS, "--page-size", "16", "--attention-backend", "flashmla"), None),
    ((*EAGLE_DOCS, "--page-size", "16", "--attention-backend", "fa3"), None),
    (("--speculative-algorithm", "NGRAM", "--page-size", "16", "--attention-backend",
      "fa3"), None),
    (("--speculative-algorithm", "NGRAM", "--page-size", "16", "--attention-backend",
      "flashinfer"), None),
]


@pytest.mark.parametrize(("argv", "gpu"), SGLANG_REAL,
                         ids=[" ".join(a)[:48] for a, _ in SGLANG_REAL])
def test_sglang_real_lines(argv: tuple[str, ...], gpu: float | None) -> None:
    sglang_agree(argv, gpu)


@st.composite
def sglang_cases(draw: st.DrawFn) -> tuple[tuple[str, ...], float | None]:
    argv: list[str] = []
    algo = draw(st.sampled_from([None, "EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "NGRAM"]))
    if algo is not None:
        argv += ["--speculative-algorithm", algo]
        if algo != "NGRAM" and draw(st.booleans()):
            topk = draw(st.sampled_from([1, 2, 4]))
            steps = draw(st.sampled_from([1, 3]))
            drafts = steps + 1 if topk == 1 else draw(st.sampled_from([4, 8]))
            argv += ["--speculative-eagle-topk", str(topk), "--speculative-num-steps",
                     str(steps), "--speculative-num-draft-tokens", str(drafts)]
        if draw(st.booleans()):
            argv.append("--speculative-use-rejection-sampling")
        page = draw(st.sampled_from([None, 1, 16]))
        if page is not None:
            argv += ["--page-size", str(page)]
        # without a backend SGLang picks one by GPU architecture and installed kernels
        # (model_override_base.py:300-333), which neither graphfit nor this CPU box knows
        if page == 16 or draw(st.booleans()):
            argv += ["--attention-backend",
                     draw(st.sampled_from(["flashinfer", "fa3", "triton", "trtllm_mha"]))]
    if draw(st.booleans()):
        argv += ["--tp", str(draw(st.sampled_from([1, 2, 4, 8])))]
    if draw(st.booleans()):
        argv += ["--disaggregation-mode", draw(st.sampled_from(["prefill", "decode"]))]
    if draw(st.booleans()):
        argv += ["--cuda-graph-max-bs-decode", str(draw(st.sampled_from([8, 48, 160])))]
    gpu = draw(st.sampled_from([None, 16.0, 24.0, 48.0, 79.6, 140.4, 192.0]))
    return tuple(argv), gpu


@settings(max_examples=30, deadline=None)
@given(case=sglang_cases())
def test_sglang_generated_lines(case: tuple[tuple[str, ...], float | None]) -> None:
    sglang_agree(*case)


# ------------------------------------------------------------------------------------------
# flags/renamed.json: the engines' own parsers refuse each old spelling graphfit explains


def _renamed_entries() -> list[Any]:
    from graphfit.inputs import renamed

    return [pytest.param(e, id=e.old) for e in renamed.table() if e.kind != "environment"]


@pytest.mark.parametrize("entry", _renamed_entries())
def test_renamed_table_matches_the_engines(va: Any, sa: Any, entry: Any) -> None:
    data = json.loads(__import__("importlib.resources", fromlist=["files"]).files(
        "graphfit.inputs").joinpath("flags/renamed.json").read_text())
    example = next(e["example"] for e in data["entries"] if e["old"] == entry.old)
    theirs = (va.parse_vllm(example) if entry.engine.value == "vllm"
              else sa.parse_sglang(example))
    assert not theirs.ok, f"{entry.engine.value} accepts {example}"

