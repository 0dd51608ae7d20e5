"""Audit a hand-written buffer sizing against every reachable batch, then print graphfit's.

Run: python examples/audit_sizing.py
Reproduces the seed bug (vLLM #50065): DFlash query buffers sized S*q = 132 while the legacy
ladder pads a 132-token query to 136. The bug is the V1 model runner's (it rounds capture sizes
to multiples of q), so the config pins runner="v1" and vLLM 0.33.0 (0.33 and earlier have the V1
runner; 0.34 removed it); vLLM 0.33 itself defaults to the V2 runner.
"""

from __future__ import annotations

import graphfit


def main() -> int:
    legacy = graphfit.plan(graphfit.EngineConfig(
        max_num_seqs=33, num_speculative_tokens=3, spec_method="dflash", ladder="vllm-legacy",
        options=graphfit.VllmOptions(runner="v1"), engine_version="0.33.0"))
    q = legacy.config.uniform_query_len
    naive = {f"drafter.{name}": legacy.config.max_num_seqs * q
             for name in ("positions", "slot_mapping_buffer")}
    audit = legacy.verify(capacities=naive)
    print(f"hand sizing {naive}: {'SAFE' if audit.ok else 'UNSAFE'}")
    for r in audit.ranges():
        print("  ", r.describe())
    print("graphfit's sizing on the same ladder:")
    for key in naive:
        buf = legacy.buffer(key)
        print(f"   {key}: capacity {buf.capacity} (vLLM 0.33 formula {buf.reference_capacity})")
    assert legacy.verify().ok
    return 0 if not audit.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
