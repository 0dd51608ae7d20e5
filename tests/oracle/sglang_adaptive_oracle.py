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

import dataclasses
import math
from typing import Any

from graphfit.planner.core.dtypes import itemsize
from tests.oracle import sglang_oracle as so

HIDDEN, VOCAB = 4096, 128256  # the oracle model's sizes (sglang_stubs.write_model_dir)


def states(r: so.Resolved, device: str = "meta") -> dict[int, dict[str, so.Runner]] | None:
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
        build = _builder(r, device)
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


def _builder(r: so.Resolved, device: str = "meta") -> Any:
    def build() -> dict[str, so.Runner]:
        if r.decode_backend == "disabled":
            return {}
        return so._runners(r, so.DEFAULT_TOKEN_CAPACITY, HIDDEN, VOCAB, device)
    return build


class StateView:
    """graphfit's plan restricted to one adaptive state, its components under their plain
    names (`target.s5` -> `target`): what sglang_compare's functions read of a plan."""

    def __init__(self, plan: Any, suffix: str) -> None:
        self._plan, self._suffix = plan, suffix
        self.config = plan.config
        names = {f"{base}{suffix}": base for base in ("target", "drafter", "draft_extend")}
        # a shared buffer shows the view this runner reads (its own rows, the engine's
        # formula); the one tensor's size is compare_sharing's
        self.components = {names[n]: dataclasses.replace(c, buffers=tuple(
            dataclasses.replace(b, capacity=self._view(n, b)) if b.shared else b
            for b in c.buffers)) for n, c in plan.components.items() if n in names}

    def _view(self, component: str, b: Any) -> int:
        """The rows of `b` this runner reads: its reference, except a draft-extend logits
        view of a vocabulary of its own, whose reference is the whole (max_rows, vocab)
        tensor (graphfit.planner.engines.sglang_shared.draft_logits_rows): SGLang's view is
        the runner's max_bs rows (eagle_draft_extend_cuda_graph_runner.py:249-253)."""
        if (component.split(".")[0] == "draft_extend" and b.name == "next_token_logits_buffer"
                and b.spec.trailing != (self.config.vocab_size,)):
            return max(self._plan.graph_sizes(component), default=0)
        return int(b.reference_capacity)

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
        diffs["sharing"] = [sc.Difference("sharing", d)
                            for d in compare_sharing(plan, sg.resolved)[0]]
    for answer, gf in pairs:
        for name, found in (
                ("target_ladder", sc.compare_target_ladder(answer, gf)),
                ("padding", [d for r in ("target", "draft", "draft_extend")
                             for d in sc.compare_padding(answer, gf, r)]),
                ("draft_ladder", sc.compare_draft_ladder(answer, gf)),
                ("components", sc.compare_components(answer, gf)),
                ("buffers", sc.compare_buffers(answer, gf, extra=True)),
                ("fills", sc.compare_fills(answer, gf))):
            diffs.setdefault(name, []).extend(found)
    return diffs


# --------------------------------------------------------------------------------------------
# Which buffers SGLang shares across its runners and states (graphfit.planner.engines.
# sglang_shared), observed on SGLang's own objects
# --------------------------------------------------------------------------------------------

RUNNER_OF = {"target": "target", "drafter": "draft", "draft_extend": "draft_extend",
             # DFLASH's draft DecodeCudaGraphRunner and the multi-layer EAGLE composite
             # (issue 23, s47r: static lines only)
             "dflash_draft": "dflash_draft", "mtp_draft_extend": "mtp_draft_extend",
             "dspark_draft": "dspark_draft"}
User = tuple[int, str, str]  # (steps, SGLang runner, buffer)


@dataclasses.dataclass(frozen=True)
class Tensor:
    """One tensor SGLang allocates: its users among the modelled buffers, elements, dtype."""

    users: frozenset[User]
    numel: int
    dtype: str
    element_size: int


def shared_tensors(r: so.Resolved) -> dict[int, dict[str, so.Runner]] | None:
    """Every adaptive state's runners built with SGLang's sharing live: one
    `GraphSharedOutput` (graph_shared_output.py:16-73) of SGLang's own
    `max_decode_logits_rows` (model_runner.py:905-929, computed on the target model runner
    as ModelRunner does at start-up) and SGLang's process-wide input pool, every runner on
    one device, as on the GPU. None: adaptive is off."""
    with so.sharing(shared_output(r)):
        return states(r, device="cpu")


def shared_output(r: so.Resolved) -> Any:
    """SGLang's `GraphSharedOutput` (graph_shared_output.py:16-73) of its own
    `max_decode_logits_rows` (model_runner.py:905-929), computed on the target model runner
    as ModelRunner does at start-up (scheduler.py:1124: the target's graphs first), on the
    meta device."""
    import functools

    import torch

    with so.published(r):  # SGLang's modules import under the fake CUDA device
        from sglang.srt.model_executor.graph_shared_output import GraphSharedOutput
        from sglang.srt.model_executor.model_runner import ModelRunner
        from sglang.srt.model_executor.runner.decode_cuda_graph_runner import (
            DecodeCudaGraphRunner,
        )

        pool = so._pool_size(r, so.DEFAULT_TOKEN_CAPACITY)
        fill = so._seq_len_fill_value(r.decode_attention_backend or r.attention_backend)
        mr = so._model_runner_stub(r, pool, fill, "cpu", HIDDEN, VOCAB, draft=False)
        mr.decode_num_tokens_per_req = functools.partial(
            ModelRunner.decode_num_tokens_per_req, mr)
        mr.decode_graph_gather_requirements = functools.partial(
            DecodeCudaGraphRunner.decode_graph_gather_requirements, mr)
        rows = int(ModelRunner.max_decode_logits_rows(mr))
    return GraphSharedOutput(device=torch.device("meta"), max_rows=rows)


