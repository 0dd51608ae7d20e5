"""Compare SGLang 0.5.23 (tests/oracle/sglang_oracle.py) with graphfit's public API.

Two ways to hand graphfit a config:

* CLI level (`graphfit_cli`): the very argv given to `sglang serve`, read by graphfit's own
  CLI (`graphfit plan --json ARGV`, graphfit/cli/options.py + graphfit/inputs/sglang.py),
  with the two inputs SGLang takes from outside its argv spelled as graphfit flags: the
  model directory the oracle passes as `--model-path` (its config.json) and the GPU memory
  the oracle's fake nvidia-smi reports (`--gpu-memory-gb`). This checks the flags, the
  defaults and which command lines are rejected.
* Model level (`graphfit_translated`): SGLang's *resolved* values (S, decode max_bs or bs list,
  padding, speculative algorithm / steps / topk / draft tokens, TP / attention DP / CP, two-
  batch overlap) spelled with graphfit's flags. This isolates the ladder, padding and buffer
  model from the CLI.

Every `compare_*` returns a list of `Difference`s (empty: agreement). `SHORT` marks a buffer
graphfit would allocate with fewer rows (or elements) than SGLang's graphs touch.
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import graphfit
from graphfit import CUDAGraphMode, EngineConfig
from tests.oracle import sglang_oracle as so

# SGLang runner -> graphfit component
GF_COMPONENT = {"target": "target", "draft": "drafter", "draft_extend": "draft_extend",
                "mtp_draft_extend": "mtp_draft_extend", "frozen_drafter": "frozen_drafter",
                "dflash_draft": "dflash_draft", "dspark_draft": "dspark_draft"}
# SGLang registry PaddingPolicy -> graphfit FillKind value
POLICY_TO_FILL = {"foreach_copy": "keep", "keep_pad": "keep", "zero": "zero",
                  "fill_sentinel": "sentinel", "fill_once": "keep"}
# What the EAGLE draft runner's replay does to each buffer's padded tail
# (eagle_draft_cuda_graph_runner.py:590-606; input_ids is never copied in: the graph
# computes it from topk_index; seq_lens_cpu :660-662). A sentinel is the attention
# backend's seq_len fill value unless named otherwise (SENTINEL_VALUES).
DRAFT_FILLS = {"seq_lens": "sentinel", "seq_lens_cpu": "sentinel", "out_cache_loc": "zero",
               "positions": "zero", "topk_p": "zero", "topk_index": "zero",
               "hidden_states": "zero", "req_pool_indices": "zero", "input_ids": "keep",
               "mrope_positions": "keep", "extend_seq_lens": "keep"}
# The draft-extend runner's (eagle_draft_extend_cuda_graph_runner.py:528-535): input_ids,
# hidden_states, select_index keep the previous replay's tail.
DRAFT_EXTEND_FILLS = {"seq_lens": "sentinel", "seq_lens_cpu": "sentinel",
                      "out_cache_loc": "zero", "positions": "zero", "req_pool_indices": "zero",
                      "num_correct_drafts": "sentinel", "num_accept_tokens": "sentinel",
                      "extend_seq_lens": "sentinel", "input_ids": "keep",
                      "hidden_states": "keep", "select_index": "keep",
                      "mrope_positions": "keep", "next_token_logits_buffer": "keep"}
# The multi-layer EAGLE composite runner's: what SGLang's own prepare kernel leaves in the
# padded tail, observed by running it (sglang_oracle.mtp_padding_fills), plus what `prepare`
# does outside the kernel (multi_layer_eagle_draft_extend_cuda_graph_runner.py:895-898:
# seq_lens_cpu refilled; mrope_positions, extend_seq_lens, extend_start_loc and the logits
# are never written by prepare). "computed" (select_index) is not compared.
MTP_PREPARE_FILLS = {"seq_lens_cpu": "sentinel", "mrope_positions": "keep",
                     "extend_seq_lens": "keep", "extend_start_loc": "keep",
                     "next_token_logits_buffer": "keep"}


@functools.cache
def mtp_fills(width: int, fill: int) -> dict[str, str]:
    observed = so.mtp_padding_fills(width, fill)
    return {**MTP_PREPARE_FILLS, **{k: v for k, v in observed.items() if v != "computed"}}


def frozen_fills(run: so.Runner) -> dict[str, str]:
    """The FROZEN_KV_MTP draft loop's padded tail, observed by running SGLang's own `execute`
    on the first batch size it pads (none: nothing to compare)."""
    key = (run.width, run.capture_bs, run.seq_len_fill_value)
    if key not in _FROZEN_FILLS:
        padded = [bs for bs in range(1, run.max_bs) if so.pad_to_bucket(bs, run.capture_bs)
                  != bs]
        observed = so.frozen_padding_fills(run, padded[0]) if padded else {}
        _FROZEN_FILLS[key] = {k: v for k, v in observed.items() if v != "computed"}
    return _FROZEN_FILLS[key]


_FROZEN_FILLS: dict[tuple[int, tuple[int, ...], int], dict[str, str]] = {}
SGLANG_FILLS = {"draft": DRAFT_FILLS, "draft_extend": DRAFT_EXTEND_FILLS}
# sentinels that are not the seq_len fill value: the draft-extend runner fills these with its
# width, captured_req_width (eagle_draft_extend_cuda_graph_runner.py:542-544)
WIDTH_SENTINELS = {("draft_extend", "num_correct_drafts"), ("draft_extend", "num_accept_tokens"),
                   ("draft_extend", "extend_seq_lens")}


@dataclass(frozen=True)
class Difference:
    aspect: str
    detail: str
    short: bool = False

    def __str__(self) -> str:
        return f"[{self.aspect}]{' SHORT' if self.short else ''} {self.detail}"


@dataclass(frozen=True)
class GraphfitAnswer:
    argv: tuple[str, ...]
    rejected: str | None
    plan: Any = None  # graphfit.Plan


@dataclass(frozen=True)
class SglangAnswer:
    resolved: so.Resolved | so.Rejected
    runners: dict[str, so.Runner] | None
    runner_error: str | None = None

    @property
    def rejected(self) -> str | None:
        if isinstance(self.resolved, so.Rejected):
            return self.resolved.text
        return self.runner_error

    @property
    def max_requests(self) -> int:
        """Requests a decode batch can hold: the request pool the runners were clamped to."""
        assert self.runners is not None
        pools = [r.pool_size for r in self.runners.values()]
        if pools:
            return pools[0]
        r = self.resolved
        assert isinstance(r, so.Resolved)
        return r.max_running_requests or r.decode_max_bs


@functools.lru_cache(maxsize=4096)
def sglang(argv: tuple[str, ...], gpu_mem_gb: float | None = 80) -> SglangAnswer:
    resolved = so.resolve(argv, gpu_mem_gb=gpu_mem_gb)
    if isinstance(resolved, so.Rejected):
        return SglangAnswer(resolved, None)
    try:
        return SglangAnswer(resolved, so.runners(resolved))
    except Exception as exc:  # the server would not start: get_batch_sizes_to_capture's
        # empty-list assertion, or a runner crashing on a value resolution left unset
        return SglangAnswer(resolved, None, f"{type(exc).__name__}: {exc}")


@functools.lru_cache(maxsize=1)
def _command() -> Any:
    """graphfit's click command, built once (typer rebuilds it on every `invoke(app)`)."""
    import typer

    from graphfit.cli import app

    return typer.main.get_command(app)


