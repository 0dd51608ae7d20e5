"""The prefill component of `graphfit plan` against SGLang 0.5.23's own code, per aspect.

A line is handed to graphfit exactly as a user pastes it (`python -m sglang.launch_server
--model-path DIR ARGS`, graphfit.inputs.commandline, with the GPU memory SGLang's nvidia-smi
stub reports as graphfit's own --gpu-memory-gb), planned with `graphfit.plan`, and its
"prefill" component compared with what SGLang resolves and builds for the same line
(tests/oracle/sglang_prefill_oracle.py: its pipeline, capture filter, runner buffers and
`can_replay_locally` + `_pad_to_bucket`). Aspects:

* backend: the component exists iff SGLang builds a prefill runner, FULL graphs iff the full
  backend, PIECEWISE (breakable) otherwise;
* ladder: the component's capture sizes equal the runner's capture_num_tokens;
* dispatch: `Plan.pad(n, component="prefill", num_reqs=r)` equals SGLang's replay decision
  (padded count or eager) for token counts around every captured size and 1 / slots /
  slots + 1 requests;
* buffers: every buffer SGLang's runner allocates, by name, with SGLang's shape as graphfit's
  engine rows (`reference_capacity`) and dtype (the multimodal input_embeds / mrope_positions
  from SGLang's own ModelConfig of the model directory); graphfit's own capacity never below
  what a reachable batch needs (the plan's proof, checked too).
* fills: the padding policy of every token slot in SGLang's `build_prefill_registry` (zero)
  equals the plan's fill of that buffer.
* decode: the decode graphs are on iff SGLang's decode phase is (PD roles, attention
  backends), and the target runner's capture list is SGLang's under the same request pool
  (bounded by the KV cache with --max-total-tokens).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import graphfit
from graphfit.cli.options import resolve_values
from graphfit.inputs import commandline
from graphfit.planner.core.enums import CUDAGraphMode
from graphfit.planner.core.errors import ConfigError
from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_prefill_oracle as po

ASPECTS = ("backend", "ladder", "dispatch", "buffers", "fills", "proof", "decode")
# SGLang's registry PaddingPolicy -> graphfit FillKind value (cuda_graph_buffer_registry.py)
POLICY_TO_FILL = {"foreach_copy": "keep", "keep_pad": "keep", "zero": "zero",
                  "fill_sentinel": "sentinel", "fill_once": "keep"}


@dataclass
class Outcome:
    """One line: SGLang's refusal, graphfit's refusal, or the aspects that differ."""

    argv: tuple[str, ...]
    sglang_rejects: bool = False
    graphfit_refuses: str = ""
    prefill_on: bool = False
    diffs: dict[str, list[str]] = field(default_factory=dict)

    @property
    def compared(self) -> bool:
        return not self.sglang_rejects and not self.graphfit_refuses


def graphfit_plan(argv: tuple[str, ...], gb: float | None, model: str | None = None) -> Any:
    """graphfit's plan of the pasted line (ConfigError when it refuses it)."""
    line = ["python", "-m", "sglang.launch_server", "--model-path",
            model or str(so.oracle().model_dir), *argv]
    own = {} if gb is None else {"gpu_memory_gb": gb}
    config = resolve_values(own, environ={}, pasted=commandline.read(line)).config()
    return graphfit.plan(config)


