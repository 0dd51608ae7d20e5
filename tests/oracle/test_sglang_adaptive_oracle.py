"""SGLang 0.5.23's adaptive speculation kept on, against SGLang's own code.

`sglang_adaptive_oracle.compare` reads a command line with SGLang's whole argument pipeline
(`_maybe_disable_adaptive` and `_init_adaptive_speculative_params`, speculative_hook.py:
261-264, 1374-1427), builds every runtime state as `EAGLEWorkerV2.init_cuda_graphs` does
(eagle_worker_v2.py:1387-1414, runners constructed on CPU, capture stubbed), and compares
each state with graphfit's plan of the same line: the set of states, ladders, padding of every
batch, components, buffer shapes / dtypes and fills.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_adaptive_oracle as sa  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402

AD = "--speculative-adaptive"
EDGE_LINES: list[tuple[str, ...]] = [
    ("--max-running-requests", "33", "--speculative-algorithm", "EAGLE", AD),
    ("--max-running-requests", "20", "--speculative-algorithm", "EAGLE3",
     "--speculative-num-steps", "5", AD),
    ("--max-running-requests", "48", "--speculative-algorithm", "NEXTN",
     "--speculative-num-steps", "1", AD),  # start-up step 1: no draft-decode runner
    ("--max-running-requests", "9", "--speculative-algorithm", "EAGLE",
     "--speculative-num-steps", "7", "--speculative-eagle-topk", "1", AD),
    ("--max-running-requests", "33", "--speculative-algorithm", "EAGLE", AD,
     "--cuda-graph-bs-decode", "1", "2", "4", "8", "16", "32"),  # pruned lists: not used
    ("--max-running-requests", "33", "--speculative-algorithm", "EAGLE", AD,
     "--disable-cuda-graph-padding"),
    ("--max-running-requests", "33", "--speculative-algorithm", "EAGLE", AD,
     "--tp", "4", "--attn-cp-size", "2"),
    ("--max-running-requests", "33", "--speculative-algorithm", "EAGLE", AD,
     "--disable-cuda-graph"),
    ("--speculative-algorithm", "EAGLE", "--speculative-num-steps", "2", AD),  # SGLang refuses
    ("--max-running-requests", "33", "--speculative-algorithm", "EAGLE",
     "--speculative-num-steps", "3", "--speculative-eagle-topk", "4",
     "--speculative-num-draft-tokens", "8", AD),  # topk 4: SGLang falls back
]


def _fail(diffs: dict[str, list[object]]) -> None:
    found = [str(d) for v in diffs.values() for d in v]
    assert not found, "\n".join(found[:8])


@pytest.mark.parametrize("argv", EDGE_LINES, ids=[" ".join(a[2:]) for a in EDGE_LINES])
def test_adaptive_states_follow_sglang(argv: tuple[str, ...]) -> None:
    _fail(sa.compare(argv))


def test_start_up_step_zero_is_a_known_gap() -> None:
    """SGLang starts adaptive speculation at `--speculative-num-steps 0` (a candidate of the
    built-in config, adaptive_spec_params.py:28-53); graphfit's speculative config needs at
    least one step, so it refuses the line. The one acceptance difference left (docs)."""
    argv = ("--max-running-requests", "48", "--speculative-algorithm", "EAGLE",
            "--speculative-num-steps", "0", AD)
    found = sa.compare(argv)["acceptance"]
    assert [str(d) for d in found] and "must be >= 1" in str(found[0])


@st.composite
def adaptive_lines(draw: st.DrawFn) -> tuple[str, ...]:
    argv: list[str] = ["--speculative-algorithm",
                       draw(st.sampled_from(("EAGLE", "EAGLE3", "NEXTN", "STANDALONE")))]
    if draw(st.integers(0, 3)):
        argv = ["--max-running-requests", str(draw(st.integers(1, 80))), *argv]
    if draw(st.booleans()):
        argv += ["--speculative-num-steps", str(draw(st.sampled_from((1, 2, 3, 5, 7))))]
        if draw(st.booleans()):
            topk = draw(st.sampled_from((1, 1, 2)))
            argv += ["--speculative-eagle-topk", str(topk)]
            if topk > 1:  # SGLang falls back; without draft tokens only an all-graphs-off
                # line starts, which graphfit's static model refuses (a gap of the static
                # path, docs/engines/sglang-coverage.md)
                argv += ["--speculative-num-draft-tokens", str(draw(st.integers(2, 16)))]
    graphs = draw(st.sampled_from(("default", "max_bs", "bs", "padding_off", "off")))
    if graphs == "max_bs":
        argv += ["--cuda-graph-max-bs-decode", str(draw(st.integers(1, 96)))]
    elif graphs == "bs":
        sizes = draw(st.lists(st.integers(1, 96), min_size=1, max_size=5, unique=True))
        argv += ["--cuda-graph-bs-decode", *map(str, sizes)]
    elif graphs == "padding_off":
        argv.append("--disable-cuda-graph-padding")
    elif graphs == "off":
        argv.append("--disable-cuda-graph")
    tp = draw(st.sampled_from((1, 1, 2, 4)))
    if tp > 1:
        argv += ["--tp", str(tp)]
        if draw(st.booleans()):
            argv += ["--attn-cp-size", "2"] if draw(st.booleans()) else ["--attn-dp-size", "2"]
    if draw(st.integers(0, 4)) == 0:
        argv += so.tbo(argv)
    return (*argv, AD)


@given(adaptive_lines())
def test_generated_adaptive_lines(argv: tuple[str, ...]) -> None:
    """Generated lines with `--speculative-adaptive`: graphfit and SGLang agree on acceptance,
    on whether adaptive stays on, and on every state's runners."""
    _fail(sa.compare(argv))


