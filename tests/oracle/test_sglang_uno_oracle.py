"""SGLang 0.5.23's UNO (`--speculative-algorithm UNO`) against graphfit.planner.engines.
sglang_uno, with SGLang's own code on CPU.

* Start-up checks: SGLang's whole argument pipeline (`_handle_uno`, speculative_hook.py:
  449-606) accepts or refuses each line exactly where `resolve_uno` does, and resolves the
  same steps, topk and draft tokens.
* Widths, ladders and buffers: for each UNO runner, the width SGLang's
  `ModelRunner.decode_num_tokens_per_req` gives for the draft-token count that runner passes
  (uno_cuda_graph_runner.py:48-67), SGLang's `get_batch_sizes_to_capture` on that width, and
  the decode runner's buffer set SGLang allocates for it (DecodeInputBuffers.create and its
  registry) against graphfit's runners and buffers. The pasted-line tests below go further:
  SGLang's own `UnoDecodeCudaGraphRunner` is built by its constructor and its capture loop
  run on CPU (tests/oracle/sglang_uno_runner.py), so which runner captures the LoRA draft,
  the graphs recorded per size and the LoRA state it leaves are SGLang's objects. Since s32u
  its whole `capture()` runs (warm-up, `capture_prepare`, every `capture_one_shape` with a
  recording model) and `load_batch` replays live batches: the rows SGLang slices and pads per
  size are compared with graphfit's row rule and capacities (sglang_uno_compare.
  compare_forwards / compare_replays).
"""

from __future__ import annotations

import tempfile
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")

import graphfit  # noqa: E402
from graphfit import ConfigError, EngineConfig  # noqa: E402
from graphfit.planner.engines import sglang as engine  # noqa: E402
from graphfit.planner.engines.sglang_uno import (  # noqa: E402
    TREE_DRAFT,
    UnoLine,
    resolve_uno,
    uno_batch_runners,
)
from tests.oracle import sglang_mtp_oracle as mo  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_uno_compare as uc  # noqa: E402

HIDDEN, VOCAB = 4096, 128256


def argv_of(line: UnoLine, requests: int | None, extra: tuple[str, ...] = ()
            ) -> tuple[str, ...]:
    argv: list[str] = ["--speculative-algorithm", "UNO"]
    if requests is not None:
        argv += ["--max-running-requests", str(requests)]
    for flag, value in (("--uno-lora-path", line.lora_path),
                        ("--speculative-num-draft-tokens", line.num_draft_tokens),
                        ("--speculative-eagle-topk", line.topk),
                        ("--speculative-num-steps", line.steps),
                        ("--tp", line.tp_size if line.tp_size > 1 else None),
                        ("--attn-cp-size", line.attn_cp_size if line.attn_cp_size > 1
                         else None)):
        if value is not None:
            argv += [flag, str(value)]
    if line.two_batch_overlap:
        argv.append("--enable-two-batch-overlap")
    # always named: SGLang's automatic choice (flashinfer for a tree on Hopper) is not
    # modelled by resolve_uno
    argv += ["--attention-backend", str(line.attention[1])]
    return (*argv, *extra)


def graphfit_answer(line: UnoLine) -> str | tuple[int, int, int]:
    try:
        shape = resolve_uno(line)
    except ConfigError as exc:
        return str(exc)
    return (shape.steps, shape.topk, shape.verify_width)


def sglang_answer(r: so.Resolved | so.Rejected) -> str | tuple[int, int, int]:
    if isinstance(r, so.Rejected):
        return r.text
    assert r.speculative_num_steps is not None and r.speculative_eagle_topk is not None
    assert r.speculative_num_draft_tokens is not None
    return (int(r.speculative_num_steps), int(r.speculative_eagle_topk),
            int(r.speculative_num_draft_tokens))


def sglang_runners(r: so.Resolved, pool: int) -> dict[str, so.Runner]:
    """Each UNO runner's width, capture list and decode buffer set, by SGLang's code."""
    out: dict[str, so.Runner] = {}
    with so.published(r):  # SGLang's modules import under the fake CUDA device
        from sglang.srt.model_executor.model_runner import ModelRunner
        from sglang.srt.model_executor.runner.base_cuda_graph_runner import (
            get_batch_sizes_to_capture,
        )
        from sglang.srt.utils.common import get_cuda_graph_batch_size_alignment

        fill = so._seq_len_fill_value(r.decode_attention_backend or r.attention_backend)
        mr = so._model_runner_stub(r, pool, fill, "meta", HIDDEN, VOCAB, draft=False)
        tree = int(r.speculative_eagle_topk or 1) > 1
        # draft-token count each runner passes: linear None (the resolved F), tree target
        # the resolved Q, tree draft F = steps + 1 (uno_cuda_graph_runner.py:38-67)
        passes: dict[str, int | None] = {"target": None if not tree else int(
            r.speculative_num_draft_tokens or 0)}
        if tree:
            passes[TREE_DRAFT] = int(r.speculative_num_steps or 0) + 1
        for name, tokens in passes.items():
            width = int(ModelRunner.decode_num_tokens_per_req(mr, num_draft_tokens=tokens))
            capture, _ = get_batch_sizes_to_capture(mr, width, gathered_buffer_required=False)
            align = get_cuda_graph_batch_size_alignment(gathered_buffer_required=False)
            out[name] = so._target_runner(mr, tuple(capture), width, pool, align, fill,
                                          False, False, "meta")
    return out


