"""SGLang 0.5.23's UNO lines: SGLang's own argument pipeline, runner buffers and LoRA state
against the pasted line's graphfit plan.

SGLang's side: prepare_server_args + resolve_once (`_handle_uno`, speculative_hook.py:449-611)
and the target runner's capture list (`sglang_compare.sglang`); then the UNO runners
themselves, built by `UnoDecodeCudaGraphRunner`'s own constructor and capture loop on CPU
(tests/oracle/sglang_uno_runner.py): the target runner (model_runner.py:1584-1598) and, for a
tree whose target captures, the tree-draft runner of width F (uno_worker_v2.py:86-91,
147-175). Their widths, capture lists, DecodeInputBuffers, the graphs the loop records per
size (decode_cuda_graph_runner.py:1318-1366: "lora" and "nolora" for the linear target with
F > 1), which runner's graphs run with the adapter's retained routing (`capture_draft`,
uno_lora.py:78-88), and the LoRA batch infos left on SGLang's `UnoCublasLoRABackend`
(lora/backend/uno_cublas_backend.py) by `LoRAManager`'s own methods (lora_manager.py:152-160,
581-612) on a manager without a model. The capture runs SGLang's whole `capture()` with a
recording model (`compare_forwards`: the rows `capture_prepare` slices per captured size
against graphfit's row rule and capacity, the LoRA routing per size) and `load_batch` on
live batches (`compare_replays`: graph key, variants, padded rows). Only the graphs
themselves (CUDA recording and replay) and the model's kernels are not run.

graphfit's side: `graphfit plan --json -- python -m sglang.launch_server ...` on the same line.
"""

from __future__ import annotations

import types
from typing import Any

from hypothesis import strategies as st

from tests.oracle import sglang_compare as sc
from tests.oracle import sglang_oracle as so
from tests.oracle.sglang_dflash_compare import pasted

TREE_DRAFT = "uno_draft"
LORA_RANK = 16
UNO_ID = "uno-draft-id"
_FIELDS = ("seg_lens", "seg_indptr", "weight_indices", "lora_ranks", "scalings",
           "permutation")
_NAMES = {"lora_ranks": "ranks"}


def _manager() -> Any:
    """SGLang's LoRAManager without a model: its own methods over SGLang's UNO backend, the
    base slot 0 and the adapter in slot 1 (uno_lora.py:55-59)."""
    import torch
    from sglang.srt.lora.backend.uno_cublas_backend import UnoCublasLoRABackend
    from sglang.srt.lora.lora_manager import LoRAManager

    manager = object.__new__(LoRAManager)
    manager.max_loras_per_batch = 2  # uno_lora.py:20, 43
    manager.lora_backend = UnoCublasLoRABackend(2, torch.device("cpu"))
    manager.memory_pool = types.SimpleNamespace(
        get_buffer_id=lambda lora_id: 0 if lora_id is None else 1)
    manager.loras = {UNO_ID: types.SimpleNamespace(
        config=types.SimpleNamespace(r=LORA_RANK), scaling=2.0)}
    manager.attn_dp_enabled = False
    return manager


def _infos(prefix: str, infos: list[Any]) -> dict[str, tuple[str, int]]:
    """graphfit's buffer name -> (dtype, elements) summed over SGLang's batch infos."""
    out: dict[str, tuple[str, int]] = {}
    for info in infos:
        for field in _FIELDS:
            tensor = getattr(info, field, None)
            if tensor is None:
                continue
            name = f"{prefix}{_NAMES.get(field, field)}"
            dtype = so._describe(tensor)
            before = out.get(name, (dtype, 0))[1]
            out[name] = (dtype, before + int(tensor.numel()))
    return out


def sglang_runners(sg: sc.SglangAnswer) -> dict[str, so.Runner]:
    """SGLang's target runner plus the tree-draft runner of width F = steps + 1, its capture
    list and decode buffers by SGLang's code (uno_cuda_graph_runner.py:34-47)."""
    assert sg.runners is not None
    r = sg.resolved
    assert isinstance(r, so.Resolved)
    out = dict(sg.runners)
    target = out.get("target")
    if int(r.speculative_eagle_topk or 1) <= 1 or target is None or not target.capture_bs:
        return out
    with so.published(r):
        from sglang.srt.model_executor.model_runner import ModelRunner
        from sglang.srt.model_executor.runner.base_cuda_graph_runner import (
            get_batch_sizes_to_capture,
        )

        mr = so._model_runner_stub(r, target.pool_size, target.seq_len_fill_value, "meta",
                                   4096, 128256, draft=False)
        width = int(ModelRunner.decode_num_tokens_per_req(
            mr, num_draft_tokens=int(r.speculative_num_steps or 0) + 1))
        capture, _ = get_batch_sizes_to_capture(mr, width, gathered_buffer_required=False)
        run = so._target_runner(mr, tuple(capture), width, target.pool_size, target.alignment,
                                target.seq_len_fill_value, False, False, "meta")
    out[TREE_DRAFT] = run
    return out


