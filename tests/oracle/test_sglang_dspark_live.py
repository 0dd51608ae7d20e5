"""The plugin's live check of SGLang 0.5.23's DSPARK worker outside static verify: the compact
verify epilogue (`DsparkVerifyEpilogue`) and the folded sampler's confidence outputs, read
from SGLang's own objects built on CPU (tests/oracle/sglang_dspark_oracle.py) and wired as
the worker wires them: the epilogue's bound capture hook in the target model runner's
`capture_tail_hooks` (dspark_worker_v2.py:451-453), the sampler in the draft model runner's,
through SGLang's own `make_draft_sampler_capture_hook` (:606-612, draft_worker_common.py:
148-159).

Glue (not SGLang logic): the graph runners are SGLang's DecodeCudaGraphRunner made with
`object.__new__` (its __init__ captures on CUDA) holding SGLang's own input buffers and model
runner; the target's model runner is a namespace with the fields the check reads
(server_args, capture_tail_hooks, is_draft_worker).
"""

from __future__ import annotations

import os
import pkgutil
import types
from typing import Any
from unittest import mock

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.integrations import sglang as gs  # noqa: E402
from graphfit.planner.engines.sglang_dspark_epilogue import COMPONENT  # noqa: E402
from tests.oracle import sglang_block_drafts as bd  # noqa: E402
from tests.oracle import sglang_dspark_compare as kc  # noqa: E402

GAMMA = 5
MODES = ("compact", "cap-accept")


def _argv(mode: str) -> tuple[str, ...]:
    return (f"SGLANG_RAGGED_VERIFY_MODE={mode}",
            *kc.dspark("--speculative-dspark-block-size", str(GAMMA),
                       "--max-running-requests", "12"))


def _worker(mode: str) -> types.SimpleNamespace:
    """SGLang's runners for the line, wired as the DSPARK worker wires them (module
    docstring)."""
    argv = _argv(mode)
    sg = bd.sglang(argv, 80)
    assert sg.rejected is None and sg.runners is not None
    env, _ = bd.split_env(argv)
    with mock.patch.dict(os.environ, env):
        from sglang.srt.speculative.draft_worker_common import make_draft_sampler_capture_hook

        cls = pkgutil.resolve_name(gs.RUNNERS["target"][1])
    live = sg.runners["dspark_draft"].live
    assert live.sampler is not None and live.sampler.confidence_out is not None
    draft = object.__new__(cls)
    draft.buffers, draft.model_runner = live.buffers, live.model_runner
    live.model_runner.capture_tail_hooks = [make_draft_sampler_capture_hook(live.sampler)]
    target = object.__new__(cls)
    target.buffers = sg.runners["target"].live
    target.model_runner = types.SimpleNamespace(
        server_args=sg.resolved.record, is_draft_worker=False,
        capture_tail_hooks=[] if live.epilogue is None else [live.epilogue.capture_hook])
    return types.SimpleNamespace(env=env, record=sg.resolved.record, target=target,
                                 draft=draft, sampler=live.sampler, epilogue=live.epilogue,
                                 draft_buffers=live.buffers)


@pytest.fixture(scope="module")
def workers(sa: Any) -> dict[str, types.SimpleNamespace]:
    with sa.sglang_env():
        return {mode: _worker(mode) for mode in MODES}