def graphfit_runners(line: UnoLine, r: so.Resolved, requests: int) -> dict[str, Any]:
    """graphfit's runners for the line: SGLang's speculative decode list (checked against
    the resolved one), filtered per runner, with the decode runner's buffers."""
    sizes = engine.sglang_sizes(r.decode_max_bs, speculative=True,
                                padding=not r.disable_cuda_graph_padding)
    assert tuple(sizes) == tuple(r.decode_bs), (sizes, r.decode_bs)
    config = EngineConfig.from_dict({"engine": "sglang", "max_num_seqs": requests,
                                     "hidden_size": HIDDEN, "vocab_size": VOCAB,
                                     "gpu_memory_gb": 80, "cuda_graph_padding": True,
                                     "two_batch_overlap": line.two_batch_overlap,
                                     # what SGLang's TBO check then needs at TP 1
                                     # (validation_hook.py:756-772): the runners do not gather
                                     "moe_a2a_backend": ("deepep" if line.two_batch_overlap
                                                         else "none")})
    runners = uno_batch_runners(
        resolve_uno(line), requests,
        lambda name, width: engine.runner_sizes(name, sizes, width, config),
        lambda name, width, top: engine.target_buffers(config, width, top))
    return {r.name: r for r in runners}


def compare_runners(line: UnoLine, argv: tuple[str, ...], requests: int,
                    planned: UnoLine | None = None) -> list[str]:
    """Differences of widths, capture lists and buffers (`planned`: graphfit models this
    line instead, a planted error)."""
    r = so.resolve(argv, gpu_mem_gb=80, checks=False)  # the runners as resolution sizes them
    assert isinstance(r, so.Resolved), r
    theirs = sglang_runners(r, requests)
    ours = graphfit_runners(planned or line, r, requests)
    diffs = [] if set(theirs) == set(ours) else [f"runners: {sorted(theirs)} vs {sorted(ours)}"]
    for name in set(theirs) & set(ours):
        run, mine = theirs[name], ours[name]
        if run.width != mine.width:
            diffs.append(f"{name} width: SGLang {run.width}, graphfit {mine.width}")
        if tuple(run.capture_bs) != tuple(mine.sizes):
            diffs.append(f"{name} sizes: SGLang {run.capture_bs}, graphfit {mine.sizes}")
        planned = {b.name: b for b in mine.buffers}
        for buf in run.buffers.values():
            spec = planned.get(buf.name)
            if buf.axis in ("none", "fixed") or spec is None:
                if spec is None and buf.axis not in ("none", "fixed"):
                    diffs.append(f"{name}.{buf.name}: graphfit plans no such buffer")
                continue
            shape = (*spec.leading, spec.reference_capacity, *spec.trailing)
            if shape != buf.shape or spec.dtype != buf.dtype:
                diffs.append(f"{name}.{buf.name}: SGLang {list(buf.shape)} {buf.dtype}, "
                             f"graphfit {list(shape)} {spec.dtype}")
    return diffs