def _padding(sg: sc.SglangAnswer, gf: sc.GraphfitAnswer, name: str, run: so.Runner
             ) -> list[sc.Difference]:
    r = sg.resolved
    assert isinstance(r, so.Resolved)
    diffs = []
    # without --max-running-requests SGLang sizes the pool from the KV cache and graphfit
    # takes the smallest pool SGLang picks (2048 per attention-DP group): both hold
    # every captured size, the decodes compared are those both pools hold
    for bs in range(1, min(sg.max_requests, gf.plan.config.max_num_seqs) + 1):
        ours = sc.sglang_decode_pad(run, bs, not r.disable_cuda_graph_padding)
        theirs = sc.graphfit_decode_pad(gf.plan, name, run.width, bs)
        if ours != theirs:
            diffs.append(sc.Difference(f"{name}_padding", f"bs {bs}: SGLang {ours or 'eager'},"
                                                          f" graphfit {theirs or 'eager'}"))
    return diffs


def built_runners(sg: sc.SglangAnswer, dims: tuple[int, int] = (4096, 128256)) -> Any:
    """SGLang's UNO runners built by `UnoDecodeCudaGraphRunner`'s own constructor and capture
    loop (tests/oracle/sglang_uno_runner.py), over the target's pool and fill value."""
    from tests.oracle import sglang_uno_runner as ur

    assert sg.runners is not None and "target" in sg.runners
    r = sg.resolved
    assert isinstance(r, so.Resolved)
    target = sg.runners["target"]
    return ur.build(r, target.pool_size, target.seq_len_fill_value, dims)