def outside_inputs(gpu_mem_gb: float | None) -> tuple[str, ...]:
    """What SGLang reads from outside its argv, as graphfit flags: the oracle's model
    directory (config.json) and the GPU memory its nvidia-smi stub reports."""
    out = ("--model-path", str(so.oracle().model_dir))
    if gpu_mem_gb is not None:
        out += ("--gpu-memory-gb", f"{gpu_mem_gb:g}")
    return out


@functools.lru_cache(maxsize=4096)
def graphfit_cli(argv: tuple[str, ...], gpu_mem_gb: float | None = None) -> GraphfitAnswer:
    """`graphfit plan --json ARGV`: graphfit's CLI reading of an SGLang command line (with
    the outside inputs appended)."""
    code, stdout, output = run_graphfit(["plan", "--json", *argv, *outside_inputs(gpu_mem_gb)])
    if code != 0:
        lines = [ln.strip(" │╭╰─") for ln in output.splitlines() if ln.strip(" │╭╰─")]
        errors = [ln for ln in lines if "error" in ln.lower() or "No such option" in ln]
        return GraphfitAnswer(argv, (errors or lines or [f"exit {code}"])[-1])
    config = EngineConfig.from_dict(json.loads(stdout)["config"])
    return GraphfitAnswer(argv, None, graphfit.plan(config))


