"""`python -m graphfit.integrations.sglang` on SGLang 0.5.23's own argument pipeline (CPU), and
the plugin's check of the live graph runners' buffers.

SGLang's `load_plugins` and `prepare_server_args` run as in `python -m sglang.launch_server`;
the start step is injected (no server starts). A safe config starts with one SAFE line; a
buffer shrunk to one row below what SGLang's code needs (monkeypatched into the rows the
engine allocates) is refused, naming it, and nothing starts.

Live buffers: SGLang's own `DecodeInputBuffers.create` and EAGLE draft / draft-extend runner
classes build the tensors on CPU as tests/oracle/sglang_oracle.py builds them; the plugin's
BEFORE hook on each runner's `capture` reads them (every buffer graphfit models, with its
shape and dtype), passes the safe config and refuses a shrunk one by name.
"""

from __future__ import annotations

import pkgutil
import sys
import types
from typing import Any

import pytest
import torch

from graphfit.integrations import sglang as gs
from tests.helpers import ROOT

ARGS = ["--model-path", "m", "--max-running-requests", "16", "--speculative-algorithm",
        "EAGLE", "--speculative-num-steps", "3", "--speculative-eagle-topk", "1",
        "--speculative-num-draft-tokens", "4", "--speculative-draft-model-path", "d"]


def run(sa: Any, argv: list[str], environ: dict[str, str]) -> tuple[int, list[Any], list[str]]:
    started: list[Any] = []
    lines: list[str] = []
    with sa.sglang_env():
        code = gs.main(argv, start=started.append, environ=environ, out=lines.append)
    return code, started, lines


def test_safe_config_starts_sglang_with_one_safe_line(sa: Any) -> None:
    code, started, lines = run(sa, ARGS, {})
    assert code == 0 and len(started) == 1, lines
    assert type(started[0]).__name__ == "ServerArgs"  # SGLang's own object is what starts
    assert len(lines) == 1 and lines[0].startswith("graphfit: SAFE:")