def compare_runners(sg: sc.SglangAnswer, gf: sc.GraphfitAnswer,
                    dims: tuple[int, int] = (4096, 128256)) -> list[sc.Difference]:
    """Each UNO runner SGLang builds (`UnoDecodeCudaGraphRunner`, its own constructor and
    capture loop): width, ladder, padding of every decode, graphs recorded per size, which
    runner captures the LoRA draft, its scaled buffers and the LoRA buffers it leaves."""
    assert gf.plan is not None
    graphs = sc._gf_graphs(gf)
    planned = {n: c for n, c in gf.plan.components.items() if n != "prefill"} if graphs else {}
    if not sg.runners or not sg.runners.get("target") or not sg.runners["target"].capture_bs:
        return [] if not planned else [sc.Difference("components", f"SGLang none, graphfit "
                                                                   f"{sorted(planned)}")]
    built = built_runners(sg, dims)
    runners, lora = built.runners, built.lora
    diffs = []
    if built.runner_class != "UnoDecodeCudaGraphRunner":
        diffs.append(sc.Difference("runner_class", built.runner_class))
    if tuple(runners["target"].capture_bs) != tuple(sg.runners["target"].capture_bs):
        diffs.append(sc.Difference("target_ladder", "the UNO runner's own list differs from "
                                                    "get_batch_sizes_to_capture's"))
    if set(runners) != set(planned):
        diffs.append(sc.Difference("components", f"SGLang {sorted(runners)}, graphfit "
                                                 f"{sorted(planned)}"))
    # the runner whose graphs ran with the adapter's retained routing holds the per-size state
    drafts = built.lora_draft_runner()
    ours_drafts = {n for n, c in planned.items() if any(b.name.startswith("uno_lora_")
                                                        for b in c.buffers)}
    if ({drafts} - {None}) != ours_drafts:
        diffs.append(sc.Difference("lora_draft_runner", f"SGLang {drafts}, graphfit "
                                                        f"{sorted(ours_drafts)}"))
    for name in sorted(set(runners) & set(planned)):
        run, comp = runners[name], planned[name]
        if run.width != comp.tables.uniform_query_len:
            diffs.append(sc.Difference(f"{name}_width", f"SGLang {run.width}, graphfit "
                                                        f"{comp.tables.uniform_query_len}"))
            continue
        sizes = tuple(gf.plan.graph_sizes(name))
        if tuple(run.capture_bs) != sizes:
            diffs.append(sc.Difference(f"{name}_ladder", f"SGLang {sc._short(run.capture_bs)}"
                                                         f" vs graphfit {sc._short(sizes)}"))
        diffs += _padding(sg, gf, name, run)
        # graphs the capture loop recorded for each size (decode_cuda_graph_runner.py:1331)
        per_size = set(built.graphs_per_size(name).values())
        recorded = set(built.graphs_per_size(name))
        if per_size != {comp.graphs_per_size} or recorded != set(run.capture_bs):
            diffs.append(sc.Difference("graphs_per_size", f"{name}: SGLang {sorted(per_size)}"
                                                          f", graphfit {comp.graphs_per_size}"))
        mine = {b.name: b for b in comp.buffers}
        for buf in run.buffers.values():
            spec = mine.get(buf.name)
            if buf.axis in ("none", "fixed"):
                continue
            if spec is None or tuple(spec.shape) != buf.shape or spec.dtype != buf.dtype:
                shown = "none" if spec is None else f"{list(spec.shape)} {spec.dtype}"
                diffs.append(sc.Difference(f"{name}_buffers", f"{buf.name}: SGLang "
                                                              f"{list(buf.shape)} {buf.dtype}, "
                                                              f"graphfit {shown}"))
        ours_lora = {n: (b.dtype, b.capacity) for n, b in mine.items()
                     if n.startswith(("lora_", "uno_lora_"))}
        if ours_lora != lora[name]:
            keys = sorted(set(ours_lora) ^ set(lora[name])) or sorted(
                k for k in lora[name] if lora[name][k] != ours_lora.get(k))
            diffs.append(sc.Difference(f"{name}_lora", f"{keys[:3]}: SGLang "
                                                       f"{[lora[name].get(k) for k in keys[:3]]}"
                                                       f", graphfit "
                                                       f"{[ours_lora.get(k) for k in keys[:3]]}"))
    for name in sorted(set(runners) & set(planned)):
        diffs += compare_forwards(built, name, planned[name], gf.plan.graph_sizes(name))
    diffs += compare_replays(sg, gf, built, planned)
    if built.moe_lora_buffers:
        diffs.append(sc.Difference("moe_lora", f"SGLang allocated {sorted(built.moe_lora_buffers)}"
                                               f", graphfit plans none"))
    return diffs


def graphfit_rows(comp: Any, name: str, size: int) -> int | None:
    """Rows graphfit's own row rule gives buffer `name` of a planned component for a uniform
    decode of `size` requests at the component's width (the most over its batch families);
    None when graphfit plans no such buffer."""
    from graphfit.planner.core.verify import family_rules

    specs = comp.specs or tuple(b.spec for b in comp.buffers)
    rules = comp.rules or family_rules(specs, comp.walks)
    width = comp.tables.uniform_query_len
    for spec, per_family in zip(specs, rules, strict=True):
        if spec.name == name:
            found = [r.rows(size * width, size) for r in per_family if r is not None]
            return max(found) if found else None
    return None


def compare_forwards(built: Any, name: str, comp: Any, sizes: tuple[int, ...]
                     ) -> list[sc.Difference]:
    """SGLang's capture forwards of one runner (tests/oracle/sglang_uno_runner.Forward)
    against graphfit's plan of that component: every key's size is a captured size of the
    plan, `capture_prepare` builds that many requests, each buffer slice the ForwardBatch
    carries has exactly graphfit's rows for the size and fits graphfit's capacity, and the
    LoRA routing active in a LoRA draft forward has the per-size share of graphfit's
    retained state (`retained_segments` for that one size)."""
    from graphfit.planner.engines.sglang_uno import retained_segments

    diffs: list[sc.Difference] = []
    capacity = {b.name: b.capacity for b in comp.buffers}
    width = comp.tables.uniform_query_len
    for f in built.forwards[name]:
        where = f"{name} size {f.size} {f.variant or ''}".rstrip()
        if f.batch_size != f.size or f.size not in sizes:
            diffs.append(sc.Difference(f"{name}_capture", f"{where}: SGLang built "
                                                          f"{f.batch_size} requests"))
        for buf, rows in f.rows:
            ours = graphfit_rows(comp, buf, f.size)
            if ours != rows or rows > capacity.get(buf, -1):
                diffs.append(sc.Difference(f"{name}_slices", f"{where}: {buf} SGLang "
                                                             f"{rows} rows, graphfit {ours} "
                                                             f"of {capacity.get(buf)}"))
        if f.lora_draft:
            share = {b.name.removeprefix("uno_lora_"): b.reference_capacity
                     for b in retained_segments(width, (f.size,))}
            got = {field: n for field, n in f.lora}
            if any(share.get(field) != n for field, n in got.items()) or not got:
                diffs.append(sc.Difference(f"{name}_lora_routing", f"{where}: SGLang {got}, "
                                                                   f"graphfit {share}"))
    return diffs[:8]


