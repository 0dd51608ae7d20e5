"""graphfit's multi-layer EAGLE draft-extend graph count against SGLang 0.5.23's own decision
(tests/oracle/sglang_mtp_oracle.py runs SGLang's backend factory and `_capture_cuda_graphs`
on CPU), for pasted lines with and without an attention backend and with
SGLANG_ENABLE_SINGLE_CG_DRAFT set, unset or unparsable.

Where the line names the draft-extend backend graphfit's count is SGLang's; where it names
none SGLang picks one by GPU and model (the oracle's fake Hopper), which graphfit does not
restate: it counts per step, never fewer than SGLang captures.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_mtp_oracle as mo  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402

BACKEND_FLAGS = ("--attention-backend", "--prefill-attention-backend",
                 "--decode-attention-backend", "--speculative-draft-attention-backend")
NAMED = ("fa3", "fa4", "flashinfer", "triton", "trtllm_mha", "flashmla", "aiter", "dsa")


def _line(steps: int, extra: tuple[str, ...]) -> tuple[str, ...]:
    return ("--max-running-requests", "33", "--speculative-algorithm", "EAGLE",
            "--speculative-num-steps", str(steps), "--speculative-eagle-topk", "1",
            "--speculative-num-draft-tokens", str(steps + 1), "--enable-multi-layer-eagle",
            *extra)


def _graphfit(argv: tuple[str, ...], env: str | None, console: bool = True
              ) -> tuple[int, dict[str, Any] | str]:
    """(graphs per size, the mtp component's document) or (0, the error) for the pasted line,
    by the `graphfit` console script (a pasted line is split off before click runs);
    `console` False: the same CLI (graphfit.cli.application.main) in this process, under
    the same environment (the generated lines: no interpreter start per line)."""
    environ = {k: v for k, v in os.environ.items() if k != mo.ENV}
    if env is not None:
        environ[mo.ENV] = env
    command = ["plan", "--json", "--", "python", "-m", "sglang.launch_server", "--model-path",
               str(so.oracle().model_dir), *argv]
    if console:
        done = subprocess.run([sys.executable, "-m", "graphfit", *command], capture_output=True,
                              text=True, env=environ, timeout=120, check=False)
        code, stdout, stderr = done.returncode, done.stdout, done.stderr
    else:
        code, stdout, stderr = _in_process(command, environ)
    if code != 0:
        return 0, stderr.strip().splitlines()[-1]
    comp = json.loads(stdout)["components"]["mtp_draft_extend"]
    per_size = int(comp.get("graphs_per_size", 1))
    assert comp.get("num_graphs", len(comp["graph_sizes"])) == per_size * len(
        comp["graph_sizes"])
    return per_size, comp


def _in_process(command: list[str], environ: dict[str, str]) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of graphfit's CLI run here with os.environ as
    `environ` for the call."""
    import contextlib
    import io

    from graphfit.cli.application import main

    out, err, code = io.StringIO(), io.StringIO(), 0
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(environ)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main(command)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return code, out.getvalue(), err.getvalue()


def _compare(argv: tuple[str, ...], env: str | None, named: bool, console: bool = True
             ) -> None:
    r = so.resolve(argv)
    if not isinstance(r, so.Resolved):
        return  # SGLang refuses the line before the worker: acceptance is another test's
    try:
        sglang, backend = mo.mtp_graphs(r, env)
    except ValueError as exc:  # the draft-extend factory refuses the backend
        count, said = _graphfit(argv, env, console)
        assert count == 0 and "refuses" in str(said), (argv, exc, said)
        return
    count, said = _graphfit(argv, env, console)
    assert count, (argv, said)
    if named:
        assert count == sglang, (argv, env, backend, count, sglang)
    else:  # SGLang's own default backend: graphfit counts per step, the most
        assert count == r.speculative_num_steps >= sglang, (argv, env, count, sglang)


EDGE: list[tuple[tuple[str, ...], str | None, bool]] = [
    (_line(3, ("--attention-backend", "fa3")), None, True),  # one graph for all steps
    (_line(3, ("--attention-backend", "fa3")), "0", True),  # the switch off: per step
    (_line(3, ("--attention-backend", "fa3")), "no", True),
    (_line(3, ("--attention-backend", "fa3")), "maybe", True),  # unparsable: the default
    (_line(3, ("--attention-backend", "flashinfer")), "1", True),  # per step
    (_line(3, ("--attention-backend", "triton")), None, True),  # per step
    (_line(1, ("--attention-backend", "trtllm_mha")), None, True),  # one step, one graph
    (_line(2, ("--attention-backend", "triton", "--speculative-draft-attention-backend",
               "fa4")), None, True),  # the draft's own flag wins
    (_line(2, ("--speculative-draft-attention-backend", "flashinfer", "--attention-backend",
               "fa3")), None, True),
    (_line(2, ("--prefill-attention-backend", "fa3", "--decode-attention-backend",
               "flashinfer")), None, True),  # draft-extend runs the prefill backend
    (_line(2, ("--prefill-attention-backend", "flashinfer", "--decode-attention-backend",
               "fa3", "--speculative-attention-mode", "decode")), None, True),
    (_line(3, ("--attention-backend", "torch_native")), None, True),  # refused at start
    (_line(3, ()), None, False),  # SGLang's default backend: graphfit counts per step
]


@pytest.mark.parametrize(("argv", "env", "named"), EDGE)
def test_multi_layer_eagle_graph_count_edges(argv: tuple[str, ...], env: str | None,
                                             named: bool) -> None:
    """The first two edges (the switch unset and off) by the console script in its own
    process, the rest by the same CLI in this one."""
    _compare(argv, env, named, console=(argv, env, named) in EDGE[:2])


@st.composite
def lines(draw: st.DrawFn) -> tuple[tuple[str, ...], str | None, bool]:
    steps = draw(st.integers(1, 4))
    extra: list[str] = []
    for flag in draw(st.lists(st.sampled_from(BACKEND_FLAGS), unique=True, max_size=3)):
        extra += [flag, draw(st.sampled_from(NAMED))]
    if draw(st.booleans()):
        extra += ["--speculative-attention-mode", draw(st.sampled_from(("prefill", "decode")))]
    env = draw(st.sampled_from((None, "1", "0", "true", "False", "y", "N", "bogus", "")))
    values = dict(zip(extra[::2], extra[1::2], strict=True))
    mode = values.get("--speculative-attention-mode", "prefill")
    named = any(f in values for f in ("--speculative-draft-attention-backend",
                                      f"--{mode}-attention-backend", "--attention-backend"))
    return _line(steps, tuple(extra)), env, named


@settings(max_examples=30)
@given(lines())
def test_multi_layer_eagle_graph_count_generated(
        case: tuple[tuple[str, ...], str | None, bool]) -> None:
    """The edges above run the console script; these lines the same CLI in-process."""
    _compare(*case, console=False)


# ---------------------------------------------------------------------------------------
# Lines WITHOUT an attention backend: SGLang's default by GPU and model
# ---------------------------------------------------------------------------------------

_SHAPES_DIR = tempfile.TemporaryDirectory(prefix="graphfit-mtp-shapes-")
_SHAPES = mo.model_dirs(_SHAPES_DIR.name)


@pytest.fixture(scope="module")
def shapes() -> dict[str, str]:
    return _SHAPES


def _graphfit_default(argv: tuple[str, ...], gpu: str, model: str, env: str | None
                      ) -> tuple[int, str | None] | str:
    """graphfit's (graphs per size, draft backend) for the pasted line on `gpu`, in-process
    (graphfit.cli.options.build_config: the same merge `graphfit plan` runs), or its error."""
    from graphfit.cli.options import build_config
    from graphfit.planner.core.errors import GraphfitError
    from graphfit.planner.plan import plan

    environ = {} if env is None else {mo.ENV: env}
    try:
        config = build_config({"gpu_memory_gb": gpu}, environ=environ, pasted=[
            "python", "-m", "sglang.launch_server", "--model-path", model, *argv])
        comp = plan(config).components["mtp_draft_extend"]
    except GraphfitError as exc:
        return str(exc)
    return comp.graphs_per_size, config.mtp_draft_backend


def default_verdict(argv: tuple[str, ...], gpu: str, model: str, env: str | None) -> str:
    """"agree" (same backend, same count), "bound" (graphfit names no backend, with a note,
    and counts per step, never fewer than SGLang), "refused" (both refuse), "skip: ..."
    (SGLang refuses a line graphfit plans: a gap every grid here now fails on), or
    "differ: ..."."""
    sglang = mo.default_case(argv, gpu, model, env)
    ours = _graphfit_default(argv, gpu, model, env)
    if isinstance(sglang, str):
        return "refused" if isinstance(ours, str) else f"skip: SGLang refuses: {sglang}"
    if isinstance(ours, str):
        return f"differ: graphfit refuses ({ours}), SGLang {sglang}"
    count, backend = ours
    steps = int(argv[argv.index("--speculative-num-steps") + 1])
    if backend is None:
        return "bound" if count == steps >= sglang[0] else f"differ: bound {count} vs {sglang}"
    if (count, backend) == sglang[:2]:
        return "agree"
    return f"differ: graphfit {(count, backend)}, SGLang {sglang}"


def _default_line(steps: int, topk: int | None, page: int | None,
                  kv_dtype: str | None) -> tuple[str, ...]:
    line = ["--max-running-requests", "33", "--speculative-algorithm", "EAGLE",
            "--speculative-num-steps", str(steps), "--speculative-num-draft-tokens",
            str(steps + 1), "--enable-multi-layer-eagle"]
    if topk is not None:
        line += ["--speculative-eagle-topk", str(topk)]
    if page is not None:
        line += ["--page-size", str(page)]
    if kv_dtype is not None:
        line += ["--kv-cache-dtype", kv_dtype]
    return tuple(line)


SHAPES = ("llama", "moe", "mla", "sinks", "asym", "gemma3", "olmo2", "vl")
DEFAULT_GRID = [(gpu, shape, _default_line(steps, topk, page, None), None)
                for gpu in mo.CAPABILITIES
                for shape in SHAPES
                for steps, topk, page in ((3, 1, None), (3, 1, 16))]
# no topk: both refuse multi-layer EAGLE (one shape per GPU is enough to show it)
DEFAULT_GRID += [(gpu, "llama", _default_line(2, None, None, None), None)
                 for gpu in mo.CAPABILITIES]
DEFAULT_GRID += [("H100", "llama", _default_line(3, 1, None, "fp8_e5m2"), None),
                 ("H100", "llama", _default_line(3, 1, None, None), "0"),
                 ("A100", "llama", _default_line(1, 1, None, None), None),
                 ("H100", "llama", _default_line(3, 1, None, "fp8_e4m3"), None),
                 ("H100", "olmo2", _default_line(3, 1, None, "fp8_e5m2"), None),
                 ("B200", "llama", _default_line(3, 1, None, "nvfp4"), None),
                 ("H100", "llama", (*_default_line(3, 1, None, "fp8_e5m2"),
                                    "--enable-deterministic-inference"), None)]
DEFAULT_GRID += [(gpu, shape, (*_default_line(3, 1, None, None),
                               "--enable-deterministic-inference"), None)
                 for gpu in mo.CAPABILITIES for shape in ("llama", "mla", "olmo2")]


def test_default_backend_grid(shapes: dict[str, str], capsys: pytest.CaptureFixture[str]
                              ) -> None:
    """Every GPU x model shape x (topk, page size) line without a backend: graphfit's draft
    backend and count equal SGLang's own resolve + runner decision, or graphfit keeps the
    per-step bound with a note; the agree / bound / differ counts are printed."""
    verdicts = {(gpu, shape, argv, env): default_verdict(argv, gpu, shapes[shape], env)
                for gpu, shape, argv, env in DEFAULT_GRID}
    tally: dict[str, int] = {}
    for verdict in verdicts.values():
        key = verdict.split(":", 1)[0]
        tally[key] = tally.get(key, 0) + 1
    with capsys.disabled():
        print(f"\nmulti-layer EAGLE default backend, {len(verdicts)} lines: "
              + ", ".join(f"{k} {v}" for k, v in sorted(tally.items())))
    differ = {k: v for k, v in verdicts.items() if v.startswith(("differ", "skip"))}
    assert not differ, differ
    assert tally.get("agree", 0) >= len(verdicts) // 2, tally  # most lines restated


@settings(max_examples=20)
@given(st.sampled_from(tuple(mo.CAPABILITIES)),
       st.sampled_from(SHAPES),
       st.integers(1, 4), st.sampled_from((None, 1, 2)), st.sampled_from((None, 1, 32)),
       st.sampled_from((None, "fp8_e4m3", "fp8_e5m2")),
       st.sampled_from((None, "1", "0", "bogus")))
def test_default_backend_generated(gpu: str, shape: str, steps: int, topk: int | None,
                                   page: int | None, kv_dtype: str | None, env: str | None
                                   ) -> None:
    argv = _default_line(steps, topk, page, kv_dtype)
    verdict = default_verdict(argv, gpu, _SHAPES[shape], env)
    assert not verdict.startswith(("differ", "skip")), (gpu, shape, argv, env, verdict)


def test_default_backend_planted_error_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """A planted error (SM100 treated like Hopper: fa3, one graph) makes the comparison
    differ: the oracle would catch such a slip in the restated default."""
    from graphfit.planner.engines import sglang_attn_default as ad

    argv = _default_line(3, 1, None, None)
    assert default_verdict(argv, "B200", _SHAPES["llama"], None) == "agree"
    monkeypatch.setattr(ad, "_mha", lambda inp: ("fa3", "planted"))
    assert default_verdict(argv, "B200", _SHAPES["llama"], None).startswith("differ")


@pytest.mark.parametrize("env", [None, "1", "0", "no", "bogus"])
@pytest.mark.parametrize("backend", ["fa3", "flashinfer"])
def test_live_path_reads_single_cg_switch(env: str | None, backend: str,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The live path (graphfit.integrations.sglang, a resolved ServerArgs) reads
    SGLANG_ENABLE_SINGLE_CG_DRAFT from the server's environment as SGLang does: its count
    equals SGLang's own `_capture_cuda_graphs` decision under the same environment."""
    from graphfit.integrations import sglang as gs

    r = so.resolve(_line(3, ("--attention-backend", backend)))
    assert isinstance(r, so.Resolved), r
    sglang, _ = mo.mtp_graphs(r, env)
    if env is None:
        monkeypatch.delenv(mo.ENV, raising=False)
    else:
        monkeypatch.setenv(mo.ENV, env)
    check = gs.check_server_args(r.record)
    assert check.plan.components["mtp_draft_extend"].graphs_per_size == sglang
    explicit = gs.check_server_args(r.record, single_cg_draft=False)  # a caller's value wins
    assert explicit.plan.components["mtp_draft_extend"].graphs_per_size == 3


# ---------------------------------------------------------------------------------------
# Architectures whose model override names the backend (graphfit.planner.engines.
# sglang_arch_overrides), lines without a backend for the draft
# ---------------------------------------------------------------------------------------

_OVERRIDE_DIR = tempfile.TemporaryDirectory(prefix="graphfit-mtp-overrides-")
_OVERRIDES = mo.override_model_dirs(_OVERRIDE_DIR.name)
# what a line adds to the plain topk-1 line (one per GPU in turn, so every shape meets each)
VARIANTS: tuple[tuple[str, ...], ...] = (
    ("--speculative-attention-mode", "decode"), ("--decode-attention-backend", "flashinfer"),
    ("--enable-deterministic-inference",), ("--kv-cache-dtype", "fp8_e5m2"),
    ("--page-size", "16"))


def _override_line(topk: int, extra: tuple[str, ...]) -> tuple[str, ...]:
    return (*_default_line(3, topk, None, None), *extra)


OVERRIDE_GRID = [(gpu, shape, _override_line(1, extra))
                 for shape in sorted(_OVERRIDES)
                 for g, gpu in enumerate(mo.CAPABILITIES)
                 for extra in ((), VARIANTS[(g + len(shape)) % len(VARIANTS)])]


def test_override_architecture_grid(capsys: pytest.CaptureFixture[str]) -> None:
    """Every override architecture x 5 GPUs, the plain line and one variant each (attention
    mode decode, a decode flag, deterministic inference, fp8_e5m2 KV, page size 16):
    graphfit's draft-extend backend and graph count equal SGLang's own resolve (its model
    overrides on the fake GPU) + draft-extend factory + `_capture_cuda_graphs`, or graphfit
    keeps the per-step bound with a note (FlashAttention on a hybrid KV pool), or both
    refuse; the tally is printed."""
    verdicts = {(gpu, shape, argv): default_verdict(argv, gpu, _OVERRIDES[shape], None)
                for gpu, shape, argv in OVERRIDE_GRID}
    tally: dict[str, int] = {}
    for verdict in verdicts.values():
        key = verdict.split(":", 1)[0]
        tally[key] = tally.get(key, 0) + 1
    with capsys.disabled():
        print(f"\nmulti-layer EAGLE, override architectures, {len(verdicts)} lines: "
              + ", ".join(f"{k} {v}" for k, v in sorted(tally.items())))
    differ = {k: v for k, v in verdicts.items() if v.startswith(("differ", "skip"))}
    assert not differ, differ
    decided = {shape for (_, shape, _), v in verdicts.items() if v in ("agree", "refused")}
    # the QSA draft is SGLang's own backend, never a name graphfit plans: its per-step count
    # is compared exactly in test_sglang_mtp_refusals_oracle.py (qwen4_exp_qsa)
    decided |= {"qwen4_exp_qsa"}
    assert decided == set(_OVERRIDES), set(_OVERRIDES) - decided  # each shape compared
    assert tally.get("agree", 0) >= len(verdicts) * 2 // 3, tally


@settings(max_examples=15)
@given(st.sampled_from(tuple(mo.CAPABILITIES)), st.sampled_from(sorted(_OVERRIDES)),
       st.sampled_from((1, 2)), st.lists(st.sampled_from(VARIANTS), max_size=2, unique=True),
       st.sampled_from((None, "0")))
def test_override_architecture_generated(gpu: str, shape: str, topk: int,
                                         extras: list[tuple[str, ...]], env: str | None
                                         ) -> None:
    argv = _override_line(topk, tuple(x for extra in extras for x in extra))
    verdict = default_verdict(argv, gpu, _OVERRIDES[shape], env)
    assert not verdict.startswith(("differ", "skip")), (gpu, shape, argv, env, verdict)


ROCM_GRID = [(shape, extra) for shape in (*sorted(_OVERRIDES), "llama", "mla", "moe", "sinks")
             for extra in ((), ("--speculative-attention-mode", "decode"))]


def test_rocm_grid(capsys: pytest.CaptureFixture[str]) -> None:
    """ROCm (MI300X), SGLang's platform facts overridden to AMD (mo.ROCM_FACTS): the plain
    shapes and every override architecture, prefill and decode attention mode; graphfit's
    draft-extend backend and count equal SGLang's (aiter / triton, per step), or both
    refuse."""
    verdicts = {}
    for shape, extra in ROCM_GRID:
        model = _OVERRIDES.get(shape) or _SHAPES[shape]
        verdicts[(shape, extra)] = default_verdict(_override_line(1, extra), "MI300X", model,
                                                   None)
    tally: dict[str, int] = {}
    for verdict in verdicts.values():
        key = verdict.split(":", 1)[0]
        tally[key] = tally.get(key, 0) + 1
    with capsys.disabled():
        print(f"\nmulti-layer EAGLE on ROCm, {len(verdicts)} lines: "
              + ", ".join(f"{k} {v}" for k, v in sorted(tally.items())))
    differ = {k: v for k, v in verdicts.items() if v.startswith(("differ", "skip"))}
    assert not differ, differ
    assert tally.get("agree", 0) >= len(verdicts) * 2 // 3, tally


@pytest.mark.parametrize("gpu", ["A100", "H100", "B200"])
def test_mimo_v2_override_turns_multi_layer_on(gpu: str) -> None:
    """MiMoV2's override turns multi-layer EAGLE on for EAGLE (mimo_v2.py:23-25): a line
    without `--enable-multi-layer-eagle` gets SGLang's draft-extend backend and count too."""
    argv = tuple(a for a in _default_line(3, 1, None, None) if a != "--enable-multi-layer-eagle")
    model = _OVERRIDES["MiMoV2ForCausalLM"]
    r = so.resolve(argv, gpu_mem_gb=80, model=model, capability=mo.CAPABILITIES[gpu])
    assert isinstance(r, so.Resolved) and r.enable_multi_layer_eagle, r
    assert default_verdict(argv, gpu, model, None) in ("agree", "bound")
    count, backend = _graphfit_default(argv, gpu, model, None)  # type: ignore[misc]
    assert count == 3 and (backend is not None) == (gpu == "A100")  # FA on its SWA pool: bound


def test_override_planted_error_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """A planted slip (LFM2's SM100 override forgotten: SGLang's generic trtllm_mha instead
    of flashinfer) makes the comparison differ."""
    from graphfit.planner.engines import sglang_arch_overrides as ao

    argv = _override_line(1, ())
    model = _OVERRIDES["Lfm2ForCausalLM"]
    assert default_verdict(argv, "B200", model, None) == "agree"
    monkeypatch.setattr(ao, "RULES", tuple(r for r in ao.RULES
                                           if "Lfm2ForCausalLM" not in r.architectures))
    assert default_verdict(argv, "B200", model, None).startswith("differ")


@pytest.mark.parametrize(("backend", "steps"), [("aiter", 3), ("aiter", 1), ("triton", 3),
                                                ("fa3", 2)])
def test_draft_extend_seq_len_fill_is_the_backends(backend: str, steps: int,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The composite runner's seq_lens fill is its step backend's
    `get_cuda_graph_seq_len_fill_value()` (multi_layer_eagle_draft_extend_cuda_graph_runner.
    py:209-211, 595): aiter answers its `num_draft_tokens` (aiter_backend.py:3416-3417),
    set from speculative_num_draft_tokens in its `__init__` (:370, restated on a bare
    instance here: its constructor needs an AMD device). SGLang's own composite constructor
    builds the buffers; graphfit's plan carries the same fill."""
    from graphfit.cli.options import build_config
    from graphfit.planner.plan import plan

    original = so._seq_len_fill_value

    def fill_value(name: str | None) -> int:
        if name != "aiter":
            return original(name)
        import sglang.srt.layers.attention.aiter_backend as ab
        from sglang.srt.runtime_context import get_spec

        bare = object.__new__(ab.AiterAttnBackend)
        bare.num_draft_tokens = get_spec().speculative_num_draft_tokens
        return int(ab.AiterAttnBackend.get_cuda_graph_seq_len_fill_value(bare))

    monkeypatch.setattr(so, "_seq_len_fill_value", fill_value)
    argv = _line(steps, ("--attention-backend", backend))
    r = so.resolve(argv)
    assert isinstance(r, so.Resolved), r
    sglang = so.runners(r)["mtp_draft_extend"]
    config = build_config({}, environ={}, pasted=[
        "python", "-m", "sglang.launch_server", "--model-path", str(so.oracle().model_dir),
        *argv])
    comp = plan(config).components["mtp_draft_extend"]
    ours = next(b for b in comp.buffers if b.name == "seq_lens")
    assert ours.fill.value == sglang.seq_len_fill_value
    seq_lens = sglang.live.buffers.seq_lens  # SGLang's own allocation (:665, 674)
    assert seq_lens.tolist() == [ours.fill.value] * len(seq_lens)
