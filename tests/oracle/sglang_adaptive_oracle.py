"""SGLang 0.5.23's adaptive speculation as an oracle: its runtime states, built by its own code.

`states(resolved)` -> `{steps: {runner name: Runner}}` or None when SGLang turned adaptive
speculation off. It does what `EAGLEWorkerV2.init_cuda_graphs` does (eagle_worker_v2.py:
1387-1414) with SGLang's own objects: `AdaptiveSpeculativeParams` (adaptive_spec_params.py:
253-335) fed the resolved decode list (`set_cuda_graph_bs`), the start-up runners for the
initial step, then for every other candidate the very overrides `_override_worker_state`
applies (eagle_worker_v2.py:1909-1951: steps, draft tokens = steps + 1, the pruned
`cuda_graph_bs_for_step` list, graphs off when it is empty) before building that state's runners
with the oracle's runner constructors (sglang_oracle._runners: SGLang's allocators and runner
classes, capture stubbed). The overrides are restored after each state (:1965-1976).

`StateView(plan, suffix)` shows graphfit's plan of one state under SGLang's runner names, so
the comparisons of sglang_compare apply to each state unchanged.
"""

from __future__ import annotations

from typing import Any

from tests.oracle import sglang_oracle as so


def states(r: so.Resolved) -> dict[int, dict[str, so.Runner]] | None:
    """SGLang's adaptive runtime states (module docstring); None: adaptive is off."""
    from sglang.srt.model_executor.cuda_graph_config import check_cuda_graph_backend
    from sglang.srt.runtime_context import get_context, get_exec, get_spec
    from sglang.srt.speculative.adaptive_spec_params import AdaptiveSpeculativeParams

    with so.published(r):
        spec = get_spec()
        if not spec.speculative_adaptive:
            return None
        start = int(spec.speculative_num_steps)
        params = AdaptiveSpeculativeParams(initial_steps=start,
                                           cfg_path=spec.speculative_adaptive_config)
        disabled = check_cuda_graph_backend("decode", "disabled")
        params.set_cuda_graph_bs(None if disabled else get_exec().graph.cuda_graph_bs_decode)
        build = _builder(r)
        out = {start: build()}
        for steps in params.candidate_steps:
            if steps in out:
                continue
            pruned = params.cuda_graph_bs_for_step(steps)
            saved = (spec.speculative_num_steps, spec.speculative_num_draft_tokens,
                     get_exec().graph.cuda_graph_bs_decode,
                     get_exec().graph.disable_cuda_graph)
            context = get_context()
            context.override("adaptive_spec.capture_override", speculative_num_steps=steps,
                             speculative_num_draft_tokens=steps + 1)
            if pruned is not None:
                context.override("adaptive_spec.capture_override", cuda_graph_bs_decode=pruned,
                                 **({"disable_cuda_graph": True} if not pruned else {}))
            try:
                # the runners' own condition (eagle_worker_v2.py:481, 1812) on the overridden
                # record; they read cuda_graph_config.decode.bs (base_cuda_graph_runner.py:77)
                graphs = not check_cuda_graph_backend("decode", "disabled")
                out[steps] = build() if graphs else {}
            finally:
                context.override("adaptive_spec.capture_restore",
                                 speculative_num_steps=saved[0],
                                 speculative_num_draft_tokens=saved[1],
                                 cuda_graph_bs_decode=saved[2], disable_cuda_graph=saved[3])
        return out


def _builder(r: so.Resolved) -> Any:
    def build() -> dict[str, so.Runner]:
        if r.decode_backend == "disabled":
            return {}
        return so._runners(r, so.DEFAULT_TOKEN_CAPACITY, 4096, 128256, "meta")
    return build