def compare_replays(sg: sc.SglangAnswer, gf: sc.GraphfitAnswer, built: Any,
                    planned: dict[str, Any]) -> list[sc.Difference]:
    """SGLang's own `can_run_graph` and `load_batch` (tests/oracle/sglang_uno_runner.replays)
    on live batches of every captured size and one past it, in each UNO phase the runner
    serves, against graphfit's plan: the graph key's size is graphfit's padded size for that
    decode (eager on both sides where SGLang's `can_run_graph` refuses it), the
    phases replay as many graphs per size as graphfit counts, and every slot's filled and
    padded rows equal graphfit's row rule at the padded size and fit its capacity."""
    from tests.oracle import sglang_uno_runner as ur

    r = sg.resolved
    assert isinstance(r, so.Resolved) and gf.plan is not None
    pool = min(sg.max_requests, gf.plan.config.max_num_seqs)
    raws = {n for run in built.runners.values() for s in run.capture_bs for n in (s, s + 1)}
    found = ur.replays(r, built, tuple(sorted(n for n in raws if n <= pool)))
    diffs: list[sc.Difference] = []
    for name, replayed in found.items():
        comp = planned.get(name)
        if comp is None:
            continue
        width = comp.tables.uniform_query_len
        capacity = {b.name: b.capacity for b in comp.buffers}
        variants: dict[int, set[str | None]] = {}
        for rp in replayed:
            where = f"{name} raw {rp.raw} {rp.phase}"
            ours = sc.graphfit_decode_pad(gf.plan, name, width, rp.raw)
            if (rp.key[0] if rp.key else None) != ours or (rp.padded or None) != ours:
                diffs.append(sc.Difference(f"{name}_replay_key", f"{where}: SGLang key "
                                                                 f"{rp.key}, graphfit {ours}"))
            if rp.key is None:
                continue  # eager: nothing loaded
            variants.setdefault(rp.key[0], set()).add(rp.key[1])
            for buf, rows in rp.rows:
                want = graphfit_rows(comp, buf, rp.padded)
                if want != rows or rows > capacity.get(buf, -1):
                    diffs.append(sc.Difference(f"{name}_replay_rows", f"{where}: {buf} SGLang "
                                                                      f"{rows}, graphfit {want}"
                                                                      f" of {capacity.get(buf)}"))
        if any(len(v) != comp.graphs_per_size for v in variants.values()):
            diffs.append(sc.Difference(f"{name}_replay_variants", f"SGLang {variants}, "
                                                                  f"graphfit "
                                                                  f"{comp.graphs_per_size}"))
    return diffs[:8]


def compare_line(argv: tuple[str, ...], gpu_mem_gb: float | None = 80
                 ) -> tuple[str, list[sc.Difference]]:
    """(outcome, differences): "linear" / "tree" (both plan, every aspect agrees),
    "no_graphs" (both plan without decode graphs), "rejected" (both refuse) or "differs"."""
    sg = sc.sglang(argv, gpu_mem_gb)
    gf = pasted(argv, gpu_mem_gb)
    settled = sc.settled_by_acceptance(sg, gf)
    if settled is not None:
        return settled
    assert sg.runners is not None and gf.plan is not None
    diffs = sc.compare_target_ladder(sg, gf) + compare_runners(sg, gf)
    r = sg.resolved
    assert isinstance(r, so.Resolved)
    outcome = ("no_graphs" if not sg.runners.get("target") or not sg.runners[
        "target"].capture_bs else "tree" if int(r.speculative_eagle_topk or 1) > 1
        else "linear")
    return ("differs" if diffs else outcome), diffs