LINEAR = UnoLine(4, lora_path="/tmp/uno")
TREE = UnoLine(8, topk=4, steps=3, lora_path="/tmp/uno")
EDGE: list[tuple[UnoLine, int | None]] = [
    (LINEAR, 33), (UnoLine(1, lora_path="/tmp/uno"), 20), (TREE, 40),
    (UnoLine(5, topk=2, steps=4, lora_path="/tmp/uno"), 9),
    (UnoLine(4, topk=1, steps=3, lora_path="/tmp/uno"), 16),  # steps overridden to 1
    (UnoLine(4), 8),  # no --uno-lora-path
    (UnoLine(None, lora_path="/tmp/uno"), 8),  # no draft tokens
    (UnoLine(3, topk=4, steps=3, lora_path="/tmp/uno"), 8),  # Q < F
    (UnoLine(129, topk=2, steps=7, lora_path="/tmp/uno"), 8),  # Q > 128
    (UnoLine(8, topk=4, lora_path="/tmp/uno"), 8),  # tree without steps
    (UnoLine(4, topk=2, steps=1, lora_path="/tmp/uno"), 8),  # beyond the tree capacity
    (UnoLine(12, topk=2, steps=3, lora_path="/tmp/uno"), 8),  # parent-list ABI
    (UnoLine(7, topk=3, steps=3, lora_path="/tmp/uno"), 8),
    (UnoLine(4, lora_path="/tmp/uno", tp_size=2), 8),
    (UnoLine(4, lora_path="/tmp/uno", tp_size=2, attn_cp_size=2), 8),
    (UnoLine(8, topk=4, steps=3, lora_path="/tmp/uno", two_batch_overlap=True), 8),
    (UnoLine(4, lora_path="/tmp/uno", two_batch_overlap=True), 8),  # linear: allowed
    (UnoLine(4, lora_path="/tmp/uno", attention=("triton", "triton")), 8),
]


def _agree(line: UnoLine, requests: int | None) -> None:
    argv = argv_of(line, requests)
    # the speculative hook's UNO checks (resolve_uno's), before check_server_args: a linear
    # two-batch-overlap line passes them, then its TBO check refuses it on this dense target
    # (validation_hook.py:756-772; graphfit.planner.engines.sglang_server_checks)
    theirs = sglang_answer(so.resolve(argv, gpu_mem_gb=80, checks=False))
    ours = graphfit_answer(line)
    assert isinstance(theirs, str) == isinstance(ours, str), (argv, theirs, ours)
    if not isinstance(ours, str):
        assert theirs == ours, (argv, theirs, ours)
        if requests is not None:
            diffs = compare_runners(line, argv, requests)
            assert not diffs, diffs


@pytest.mark.parametrize(("line", "requests"), EDGE,
                         ids=[" ".join(argv_of(line, n)[2:]) for line, n in EDGE])
def test_uno_lines_follow_sglang(line: UnoLine, requests: int | None) -> None:
    _agree(line, requests)


@st.composite
def uno_lines(draw: st.DrawFn) -> tuple[UnoLine, int | None]:
    topk = draw(st.sampled_from((None, 1, 2, 3, 4, 8)))
    steps = draw(st.one_of(st.none(), st.integers(1, 8)))
    line = UnoLine(draw(st.one_of(st.none(), st.integers(1, 40))), topk=topk, steps=steps,
                   lora_path=draw(st.sampled_from(("/tmp/uno", "/tmp/uno", None))),
                   tp_size=draw(st.sampled_from((1, 1, 1, 2))),
                   two_batch_overlap=draw(st.integers(0, 4)) == 0)
    return line, draw(st.one_of(st.none(), st.integers(1, 80)))


@given(uno_lines())
def test_generated_uno_lines(case: tuple[UnoLine, int | None]) -> None:
    _agree(*case)


def test_planted_errors_show() -> None:
    """A tree-draft runner of width Q instead of F, or a linear runner of width F - 1, is
    reported (its width and buffers)."""
    found = compare_runners(TREE, argv_of(TREE, 40), 40,
                            planned=UnoLine(8, topk=4, steps=7, lora_path="/tmp/uno"))
    assert any("uno_draft width: SGLang 4, graphfit 8" in d for d in found), found
    assert any(d.startswith("uno_draft.input_ids") for d in found), found
    found = compare_runners(LINEAR, argv_of(LINEAR, 33), 33,
                            planned=UnoLine(3, lora_path="/tmp/uno"))
    assert any("target width: SGLang 4, graphfit 3" in d for d in found), found


# --- pasted lines, planned (issue 23): SGLang's pipeline + runners + LoRA state vs the plan ---