def test_shrunk_buffer_is_refused_and_nothing_starts(sa: Any,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    real = gs.engine_capacities

    def shrunk(p: Any) -> dict[str, int]:
        caps = real(p)
        needed = next(b.engine_rows for b in p.components["drafter"].buffers
                      if b.name == "positions")
        return {**caps, "drafter.positions": needed - 1}

    monkeypatch.setattr(gs, "engine_capacities", shrunk)
    code, started, lines = run(sa, ARGS, {})
    assert code == 2 and not started
    assert "UNSAFE" in lines[0] and "drafter.positions" in lines[0]
    code, started, lines = run(sa, ARGS, {"GRAPHFIT_SGLANG": "warn"})
    assert code == 0 and len(started) == 1 and "UNSAFE" in lines[0]


def test_unknown_size_and_bad_mode(sa: Any) -> None:
    code, started, lines = run(sa, ["--model-path", "m"], {})
    assert code == 2 and not started and lines[-1].startswith("error: graphfit cannot check")
    assert len(lines[-1]) <= 200
    code, started, lines = run(sa, ARGS, {"GRAPHFIT_SGLANG": "strict"})
    assert code == 2 and not started and "check, warn" in lines[0]


def test_sglang_loads_the_plugin_and_checks_server_args_as_built(
        sa: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.metadata as md

    import tomllib

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "entry-points"]["sglang.srt.plugins"]
    points = md.EntryPoints([md.EntryPoint(name, value, "sglang.srt.plugins")
                             for name, value in declared.items()])
    # the graph runners' modules import only under the oracle's fake CUDA here (in an SGLang
    # process they are importable as is): import them once, as the live-runner tests do
    live_runners(sa)
    with sa.sglang_env():
        import sglang.srt.plugins as plugins
        from sglang.srt.plugins.hook_registry import HookRegistry

        monkeypatch.setattr(plugins, "entry_points", lambda group: points if group ==
                            "sglang.srt.plugins" else md.EntryPoints([]))
        import sglang.srt.server_args as server_args_module

        # restored after the test: HookRegistry patches the function where it lives
        monkeypatch.setattr(server_args_module, "prepare_server_args",
                            server_args_module.prepare_server_args)
        monkeypatch.setattr(gs, "_launcher_active", False)
        monkeypatch.setenv("GRAPHFIT_SGLANG", "check")
        HookRegistry.reset()
        try:
            loaded = plugins.load_plugins_by_group("sglang.srt.plugins")
            assert set(loaded) == {"graphfit"}
            loaded["graphfit"][0]()
            HookRegistry.apply_hooks()
            checked: list[Any] = []
            real = gs.check_server_args
            monkeypatch.setattr(gs, "check_server_args",
                                lambda args: checked.append(args) or real(args))
            # SGLang's own parse, through the patched function as launch_server calls it
            built = server_args_module.prepare_server_args(list(ARGS))
            assert checked and checked[-1] is built
            real_caps = gs.engine_capacities

            def shrunk(p: Any) -> dict[str, int]:
                needed = next(b.engine_rows for b in p.components["drafter"].buffers
                              if b.name == "positions")
                return {**real_caps(p), "drafter.positions": needed - 1}

            monkeypatch.setattr(gs, "engine_capacities", shrunk)
            with pytest.raises(gs.UnsafeServerArgsError, match=r"drafter\.positions"):
                server_args_module.prepare_server_args(list(ARGS))
            for cls in _runner_classes():  # the live-buffer hooks, before each capture
                assert cls.capture.__wrapped__ is not None
        finally:
            HookRegistry.reset()
            for cls in _runner_classes():
                wrapped = getattr(cls.__dict__.get("capture"), "__wrapped__", None)
                if wrapped is not None:
                    monkeypatch.setattr(cls, "capture", wrapped)
            # the registry also patched modules that imported the function by name
            for name, module in list(sys.modules.items()):
                if not name.startswith("sglang") or module is server_args_module:
                    continue
                value = vars(module).get("prepare_server_args")
                if callable(value) and getattr(value, "__wrapped__", None) is not None:
                    monkeypatch.setattr(module, "prepare_server_args", value.__wrapped__)


def _runner_classes() -> list[Any]:
    return [pkgutil.resolve_name(path) for _, path in gs.RUNNERS.values()]


SPEC = ["--max-running-requests", "16", "--speculative-algorithm", "EAGLE",
        "--speculative-num-steps", "3", "--speculative-eagle-topk", "1",
        "--speculative-num-draft-tokens", "4"]


def live_runners(sa: Any) -> tuple[Any, dict[str, Any]]:
    from tests.oracle import sglang_oracle as so

    with sa.sglang_env():
        resolved = so.resolve(SPEC)
        built = so.runners(resolved, device="cpu", hidden_size=64, vocab_size=128)
    return resolved.record, {name: runner.live for name, runner in built.items()}


def test_live_runner_buffers_are_read_and_pass(sa: Any) -> None:
    from tests.oracle import sglang_oracle as so

    record, runners = live_runners(sa)
    assert set(runners) == {"target", "draft", "draft_extend"}
    # the target's live object is its DecodeInputBuffers; the runner around them keeps the
    # two-batch-overlap plugin SGLang's BaseRunner builds (base_runner.py:245)
    runners["target"] = types.SimpleNamespace(buffers=runners["target"],
                                              tbo_plugin=so.tbo_plugin())
    check = gs.check_live_runners(record, runners)
    assert check.ok and check.line().startswith(f"graphfit: SAFE: {len(check.live)} live")
    # every buffer graphfit plans for SGLang's three decode-side runners has a live tensor
    # (the prefill graphs' runner is not among them: its buffers count at the rows SGLang's
    # code allocates, engine_capacities)
    held = {gs.RUNNERS[name][0] for name in runners}
    assert "prefill" in check.plan.components and "prefill" not in held
    assert set(check.live) == {b.key for name, c in check.plan.components.items()
                               if name in held for b in c.buffers}
    for live in check.live.values():
        name, *path = live.attr.split(".")
        obj: Any = runners[name]
        for part in path:
            obj = getattr(obj, part)
        assert tuple(obj.shape) == live.shape  # SGLang's tensor, not a modelled one
        assert str(obj.dtype).removeprefix("torch.") == live.dtype


@pytest.mark.parametrize(("runner", "component"), [("draft", "drafter"),
                                                   ("draft_extend", "draft_extend")])
def test_shrunk_live_buffer_is_refused_before_capture(sa: Any, runner: str, component: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    record, runners = live_runners(sa)
    safe = gs.check_live_runners(record, runners)
    needed = next(b.engine_rows for b in safe.plan.components[component].buffers
                  if b.name == "positions")
    live = runners[runner]
    assert live.buffers.positions.shape[0] >= needed
    monkeypatch.setattr(live.buffers, "positions", torch.zeros(needed - 1, dtype=torch.int64))
    check = gs.check_live_runners(record, runners)
    assert not check.ok
    assert check.line().startswith(f"graphfit: UNSAFE: {component}.positions")
    assert f"[SGLang {runner}.buffers.positions: [{needed - 1}] int64]" in check.line()
    # the plugin's hook, as SGLang calls it before the runner captures
    monkeypatch.setenv("GRAPHFIT_SGLANG", "check")
    with pytest.raises(gs.UnsafeServerArgsError, match=rf"{component}\.positions"):
        gs.before_capture(live)
    monkeypatch.setenv("GRAPHFIT_SGLANG", "warn")
    assert gs.before_capture(live) is None


def test_before_capture_on_sglang_target_runner_class(sa: Any,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A DecodeCudaGraphRunner (SGLang's class; its __init__ captures on CUDA, so its fields
    are set as __init__ sets them: decode_cuda_graph_runner.py:470 buffers, model_runner)."""
    record, runners = live_runners(sa)
    with sa.sglang_env():
        cls = pkgutil.resolve_name(gs.RUNNERS["target"][1])
    target = object.__new__(cls)
    target.buffers = runners["target"]
    target.model_runner = runners["draft"].model_runner  # carries the same ServerArgs
    assert target.model_runner.server_args is record
    monkeypatch.setenv("GRAPHFIT_SGLANG", "check")
    assert gs.before_capture(target) is None  # safe: starts
    monkeypatch.setattr(target.buffers, "out_cache_loc", torch.zeros(3, dtype=torch.int64))
    with pytest.raises(gs.UnsafeServerArgsError, match=r"target\.out_cache_loc"):
        gs.before_capture(target)


@pytest.mark.parametrize(("line", "name"), [
    (["--enable-multi-layer-eagle"], "mtp_draft_extend"),
    (["--speculative-algorithm", "FROZEN_KV_MTP", "--speculative-num-steps", "3",
      "--speculative-eagle-topk", "2", "--speculative-num-draft-tokens", "6"], "frozen_drafter")])
def test_other_speculative_runners_checked_against_their_own_component(
        sa: Any, line: list[str], name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The multi-layer EAGLE per-step runner and the FROZEN_KV_MTP runner inherit
    DecodeCudaGraphRunner.capture: before_capture checks them against their own component
    (not the target's), from SGLang's own live buffers."""
    from tests.oracle import sglang_oracle as so

    argv = [*SPEC, *line] if name == "mtp_draft_extend" else [*SPEC[:2], *line]
    with sa.sglang_env():
        resolved = so.resolve(argv)
        built = so.runners(resolved, device="cpu", hidden_size=64, vocab_size=128)
    live = built[name].live
    runner = live.runners[0] if name == "mtp_draft_extend" else live  # one step's runner
    check = gs.check_live_runners(resolved.record, {name: runner})
    assert check.ok and check.live and all(k.startswith(f"{name}.") for k in check.live)
    monkeypatch.setenv("GRAPHFIT_SGLANG", "check")
    assert gs.before_capture(runner) is None  # safe: starts
    monkeypatch.setattr(runner.buffers, "seq_lens", runner.buffers.seq_lens[:1].clone())
    with pytest.raises(gs.UnsafeServerArgsError, match=rf"{name}\.seq_lens"):
        gs.before_capture(runner)


def dflash_draft_runner(sa: Any) -> tuple[Any, Any]:
    """SGLang's DFLASH draft DecodeCudaGraphRunner as it stands before capture (its buffers,
    its draft model runner with SGLang's own sampler capture hook), built on CPU by the
    oracle (sglang_oracle._dflash_runner)."""
    from tests.oracle import sglang_dflash_compare as dc
    from tests.oracle import sglang_oracle as so

    argv = dc.with_draft([*SPEC[:2], "--speculative-algorithm", "DFLASH",
                          "--speculative-num-draft-tokens", "4"])
    with sa.sglang_env():
        resolved = so.resolve(argv)
        built = so.runners(resolved, device="cpu", hidden_size=64, vocab_size=128)
    return resolved.record, built["dflash_draft"].live


def test_dflash_draft_runner_checked_against_its_own_component(sa: Any) -> None:
    """DFLASH's draft runner is SGLang's DecodeCudaGraphRunner on the draft model runner: the
    live check reads it (and the in-graph sampler its capture hook closes over) as component
    dflash_draft, every planned buffer of that component from SGLang's own tensors."""
    record, runner = dflash_draft_runner(sa)
    check = gs.check_live_runners(record, {"dflash_draft": runner})
    assert check.ok, check.line()
    planned = {b.key for b in check.plan.components["dflash_draft"].buffers}
    assert "dflash_draft.sampler_out" in check.live
    assert set(check.live) <= planned and all(k.startswith("dflash_draft.") for k in check.live)
    missing = planned - set(check.live)
    assert missing <= {"dflash_draft.tbo_children_num_token_non_padded"}, missing
    for live in check.live.values():  # SGLang's tensors, not modelled ones
        assert live.shape and live.dtype


@pytest.mark.parametrize("buffer", ["positions", "sampler_out"])
def test_truncated_dflash_draft_buffer_is_refused_before_capture(
        sa: Any, buffer: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A DFLASH draft buffer one row short (a runner buffer, the sampler's output) is reported
    by name as the draft's, before SGLang's DecodeCudaGraphRunner captures (the hook tells it
    from the target's by its draft model runner)."""
    from graphfit.integrations.sglang import _draft_sampler

    record, runner = dflash_draft_runner(sa)
    safe = gs.check_live_runners(record, {"dflash_draft": runner})
    needed = next(b.engine_rows for b in safe.plan.components["dflash_draft"].buffers
                  if b.name == buffer)
    monkeypatch.setenv("GRAPHFIT_SGLANG", "check")
    assert gs.before_capture(runner) is None  # safe: starts
    holder = _draft_sampler(runner) if buffer == "sampler_out" else runner.buffers
    attr = "out" if buffer == "sampler_out" else buffer
    assert getattr(holder, attr).shape[0] >= needed
    monkeypatch.setattr(holder, attr, torch.zeros(needed - 1, dtype=torch.int64))
    check = gs.check_live_runners(record, {"dflash_draft": runner})
    assert not check.ok
    assert check.line().startswith(f"graphfit: UNSAFE: dflash_draft.{buffer}")
    assert f": [{needed - 1}] int64]" in check.line()
    with pytest.raises(gs.UnsafeServerArgsError, match=rf"dflash_draft\.{buffer}"):
        gs.before_capture(runner)
    monkeypatch.setenv("GRAPHFIT_SGLANG", "warn")
    assert gs.before_capture(runner) is None


def test_lilicorr_head_and_token_table_read_live(sa: Any) -> None:
    """A LiLiCorr draft narrower than the draft model: the live check plans its weight-sized
    buffers from the draft's config.json the ServerArgs name (graphfit.inputs.sglang_live)
    and reads them from SGLang's own objects behind the capture hook -- the sampler's token
    table (built by SGLang's own head from SGLang's own target embedding) and the head's
    inference buffers -- each with the shape graphfit plans."""
    from tests.oracle import sglang_dflash_compare as dc
    from tests.oracle import sglang_oracle as so

    head = {**dc.LILICORR, "lilicorr_candidate_topk": 4, "lilicorr_hidden_size": 256}
    argv = [*SPEC[:2], "--speculative-algorithm", "DFLASH", "--speculative-num-draft-tokens",
            "4", dc.DRAFT, dc.draft_dir(dc.with_head({"block_size": 4}, head))]
    with sa.sglang_env():
        resolved = so.resolve(argv)
        built = so.runners(resolved, device="cpu", hidden_size=4096, vocab_size=128256)
    check = gs.check_live_runners(resolved.record, {"dflash_draft": built["dflash_draft"].live})
    assert check.ok, check.line()
    weights = [b for b in check.plan.components["dflash_draft"].buffers
               if b.name.startswith(("lilicorr_", "sampler_token_table"))]
    assert {b.name for b in weights} >= {"sampler_token_table", "lilicorr_attn_bias",
                                         "lilicorr_factor_input_cross"}
    for b in weights:
        assert check.live[b.key].shape == b.shape, b.key
    assert check.live["dflash_draft.sampler_token_table"].shape == (128256, 256)


def test_fixed_buffers_with_leading_dims_read_along_their_axis(sa: Any) -> None:
    """Under TP 2 the DFLASH sampler's `best_rank` / `selected_ids` are [1, tokens]
    (dflash_worker_v2.py:173-178): the live check reads their rows after the leading dim, as
    graphfit plans them, not the leading 1 (which read as a one-row buffer)."""
    from tests.oracle import sglang_dflash_compare as dc
    from tests.oracle import sglang_oracle as so

    argv = dc.with_draft([*SPEC[:2], "--tp-size", "2", "--speculative-algorithm", "DFLASH",
                          "--speculative-num-draft-tokens", "4"])
    with sa.sglang_env():
        resolved = so.resolve(argv)
        built = so.runners(resolved, device="cpu", hidden_size=64, vocab_size=128)
    check = gs.check_live_runners(resolved.record, {"dflash_draft": built["dflash_draft"].live})
    assert check.ok, check.line()
    for name in ("sampler_best_rank", "sampler_selected_ids"):
        planned = check.plan.buffer(f"dflash_draft.{name}")
        assert check.live[f"dflash_draft.{name}"].shape == planned.shape
        assert planned.shape[0] == 1 and planned.shape[1] > 1