def uno(*extra: str) -> tuple[str, ...]:
    return ("--speculative-algorithm", "UNO", "--uno-lora-path", "/tmp/uno", *extra)


@st.composite
def uno_lines(draw: st.DrawFn) -> tuple[tuple[str, ...], float | None]:
    """Generated UNO lines: linear (draft tokens 1..24, steps / topk 1 or absent, which SGLang
    overrides) or tree (topk 2..8, steps 1..7, Q around the tree's limits), the adapter path
    present or not, FA3 named (both split flags or the base one) or another backend, the
    pool, decode graph settings, TP, two-batch overlap, an fp8 KV cache, page size, switches
    UNO ignores, a draft model path."""
    argv = ["--speculative-algorithm", draw(st.sampled_from(("UNO", "uno")))]
    if draw(st.integers(0, 9)) < 9:  # hypothesis favours 0: the common case first
        argv += ["--uno-lora-path", "/tmp/uno"]
    if draw(st.booleans()):  # linear
        argv += ["--speculative-num-draft-tokens", str(draw(st.integers(1, 24)))]
        for flag in ("--speculative-eagle-topk", "--speculative-num-steps"):
            value = draw(st.sampled_from((None, None, 1, 3)))
            if value is not None:
                argv += [flag, str(value)]
    else:
        topk, steps = draw(st.integers(2, 8)), draw(st.integers(1, 7))
        q = draw(st.sampled_from((steps + 1, steps + 1, steps + 2, min(
            topk * (steps - 1) + 2, 128), draw(st.integers(1, 140)))))
        argv += ["--speculative-eagle-topk", str(topk), "--speculative-num-steps", str(steps)]
        if draw(st.integers(0, 9)) < 9:
            argv += ["--speculative-num-draft-tokens", str(q)]
    backend = draw(st.sampled_from(("fa3",) * 6 + ("split", "triton", "flashinfer")))
    if backend == "split":
        argv += ["--prefill-attention-backend", "fa3", "--decode-attention-backend", "fa3"]
    else:
        argv += ["--attention-backend", backend]
    if draw(st.integers(0, 5)) < 5:
        argv += ["--max-running-requests", str(draw(st.sampled_from(
            (draw(st.integers(1, 80)), draw(st.integers(1, 600))))))]
    if draw(st.integers(0, 4)) == 4:
        argv += ["--cuda-graph-max-bs-decode", str(draw(st.integers(1, 96)))]
    if draw(st.integers(0, 9)) == 9:
        argv.append("--disable-cuda-graph-padding")
    if draw(st.integers(0, 14)) == 14:
        argv.append("--disable-cuda-graph")
    if draw(st.integers(0, 9)) == 9:
        argv += so.tbo(argv)
    if draw(st.integers(0, 14)) == 14:
        argv += ["--tp-size", "2"]
    if draw(st.integers(0, 9)) == 9:  # fa3 with fp8_e5m2 KV becomes triton (overrides.py:1262)
        argv += ["--kv-cache-dtype", draw(st.sampled_from(("fp8_e5m2", "fp8_e4m3")))]
    if draw(st.integers(0, 7)) == 7:  # _handle_uno has no page-size rule (EAGLE / NGRAM do)
        argv += ["--page-size", draw(st.sampled_from(("16", "64")))]
    if draw(st.integers(0, 11)) == 11:  # switches UNO ignores (adaptive: EAGLE only)
        argv.append(draw(st.sampled_from(("--speculative-adaptive",
                                           "--enable-multi-layer-eagle",
                                           "--enable-mixed-chunk"))))
    if draw(st.integers(0, 19)) == 19:
        argv += ["--speculative-draft-model-path", str(so.oracle().model_dir)]
    return tuple(argv), draw(st.sampled_from((24, 48, 80, 141)))


# --------------------------------------------------------------------------------------------
# UNO lines that name no attention backend: SGLang's default by GPU and model (the attention
# hook, pipeline.py:242, before `_handle_uno`, pipeline.py:306) on fake devices
# --------------------------------------------------------------------------------------------

DEFAULT_NOTE = "UNO attention backend: the line names none"
UNRESTATED = "no backend named and"  # graphfit's refusal when it lacks an input