PASTED: list[tuple[tuple[str, ...], str]] = [
    (uc.uno("--speculative-num-draft-tokens", "4", "--attention-backend", "fa3",
            "--max-running-requests", "33"), "linear"),
    (uc.uno("--speculative-num-draft-tokens", "1", "--attention-backend", "fa3",
            "--max-running-requests", "20"), "linear"),
    (uc.uno("--speculative-num-draft-tokens", "8", "--speculative-eagle-topk", "4",
            "--speculative-num-steps", "3", "--attention-backend", "fa3",
            "--max-running-requests", "40"), "tree"),
    (uc.uno("--speculative-num-draft-tokens", "5", "--speculative-eagle-topk", "2",
            "--speculative-num-steps", "4", "--prefill-attention-backend", "fa3",
            "--decode-attention-backend", "fa3", "--max-running-requests", "9",
            "--disable-cuda-graph-padding"), "tree"),
    (uc.uno("--speculative-num-draft-tokens", "4", "--attention-backend", "fa3"), "linear"),
    (uc.uno("--speculative-num-draft-tokens", "6", "--speculative-num-steps", "3",
            "--attention-backend", "fa3", "--enable-two-batch-overlap",
            "--max-running-requests", "9", "--cuda-graph-max-bs-decode", "7"),
     "rejected"),  # TBO with neither an a2a backend nor DP (validation_hook.py:756-772)
    (uc.uno("--speculative-num-draft-tokens", "4", "--attention-backend", "fa3",
            "--disable-cuda-graph"), "no_graphs"),
    (uc.uno("--speculative-num-draft-tokens", "8", "--speculative-eagle-topk", "4",
            "--speculative-num-steps", "3", "--attention-backend", "fa3", "--page-size", "16",
            "--max-running-requests", "16"), "tree"),  # no page-size rule for UNO
    (uc.uno("--speculative-num-draft-tokens", "4", "--attention-backend", "fa3",
            "--speculative-adaptive", "--max-running-requests", "16"), "linear"),
    (uc.uno("--speculative-num-draft-tokens", "4", "--attention-backend", "fa3",
            "--cuda-graph-bs-decode", "1", "3", "8", "--disaggregation-mode", "decode",
            "--max-running-requests", "16"), "linear"),
    (uc.uno("--speculative-num-draft-tokens", "4", "--attention-backend", "triton"),
     "rejected"),
    # an fp8_e5m2 KV cache turns a base fa3 into triton (overrides.py:1262-1270), named or
    # not; the split flags keep fa3
    (uc.uno("--speculative-num-draft-tokens", "4", "--attention-backend", "fa3",
            "--kv-cache-dtype", "fp8_e5m2"), "rejected"),
    (uc.uno("--speculative-num-draft-tokens", "4", "--attention-backend", "fa3",
            "--decode-attention-backend", "fa3", "--kv-cache-dtype", "fp8_e5m2"), "rejected"),
    (uc.uno("--speculative-num-draft-tokens", "4", "--prefill-attention-backend", "fa3",
            "--decode-attention-backend", "fa3", "--kv-cache-dtype", "fp8_e5m2",
            "--max-running-requests", "12"), "linear"),
    (uc.uno("--speculative-num-draft-tokens", "12", "--speculative-eagle-topk", "2",
            "--speculative-num-steps", "3", "--attention-backend", "fa3"), "rejected"),
]


@pytest.mark.parametrize(("argv", "outcome"), PASTED, ids=[" ".join(a[4:]) for a, _ in PASTED])
def test_pasted_uno_lines_follow_sglang(argv: tuple[str, ...], outcome: str) -> None:
    """Acceptance, target and tree-draft ladders, widths, padding of every decode, graphs
    per size, scaled buffers and the LoRA state SGLang's own classes allocate."""
    assert uc.compare_line(argv, 80) == (outcome, [])


@given(uc.uno_lines())
def test_generated_pasted_uno_lines(case: tuple[tuple[str, ...], float | None]) -> None:
    outcome, diffs = uc.compare_line(*case)
    assert outcome != "differs", diffs


def test_pasted_line_without_a_backend_is_refused_precisely() -> None:
    """Without the GPU's name (80 GiB only) graphfit cannot restate SGLang's automatic backend
    choice: the line is refused saying so, never planned with a guess."""
    gf = uc.pasted(uc.uno("--speculative-num-draft-tokens", "4"), 80)
    assert gf.rejected is not None and "name --attention-backend fa3" in gf.rejected
    assert "GPU's name" in gf.rejected


def test_planted_lora_errors_show(monkeypatch: pytest.MonkeyPatch) -> None:
    """Per-size state sized for the largest size only, or the decode batch info kept by the
    target instead of the tree draft built after it, is reported."""
    from graphfit.planner.engines import sglang_uno as planner_uno

    real = planner_uno.retained_segments
    monkeypatch.setattr(planner_uno, "retained_segments",
                        lambda width, sizes: real(width, sizes[-1:]))
    outcome, diffs = uc.compare_line(PASTED[0][0], 80)
    assert outcome == "differs" and any(d.aspect == "target_lora" for d in diffs), diffs
    monkeypatch.undo()
    real_info = planner_uno.decode_batch_info
    monkeypatch.setattr(engine, "uno_planned_runners", _first_holds(planner_uno, real_info))
    outcome, diffs = uc.compare_line(PASTED[2][0], 80)
    assert {d.aspect for d in diffs} >= {"target_lora", "uno_draft_lora"}, diffs