def run_graphfit(args: list[str]) -> tuple[int, str, str]:
    """(exit code, stdout, stdout + stderr) of `graphfit ARGS`, as `graphfit.cli.main` runs
    it, on a click command built once (typer would rebuild it on every call)."""
    import io
    from contextlib import redirect_stderr, redirect_stdout

    import typer

    from graphfit.cli.application import _CLICK_ERROR

    out, err = io.StringIO(), io.StringIO()
    code = 0
    with redirect_stdout(out), redirect_stderr(err):
        try:
            returned = _command().main(args=args, prog_name="graphfit", standalone_mode=False)
            code = returned if isinstance(returned, int) else 0  # click returns Exit's code
        except _CLICK_ERROR as exc:
            print(f"error: {' '.join(exc.format_message().split())}",  # type: ignore[attr-defined]
                  file=sys.stderr)
            code = 2
        except typer.Exit as exc:
            code = exc.exit_code
    return code, out.getvalue(), out.getvalue() + err.getvalue()


def translated_argv(answer: SglangAnswer) -> tuple[str, ...]:
    """SGLang's resolved decode-graph inputs, spelled with graphfit's flags.

    max_running_requests is SGLang's resolved value; without one (no speculation, none given)
    it is the request pool SGLang sized from the KV cache, per attention-DP group.
    """
    r = answer.resolved
    assert isinstance(r, so.Resolved)
    S = r.max_running_requests
    if S is None:
        S = answer.max_requests * max(1, r.attn_dp_size)
    argv = ["--max-running-requests", str(S)]
    if r.decode_backend == "disabled":
        # both phases off is what SGLang's `cuda_graph_fully_disabled` asks (the FROZEN_KV_MTP
        # draft loop captures unless it holds)
        argv.append("--disable-cuda-graph" if r.prefill_backend == "disabled"
                    else "--disable-decode-cuda-graph")
    if any(a.startswith("--cuda-graph-bs-decode") for a in r.argv) or "bs" in _json_decode(r):
        argv += ["--cuda-graph-bs-decode", *map(str, sorted(set(r.decode_bs)))]
    else:
        argv += ["--cuda-graph-max-bs-decode", str(r.decode_max_bs)]
    if r.disable_cuda_graph_padding:
        argv.append("--disable-cuda-graph-padding")
    if r.speculative_algorithm:
        argv += ["--speculative-algorithm", r.speculative_algorithm]
        for flag, value in (("--speculative-eagle-topk", r.speculative_eagle_topk),
                            ("--speculative-num-draft-tokens",
                             r.speculative_num_draft_tokens)):
            if value is not None:  # FROZEN_KV_MTP resolves none of them
                argv += [flag, str(value)]
        if r.speculative_num_steps:
            argv += ["--speculative-num-steps", str(r.speculative_num_steps)]
    argv += ["--tp-size", str(r.tp_size), "--attn-dp-size", str(r.attn_dp_size),
             "--attn-cp-size", str(r.attn_cp_size)]
    if r.enable_two_batch_overlap:
        # with the a2a backend SGLang resolved: its check_server_args needs one or attention
        # DP (validation_hook.py:756-772; issue 23 s66b)
        from sglang.srt.arg_groups.overrides import resolving_view

        a2a = resolving_view(r.record).moe_a2a_backend
        argv += [*(("--moe-a2a-backend", a2a) if a2a != "none" else ()),
                 "--enable-two-batch-overlap"]
    if _dp_lm_head(r):  # DFLASH / DSPARK under attention DP need it (speculative_hook.py)
        argv.append("--enable-dp-lm-head")
    if r.enable_multi_layer_eagle:
        argv.append("--enable-multi-layer-eagle")
    return tuple(argv) + backend_argv(r) + _overridden_model(r)