def pasted_on(argv: tuple[str, ...], gpu: str, model: str) -> tuple[sc.GraphfitAnswer, str]:
    """graphfit's reading of the pasted line with `--gpu-memory-gb GPU` (a name or GiB) and
    the model directory `model`, and its stderr (the notes)."""
    import json

    from tests.helpers import run_cli

    code, out, text = run_cli(["plan", "--json", "--gpu-memory-gb", gpu, "--", "python", "-m",
                               "sglang.launch_server", "--model-path", model, *argv])
    if code != 0:
        errors = [ln for ln in text.splitlines() if "error" in ln]
        return sc.GraphfitAnswer(argv, (errors or [f"exit {code}"])[-1]), text
    config = sc.EngineConfig.from_dict(json.loads(out)["config"])
    return sc.GraphfitAnswer(argv, None, sc.graphfit.plan(config)), text


def sglang_on(argv: tuple[str, ...], gpu: str, model: str) -> sc.SglangAnswer:
    """SGLang's own pipeline on the fake device of the GPU's capability and memory."""
    from graphfit.inputs.gpus import GPU_MEMORY_GB
    from tests.oracle.sglang_mtp_oracle import CAPABILITIES

    r = so.resolve(argv, gpu_mem_gb=GPU_MEMORY_GB[gpu], model=model,
                   capability=CAPABILITIES[gpu])
    if isinstance(r, so.Rejected):
        return sc.SglangAnswer(r, None)
    try:
        return sc.SglangAnswer(r, so.runners(r))
    except Exception as exc:  # the server would not start
        return sc.SglangAnswer(r, None, f"{type(exc).__name__}: {exc}")


def default_line(argv: tuple[str, ...], gpu: str, model: str, given: str | None = None
                 ) -> tuple[str, list[sc.Difference]]:
    """(outcome, differences) for a UNO line naming no backend on the fake `gpu`; graphfit
    is told `given` (default: the GPU's name). "fa3" (both plan; SGLang resolved fa3, graphfit
    notes it; same target ladder, same runners and widths), "rejected" (both refuse),
    "unrestated" (graphfit refuses saying which input it lacks: GPU name, config.json or an
    architecture it does not restate) or "differs"."""
    sg = sglang_on(argv, gpu, model)
    gf, text = pasted_on(argv, given or gpu, model)
    if gf.rejected is not None and UNRESTATED in gf.rejected:
        return "unrestated", []
    settled = sc.settled_by_acceptance(sg, gf)
    if settled is not None:
        return settled
    diffs: list[sc.Difference] = []
    r = sg.resolved
    assert isinstance(r, so.Resolved) and sg.runners is not None and gf.plan is not None
    if (r.attention_backend, DEFAULT_NOTE in text) != ("fa3", True):
        diffs.append(sc.Difference("backend", f"SGLang {r.attention_backend}, graphfit note "
                                              f"{DEFAULT_NOTE in text}"))
    diffs += sc.compare_target_ladder(sg, gf)
    runners = sglang_runners(sg)
    planned = {n: c for n, c in gf.plan.components.items() if n != "prefill"} \
        if sc._gf_graphs(gf) else {}
    widths = {n: run.width for n, run in runners.items()}
    ours = {n: c.tables.uniform_query_len for n, c in planned.items()}
    if widths != ours:
        diffs.append(sc.Difference("runners", f"SGLang {widths}, graphfit {ours}"))
    return ("differs" if diffs else "fa3"), diffs


DEFAULT_GPUS = ("A100", "L40S", "H100", "B200", "RTX5090")
DEFAULT_SHAPES = ("llama", "moe", "mla", "sinks", "asym", "gemma3", "olmo2", "vl")


def default_lines() -> list[tuple[str, ...]]:
    """UNO lines without a backend: linear with no topk (the common case), linear topk 1 with
    and without pages, a tree, an fp8_e5m2 KV cache (FA3 -> triton), one split side named."""
    base = uno("--max-running-requests", "24")
    return [(*base, "--speculative-num-draft-tokens", "4"),
            (*base, "--speculative-num-draft-tokens", "3", "--speculative-eagle-topk", "1",
             "--speculative-num-steps", "1"),
            (*base, "--speculative-num-draft-tokens", "3", "--speculative-eagle-topk", "1",
             "--page-size", "16"),
            (*base, "--speculative-num-draft-tokens", "8", "--speculative-eagle-topk", "4",
             "--speculative-num-steps", "3"),
            (*base, "--speculative-num-draft-tokens", "4", "--kv-cache-dtype", "fp8_e5m2"),
            (*base, "--speculative-num-draft-tokens", "4", "--prefill-attention-backend",
             "fa3")]