def test_live_check_maps_each_state_to_its_component() -> None:
    """graphfit.integrations.sglang checks a runner of another runtime state against that
    state's component (its `speculative_num_steps`), from SGLang's own live draft runners."""
    import torch

    from graphfit.integrations import sglang as gs

    r = so.resolve(EDGE_LINES[0], gpu_mem_gb=80)
    assert isinstance(r, so.Resolved)
    built = sa.states(r)
    assert built is not None and sorted(built) == [0, 1, 3, 5, 7]
    for steps, runners in built.items():
        live = runners["draft_extend"].live
        check = gs.check_live_runners(r.record, {"draft_extend": live})
        prefix = "draft_extend." if steps == 3 else f"draft_extend.s{steps}."
        assert check.ok and check.live and all(k.startswith(prefix) for k in check.live)
    live = built[7]["draft_extend"].live
    live.buffers.input_ids = torch.zeros(3, dtype=torch.int64)  # fewer rows than state 7 needs
    check = gs.check_live_runners(r.record, {"draft_extend": live})
    assert not check.ok and "draft_extend.s7.input_ids" in check.line()


def test_shared_buffers_are_sglangs_and_planted_errors_show(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The tensors SGLang's runners share, observed on its own objects (its GraphSharedOutput
    and process-wide input pool, every state built), are graphfit's shared buffers with the
    same users and sizes; sharing the per-width select_index, or keeping the draft-extend
    logits apart, is reported."""
    from graphfit import EngineConfig, plan
    from graphfit.planner.engines import sglang_shared

    argv = EDGE_LINES[0]
    r = so.resolve(argv, gpu_mem_gb=80)
    assert isinstance(r, so.Resolved)
    built = sa.shared_tensors(r)
    config = EngineConfig.from_dict({"engine": "sglang", "max_num_seqs": 33,
                                     "spec_method": "eagle", "speculative_adaptive": True,
                                     "gpu_memory_gb": 80, "hidden_size": sa.HIDDEN,
                                     "vocab_size": sa.VOCAB})
    diffs, figures = sa.compare_sharing(plan(config), r, built)
    assert not diffs and figures["shared_tensors"] >= 30, (diffs, figures)
    monkeypatch.setitem(sglang_shared.POOLED, "draft_extend", frozenset())
    diffs, _ = sa.compare_sharing(plan(config), r, built)
    assert any("select_index" in d and "only graphfit" in d for d in diffs)
    monkeypatch.setitem(sglang_shared.POOLED, "draft_extend", frozenset({"select_index"}))
    monkeypatch.setattr(sglang_shared, "LOGITS_RUNNERS", frozenset({"target"}))
    diffs, _ = sa.compare_sharing(plan(config), r, built)
    assert any("next_token_logits_buffer" in d and "only SGLang" in d for d in diffs)