def _overridden_model(r: so.Resolved) -> tuple[str, ...]:
    """graphfit's flags carry no `--json-model-override-args` and name the oracle's model
    directory (`outside_inputs`): the target's hidden size and vocabulary SGLang's ModelConfig
    holds (configs/model_config.py:612-626, the runners' sizes, decode_cuda_graph_runner.py:
    474-476; sglang_oracle._target_sizes) as --hidden-size / --vocab-size when override args
    are applied or the line's model is sized apart from the oracle's (issue 23 s69k: a
    Qwen3-MoE target); nothing otherwise (the model directory's own values)."""
    from sglang.srt.arg_groups.model_override_base import model_config_of

    overridden = bool(json.loads(getattr(r.record, "json_model_override_args", None) or "{}"))
    mc = model_config_of(r.record)
    sizes = (int(mc.hidden_size), int(mc.vocab_size))
    if not overridden and sizes == (so.DEFAULT_HIDDEN, so.DEFAULT_VOCAB):
        return ()
    return ("--hidden-size", str(sizes[0]), "--vocab-size", str(sizes[1]))


def _dp_lm_head(r: so.Resolved) -> bool:
    """SGLang's resolved `enable_dp_lm_head` (off again with one DP rank, overrides.py:
    1366-1370)."""
    from sglang.srt.arg_groups.overrides import resolving_view

    return bool(resolving_view(r.record).enable_dp_lm_head)


def backend_argv(r: so.Resolved) -> tuple[str, ...]:
    """The resolved attention backends whose seq_lens fills pad the runners
    (graphfit.planner.engines.sglang_seq_len_fill), spelled with graphfit's flags: the
    target's decode backend, the draft runner's own, and the draft-extend backend
    (`attention_backends_of`, model_override_base.py:138-152; draft_utils.py:47-66,
    145-149)."""
    record = r.record
    base = r.attention_backend
    decode = r.decode_attention_backend or base
    draft = getattr(record, "speculative_draft_attention_backend", None)
    out: list[str] = []
    if decode:
        out += ["--decode-attention-backend", decode]
    if not r.speculative_algorithm:
        return tuple(out)
    if draft:
        out += ["--draft-attention-backend", draft]
    mode = getattr(record, "speculative_attention_mode", None)
    extend = draft or (decode if mode == "decode"
                       else getattr(record, "prefill_attention_backend", None) or base)
    if extend:
        out += ["--mtp-draft-backend", extend]
    return tuple(out)


def _json_decode(r: so.Resolved) -> dict[str, Any]:
    for i, a in enumerate(r.argv):
        if a == "--cuda-graph-config" and i + 1 < len(r.argv):
            return dict(json.loads(r.argv[i + 1]).get("decode", {}))
    return {}


def graphfit_translated(answer: SglangAnswer) -> GraphfitAnswer:
    return graphfit_cli(translated_argv(answer), None)


# ---------------------------------------------------------------------------------------
# Aspects
# ---------------------------------------------------------------------------------------

def compare_acceptance(sg: SglangAnswer, gf: GraphfitAnswer) -> list[Difference]:
    if (sg.rejected is None) == (gf.rejected is None):
        return []
    if sg.rejected is not None:
        return [Difference("acceptance", f"SGLang rejects ({sg.rejected[:160]}); graphfit "
                                         f"accepts {' '.join(gf.argv)}")]
    return [Difference("acceptance", f"SGLang accepts; graphfit rejects ({gf.rejected})")]


def settled_by_acceptance(sg: SglangAnswer, gf: GraphfitAnswer
                          ) -> tuple[str, list[Difference]] | None:
    """The outcome of a line when acceptance alone settles it: ("differs", the acceptance
    difference) when one side refuses and the other plans, ("rejected", []) when both
    refuse; None when both plan (the caller compares the plans)."""
    diffs = compare_acceptance(sg, gf)
    if diffs:
        return "differs", diffs
    if sg.rejected is not None:
        return "rejected", []
    return None


def report(summary: str, shown: list[str], counts: Mapping[str, int]) -> int:
    """Print a measurement's summary line and its shown differences; the exit status: 1
    when any line differs (`counts["differs"]`), else 0."""
    print(summary)
    for line in shown:
        print("  ", line)
    return 1 if counts["differs"] else 0


def _gf_graphs(gf: GraphfitAnswer) -> bool:
    return gf.plan is not None and gf.plan.config.cudagraph_mode is not CUDAGraphMode.NONE


def compare_target_ladder(sg: SglangAnswer, gf: GraphfitAnswer) -> list[Difference]:
    assert sg.runners is not None and gf.plan is not None
    ours = tuple(sg.runners["target"].capture_bs) if "target" in sg.runners else ()
    theirs = tuple(gf.plan.capture_sizes) if _gf_graphs(gf) else ()
    if ours == theirs:
        return []
    return [Difference("target_ladder", f"SGLang {_short(ours)} vs graphfit {_short(theirs)}",
                       short=bool(ours) and (not theirs or max(theirs) < max(ours)))]


