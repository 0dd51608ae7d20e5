"""SGLang 0.5.23's compact ragged verify dispatch (`SGLANG_RAGGED_VERIFY_MODE=compact`) on a
pasted DSPARK line: SGLang's own runner methods against graphfit.planner.engines.
sglang_dspark_compact.

SGLang's side: the line's pipeline and target runner built under its VAR=value prefix
(sglang_block_drafts.sglang), then SGLang's own `DecodeCudaGraphRunner` methods on a runner
holding that target's capture list, width and max_bs (the attributes its constructor sets
before it reads them, decode_cuda_graph_runner.py:387-406): whether compact is on for the
algorithm (`ragged_verify_compact_graphs_enabled` :162-167), the token tiers
(`_build_ragged_verify_token_buckets` :699-702), each tier's capture slots
(`_ragged_capture_slots` :791-794), and for every (requests, tokens) the tier SGLang's
`round_up_grid` (ragged_verify.py:34-43) picks and whether `_can_run_ragged_verify_graph`'s
bounds (:931-934) admit it. (The constructor itself needs an attention backend and a device;
those methods are what it runs for this part.)

graphfit's side: the same line pasted into `graphfit plan`: its `target_compact` keyed
component (graphfit.planner.engines.sglang_dspark_epilogue), whose captured keys are the
tiers, whose `verify_lens` rows per key are the slots and whose dispatch says which tier each
batch replays; the target's token capacity. A ladder or width graphfit got wrong shows here
too.

The verify epilogue (`compare_epilogue`): SGLang's own `DsparkVerifyEpilogue` as its worker
builds it (tests/oracle/sglang_dspark_oracle._epilogue), every tensor's shape and dtype
against graphfit's planned buffer of that name at SGLang's allocation (the spec's
`reference_capacity`; graphfit's own capacity is the most rows a tier reads), and the
draft tokens: one tensor with the folded sampler's `out` in SGLang (the worker passes it,
dspark_worker_v2.py:696-711) exactly when graphfit plans them as `dspark_draft.sampler_out`
only.
"""

from __future__ import annotations

import functools
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

from hypothesis import strategies as st

from graphfit.planner.engines.sglang_dspark_epilogue import COMPONENT
from tests.oracle import sglang_block_drafts as bd
from tests.oracle import sglang_compare as sc
from tests.oracle import sglang_dspark_compare as kc
from tests.oracle import sglang_oracle as so

VAR = "SGLANG_RAGGED_VERIFY_MODE"
# graphfit's answer to a line, read once for the dispatch and the epilogue
_pasted = functools.lru_cache(maxsize=256)(bd.pasted)


@dataclass(frozen=True)
class Compact:
    """A compact verify dispatch: tiers, slots per tier, token capacity, and the tier of every
    (requests, tokens) in the bounds (0: eager)."""

    tiers: tuple[int, ...]
    slots: tuple[int, ...]
    max_num_token: int
    dispatch: tuple[tuple[int, int, int], ...]


def _bounds(max_bs: int, width: int) -> list[tuple[int, int]]:
    """(requests, tokens) of every ragged batch just past the runner's bounds: each request
    verifies 1..width tokens."""
    return [(b, n) for b in range(1, max_bs + 3) for n in range(b, b * width + 1)
            if n <= max_bs * width + 2]


def sglang_compact(argv: tuple[str, ...], gpu_mem_gb: float | None) -> Compact | str:
    """SGLang's compact dispatch for the line, or why there is none ("rejected: ...",
    "no graphs", "off": compact not enabled for this algorithm / mode)."""
    env, _ = bd.split_env(argv)
    sg = bd.sglang(argv, gpu_mem_gb)
    if sg.rejected is not None:
        return f"rejected: {sg.rejected}"
    if not sg.runners or "target" not in sg.runners:
        return "no graphs"
    target = sg.runners["target"]
    from sglang.srt.model_executor.runner.decode_cuda_graph_runner import (
        DecodeCudaGraphRunner,
        ragged_verify_compact_graphs_enabled,
    )
    from sglang.srt.speculative.ragged_verify import round_up_grid
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    assert isinstance(sg.resolved, so.Resolved)
    with mock.patch.dict(os.environ, env):
        algorithm = SpeculativeAlgorithm.from_string(sg.resolved.speculative_algorithm)
        if not ragged_verify_compact_graphs_enabled(algorithm):
            return "off"
        r = sg.resolved
        if r.enable_two_batch_overlap or r.disable_cuda_graph_padding:
            # the constructor's own refusal (decode_cuda_graph_runner.py:411-421), restated:
            # it runs inline in __init__, which needs a device (module docstring)
            return "rejected: compact ragged verify with two-batch overlap / no padding"
        runner = object.__new__(DecodeCudaGraphRunner)
        runner.capture_bs = list(target.capture_bs)
        runner.captured_req_width = target.width
        runner.max_bs = max(target.capture_bs)
        tiers = tuple(runner._build_ragged_verify_token_buckets())
        slots = tuple(int(runner._ragged_capture_slots(t)) for t in tiers)
        dispatch = []
        for b, n in _bounds(runner.max_bs, target.width):
            tier = round_up_grid(n, tiers) if n <= tiers[-1] else 0
            admitted = tier and tier <= tiers[-1] and b <= runner._ragged_capture_slots(tier)
            dispatch.append((b, n, tier if admitted else 0))
    return Compact(tiers, slots, max(tiers), tuple(dispatch))


