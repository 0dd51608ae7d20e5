"""Measure graphfit's `vit` component against SGLang 0.5.23's own ViT CUDA-graph runners.

    PYTHONPATH=. python tests/oracle/measure_sglang_vit.py [--configs N] [--seed S]

Generated towers and image workloads (Qwen2.5-VL, Qwen3-VL, InternVL) are run through SGLang's
glue and runners on the CPU (tests/oracle/sglang_vit_oracle.py); per config and per key the
keys, every kept buffer's shape / dtype and the rotary workspace pairs are compared with
graphfit's; Kimi K3 call sequences compare the runner's replay / capture / eager decisions,
and Kimi K3 workloads every tensor the real runner keeps per captured key (through the real
tower glue, `kimi_entry`) with graphfit's buffers, plus the plan's bytes against SGLang's
entries for its cache capacity (2) of largest keys.
Printed: agree / disagree counts, the plan's proof verdicts, and graphfit's static-buffer
bytes next to SGLang's per-key bytes for the same keys (median ratio), both from this run.
Issue 23's remainder, before / after in the same run ("before": main's own module,
`--main DIR`, default /work/main, loaded from its file; skipped when absent): Kimi K3 towers
with a merge kernel of its own width and/or `--mm-attention-backend flashinfer_cudnn`
(every tensor a captured entry keeps, and the encoder's 128 MiB flashinfer_cudnn workspace
every captured graph reads, from SGLang's own encoder constructor), and every attention
backend on the Qwen / InternVL runners (graphfit refuses exactly where SGLang's runner raises
at capture).
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import statistics
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from tests.oracle.before_tree import frozen

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import logging

from graphfit import EngineConfig
from graphfit import plan as graphfit_plan
from graphfit.planner.engines import sglang_vit as sv
from graphfit.planner.engines.sglang_vit_keyed import vit_pairs
from tests.oracle import sglang_vit_oracle as vo


def _qwen_config(rng: random.Random) -> tuple[sv.VitGeometry, sv.VitWorkload]:
    family = rng.choice(["qwen2_5_vl", "qwen3_vl"])
    heads = rng.choice([1, 2, 4, 8])
    head_dim = rng.choice([8, 16, 32])
    merge = rng.choice([1, 2])
    patch = rng.choice([2, 14, 16])
    geometry = sv.VitGeometry(
        family, heads * head_dim, heads, patch_size=patch, spatial_merge_size=merge,
        out_hidden_size=head_dim, deepstack=rng.randint(0, 3) if family == "qwen3_vl" else 0,
        window_size=rng.randint(1, 4) * merge * patch if family == "qwen2_5_vl" else None,
        fullatt_blocks=(1,) if family == "qwen2_5_vl" else (),
        max_context_len=rng.choice([None, 64, 1000]) if family == "qwen2_5_vl" else None)
    grids = tuple((rng.randint(1, 2), rng.randint(1, 8) * merge, rng.randint(1, 8) * merge)
                  for _ in range(rng.randint(1, 3)))
    return geometry, sv.VitWorkload(grids, rng.randint(1, 3))


def run_options() -> tuple[int, random.Random]:
    """`--configs N` (default 60) and `--seed S` (default 0) of the ViT measurements: the
    number of generated configs and the seeded generator that draws them."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--configs", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--main", default="/work/main")
    args, _ = parser.parse_known_args()
    return args.configs, random.Random(args.seed)


def main_module() -> Any:
    """main's sglang_vit (the "before"), or None without a checkout at `--main`."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--main", default="/work/main")
    args, _ = parser.parse_known_args()
    path = Path(frozen(args.main)) / "graphfit/planner/engines/sglang_vit.py"
    if not path.is_file():
        return None
    spec = importlib.util.spec_from_file_location("main_sglang_vit", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["main_sglang_vit"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _entry_agrees(mod: Any, geometry_kwargs: dict[str, Any], call: tuple[sv.Grid, ...],
                  entry: dict[str, Any]) -> str:
    """"agree" / "disagree" / "refused" for one module's plan of one captured key."""
    try:
        geometry = mod.VitGeometry("kimi_k3", **geometry_kwargs)
        key = mod.graph_key(geometry, call)
    except Exception:  # ConfigError of either module
        return "refused"
    ours = {b.name: ((b.rows, *b.row_shape), b.dtype, b.bytes)
            for b in mod.key_buffers(geometry, key)}
    return "agree" if ours == entry else "disagree"


