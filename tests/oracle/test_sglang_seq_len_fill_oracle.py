"""Each SGLang 0.5.23 graph runner's seq_lens padding fill, graphfit's against SGLang's own
runner constructors (tests/oracle/sglang_oracle.py builds the target's DecodeInputBuffers and
SGLang's EAGLE draft / draft-extend / multi-layer composite runners on CPU, each backend's
fill from SGLang's own backend class, aiter's from its `get_cuda_graph_seq_len_fill_value`
on the published `speculative_num_draft_tokens`, aiter_backend.py:370, 3416-3417).

Lines name aiter for some runners and triton / fa3 for the others (decode vs prefill vs
draft flags, `--speculative-attention-mode decode`), with and without speculation. Each is
read by graphfit twice: the pasted line (graphfit.inputs.sglang_runner_backends) and
SGLang's resolved values on graphfit's own flags (sglang_compare.translated_argv), whose
comparison also covers the target's `custom_mask`, sized from the fill (buffers.py:171-174).
A ROCm case runs under SGLang's own platform override (MI300X, as the multi-layer EAGLE
oracle does).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_compare as sc  # noqa: E402
from tests.oracle import sglang_mtp_oracle as mo  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402


def _eagle(steps: int, topk: int, drafts: int, *extra: str) -> tuple[str, ...]:
    return ("--max-running-requests", "33", "--speculative-algorithm", "EAGLE",
            "--speculative-num-steps", str(steps), "--speculative-eagle-topk", str(topk),
            "--speculative-num-draft-tokens", str(drafts), *extra)


AITER = ("--attention-backend", "aiter")
# (line, {runner: the fill SGLang's runner holds}) -- the expected fills are read from
# SGLang's runners below; listed here only so a line that stopped exercising aiter fails
LINES: list[tuple[tuple[str, ...], dict[str, int]]] = [
    (("--max-running-requests", "33", *AITER), {"target": 1}),
    (_eagle(3, 1, 4, *AITER), {"target": 4, "draft": 4, "draft_extend": 4}),
    (_eagle(1, 1, 2, *AITER), {"target": 2, "draft_extend": 2}),
    (_eagle(2, 4, 6, *AITER), {"target": 6, "draft": 6, "draft_extend": 6}),
    (_eagle(3, 1, 4, "--decode-attention-backend", "aiter", "--prefill-attention-backend",
            "triton"), {"target": 4, "draft": 4, "draft_extend": 1}),
    (_eagle(3, 1, 4, "--attention-backend", "triton", "--speculative-draft-attention-backend",
            "aiter"), {"target": 1, "draft": 4, "draft_extend": 4}),
    (_eagle(3, 1, 4, "--prefill-attention-backend", "aiter", "--decode-attention-backend",
            "fa3"), {"target": 1, "draft": 1, "draft_extend": 4}),
    (_eagle(3, 1, 4, "--decode-attention-backend", "aiter", "--prefill-attention-backend",
            "triton", "--speculative-attention-mode", "decode"),
     {"target": 4, "draft": 4, "draft_extend": 4}),
    (_eagle(3, 1, 4, *AITER, "--enable-multi-layer-eagle"),
     {"target": 4, "mtp_draft_extend": 4}),
    (("--max-running-requests", "33", "--speculative-algorithm", "FROZEN_KV_MTP",
      "--speculative-num-steps", "3", "--speculative-eagle-topk", "1",
      "--speculative-num-draft-tokens", "4", *AITER), {"frozen_drafter": 4}),
]
IDS = [f"line{i}" for i in range(len(LINES))]


def _sglang(argv: tuple[str, ...], gpu: str | None = None) -> dict[str, so.Runner]:
    so.oracle()  # SGLang's sources on the path before the platform override is imported
    with mo._platform(gpu or ""):
        r = so.resolve(argv)
        assert isinstance(r, so.Resolved), r
        return so.runners(r)


def _graphfit(argv: tuple[str, ...]) -> Any:
    from graphfit.cli.options import build_config
    from graphfit.planner.plan import plan

    config = build_config({}, environ={}, pasted=[
        "python", "-m", "sglang.launch_server", "--model-path", str(so.oracle().model_dir),
        *argv])
    return plan(config)


def _fill(plan: Any, runner: str) -> int:
    comp = plan.components[sc.GF_COMPONENT[runner]]
    return int(next(b for b in comp.buffers if b.name == "seq_lens").fill.value)


@pytest.mark.parametrize(("argv", "expected"), LINES, ids=IDS)
def test_pasted_line_fills_are_sglangs(argv: tuple[str, ...], expected: dict[str, int]
                                       ) -> None:
    """graphfit's seq_lens fill of every runner SGLang builds is that runner's
    `seq_len_fill_value`, what its replay writes into the padded rows
    (eagle_draft_cuda_graph_runner.py:592, 731; eagle_draft_extend_cuda_graph_runner.py:536,
    614; decode_cuda_graph_runner.py:1283-1284). (The tensors' initial contents are not
    compared: `share_buffers` aliases same-named, same-shaped tensors process-wide,
    eagle_draft_extend_cuda_graph_runner.py:297, so they hold the first allocator's fill.)"""
    runners = _sglang(argv)
    assert {n: runners[n].seq_len_fill_value for n in expected} == expected
    plan = _graphfit(argv)
    for name, run in runners.items():
        assert _fill(plan, name) == run.seq_len_fill_value, name


@pytest.mark.parametrize(("argv", "expected"), LINES[:6], ids=IDS[:6])
def test_translated_buffers_and_fills(argv: tuple[str, ...], expected: dict[str, int]
                                      ) -> None:
    """SGLang's resolved values on graphfit's flags: every buffer's shape (the target's
    custom_mask is sized from the fill) and every fill agree."""
    diffs = sc.compare_model(sc.sglang(argv), extra_buffers=True)
    found = [d for k in ("translated_acceptance", "buffers", "fills") for d in diffs[k]]
    assert not found, found


def test_rocm_platform_named_aiter(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same comparison under SGLang's own ROCm platform override (MI300X), in a fresh
    process's environment (another oracle line's --mm-feature-transport writes
    SGLANG_USE_CUDA_IPC_TRANSPORT, serving_hook.py:940-942, which ROCm refuses, :911-913)."""
    monkeypatch.delenv("SGLANG_USE_CUDA_IPC_TRANSPORT", raising=False)
    argv = _eagle(3, 1, 4, *AITER)
    with mo._restored_environ():
        runners = _sglang(argv, "MI300X")
    plan = _graphfit(argv)
    assert {n: r.seq_len_fill_value for n, r in runners.items()} == {
        "target": 4, "draft": 4, "draft_extend": 4}
    for name, run in runners.items():
        assert _fill(plan, name) == run.seq_len_fill_value, name


def test_planted_slip_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """A graphfit that forgot aiter's fill is caught by the comparison."""
    from graphfit.planner.engines import sglang_seq_len_fill as fills

    monkeypatch.setattr(fills, "AITER", "not-a-backend")
    argv = LINES[1][0]
    runners = _sglang(argv)
    plan = _graphfit(argv)
    assert any(_fill(plan, n) != r.seq_len_fill_value for n, r in runners.items())


@pytest.mark.parametrize(("argv", "expected"), LINES[1:6], ids=IDS[1:6])
def test_live_server_args_fills(argv: tuple[str, ...], expected: dict[str, int]) -> None:
    """The live path (`EngineConfig.from_sglang` on SGLang's own resolved ServerArgs, what
    graphfit.integrations.sglang reads) plans the same fills."""
    from graphfit.planner.config import EngineConfig
    from graphfit.planner.plan import plan

    r = so.resolve(argv)
    assert isinstance(r, so.Resolved), r
    runners = so.runners(r)
    ours = plan(EngineConfig.from_sglang(r.record))
    for name, run in runners.items():
        assert _fill(ours, name) == run.seq_len_fill_value, name


@pytest.mark.parametrize("gpu", ["MI300X", "H100", "A100"])
@pytest.mark.parametrize("extra", [(), ("--enable-multi-layer-eagle",),
                                   ("--speculative-eagle-topk", "2")])
def test_default_backend_fills(gpu: str, extra: tuple[str, ...],
                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A line naming no attention backend: SGLang picks its default by GPU and model (aiter
    on ROCm, under its own `override_platform`); graphfit, told the GPU, plans the same fill
    for every runner SGLang builds."""
    from graphfit.cli.options import build_config
    from graphfit.inputs.gpus import GPU_MEMORY_GB
    from graphfit.planner.plan import plan

    monkeypatch.delenv("SGLANG_USE_CUDA_IPC_TRANSPORT", raising=False)
    argv = _eagle(3, 1, 4)
    if extra[:1] == ("--speculative-eagle-topk",):
        argv = _eagle(3, 2, 6)
    elif extra:
        argv = (*argv, *extra)
    model = str(so.oracle().model_dir)
    with mo._restored_environ(), mo._platform(gpu):
        r = so.resolve(argv, gpu_mem_gb=GPU_MEMORY_GB[gpu], model=model,
                       capability=mo.CAPABILITIES.get(gpu, (9, 4)))
        assert isinstance(r, so.Resolved), r
        runners = so.runners(r)
    config = build_config({"gpu_memory_gb": gpu}, environ={}, pasted=[
        "python", "-m", "sglang.launch_server", "--model-path", model, *argv])
    ours = plan(config)
    if gpu == "MI300X":
        assert runners["target"].seq_len_fill_value > 1  # aiter: the draft tokens
    for name, run in runners.items():
        assert _fill(ours, name) == run.seq_len_fill_value, (name, r.attention_backend)


# -- the DSA draft-extend fill: width + the draft's index kpool ------------------------------

DSA_LINES: list[tuple[int, tuple[str, ...]]] = [
    (4, ("--attention-backend", "dsa")),
    (2, ("--attention-backend", "nsa")),  # the deprecated alias, the same class
    (1, ("--attention-backend", "dsa")),  # kpool 1: the backend's own fill
    (4, ("--attention-backend", "dsa", "--speculative-draft-attention-backend", "triton")),
    (4, ("--decode-attention-backend", "dsa", "--prefill-attention-backend", "flashmla")),
    (3, ("--decode-attention-backend", "flashmla", "--prefill-attention-backend", "dsa")),
    (4, ("--decode-attention-backend", "dsa", "--prefill-attention-backend", "flashmla",
         "--speculative-attention-mode", "decode")),
    (4, ("--attention-backend", "dsa", "--enable-multi-layer-eagle")),
    (4, ("--attention-backend", "flashmla")),
]
DSA_IDS = [f"kpool{k}-{'-'.join(a.lstrip('-')[:12] for a in argv[1::2])}"
           for k, argv in DSA_LINES]


def _dsa_model(root: Any, kpool: int) -> str:
    """A DeepSeek-V3.2 (DSA) config.json with `index_kpool` (SGLang reads it through
    `get_dsa_index_kpool`, configs/model_config.py:530-531); EAGLE's draft is the target's
    checkpoint (speculative_hook.py:1120-1145)."""
    import json
    from pathlib import Path

    from tests.oracle import sglang_stubs as ss

    path = ss.write_mla_model_dir(Path(root) / f"dsa{kpool}")
    data = json.loads((path / "config.json").read_text())
    data.update({"architectures": ["DeepseekV32ForCausalLM"], "model_type": "deepseek_v32",
                 "index_topk": 2048, "index_n_heads": 64, "index_head_dim": 128,
                 "index_kpool": kpool})
    (path / "config.json").write_text(json.dumps(data))
    return str(path)


@pytest.mark.parametrize(("kpool", "extra"), DSA_LINES, ids=DSA_IDS)
def test_dsa_draft_extend_fill_is_sglangs(kpool: int, extra: tuple[str, ...],
                                          tmp_path_factory: Any) -> None:
    """SGLang's single-layer draft-extend runner resolves its fill through
    `resolve_draft_extend_seq_len_fill_value` (eagle_draft_extend_cuda_graph_runner.py:62-71)
    on a backend that, when it is DeepseekSparseAttnBackend, holds the draft config's kpool;
    graphfit, reading the same config.json from the pasted line, plans every runner's fill
    as SGLang's runners hold it (multi-layer EAGLE's composite takes the plain fill)."""
    from graphfit.cli.options import build_config
    from graphfit.planner.plan import plan

    model = _dsa_model(tmp_path_factory.mktemp("dsa"), kpool)
    argv = _eagle(3, 1, 4, *extra)
    so.oracle()
    r = so.resolve(argv, model=model)
    assert isinstance(r, so.Resolved), r
    runners = so.runners(r)
    config = build_config({}, environ={}, pasted=[
        "python", "-m", "sglang.launch_server", "--model-path", model, *argv])
    ours = plan(config)
    for name, run in runners.items():
        assert _fill(ours, name) == run.seq_len_fill_value, name


def test_dsa_lines_reach_the_kpool_rule(tmp_path_factory: Any) -> None:
    """Non-vacuity: on these lines SGLang's draft-extend fill is the width + kpool (4 + 4)
    where the draft-extend backend is DSA, and 1 where it is not."""
    model = _dsa_model(tmp_path_factory.mktemp("dsa"), 4)
    so.oracle()
    seen = {}
    for extra in (("--attention-backend", "dsa"), ("--attention-backend", "flashmla")):
        r = so.resolve(_eagle(3, 1, 4, *extra), model=model)
        assert isinstance(r, so.Resolved), r
        seen[extra[1]] = so.runners(r)["draft_extend"].seq_len_fill_value
    assert seen == {"dsa": 8, "flashmla": 1}


# -- SGLang's default base backend behind a line naming only some backend flags --------------

PARTIAL = [
    ("--prefill-attention-backend", "triton"),
    ("--decode-attention-backend", "triton"),
    ("--speculative-draft-attention-backend", "triton"),
    ("--speculative-attention-mode", "decode"),
    ("--prefill-attention-backend", "triton", "--speculative-attention-mode", "decode"),
    ("--decode-attention-backend", "triton", "--prefill-attention-backend", "triton"),
]


@pytest.mark.parametrize("gpu", ["MI300X", "H100"])
@pytest.mark.parametrize("extra", PARTIAL, ids=["-".join(p[::2]).replace("--", "")
                                                 for p in PARTIAL])
def test_partial_backend_flags_fill_from_sglangs_default(
        gpu: str, extra: tuple[str, ...], monkeypatch: pytest.MonkeyPatch) -> None:
    """A speculative line naming a split flag but no --attention-backend: SGLang picks its
    default base backend (overrides.py:1125-1139) for every phase the line leaves out
    (model_override_base.py:138-152), aiter on ROCm; graphfit, told the GPU, plans every
    runner's fill as SGLang's runners hold it."""
    from graphfit.cli.options import build_config
    from graphfit.inputs.gpus import GPU_MEMORY_GB
    from graphfit.planner.plan import plan

    monkeypatch.delenv("SGLANG_USE_CUDA_IPC_TRANSPORT", raising=False)
    argv = _eagle(3, 1, 4, *extra)
    model = str(so.oracle().model_dir)
    with mo._restored_environ(), mo._platform(gpu):
        r = so.resolve(argv, gpu_mem_gb=GPU_MEMORY_GB[gpu], model=model,
                       capability=mo.CAPABILITIES.get(gpu, (9, 4)))
        assert isinstance(r, so.Resolved), r
        runners = so.runners(r)
    config = build_config({"gpu_memory_gb": gpu}, environ={}, pasted=[
        "python", "-m", "sglang.launch_server", "--model-path", model, *argv])
    ours = plan(config)
    fills = {name: run.seq_len_fill_value for name, run in runners.items()}
    # non-vacuity: on ROCm some runner is on SGLang's default aiter (fill 4) unless the
    # line names one backend for both phases (then the base is that one)
    assert (max(fills.values()) > 1) == (gpu == "MI300X" and extra != PARTIAL[-1]), fills
    for name, run in runners.items():
        assert _fill(ours, name) == run.seq_len_fill_value, (name, fills)