def _short(sizes: tuple[int, ...]) -> str:
    if len(sizes) <= 12:
        return str(list(sizes))
    return f"[{', '.join(map(str, sizes[:6]))}, ..., {', '.join(map(str, sizes[-4:]))}] " \
           f"({len(sizes)})"


def sglang_decode_pad(runner: so.Runner, bs: int, padding: bool) -> int | None:
    """Batch size SGLang replays a decode of `bs` requests at; None: eager.

    can_run_graph: bs <= max_bs with padding, an exact captured size without
    (decode_cuda_graph_runner.py:886-890); the padded size is `_pad_to_bucket`.
    """
    if not padding:
        return bs if bs in runner.capture_bs else None
    if bs > runner.max_bs:
        return None
    return so.pad_to_bucket(bs, runner.capture_bs)


def graphfit_decode_pad(plan: Any, component: str, width: int, bs: int) -> int | None:
    d = plan.pad(bs * width, uniform_decode=True, component=component)
    if d.mode is CUDAGraphMode.NONE:
        return None
    return d.num_reqs if d.num_reqs is not None else d.padded // width


def compare_padding(sg: SglangAnswer, gf: GraphfitAnswer, runner: str = "target"
                    ) -> list[Difference]:
    assert sg.runners is not None and gf.plan is not None
    r = sg.resolved
    assert isinstance(r, so.Resolved)
    if runner not in sg.runners:
        return []
    run = sg.runners[runner]
    component = GF_COMPONENT[runner]
    if component not in gf.plan.components or not _gf_graphs(gf):
        return [Difference(f"{runner}_padding", f"graphfit has no {component} graphs")]
    gf_width = gf.plan.components[component].tables.uniform_query_len
    if gf_width != run.width:
        return [Difference(f"{runner}_padding", f"width: SGLang {run.width} tokens per "
                                                f"request, graphfit {gf_width}")]
    capacity = min((b.capacity for b in gf.plan.components[component].buffers
                    if b.axis.value == "requests"), default=0)
    diffs: list[Difference] = []
    for bs in range(1, sg.max_requests + 1):
        ours = sglang_decode_pad(run, bs, not r.disable_cuda_graph_padding)
        theirs = graphfit_decode_pad(gf.plan, component, gf_width, bs)
        if ours != theirs:
            diffs.append(Difference(f"{runner}_padding",
                                    f"bs {bs}: SGLang {ours or 'eager'}, graphfit "
                                    f"{theirs or 'eager'}",
                                    short=ours is not None and ours > capacity))
    return diffs


def compare_components(sg: SglangAnswer, gf: GraphfitAnswer) -> list[Difference]:
    assert sg.runners is not None and gf.plan is not None
    ours = {GF_COMPONENT.get(n, n) for n in sg.runners}
    theirs = set(gf.plan.components) if _gf_graphs(gf) else set()
    # the prefill runner is compared on the very line by sglang_plan_prefill (here graphfit
    # is given SGLang's resolved decode values only)
    theirs.discard("prefill")
    # a component that captures nothing is no graph runner: an eager draft's load-time
    # buffers (DFLASH's LiLiCorr head under attention DP, sglang_spec_dp)
    theirs = {n for n in theirs if n != "dflash_draft" or gf.plan.graph_sizes(n)}
    out = []
    for name in sorted(ours - theirs):
        out.append(Difference("components", f"SGLang builds runner {name}; graphfit has none"))
    for name in sorted(theirs - ours):
        out.append(Difference("components", f"graphfit plans {name}; SGLang builds no such "
                                            f"graph runner"))
    return out


def compare_draft_ladder(sg: SglangAnswer, gf: GraphfitAnswer) -> list[Difference]:
    assert sg.runners is not None and gf.plan is not None
    out = []
    for name in ("draft", "draft_extend", "mtp_draft_extend", "frozen_drafter",
                 "dflash_draft", "dspark_draft"):
        if name not in sg.runners:
            continue
        ours = tuple(sg.runners[name].capture_bs)
        component = GF_COMPONENT[name]
        theirs = (tuple(gf.plan.graph_sizes(component))
                  if _gf_graphs(gf) and component in gf.plan.components else ())
        if ours != theirs:
            out.append(Difference(f"{name}_ladder",
                                  f"SGLang {_short(ours)} vs graphfit {_short(theirs)}"))
    return out


