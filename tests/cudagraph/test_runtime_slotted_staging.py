"""Slotted host staging declared in engine files (`slots = N` on a staging copy) and run by
the plain `GraphRunner`: the copy is (N, *the staged buffer's shape), counted as N copies;
step i writes the batch and its padding fill into slot i mod N and copies that slot's rows
to the device buffer before the replay (eagerly: a graph would read one fixed slot, as
TensorRT-LLM's feature mirrors are copied, tests/oracle/trtllm_reference.py
`cite_fact("feature_mode_runner")`); every output equals eager. Bad `slots` is one error line.
Planted errors (every step in slot 0; the copy read from the other slot) fail."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import EngineConfig, plan
from graphfit.cudagraph import GraphRunner, StaticBuffers
from graphfit.cudagraph.rehearsal import rehearse
from graphfit.inputs.engine_file import load_engine_file
from tests.helpers import ROOT, run_cli

EXAMPLE = ROOT / "examples" / "engines" / "tiny_staged.toml"
FLAGS = ["--max-num-seqs", "6", "--max-num-batched-tokens", "64"]


def _slotted(tmp_path: Path, slots: object, name: str = "tiny-slotted") -> Path:
    text = EXAMPLE.read_text().replace('name = "tiny-staged"', f'name = "{name}"')
    marker = "pinned = true"
    assert marker in text
    path = tmp_path / f"{name}.toml"
    path.write_text(text.replace(marker, f"{marker}\nslots = {slots}", 1))
    return path


def _plan(tmp_path: Path, slots: int, name: str) -> Any:
    load_engine_file(_slotted(tmp_path, slots, name))
    return plan(EngineConfig(engine=name, max_num_seqs=6, max_num_batched_tokens=64))


def _fn(views: Any) -> torch.Tensor:
    return views["tok_ids"].float().unsqueeze(1) * 2 + 1


@settings(max_examples=8, deadline=None)
@given(st.integers(1, 4), st.lists(st.integers(1, 40), min_size=1, max_size=9))
def test_steps_rotate_slots_and_equal_eager(tmp_path_factory: Any, slots: int,
                                            sizes: list[int]) -> None:
    p = _plan(tmp_path_factory.mktemp("s"), slots, f"tiny-slotted-{slots}")
    host = p.component("target").buffer("tok_ids_host")
    single = p.component("target").buffer("tok_ids")
    assert host.bytes == slots * single.bytes and host.stages == "tok_ids"
    bufs = StaticBuffers.allocate(p, "cpu", "target")
    runner = GraphRunner(_fn, p, bufs, graph_inputs=("tok_ids",))
    assert runner.slots["tok_ids"] == slots == runner.turns
    gen = torch.Generator().manual_seed(len(sizes))
    for i, n in enumerate(sizes):
        ids = torch.randint(0, 1000, (n,), generator=gen, dtype=torch.int32)
        bufs.poison(["tok_ids"])
        out = runner.step({"tok_ids": ids})
        assert torch.equal(out, runner.step({"tok_ids": ids}, eager=True)), (i, n)
        runner._turn = (runner._turn - 1) % runner.turns  # the eager check took a turn
        # this step's batch sits in slot i mod N of the host copy (and on the device)
        assert torch.equal(bufs["tok_ids_host"].reshape(slots, -1)[i % slots, :n], ids)
        assert torch.equal(bufs["tok_ids"][:n], ids)
        padded = runner.last_dispatch.padded if runner.last_dispatch else n
        assert torch.equal(bufs["tok_ids"][n:padded], torch.zeros(padded - n,
                                                                  dtype=torch.int32))


def test_the_cli_plans_and_rehearses_a_slotted_file(tmp_path: Path) -> None:
    path = _slotted(tmp_path, 2)
    code, out, err = run_cli(["rehearse", "--engine-file", str(path), *FLAGS])
    assert code == 0, err
    assert "tok_ids (staged from host)" in out and "REHEARSED" in out


@pytest.mark.parametrize(("slots", "message"), [
    ("0", "slots must be an integer in 1..64"), ('"2"', "slots must be an integer"),
    ("true", "slots must be an integer"), ("65", "slots must be an integer in 1..64")])
def test_bad_slots_are_one_error_line(tmp_path: Path, slots: str, message: str) -> None:
    code, out, err = run_cli(["plan", "--engine-file", str(_slotted(tmp_path, slots)),
                              *FLAGS])
    lines = err.strip().splitlines()
    assert code == 2 and out == "" and len(lines) == 1, err
    assert message in lines[0] and len(lines[0]) <= 200


def test_slots_without_stages_is_one_error_line(tmp_path: Path) -> None:
    text = EXAMPLE.read_text().replace(
        'name = "tok_pos"\ndtype = "int64"', 'name = "tok_pos"\nslots = 2\ndtype = "int64"')
    path = tmp_path / "bad.toml"
    path.write_text(text)
    code, _, err = run_cli(["plan", "--engine-file", str(path), *FLAGS])
    assert code == 2 and "slots needs stages" in err and len(err.strip().splitlines()) == 1


def test_planted_slot_errors_fail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = _plan(tmp_path, 2, "tiny-slotted-planted")
    assert rehearse(p).ok
    written = GraphRunner._written

    def other_slot(self: GraphRunner, name: str, n: int, turn: int = 0) -> torch.Tensor:
        return written(self, name, n, turn + 1)  # the copy read from the other slot

    bufs = StaticBuffers.allocate(p, "cpu", "target")
    runner = GraphRunner(_fn, p, bufs, graph_inputs=("tok_ids",))
    ids = torch.arange(5, dtype=torch.int32) + 3
    assert torch.equal(runner.step({"tok_ids": ids}), _fn({"tok_ids": ids}))
    original_refills = GraphRunner._refills

    def stale(self: GraphRunner, rows: Any, turn: int = 0, **kw: Any) -> Any:
        names = [n for n in self._rules if n in self.staging and n not in kw.get("skip", ())]
        return tuple((d, other_slot(self, name, rows[name], turn)) for (d, _), name in zip(
            original_refills(self, rows, turn, **kw), names, strict=True))

    monkeypatch.setattr(GraphRunner, "_refills", stale)
    planted = GraphRunner(_fn, p, StaticBuffers.allocate(p, "cpu", "target"),
                          graph_inputs=("tok_ids",))
    results = [torch.equal(planted.step({"tok_ids": ids + i}), _fn({"tok_ids": ids + i}))
               for i in range(3)]
    assert not all(results)


@pytest.mark.parametrize(("pinned", "slots", "recorded"), [
    (True, 1, True), (False, 1, False), (True, 2, False)])
def test_only_a_pinned_one_slot_copy_is_recorded(tmp_path: Path, pinned: bool, slots: int,
                                                 recorded: bool) -> None:
    """A graph replayed alone after a second batch was written into the host copy only runs
    on that batch exactly when the copy is recorded in it: one slot and pinned, as
    TensorRT-LLM's token-mode `capture_h2d` (`ref.cite_fact("encoder_pinned_capture")`);
    a pageable or slotted copy is copied before each replay instead."""
    name = f"tiny-rec-{pinned}-{slots}".lower()
    text = EXAMPLE.read_text().replace('name = "tiny-staged"', f'name = "{name}"')
    text = text.replace("pinned = true", f"pinned = {str(pinned).lower()}\nslots = {slots}", 1)
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    load_engine_file(path)
    p = plan(EngineConfig(engine=name, max_num_seqs=6, max_num_batched_tokens=64))
    bufs = StaticBuffers.allocate(p, "cpu", "target")
    runner = GraphRunner(_fn, p, bufs, graph_inputs=("tok_ids",))
    assert (runner.recorded == {"tok_ids"}) == recorded
    ids = torch.arange(8, dtype=torch.int32) + 3
    assert torch.equal(runner.step({"tok_ids": ids}), _fn({"tok_ids": ids}))
    key = runner.key(runner.last_dispatch) if runner.last_dispatch else None
    assert key is not None
    second = ids + 100
    bufs["tok_ids_host"].reshape(slots, -1)[0, :8].copy_(second)  # the host copy only
    out = runner.graphs[key].graph.replay()
    assert isinstance(out, torch.Tensor)
    assert torch.equal(out[:8], _fn({"tok_ids": second})) == recorded
    assert rehearse(p).ok