def _probes(captured: tuple[int, ...]) -> list[int]:
    out = {1, 2, 3}
    for c in captured:
        out |= {c - 1, c, c + 1, c // 2, c // 2 + 1}
    return sorted(n for n in out if n >= 1)


def _sglang_decode_on(argv: tuple[str, ...], gb: float | None, model: str | None,
                      capability: tuple[int, int] | None = None) -> bool:
    r = so.resolve(argv, gpu_mem_gb=gb, model=model, capability=capability)
    assert isinstance(r, so.Resolved)
    return r.decode_backend != "disabled"


def compare(argv: tuple[str, ...], gb: float | None, model: str | None = None,
            capability: tuple[int, int] | None = None) -> Outcome:
    """`model`: a model directory other than the oracle's Llama one (an MLA model, a
    multimodal one); `capability`: SGLang's fake device's (a Hopper unless given)."""
    out = Outcome(argv)
    sg = po.prefill(argv, gb, model, capability)
    if isinstance(sg, so.Rejected):
        out.sglang_rejects = True
        return out
    try:
        p = graphfit_plan(argv, gb, model)
    except ConfigError as exc:
        if "not modelled" not in str(exc):  # then SGLang's server must not start either
            from tests.oracle import sglang_compare as sc

            assert sc.sglang(argv, gb).rejected is not None, str(exc)
            out.sglang_rejects = True
            return out
        out.graphfit_refuses = str(exc)
        return out
    diffs: dict[str, list[str]] = {a: [] for a in ASPECTS}
    on = sg.backend != "disabled"
    out.prefill_on = on
    comp = p.components.get("prefill")
    if (comp is not None) != on:
        diffs["backend"].append(f"SGLang prefill {sg.backend}, graphfit "
                                f"{'a prefill component' if comp else 'none'}")
    decode_on = _sglang_decode_on(argv, gb, model, capability)
    ours_decode = p.config.cudagraph_mode is not CUDAGraphMode.NONE
    if decode_on != ours_decode:
        diffs["decode"].append(f"decode graphs: SGLang {decode_on}, graphfit {ours_decode}")
    elif decode_on and model is None:  # the decode ladder under the same request pool (KV-
        # bound with --max-total-tokens): SGLang's target runner's own capture list
        from tests.oracle import sglang_compare as sc

        answer = sc.sglang(argv, gb)
        if answer.runners is not None and "target" in answer.runners:
            theirs = tuple(answer.runners["target"].capture_bs)
            if tuple(p.capture_sizes) != theirs:
                diffs["decode"].append(f"decode ladder: SGLang {theirs}, graphfit "
                                       f"{tuple(p.capture_sizes)}")
    if comp is None or not on:
        out.diffs = {k: v for k, v in diffs.items() if v}
        return out
    want_mode = CUDAGraphMode.FULL if sg.backend == "full" else CUDAGraphMode.PIECEWISE
    if {d.mode for d in comp.tables.mixed} != {want_mode}:
        diffs["backend"].append(f"SGLang {sg.backend}, graphfit modes "
                                f"{sorted(d.mode.value for d in comp.tables.mixed)}")
    if comp.tables.sizes != sg.captured:
        diffs["ladder"].append(f"SGLang {sg.captured}, graphfit {comp.tables.sizes}")
    last = max(f.last for f in comp.families)
    slots = sg.runner._capture_req_slots if sg.runner is not None else 1
    for n in _probes(sg.captured):
        if n > last:
            continue
        for reqs in sorted({1, slots, slots + 1}):
            if reqs > min(n, comp.tables.max_num_seqs):
                continue
            d = p.pad(n, component="prefill", num_reqs=reqs)
            ours = None if d.mode is CUDAGraphMode.NONE else d.padded
            theirs = sg.pad(n, reqs)
            if ours != theirs:
                diffs["dispatch"].append(f"{n} tokens, {reqs} requests: SGLang {theirs}, "
                                         f"graphfit {ours}")
    planned = po.planned_buffers(comp)
    if planned != sg.buffers:
        diffs["buffers"].append(f"SGLang {sg.buffers}, graphfit {planned}")
    fills = {b.name: b.fill.kind.value for b in comp.buffers}
    for name, policy in sg.fills.items():  # the token slots SGLang's registry pads
        if name in fills and fills[name] != POLICY_TO_FILL.get(policy):
            diffs["fills"].append(f"{name}: SGLang pads with {policy}, graphfit "
                                  f"{fills[name]}")
    if not p.verify().ok:
        diffs["proof"].append("graphfit's own plan does not verify")
    out.diffs = {k: v for k, v in diffs.items() if v}
    return out