def _live(run: so.Runner, name: str) -> Any:
    holder = run.live if run.name == "target" else run.live.buffers
    tensor = getattr(holder, name, None)
    return tensor if tensor is not None else getattr(run.live, name, None)


def sglang_groups(built: dict[int, dict[str, so.Runner]], modelled: set[User]
                  ) -> list[Tensor]:
    """The tensors behind the modelled buffers, grouped by the storage they view."""
    roots: dict[int, tuple[Any, set[User]]] = {}
    for steps, runners in built.items():
        for run in runners.values():
            for name in run.buffers:
                user = (steps, run.name, name)
                tensor = _live(run, name)
                if user not in modelled or tensor is None:
                    continue
                root = tensor._base if tensor._base is not None else tensor
                roots.setdefault(id(root), (root, set()))[1].add(user)
    return [Tensor(frozenset(users), int(root.numel()), so._describe(root),
                   int(root.element_size())) for root, users in roots.values()]


def graphfit_groups(plan: Any, modelled: set[User]) -> list[Tensor]:
    """The same for graphfit's plan: each shared buffer, and each own buffer alone."""
    steps_of = {suffix: steps for steps, suffix in suffixes(plan).items()}

    def user(component: str, name: str) -> User:
        base, dot, tail = component.partition(".")
        return (steps_of["." + tail if dot else ""], RUNNER_OF[base], name)

    def row(spec: Any) -> int:
        return math.prod(spec.leading) * math.prod(spec.trailing)

    out = []
    for sb in plan.shared.values():
        users = frozenset(user(b.component, b.name) for b in sb.users) & modelled
        if users:
            out.append(Tensor(users, sb.reference_capacity * row(sb.users[0].spec), sb.dtype,
                              itemsize(sb.dtype)))
    for comp in plan.components.values():
        for b in comp.buffers:
            if not b.shared and comp.name.split(".")[0] in RUNNER_OF:
                u = user(comp.name, b.name)
                if u in modelled:
                    out.append(Tensor(frozenset({u}), b.reference_capacity * row(b.spec),
                                      b.dtype, itemsize(b.dtype)))
    return out


def modelled_users(plan: Any, built: dict[int, dict[str, so.Runner]]) -> set[User]:
    """(steps, runner, buffer) that both SGLang and graphfit's plan have."""
    steps_of = {suffix: steps for steps, suffix in suffixes(plan).items()}
    ours = set()
    for comp in plan.components.values():
        base, dot, tail = comp.name.partition(".")
        if base in RUNNER_OF:
            ours |= {(steps_of["." + tail if dot else ""], RUNNER_OF[base], b.name)
                     for b in comp.buffers}
    # only buffers whose tensor the runner object holds (DFLASH's sampler buffers sit on
    # the sampler, outside the runner's buffer set: their sizes are the DFLASH oracle's)
    theirs = {(steps, run.name, name) for steps, runners in built.items()
              for run in runners.values() for name in run.buffers
              if _live(run, name) is not None}
    return ours & theirs


def compare_sharing(plan: Any, r: so.Resolved, built: Any = None
                    ) -> tuple[list[str], dict[str, int]]:
    """Differences between the tensors SGLang shares (users, elements, dtype) and graphfit's
    shared buffers, and the bytes of the modelled buffers: SGLang's distinct tensors against
    graphfit's plan (each shared buffer once)."""
    built = shared_tensors(r) if built is None else built
    if built is None or not any(built.values()):
        return [], {}
    modelled = modelled_users(plan, built)
    theirs = {t.users: t for t in sglang_groups(built, modelled)}
    ours = {t.users: t for t in graphfit_groups(plan, modelled)}
    diffs = []
    for users in sorted(set(theirs) ^ set(ours), key=lambda u: sorted(u)):
        who = "SGLang" if users in theirs else "graphfit"
        if len(users) > 1:
            diffs.append(f"only {who} makes one tensor of {sorted(users)}")
    for users in set(theirs) & set(ours):
        a, b = theirs[users], ours[users]
        if len(users) > 1 and (a.numel, a.dtype) != (b.numel, b.dtype):
            diffs.append(f"{sorted(users)[0]}...: SGLang {a.numel} {a.dtype}, graphfit "
                         f"{b.numel} {b.dtype}")
    sglang_bytes = sum(t.numel * t.element_size for t in theirs.values())
    return diffs, {"sglang_bytes": sglang_bytes,
                   "shared_tensors": sum(1 for u in theirs if len(u) > 1),
                   "shared_users": sum(len(u) for u in theirs if len(u) > 1)}