def test_planted_runner_errors_show(monkeypatch: pytest.MonkeyPatch) -> None:
    """Against SGLang's own UnoDecodeCudaGraphRunner: one graph per size for the linear
    target with F > 1 (instead of "lora" + "nolora"), or the per-size LoRA state planned on
    the tree's target runner instead of the tree-draft runner, is reported."""
    monkeypatch.setattr(engine, "uno_target_graphs", lambda config: 1)
    outcome, diffs = uc.compare_line(PASTED[0][0], 80)
    assert outcome == "differs" and any(d.aspect == "graphs_per_size" for d in diffs), diffs
    monkeypatch.undo()
    from graphfit.planner.engines import sglang_uno as planner_uno

    real = planner_uno.planned_runners

    def on_target(config: Any, pool: int, sizes_for: Any, buffers_for: Any) -> Any:
        from dataclasses import replace

        runners = real(config, pool, sizes_for, buffers_for)
        moved = tuple(b for r in runners for b in r.buffers if b.name.startswith("uno_lora_"))
        return [replace(r, buffers=tuple(b for b in r.buffers
                                         if not b.name.startswith("uno_lora_"))
                        + (moved if r.name == "target" else ())) for r in runners]

    monkeypatch.setattr(engine, "uno_planned_runners", on_target)
    outcome, diffs = uc.compare_line(PASTED[2][0], 80)
    assert outcome == "differs" and any(d.aspect == "lora_draft_runner" for d in diffs), diffs


def test_sglang_builds_the_uno_runner_class() -> None:
    """SGLang's own model runner picks UnoDecodeCudaGraphRunner for UNO (model_runner.py:
    1584-1598) and its capture loop records "lora" then "nolora" per size for a linear line
    with F > 1, the "lora" graph with the size's retained adapter routing; a tree records
    one graph per size in each of its two runners, the draft's with the routing."""
    linear = uc.built_runners(uc.sc.sglang(PASTED[0][0], 80))
    assert linear.runner_class == "UnoDecodeCudaGraphRunner"
    caps = linear.captures["target"]
    assert [c.variant for c in caps[:2]] == ["lora", "nolora"]
    assert all(c.lora_draft == (c.variant == "lora") for c in caps)
    tree = uc.built_runners(uc.sc.sglang(PASTED[2][0], 80))
    assert set(tree.runners) == {"target", uc.TREE_DRAFT}
    assert tree.lora_draft_runner() == uc.TREE_DRAFT
    assert {c.variant for n in tree.runners for c in tree.captures[n]} == {None}


def _first_holds(module: Any, info: Any) -> Any:
    real = module.planned_runners

    def planted(config: Any, pool: int, sizes_for: Any, buffers_for: Any) -> Any:
        from dataclasses import replace

        runners = real(config, pool, sizes_for, buffers_for)
        names = {b.name for b in info(1, 1)}
        out = []
        for i, r in enumerate(runners):
            kept = tuple(b for b in r.buffers if b.name not in names)
            if i == 0 and r.sizes:
                kept += info(r.width, r.sizes[-1])
            out.append(replace(r, buffers=kept))
        return out

    return planted


def _shape(plan: Any) -> dict[str, Any]:
    return {name: (comp.tables.uniform_query_len, tuple(plan.graph_sizes(name)),
                   comp.graphs_per_size,
                   sorted((b.name, b.dtype, b.capacity) for b in comp.buffers))
            for name, comp in plan.components.items() if name != "prefill"}


@pytest.mark.parametrize(("argv", "outcome"), [c for c in PASTED if c[1] in ("linear", "tree")
                                               and "--max-running-requests" in c[0]],
                         ids=lambda v: " ".join(v[4:]) if isinstance(v, tuple) else v)
def test_live_server_args_plan_as_the_pasted_line(argv: tuple[str, ...], outcome: str) -> None:
    """`EngineConfig.from_sglang` on SGLang's own resolved ServerArgs of the line plans the
    same UNO runners, ladders and buffers as the pasted line."""
    r = so.resolve(argv, gpu_mem_gb=80)
    assert isinstance(r, so.Resolved)
    live = graphfit.plan(EngineConfig.from_sglang(r.record, gpu_memory_gb=80))
    assert live.config.spec_method.value == "uno"
    assert _shape(live) == _shape(uc.pasted(argv, 80).plan)


def test_live_server_args_keep_sglangs_refusals() -> None:
    """A ServerArgs naming no attention backend, or without the adapter path, is refused."""
    r = so.resolve(PASTED[0][0], gpu_mem_gb=80)
    assert isinstance(r, so.Resolved)
    unset = dict.fromkeys(("attention_backend", "prefill_attention_backend",
                           "decode_attention_backend"))
    with pytest.raises(ConfigError, match="name --attention-backend fa3"):
        EngineConfig.from_sglang(_Overlay(r.record, unset))
    with pytest.raises(ConfigError, match="--uno-lora-path"):
        EngineConfig.from_sglang(_Overlay(r.record, {"uno_lora_path": None}))


