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
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

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
    args = parser.parse_args()
    return args.configs, random.Random(args.seed)


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
                entries[key] = sum(nbytes for _, _, nbytes in entry.values())
            k3_configs += 1
            held = sum(sorted(entries.values(), reverse=True)[:2])
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
          f"SGLang's bytes for its 2 largest entries: median {statistics.median(k3_ratios):.3f} "
          f"(min {min(k3_ratios):.3f}, max {max(k3_ratios):.3f})")


if __name__ == "__main__":
    main()