@pytest.mark.parametrize("mode", MODES)
def test_live_check_reads_the_epilogue_and_the_confidence_outputs(
        workers: dict[str, types.SimpleNamespace], mode: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every epilogue buffer and both confidence outputs graphfit plans are read from
    SGLang's live objects; each holds the rows graphfit's model of SGLang's sizing says
    (engine_rows: the audit's own figure), and those cover every graph the plan replays."""
    w = workers[mode]
    for var, value in w.env.items():
        monkeypatch.setenv(var, value)
    check = gs.check_live_runners(w.record, {"target": w.target, "dspark_draft": w.draft})
    assert check.ok, check.line()
    p = check.plan
    wanted = {"dspark_draft.sampler_confidence_out", "dspark_draft.sampler_confidence_raw_out"}
    if mode == "compact":
        assert w.epilogue is not None
        wanted |= {b.key for b in p.keyed[COMPONENT].buffers}
    else:  # cap-accept keeps static verify: no epilogue (dspark_worker_v2.py:409-417)
        assert w.epilogue is None and COMPONENT not in p.keyed
    assert wanted <= set(check.live)
    alone = _unshared(p)
    for key, tensor in check.live.items():
        buf = p.buffer(key)
        assert check.verification.capacities[key] == tensor.shape[buf.axis_dim]
        # a buffer SGLang makes one tensor of several runners' (graphfit.planner.engines.
        # sglang_shared) is sized for its users' most rows; each runner holds a view of its
        # own rows (the pool's as_strided, input_buffers.py:39; the first `rows` logits rows,
        # graph_shared_output.py:62-73), which is what this runner's model alone gives
        own = alone.buffer(key).engine_rows if buf.shared else buf.engine_rows
        assert tensor.shape[buf.axis_dim] == own, key
        assert own <= buf.engine_rows, key
    # SGLang shares the draft's request-axis inputs and logits view with the target's
    # (dspark_worker_v2.py:581-621 -> decode_cuda_graph_runner.py:466-477, 505-509)
    assert {"pool_seq_lens", "graph_shared_logits"} <= set(p.shared), sorted(p.shared)
    if mode == "compact":  # every tier's graph reads no more rows than the tensors hold
        keyed = p.keyed[COMPONENT]
        for tier in keyed.graph_keys:
            for name, rows in keyed.rows(tier).items():
                assert rows <= check.verification.capacities[f"{COMPONENT}.{name}"]


def _unshared(p: Any) -> Any:
    """The same config planned with every runner's buffers its own (no SGLang sharing):
    each buffer's engine rows are then its own runner's."""
    from graphfit.planner.engines import sglang as engine
    from graphfit.planner.plan import plan

    with mock.patch.object(engine, "share_like_sglang", lambda comps: comps):
        return plan(p.config)


def _short(like: Any, rows: int, width: int | None = None) -> Any:
    """A tensor like SGLang's with `rows` rows (and rows `width` wide)."""
    import torch

    shape = (rows, *like.shape[1:]) if width is None else (rows, width)
    return torch.zeros(shape, dtype=like.dtype, device=like.device)


# (mode, which runner the plugin checks, holder, attribute, the key the check must name)
PLANTED = [
    ("compact", "draft", "sampler", "confidence_out", "dspark_draft.sampler_confidence_out"),
    ("compact", "draft", "sampler", "confidence_raw_out",
     "dspark_draft.sampler_confidence_raw_out"),
    ("cap-accept", "draft", "sampler", "confidence_out", "dspark_draft.sampler_confidence_out"),
    ("compact", "target", "epilogue", "verify_lens_buf", f"{COMPONENT}.verify_lens"),
    ("compact", "target", "epilogue", "out_tokens_buf", f"{COMPONENT}.out_tokens"),
    ("compact", "target", "epilogue", "strided_hidden", f"{COMPONENT}.strided_hidden"),
    # one tensor with the sampler's out (dspark_worker_v2.py:696-711): planned there
    ("compact", "target", "epilogue", "draft_tokens_buf", "dspark_draft.sampler_out"),
    # one tensor with the target's (issue 23, s48r): the draft's own view is still checked
    ("compact", "draft", "draft_buffers", "seq_lens", "dspark_draft.seq_lens"),
    ("compact", "draft", "draft_buffers", "next_token_logits_buffer",
     "dspark_draft.next_token_logits_buffer"),
]


@pytest.mark.parametrize(("mode", "runner", "holder", "attr", "key"), PLANTED,
                         ids=[f"{m}-{a}" for m, _, _, a, _ in PLANTED])
def test_a_planted_short_tensor_is_refused_before_capture(
        workers: dict[str, types.SimpleNamespace], mode: str, runner: str, holder: str,
        attr: str, key: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A live tensor one tier's graph would overrun (3 rows, below the 12 requests a graph
    replays): the BEFORE hook on that runner's capture names it and refuses in check mode;
    with SGLang's own tensor it starts."""
    w = workers[mode]
    for var, value in w.env.items():
        monkeypatch.setenv(var, value)
    monkeypatch.setenv("GRAPHFIT_SGLANG", "check")
    graph_runner = getattr(w, runner)
    assert gs.before_capture(graph_runner) is None  # SGLang's own tensors: safe
    obj = getattr(w, holder)
    monkeypatch.setattr(obj, attr, _short(getattr(obj, attr), 3))
    with pytest.raises(gs.UnsafeServerArgsError, match=key.replace(".", r"\.")):
        gs.before_capture(graph_runner)


# rows as many as SGLang's but narrower than what the graph tail writes into each
NARROW = [
    ("draft", "sampler", "confidence_out", GAMMA - 1, "dspark_draft.sampler_confidence_out"),
    ("draft", "sampler", "confidence_raw_out", 1, "dspark_draft.sampler_confidence_raw_out"),
    ("target", "epilogue", "out_tokens_buf", GAMMA, f"{COMPONENT}.out_tokens"),  # stride - 1
]


@pytest.mark.parametrize(("runner", "holder", "attr", "width", "key"), NARROW,
                         ids=[a for _, _, a, _, _ in NARROW])
def test_a_planted_narrow_tensor_is_refused_before_capture(
        workers: dict[str, types.SimpleNamespace], runner: str, holder: str, attr: str,
        width: int, key: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The confidence outputs are [max_bs, gamma] and the epilogue's out tokens
    [max_bs, gamma + 1] (dspark_draft_sampler.py:69-81, dspark_verify.py:636-638): a live
    tensor with every row but narrower rows is refused too, its shape in the line."""
    w = workers["compact"]
    for var, value in w.env.items():
        monkeypatch.setenv(var, value)
    monkeypatch.setenv("GRAPHFIT_SGLANG", "check")
    obj = getattr(w, holder)
    like = getattr(obj, attr)
    monkeypatch.setattr(obj, attr, _short(like, like.shape[0], width))
    check = gs.check_live_runners(w.record, {runner if runner == "target" else "dspark_draft":
                                             getattr(w, runner)})
    assert not check.ok and f"[{like.shape[0]}, {width}]" in check.line()
    with pytest.raises(gs.UnsafeServerArgsError, match=key.replace(".", r"\.")):
        gs.before_capture(getattr(w, runner))