class _Overlay:
    """SGLang's ServerArgs with some attributes replaced (read through otherwise)."""

    def __init__(self, inner: Any, changed: dict[str, Any]) -> None:
        self._inner, self._changed = inner, changed

    def __getattr__(self, name: str) -> Any:
        if name in self._changed:
            return self._changed[name]
        return getattr(self._inner, name)


def test_live_check_of_the_uno_tree_draft_runner(monkeypatch: pytest.MonkeyPatch) -> None:
    """The plugin's BEFORE hook checks UNO's tree-draft runner (an UnoDecodeCudaGraphRunner in
    tree-draft mode, width F) against `uno_draft`, not the target's wider component, from
    SGLang's own buffers (DecodeInputBuffers at width F); a short live tensor is refused."""
    import pkgutil

    import torch

    from graphfit.integrations import sglang as gs

    argv = PASTED[2][0]  # tree: Q 8, topk 4, steps 3 (F 4), 40 requests
    sg = uc.sc.sglang(argv, 80)
    r = sg.resolved
    assert isinstance(r, so.Resolved)
    draft = uc.sglang_runners(sg)[uc.TREE_DRAFT]
    with so.published(r):
        cls = pkgutil.resolve_name("sglang.srt.speculative.uno_cuda_graph_runner."
                                   "UnoDecodeCudaGraphRunner")
    runner = object.__new__(cls)  # its __init__ captures on CUDA: fields set as it sets them
    runner.buffers = draft.live  # SGLang's DecodeInputBuffers at width F (built afresh)
    runner.model_runner = type("MR", (), {"server_args": r.record})()
    runner._tree_draft_mode = True
    check = gs.check_live_runners(r.record, {"uno_draft": runner})
    assert check.ok and check.live and all(k.startswith("uno_draft.") for k in check.live)
    monkeypatch.setenv("GRAPHFIT_SGLANG", "check")
    assert gs.before_capture(runner) is None  # safe: starts
    monkeypatch.setattr(runner.buffers, "input_ids", torch.zeros(5, dtype=torch.int64))
    with pytest.raises(gs.UnsafeServerArgsError, match=r"uno_draft\.input_ids"):
        gs.before_capture(runner)


# ---------------------------------------------------------------------------------------
# UNO lines WITHOUT an attention backend: SGLang's default by GPU and model, on fake devices
# ---------------------------------------------------------------------------------------

_SHAPES_DIR = tempfile.TemporaryDirectory(prefix="graphfit-uno-shapes-")
_SHAPES = mo.model_dirs(_SHAPES_DIR.name)
_LINES = uc.default_lines()
# every fake GPU with an MHA and an MLA model, the common linear line and the tree line;
# the other shapes and lines on Hopper and Blackwell (measure_sglang_uno --defaults: all)
DEFAULT_GRID = [(gpu, shape, _LINES[i]) for gpu in uc.DEFAULT_GPUS for shape in ("llama", "mla")
                for i in (0, 3)]
DEFAULT_GRID += [(gpu, shape, line) for gpu in ("H100", "B200")
                 for shape in ("sinks", "olmo2", "vl") for line in _LINES[:2]]
DEFAULT_GRID += [("H100", "llama", line) for line in _LINES[1:3] + _LINES[4:]]


def test_uno_lines_without_a_backend_follow_sglang(capsys: pytest.CaptureFixture[str]) -> None:
    """Every GPU x model x line naming no backend: graphfit plans exactly the lines SGLang's
    own pipeline resolves to FA3 (same ladder and runners, with a note naming the assumed
    backend), refuses the ones it refuses, or refuses saying what it lacks to restate the
    default; agree / differ counts are printed."""
    verdicts = {(gpu, shape, line): uc.default_line(line, gpu, _SHAPES[shape])
                for gpu, shape, line in DEFAULT_GRID}
    tally: dict[str, int] = {}
    for outcome, _ in verdicts.values():
        tally[outcome] = tally.get(outcome, 0) + 1
    with capsys.disabled():
        print(f"\nUNO without a backend, {len(verdicts)} lines: "
              + ", ".join(f"{k} {v}" for k, v in sorted(tally.items())))
    assert not {k: d for k, (o, d) in verdicts.items() if o == "differs"}
    assert tally.get("fa3") and tally.get("rejected")  # both sides of the rule are exercised