def _rows(buf: so.Buffer) -> int:
    """Rows along the batch axis (mrope_positions is [3, tokens])."""
    return buf.shape[1] if buf.name == "mrope_positions" else buf.shape[0]


def _numel(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def compare_buffers(sg: SglangAnswer, gf: GraphfitAnswer, *, extra: bool = False
                    ) -> list[Difference]:
    """Every SGLang buffer that scales with the batch against graphfit's of the same name;
    `extra`: also every buffer graphfit plans that SGLang's runner lacks
    (`compare_extra_buffers`), for the oracles where graphfit plans none (opt-in: the
    oracles left off, and why, are listed in docs/engines/sglang-coverage.md, s49c)."""
    assert sg.runners is not None and gf.plan is not None
    out: list[Difference] = compare_extra_buffers(sg, gf) if extra else []
    for runner_name, run in sg.runners.items():
        component = GF_COMPONENT.get(runner_name, runner_name)
        planned = ({b.name: b for b in gf.plan.components[component].buffers}
                   if _gf_graphs(gf) and component in gf.plan.components else {})
        for buf in run.buffers.values():
            if buf.axis in ("none", "fixed"):
                continue
            aspect = f"{runner_name}_buffers"
            theirs = planned.get(buf.name)
            if theirs is None:
                out.append(Difference(aspect, f"{component}.{buf.name} {list(buf.shape)} "
                                              f"{buf.dtype}: graphfit plans no such buffer",
                                      short=True))
                continue
            # a shared buffer: the view this runner reads, its own reference rows (a
            # draft-vocab logits view's reference is the whole tensor, and
            # sglang_adaptive_oracle.StateView gives the view as its capacity); the one
            # tensor's size is sglang_adaptive_oracle.compare_sharing's
            rows = (min(theirs.capacity, theirs.reference_capacity) if theirs.shared
                    else theirs.capacity)
            shape = (*theirs.spec.leading, rows, *theirs.spec.trailing)
            if shape != buf.shape:
                short = _numel(shape) < _numel(buf.shape) or (
                    len(shape) == len(buf.shape) and rows < _rows(buf))
                out.append(Difference(aspect, f"{component}.{buf.name} shape: SGLang "
                                              f"{list(buf.shape)}, graphfit "
                                              f"{list(shape)}", short=short))
            if theirs.dtype != buf.dtype:
                out.append(Difference(aspect, f"{component}.{buf.name} dtype: SGLang "
                                              f"{buf.dtype}, graphfit {theirs.dtype}"))
    return out


def compare_extra_buffers(sg: SglangAnswer, gf: GraphfitAnswer) -> list[Difference]:
    """The other direction of `compare_buffers`, opt-in: every buffer graphfit plans that
    scales with the batch (tokens or requests) in a component SGLang runs a graph for, and
    that SGLang's runner has under no name. Such a buffer costs memory SGLang never
    allocates, an over-estimate `compare_buffers` cannot see. Components without an SGLang
    runner are `compare_components`' business; shared buffers are compared by name like
    the others (a buffer SGLang shares is still allocated in some runner)."""
    assert sg.runners is not None and gf.plan is not None
    if not _gf_graphs(gf):
        return []
    out: list[Difference] = []
    for runner_name, run in sg.runners.items():
        component = GF_COMPONENT.get(runner_name, runner_name)
        if component not in gf.plan.components:
            continue
        for theirs in gf.plan.components[component].buffers:
            if theirs.axis.value == "fixed" or theirs.name in run.buffers:
                continue
            out.append(Difference(f"{runner_name}_extra_buffers",
                                  f"{component}.{theirs.name} {list(theirs.shape)} "
                                  f"{theirs.dtype}: SGLang's runner has no such buffer"))
    return out


def sglang_fill(runner_name: str, buf: so.Buffer, run: so.Runner | None = None
                ) -> str | None:
    if runner_name in ("target", "dflash_draft", "dspark_draft"):  # DecodeCudaGraphRunner's
        return POLICY_TO_FILL.get(buf.policy or "")
    if runner_name == "mtp_draft_extend":
        assert run is not None
        return mtp_fills(run.width, run.seq_len_fill_value).get(buf.name)
    if runner_name == "frozen_drafter":
        assert run is not None
        return frozen_fills(run).get(buf.name)
    return SGLANG_FILLS[runner_name].get(buf.name)


def compare_fills(sg: SglangAnswer, gf: GraphfitAnswer) -> list[Difference]:
    assert sg.runners is not None and gf.plan is not None
    out: list[Difference] = []
    for runner_name, run in sg.runners.items():
        component = GF_COMPONENT.get(runner_name)
        if component is None or not _gf_graphs(gf) or component not in gf.plan.components:
            continue
        planned = {b.name: b for b in gf.plan.components[component].buffers}
        for buf in run.buffers.values():
            ours = sglang_fill(runner_name, buf, run)
            theirs = planned.get(buf.name)
            if ours is None or theirs is None:
                continue
            kind = theirs.fill.kind.value
            want: float = run.width if (runner_name, buf.name) in WIDTH_SENTINELS else (
                run.seq_len_fill_value)
            if ours.startswith("sentinel("):  # a sentinel SGLang writes itself: -1, ...
                ours, want = "sentinel", float(ours[len("sentinel("):-1])
            value_ok = ours != "sentinel" or theirs.fill.value == want
            if kind != ours or not value_ok:
                out.append(Difference("fills", f"{component}.{buf.name}: SGLang pads with "
                                               f"{ours}, graphfit {theirs.fill.describe()}"))
    return out


ASPECTS = ("target_ladder", "target_padding", "draft_ladder", "draft_padding", "components",
           "buffers", "fills")


def compare_model(sg: SglangAnswer, gf: GraphfitAnswer | None = None, *,
                  extra_buffers: bool = False) -> dict[str, list[Difference]]:
    """Model-level comparison of an accepted SGLang config (graphfit given SGLang's values;
    `gf`: graphfit's answer to them when the caller adds what the flags cannot carry)."""
    gf = graphfit_translated(sg) if gf is None else gf
    if gf.rejected is not None:
        return {"translated_acceptance": [Difference(
            "translated_acceptance", f"graphfit rejects SGLang's resolved values "
                                     f"{' '.join(gf.argv)}: {gf.rejected}")]}
    return {
        "translated_acceptance": [],
        "target_ladder": compare_target_ladder(sg, gf),
        "target_padding": compare_padding(sg, gf, "target"),
        "draft_ladder": compare_draft_ladder(sg, gf),
        "draft_padding": (compare_padding(sg, gf, "draft")
                      + compare_padding(sg, gf, "draft_extend")
                      + compare_padding(sg, gf, "mtp_draft_extend")
                      + compare_padding(sg, gf, "frozen_drafter")
                      + compare_padding(sg, gf, "dflash_draft")
                      + compare_padding(sg, gf, "dspark_draft")),
        "components": compare_components(sg, gf),
        "buffers": compare_buffers(sg, gf, extra=extra_buffers),
        "fills": compare_fills(sg, gf),
    }


def compare_cli(argv: tuple[str, ...], gpu_mem_gb: float | None = 80
                ) -> dict[str, list[Difference]]:
    """CLI-level comparison: acceptance, then (both accepting) the target ladder."""
    sg = sglang(argv, gpu_mem_gb)
    gf = graphfit_cli(argv, gpu_mem_gb)
    out = {"acceptance": compare_acceptance(sg, gf)}
    if sg.rejected is None and gf.rejected is None:
        out["cli_target_ladder"] = [Difference("cli_target_ladder", d.detail, d.short)
                                    for d in compare_target_ladder(sg, gf)]
    return out


def pasted_plan(line: tuple[str, ...], gpu: str) -> tuple[int, str, str]:
    """(exit code, last `error:` line or "", stdout + stderr) of `graphfit plan
    --gpu-memory-gb GPU -- LINE`, the launch line set as `graphfit.cli.main` splits it off
    (the oracles that read graphfit's refusal of a pasted line share this one way in)."""
    from graphfit.cli.options import PASTED

    token = PASTED.set(line)
    try:
        code, _, output = run_graphfit(["plan", "--gpu-memory-gb", gpu])
    finally:
        PASTED.reset(token)
    errors = [ln for ln in output.splitlines() if ln.startswith("error:")]
    return code, (errors[-1] if errors else ""), output