class StateView:
    """graphfit's plan restricted to one adaptive state, its components under their plain
    names (`target.s5` -> `target`): what sglang_compare's functions read of a plan."""

    def __init__(self, plan: Any, suffix: str) -> None:
        self._plan, self._suffix = plan, suffix
        self.config = plan.config
        names = {f"{base}{suffix}": base for base in ("target", "drafter", "draft_extend")}
        self.components = {names[n]: c for n, c in plan.components.items() if n in names}

    @property
    def capture_sizes(self) -> tuple[int, ...]:
        return tuple(self._plan.graph_sizes(f"target{self._suffix}"))

    def graph_sizes(self, component: str) -> Any:
        return self._plan.graph_sizes(f"{component}{self._suffix}")

    def pad(self, num_tokens: int, *, uniform_decode: bool = False, component: str = "target"
            ) -> Any:
        return self._plan.pad(num_tokens, uniform_decode=uniform_decode,
                              component=f"{component}{self._suffix}")


def suffixes(plan: Any) -> dict[int, str]:
    """graphfit's adaptive states: steps -> component suffix ("" for the start-up set)."""
    out = {int(plan.config.num_speculative_tokens): ""}
    for name in plan.components:
        base, _, tail = name.partition(".s")
        if base == "target" and tail:
            out[int(tail)] = f".s{tail}"
    return out


def compare(argv: tuple[str, ...], gpu_mem_gb: float | None = 80) -> dict[str, list[Any]]:
    """SGLang's adaptive states against graphfit's plan of the same pasted line (read by
    graphfit's CLI): acceptance, which states exist, then per state the ladders, padding of
    every batch, components, buffer shapes / dtypes and fills (sglang_compare)."""
    import json

    from tests.oracle import sglang_compare as sc

    sg = sc.sglang(argv, gpu_mem_gb)
    from tests.helpers import run_cli

    gpu = ("--gpu-memory-gb", f"{gpu_mem_gb:g}") if gpu_mem_gb is not None else ()
    code, out, text = run_cli(["plan", "--json", *gpu, "--", "python", "-m",
                               "sglang.launch_server", "--model-path",
                               str(so.oracle().model_dir), *argv])
    gf_rejected = None if code == 0 else (text.strip().splitlines() or [f"exit {code}"])[-1]
    diffs: dict[str, list[Any]] = {"acceptance": sc.compare_acceptance(
        sg, sc.GraphfitAnswer(argv, gf_rejected))}
    if sg.rejected is not None or gf_rejected is not None:
        return diffs
    assert isinstance(sg.resolved, so.Resolved)
    plan = sc.graphfit.plan(sc.EngineConfig.from_dict(json.loads(out)["config"]))
    sglang_states = states(sg.resolved)
    if sglang_states is None:  # SGLang turned it off: graphfit plans the static line
        ours = {"": sg}
        theirs = {"": ""} if not plan.config.speculative_adaptive else suffixes(plan)
        diffs["states"] = ([] if len(theirs) == 1 else [sc.Difference(
            "states", f"SGLang runs static parameters; graphfit plans {len(theirs)} sets")])
        pairs = [(sg, sc.GraphfitAnswer(argv, None, plan))]
    else:
        gf_states = suffixes(plan) if plan.config.speculative_adaptive else {
            int(plan.config.num_speculative_tokens): ""}
        if not any(sglang_states.values()):  # graphs off: no state captures anything
            sglang_states = {s: {} for s in gf_states}
        diffs["states"] = ([] if set(gf_states) == set(sglang_states) else [sc.Difference(
            "states", f"SGLang steps {sorted(sglang_states)}, graphfit {sorted(gf_states)}")])
        ours = {gf_states[s]: sc.SglangAnswer(sg.resolved, sglang_states[s])
                for s in sglang_states if s in gf_states}
        pairs = [(answer, sc.GraphfitAnswer(argv, None, StateView(plan, suffix)))
                 for suffix, answer in ours.items()]
    for answer, gf in pairs:
        for name, found in (
                ("target_ladder", sc.compare_target_ladder(answer, gf)),
                ("padding", [d for r in ("target", "draft", "draft_extend")
                             for d in sc.compare_padding(answer, gf, r)]),
                ("draft_ladder", sc.compare_draft_ladder(answer, gf)),
                ("components", sc.compare_components(answer, gf)),
                ("buffers", sc.compare_buffers(answer, gf)),
                ("fills", sc.compare_fills(answer, gf))):
            diffs.setdefault(name, []).extend(found)
    return diffs