def graphfit_compact(argv: tuple[str, ...], gpu_mem_gb: float | None) -> Compact | str:
    """graphfit's compact dispatch for the line: its `target_compact` component (module
    docstring)."""
    env, _ = bd.split_env(argv)
    if env.get(VAR) != "compact":
        return "off"
    gf = _pasted(argv, gpu_mem_gb)
    if gf.rejected is not None:
        return f"rejected: {gf.rejected}"
    assert gf.plan is not None
    if not sc._gf_graphs(gf) or not gf.plan.capture_sizes or COMPONENT not in gf.plan.keyed:
        return "no graphs"
    comp = gf.plan.keyed[COMPONENT]
    width = gf.plan.components["target"].tables.uniform_query_len
    tiers = comp.graph_keys
    slots = tuple(comp.rows(t)["verify_lens"] for t in tiers)
    dispatch = []
    for b, n in _bounds(max(slots), width):
        tier = comp.dispatch.lookup((b, n, -(-n // b)))  # the shortest longest request
        dispatch.append((b, n, tier or 0))
    return Compact(tiers, slots, gf.plan.buffer("target.input_ids").engine_rows,
                   tuple(dispatch))


_EPILOGUE_TENSORS = ("verify_lens", "inject_gate", "correct_len", "bonus", "cap_trim_lens",
                     "commit_lens", "new_seq_lens", "gated_commit_lens", "out_tokens",
                     "sim_temperatures", "sim_seed", "block_accept_lens", "draft_tokens")


def sglang_epilogue(sg: sc.SglangAnswer) -> tuple[dict[str, tuple[tuple[int, ...], str]], bool]:
    """SGLang's epilogue tensors {name: (shape, dtype)} and whether its draft tokens are the
    folded sampler's `out` (one tensor)."""
    assert sg.runners is not None
    live = sg.runners["dspark_draft"].live
    epilogue = live.epilogue
    if epilogue is None:
        return {}, False
    found = {name: getattr(epilogue, f"{name}_buf") for name in _EPILOGUE_TENSORS}
    found["strided_logits"] = epilogue.strided_logits
    found["strided_hidden"] = epilogue.strided_hidden
    relay = epilogue.future_relay  # SGLANG_OPT_DSV41_DSPARK_POST_FOLD's (static path only)
    if relay is not None:
        found["future_relay_new_seq_lens"] = relay.new_seq_lens
        found["future_relay_output_tokens"] = relay.output_tokens
    table = {name: (tuple(int(d) for d in t.shape), str(t.dtype).removeprefix("torch."))
             for name, t in found.items() if t is not None}
    shared = live.sampler is not None and live.sampler.out is epilogue.draft_tokens_buf
    return table, shared


def compare_epilogue(sg: sc.SglangAnswer, gf: sc.GraphfitAnswer) -> list[sc.Difference]:
    """SGLang's epilogue tensors against graphfit's `target_compact` buffers at SGLang's rows
    (module docstring)."""
    assert gf.plan is not None
    ours, shared = sglang_epilogue(sg)
    comp = gf.plan.keyed.get(COMPONENT)
    theirs = {} if comp is None else {
        b.name: ((b.spec.reference_capacity, *b.spec.trailing), b.spec.dtype)
        for b in comp.buffers}
    if shared:  # one tensor: graphfit plans it as dspark_draft.sampler_out
        out = gf.plan.buffer("dspark_draft.sampler_out")
        theirs["draft_tokens"] = ((out.spec.reference_capacity,), out.spec.dtype)
    diffs = [sc.Difference("epilogue", f"{COMPONENT}.{name}: SGLang {ours.get(name)}, "
                                       f"graphfit {theirs.get(name)}",
                           short=name not in theirs)
             for name in sorted(set(ours) | set(theirs)) if ours.get(name) != theirs.get(name)]
    if shared and comp is not None and "draft_tokens" in {b.name for b in comp.buffers}:
        diffs.append(sc.Difference("epilogue", "draft tokens: one tensor with the sampler's "
                                               "out in SGLang, two in graphfit's plan"))
    return diffs


OUTCOMES = {"compact": "runner", "no graphs": "no_runner", "off": "no_runner",
            "rejected": "rejected"}


def compare_compact(argv: tuple[str, ...], gpu_mem_gb: float | None = 80
                    ) -> tuple[str, list[sc.Difference]]:
    """(outcome, differences) in sglang_block_drafts.measure's terms: "runner" when both build
    the dispatch (then tiers, slots, token capacity and every batch's tier are compared),
    "no_runner" / "rejected" when both agree there is none, "differs" otherwise."""
    ours, theirs = sglang_compact(argv, gpu_mem_gb), graphfit_compact(argv, gpu_mem_gb)
    if isinstance(ours, str) or isinstance(theirs, str):
        kinds = (str(ours).split(":")[0], str(theirs).split(":")[0])
        if kinds[0] == kinds[1]:
            return OUTCOMES[kinds[0]], []
        return "differs", [sc.Difference("compact_outcome", f"SGLang {ours!s:.120}, graphfit "
                                                            f"{theirs!s:.120}")]
    diffs = [sc.Difference(f"compact_{name}", f"SGLang {getattr(ours, name)!s:.80}, "
                                              f"graphfit {getattr(theirs, name)!s:.80}")
             for name in ("tiers", "slots", "max_num_token")
             if getattr(ours, name) != getattr(theirs, name)]
    wrong = [(a, b) for a, b in zip(ours.dispatch, theirs.dispatch, strict=True) if a != b]
    if len(ours.dispatch) != len(theirs.dispatch) or wrong:
        first = wrong[0] if wrong else ("-", "-")
        diffs.append(sc.Difference("compact_dispatch", f"{len(wrong)} batches differ, first "
                                   f"(requests, tokens, tier) SGLang {first[0]}, graphfit "
                                   f"{first[1]}"))
    diffs += compare_epilogue(bd.sglang(argv, gpu_mem_gb), _pasted(argv, gpu_mem_gb))
    return ("differs" if diffs else "runner"), diffs


LAYER_KEYS = ("dspark_target_layer_ids", "dflash_config", "target_layer_ids")


def layered_draft(path: str, key: str, layers: int) -> str:
    """A copy of the draft at `path` naming `layers` target layer ids under `key` (SGLang
    reads the prefixed key, else dflash_config's, else the top-level one: dspark_config.py:
    226-311, dflash_utils.py:656-672); the ids stay within the oracle target's layers."""
    source = Path(path) / "config.json"
    config = json.loads(source.read_text())
    ids = list(range(1, 2 * layers, 2))
    if key == "dflash_config":
        config["dflash_config"] = {**config.get("dflash_config", {}), "target_layer_ids": ids}
    else:
        config[key] = ids
    out = Path(_LAYERED.name) / f"{Path(path).name}-{key}-{layers}"
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(config))
    return str(out)


_LAYERED = tempfile.TemporaryDirectory(prefix="graphfit-dspark-layered-")


@st.composite
def compact_lines(draw: st.DrawFn) -> tuple[tuple[str, ...], float | None]:
    """The generated DSPARK lines (sglang_dspark_compare.dspark_lines) under
    SGLANG_RAGGED_VERIFY_MODE=compact (any other ragged value on the line dropped); on half
    the lines with a local draft, that draft names its target layer ids (under one of
    SGLang's three keys), which size the epilogue's strided hidden."""
    argv, gb = draw(kc.dspark_lines())
    env, flags = bd.split_env(argv)
    env[VAR] = "compact"
    flags = list(flags)
    if "--speculative-draft-model-path" in flags and draw(st.booleans()):
        at = flags.index("--speculative-draft-model-path") + 1
        if (Path(flags[at]) / "config.json").is_file():
            flags[at] = layered_draft(flags[at], draw(st.sampled_from(LAYER_KEYS)),
                                      draw(st.integers(1, 6)))
    return (*(f"{k}={v}" for k, v in env.items()), *flags), gb