def test_uno_default_needs_the_gpu_name_and_the_config() -> None:
    """Given in GiB, or a model without a local config.json: refused naming what is missing."""
    line = _LINES[0]
    assert uc.default_line(line, "H100", _SHAPES["llama"], given="80")[0] == "unrestated"
    gf, _ = uc.pasted_on(line, "H100", "org/not-local")
    assert gf.rejected is not None and "local config.json" in gf.rejected


def test_planted_default_error_shows(monkeypatch: pytest.MonkeyPatch) -> None:
    """A planted error (graphfit assumes FA3 on every GPU) is caught: SGLang's Blackwell
    default refuses the line graphfit would plan."""
    from graphfit.inputs import sglang_uno as inputs_uno
    from graphfit.planner.engines.sglang_attn_default import DefaultBackend

    monkeypatch.setattr(inputs_uno, "default_base_backend",
                        lambda *a, **k: (DefaultBackend("fa3", "planted"), False))
    outcome, diffs = uc.default_line(_LINES[0], "B200", _SHAPES["llama"])
    assert outcome == "differs" and diffs[0].aspect == "acceptance", diffs


def _sglang_accepts(line: tuple[str, ...], gpu: str, model: str) -> bool:
    from graphfit.inputs.gpus import GPU_MEMORY_GB
    from tests.oracle.sglang_mtp_oracle import CAPABILITIES

    return isinstance(so.resolve(line, gpu_mem_gb=GPU_MEMORY_GB[gpu], model=model,
                                 capability=CAPABILITIES[gpu]), so.Resolved)


GIB_GRID = [(shape, line) for shape in ("llama", "mla") for line in _LINES]