def kimi_remainder(configs: int, rng: random.Random, before: Any) -> None:
    """Kimi K3 with non-square kernels and flashinfer_cudnn, before / after."""
    tally: dict[str, Counter[str]] = {"after": Counter(), "before": Counter()}
    for _ in range(configs):
        heads, head_dim = rng.choice([1, 2, 4]), rng.choice([4, 8, 16])
        kh, kw = rng.choice([1, 2, 3]), rng.choice([1, 2, 3])
        backend = rng.choice([None, "flashinfer_cudnn", "flashinfer_cudnn", "fa4"])
        kwargs: dict[str, Any] = {
            "hidden_size": rng.choice([8, 16, 32]), "num_heads": heads,
            "patch_size": rng.choice([1, 2]), "spatial_merge_size": kh,
            "qkv_hidden_size": heads * head_dim}
        call = tuple((rng.randint(1, 2), rng.randint(1, 4) * kh, rng.randint(1, 4) * kw)
                     for _ in range(rng.randint(1, 12)))
        entry = vo.kimi_entry(call, hidden=kwargs["hidden_size"], heads=heads,
                              qkv=kwargs["qkv_hidden_size"], patch=kwargs["patch_size"],
                              merge=(kh, kw), backend=backend or "auto")
        # what the captured graph reads: its entry's tensors and the one workspace SGLang's
        # encoder constructor hands every block under flashinfer_cudnn (issue 23, s32v)
        for ws in vo.kimi_encoder_workspaces(hidden=kwargs["hidden_size"], heads=heads,
                                             qkv=kwargs["qkv_hidden_size"],
                                             backend=backend or "auto"):
            entry = {**entry, "attention_workspace": ws}
        after = {**kwargs, "spatial_merge_width": kw if kw != kh else None,
                 "attention_backend": backend}
        tally["after"][_entry_agrees(sv, after, call, entry)] += 1
        if before is not None:
            fields = set(getattr(before.VitGeometry, "__dataclass_fields__", {}))
            if {"spatial_merge_width", "attention_backend"} <= fields:
                # a main that reads both (s28v and later): the same tower
                tally["before"][_entry_agrees(before, after, call, entry)] += 1
            else:  # an older main: a square kernel only (its reader refuses others), no
                # backend (it reads none)
                tally["before"][_entry_agrees(before, kwargs, call, entry) if kh == kw
                                else "refused"] += 1
    for when in ("before", "after"):
        t = tally[when]
        if t:
            print(f"Kimi K3 non-square kernels / flashinfer_cudnn, {when}: {t['agree']}/"
                  f"{configs} captured graphs agree (entry + encoder workspace + rope table), "
                  f"{t['disagree']} disagree, {t['refused']} refused")


def backend_remainder(before: Any) -> None:
    """Every attention backend on the Qwen / InternVL runners: graphfit refuses exactly where
    SGLang's runner raises at its first capture (before: main accepts every backend, since it
    reads none)."""
    import torch

    agree = total = raises = before_agree = 0
    for family in ("qwen2_5_vl", "qwen3_vl", "internvl"):
        for backend in sv.ATTENTION_BACKENDS:
            try:
                if family == "internvl":
                    runner = vo.internvl_runner(hidden=16, heads=2, backend=backend)
                    runner.run(torch.zeros(2, 5, 16, dtype=torch.bfloat16))
                else:
                    tower = vo.qwen_runner(family, hidden=16, heads=2, patch=2, merge=2, out=8,
                                           depth=2,
                                           window=8 if family == "qwen2_5_vl" else None,
                                           fullatt=(1,) if family == "qwen2_5_vl" else (),
                                           backend=backend)
                    vo.qwen_call(tower, ((1, 4, 4),))
                raised = False
            except RuntimeError:
                raised = True
            refused = _refuses(sv, family, backend)
            total += 1
            raises += raised
            agree += raised == refused
            if before is not None:
                fields = set(getattr(before.VitGeometry, "__dataclass_fields__", {}))
                # a main that reads no backend refuses none
                was = "attention_backend" in fields and _refuses(before, family, backend)
                before_agree += raised == was
    print(f"Qwen / InternVL attention backends: SGLang's runner raises on {raises}/{total}; "
          f"after: graphfit refuses exactly those, {agree}/{total} agree; before (main): "
          + (f"{before_agree}/{total} agree" if before is not None else "not run"))