def test_uno_lines_without_a_backend_or_gpu_name_follow_sglang(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The GPU given in GiB: graphfit refuses for the missing GPU name exactly the lines
    SGLang's own pipeline plans on some fake GPU, and refuses the others with SGLang's reason
    (never FA3 on any GPU, graphfit.inputs.sglang_uno_default)."""
    tally = {"needs the GPU's name": 0, "never fa3": 0}
    for shape, line in GIB_GRID:
        gf, _ = uc.pasted_on(line, "80", _SHAPES[shape])
        assert gf.rejected is not None, line
        somewhere = any(_sglang_accepts(line, gpu, _SHAPES[shape]) for gpu in uc.DEFAULT_GPUS)
        missing = "GPU's name" in gf.rejected
        assert missing == somewhere, (shape, line, gf.rejected)
        tally["needs the GPU's name" if missing else "never fa3"] += 1
    with capsys.disabled():
        print(f"\nUNO without a backend, GPU in GiB, {len(GIB_GRID)} lines: "
              + ", ".join(f"{k} {v}" for k, v in tally.items()))
    assert all(tally.values())


def test_fp8_e5m2_uno_line_without_a_backend_is_refused_on_any_model() -> None:
    """An fp8_e5m2 KV cache: refused with SGLang's reason on an architecture with a model
    override (Qwen3-VL) with the GPU in GiB (never fa3 on any GPU), and with the GPU named
    with the pair SGLang names after Qwen3-VL's large-Hopper decode override
    (graphfit.inputs.sglang_uno_default.override_sides); SGLang refuses it on every fake GPU."""
    line = _LINES[4]
    assert "fp8_e5m2" in line
    gf, _ = uc.pasted_on(line, "80", _SHAPES["vl"])
    assert gf.rejected is not None and "never fa3 on any GPU or model" in gf.rejected
    gf, _ = uc.pasted_on(line, "H100", _SHAPES["vl"])
    assert gf.rejected is not None and "got triton / flashinfer" in gf.rejected
    r = uc.sglang_on(line, "H100", _SHAPES["vl"]).resolved
    assert isinstance(r, so.Rejected) and "prefill='triton', decode='flashinfer'" in r.text
    assert not any(_sglang_accepts(line, gpu, _SHAPES[shape]) for gpu in uc.DEFAULT_GPUS
                   for shape in ("vl", "llama", "mla"))


# --------------------------------------------------------------------------------------------
# The capture itself: SGLang's runner's own `capture()` (warm-up, capture loop, every
# `capture_one_shape` and `capture_prepare`) with a recording model (sglang_uno_runner)
# --------------------------------------------------------------------------------------------

def test_capture_forwards_are_sglangs_own() -> None:
    """The capture ran SGLang's code, not a recorder of the loop: each graph key got the
    backend's two warm-up forwards, `capture_prepare` built the key's batch, the linear
    target's "lora" forwards carry the size's retained routing (2 * bs segments, uno_lora.py:
    78-88) and its "nolora" ones none; the tree's target verifies (EagleVerifyInput) with no
    routing, its draft runner forwards UNO_DRAFT inputs with it."""
    linear = uc.built_runners(uc.sc.sglang(PASTED[0][0], 80))
    forwards = linear.forwards["target"]
    assert len(forwards) == 2 * len(linear.keys["target"]) > 0
    width = linear.runners["target"].width
    for f in forwards:
        rows = dict(f.rows)
        assert f.batch_size == f.size and rows["input_ids"] == f.size * width
        assert rows["seq_lens"] == f.size and f.spec_input == "UnoForwardInput"
        assert (dict(f.lora).get("seg_lens") == 2 * f.size) == (f.variant == "lora")
    tree = uc.built_runners(uc.sc.sglang(PASTED[2][0], 80))
    assert {f.spec_input for f in tree.forwards["target"]} == {"EagleVerifyInput"}
    assert not any(f.lora for f in tree.forwards["target"])
    assert all(f.lora_draft for f in tree.forwards[uc.TREE_DRAFT])


def test_planted_slice_errors_show(monkeypatch: pytest.MonkeyPatch) -> None:
    """graphfit's per-size rows against the slices SGLang's capture takes: seq_lens planned
    per token instead of per request, or one LoRA segment per request instead of UNO's two
    ([1, F - 1], uno_lora.py:78-88), is reported by the capture comparison."""
    from dataclasses import replace

    from graphfit.planner.engines import sglang_uno as planner_uno

    real = engine.uno_planned_runners

    def per_token(config: Any, pool: int, sizes_for: Any, buffers_for: Any) -> Any:
        def planted(name: str, width: int, top: int) -> Any:
            specs = buffers_for(name, width, top)
            tokens = next(b.demands for b in specs if b.name == "input_ids")
            return tuple(replace(b, demands=tokens) if b.name == "seq_lens" else b
                         for b in specs)

        return real(config, pool, sizes_for, planted)

    monkeypatch.setattr(engine, "uno_planned_runners", per_token)
    outcome, diffs = uc.compare_line(PASTED[0][0], 80)
    assert outcome == "differs" and any(d.aspect == "target_slices" for d in diffs), diffs
    monkeypatch.undo()
    real_segments = planner_uno.retained_segments

    def one_per_request(width: int, sizes: tuple[int, ...]) -> Any:
        return tuple(replace(b, reference_capacity=b.reference_capacity // 2)
                     if b.name in ("uno_lora_seg_lens", "uno_lora_weight_indices") else b
                     for b in real_segments(width, sizes))

    monkeypatch.setattr(planner_uno, "retained_segments", one_per_request)
    outcome, diffs = uc.compare_line(PASTED[2][0], 80)
    assert outcome == "differs" and any(d.aspect == "uno_draft_lora_routing"
                                        for d in diffs), diffs


def test_replays_are_sglangs_own() -> None:
    """SGLang's `load_batch` ran on live batches: a linear line's draft phase replays the
    "lora" graph and its verify the "nolora" one of the same padded size; a batch one past a
    captured size pads to the next one."""
    from tests.oracle import sglang_uno_runner as ur

    sg = uc.sc.sglang(PASTED[0][0], 80)
    built = uc.built_runners(sg)
    sizes = built.runners["target"].capture_bs
    found = ur.replays(sg.resolved, built, (sizes[1], sizes[1] + 1))["target"]
    assert [(rp.phase, rp.key) for rp in found] == [
        ("UNO_DRAFT", (sizes[1], "lora")), ("UNO_VERIFY", (sizes[1], "nolora")),
        ("UNO_DRAFT", (sizes[2], "lora")), ("UNO_VERIFY", (sizes[2], "nolora"))]


def test_planted_replay_errors_show(monkeypatch: pytest.MonkeyPatch) -> None:
    """Against SGLang's own `load_batch`: a captured size missing from graphfit's ladder
    (graphfit pads past it) or one graph per size for the linear target is reported by the
    replay comparison."""
    real = engine.uno_planned_runners

    def dropped(config: Any, pool: int, sizes_for: Any, buffers_for: Any) -> Any:
        return real(config, pool, lambda name, width: tuple(
            s for s in sizes_for(name, width) if s != 3), buffers_for)

    monkeypatch.setattr(engine, "uno_planned_runners", dropped)
    outcome, diffs = uc.compare_line(PASTED[0][0], 80)
    assert outcome == "differs" and any(d.aspect == "target_replay_key" for d in diffs), diffs
    monkeypatch.undo()
    monkeypatch.setattr(engine, "uno_target_graphs", lambda config: 1)
    outcome, diffs = uc.compare_line(PASTED[0][0], 80)
    assert any(d.aspect == "target_replay_variants" for d in diffs), diffs