def _refuses(mod: Any, family: str, backend: str) -> bool:
    """Whether `mod`'s VitGeometry refuses a small tower of `family` under `backend`."""
    try:
        mod.VitGeometry(family, 16, 2, patch_size=2, window_size=8 if family == "qwen2_5_vl"
                        else None, tokens_per_tile=5 if family == "internvl" else None,
                        attention_backend=backend)
    except Exception:
        return True
    return False


def main() -> None:
    configs, rng = run_options()
    logging.getLogger("sglang.srt.multimodal.kimi_k3_vit_cuda_graph_runner").setLevel(
        logging.ERROR)
    agree = disagree = keys_agree = keys_disagree = safe = component_agree = 0
    ratios: list[float] = []
    with vo.cpu_graphs():
        for _ in range(configs):
            geometry, workload = _qwen_config(rng)
            tower = vo.qwen_runner(
                geometry.family, hidden=geometry.hidden_size, heads=geometry.num_heads,
                patch=geometry.patch_size, merge=geometry.spatial_merge_size,
                out=geometry.out_hidden_size or 1, depth=3, deepstack=geometry.deepstack,
                window=geometry.window_size, fullatt=geometry.fullatt_blocks,
                max_context_len=geometry.max_context_len)
            for call in sv.reachable_calls(workload):
                vo.qwen_call(tower, call)
            state = vo.qwen_state(tower)
            keys = sv.reachable_keys(geometry, workload)
            ok = keys == state["keys"]
            for key in keys:
                ours = {b.name: ((b.rows, *b.row_shape), b.dtype)
                        for b in sv.key_buffers(geometry, key)}
                if ours == state["buffers"].get(key):
                    keys_agree += 1
                else:
                    keys_disagree += 1
                    ok = False
            ok &= sv.workspace_rows(geometry, [k[0] for k in keys]) == state["workspace_rows"]  # type: ignore[misc]
            plan = sv.plan_vit(geometry, workload)
            safe += not plan.verify()
            # the SGLang plan's keyed component `vit`: same keys, rows and SGLang bytes
            comp = graphfit_plan(EngineConfig.from_dict({
                "engine": "sglang", "max_num_seqs": 4,
                "options": {"vit": vit_pairs(geometry, workload)}})).keyed["vit"]
            component_agree += (set(comp.graph_keys) == set(state["keys"]) and all(
                comp.rows(k) == {n: shape[0] for n, (shape, _) in state["buffers"][k].items()}
                for k in comp.graph_keys) and comp.reference_bytes == plan.sglang_bytes)
            ratios.append(plan.total_bytes / plan.sglang_bytes)
            agree += ok
            disagree += not ok
        intern_agree = intern_total = 0
        import torch

        for _ in range(configs):
            heads, tokens, tiles = rng.choice([1, 2, 4]), rng.randint(1, 64), rng.randint(1, 8)
            geometry = sv.VitGeometry("internvl", heads * 16, heads, tokens_per_tile=tokens)
            runner = vo.internvl_runner(hidden=geometry.hidden_size, heads=heads)
            for b in range(1, tiles + 1):
                runner.run(torch.zeros(b, tokens, geometry.hidden_size, dtype=torch.bfloat16))
            state = vo.internvl_state(runner)
            keys = sv.reachable_keys(geometry, sv.VitWorkload(((1, 1, 1),), tiles))
            intern_total += 1
            intern_agree += keys == tuple(state) and all(
                {b.name: ((b.rows, *b.row_shape), b.dtype)
                 for b in sv.key_buffers(geometry, k)} == state[k] for k in keys)
        kimi_agree = kimi_calls = kimi_seqs = 0
        grids = [(1, 4, 4), (1, 8, 8), (2, 4, 4), (1, 80, 80), (1, 16, 12)]
        for _ in range(configs):
            calls = [tuple(rng.choice(grids) for _ in range(rng.randint(1, 2)))
                     for _ in range(rng.randint(1, 40))]
            kw = {"capacity": rng.randint(1, 4), "min_hits": rng.randint(1, 3),
                  "max_seqlen": rng.choice([None, 64, 6144])}
            theirs = vo.kimi_outcomes(calls, **kw)  # type: ignore[arg-type]
            ours = sv.kimi_outcomes(calls, **kw)  # type: ignore[arg-type]
            kimi_seqs += 1
            kimi_calls += len(calls)
            kimi_agree += sum(a == b for a, b in zip(ours, theirs, strict=True))
        k3_keys = k3_keys_agree = k3_configs = 0
        k3_ratios: list[float] = []
        for _ in range(max(1, configs // 4)):
            heads, head_dim = rng.choice([1, 2, 4]), rng.choice([4, 8, 16])
            merge = rng.choice([1, 2])
            geometry = sv.VitGeometry("kimi_k3", rng.choice([8, 16, 32]), heads,
                                      patch_size=rng.choice([1, 2, 3]),
                                      spatial_merge_size=merge,
                                      qkv_hidden_size=heads * head_dim)
            workload = sv.VitWorkload(tuple(
                (rng.randint(1, 2), rng.randint(1, 6) * merge, rng.randint(1, 6) * merge)
                for _ in range(rng.randint(1, 3))), rng.randint(1, 2))
            plan = sv.plan_vit(geometry, workload)
            entries = {}
            for key, call in zip(plan.keys, plan.calls, strict=True):
                entry = vo.kimi_entry(call, hidden=geometry.hidden_size, heads=heads,
                                      qkv=geometry.qkv_hidden_size,
                                      patch=geometry.patch_size, merge=merge)
                ours_k3 = {b.name: ((b.rows, *b.row_shape), b.dtype, b.bytes)
                           for b in sv.key_buffers(geometry, key)}
                k3_keys += 1
                k3_keys_agree += ours_k3 == entry
                # the tower's rope table is one tensor whatever the graphs: once below
                table = entry.get("rope_freqs_table", ((), "", 0))[2]
                entries[key] = sum(nbytes for name, (_, _, nbytes) in entry.items()
                                   if name != "rope_freqs_table")
            k3_configs += 1
            held = sum(sorted(entries.values(), reverse=True)[:2]) + table
            k3_ratios.append(plan.total_bytes / held)
    n = agree + disagree
    print(f"Qwen2.5-VL / Qwen3-VL: {agree}/{n} configs agree, {disagree} disagree; "
          f"{keys_agree} keys agree, {keys_disagree} disagree (keys, buffers, workspace)")
    print(f"  plan component `vit` (Plan.keyed) agrees {component_agree}/{n} (keys, rows "
          "per buffer, SGLang bytes)")
    print(f"  proof SAFE {safe}/{n}; graphfit static bytes / SGLang per-key bytes: median "
          f"{statistics.median(ratios):.3f} (min {min(ratios):.3f}, max {max(ratios):.3f})")
    print(f"InternVL: {intern_agree}/{intern_total} configs agree")
    print(f"Kimi K3: {kimi_agree}/{kimi_calls} calls agree over {kimi_seqs} call sequences")
    print(f"Kimi K3 buffers: {k3_keys_agree}/{k3_keys} captured keys' entries agree (names, "
          f"shapes, dtypes, bytes) over {k3_configs} workloads; graphfit static bytes / "
          f"SGLang's bytes for its 2 largest entries and its rope table: median "
          f"{statistics.median(k3_ratios):.3f} "
          f"(min {min(k3_ratios):.3f}, max {max(k3_ratios):.3f})")
    with vo.cpu_graphs():
        before = main_module()
        kimi_remainder(configs, rng, before)
        backend_remainder(before)


if __name__ == "__main__":
    main()
