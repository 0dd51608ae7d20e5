"""Pad lookup cost: `Plan.pad` next to vLLM's own dispatcher, a padding table and a bisect.

    python benchmarks/bench_pad.py

`Plan.pad` validates the batch and returns a full Dispatch (mode, padded size, request key)
for the component. vLLM's `CudagraphDispatcher.dispatch()` (vLLM 0.33.0, run from the pinned
wheel's sources when `tests/oracle/fetch.py` extracted them; skipped with a note otherwise)
returns the same decision, and is checked to agree on every batch before it is timed. The
padding table and the bisect are the floors: a bare `table[n]` and `sizes[bisect_left(...)]`.
Times are ns per lookup over random batch sizes, the bare loop's cost subtracted; medians of
rounds that alternate between the methods.
"""

from __future__ import annotations

import contextlib
import json
import random
import sys
from bisect import bisect_left
from collections.abc import Callable
from typing import Any

from common import ROOT, paired_medians, table

from graphfit import EngineConfig, Plan, padding_table, plan

N = 5_000
CONFIGS = (
    ("S=256", dict(max_num_seqs=256)),
    ("S=33 dflash k=3", dict(max_num_seqs=33, num_speculative_tokens=3, spec_method="dflash")),
    ("S=512 blackwell", dict(max_num_seqs=512, ceiling_family="blackwell")),
)


def _vllm() -> tuple[Any, Any] | str:
    """(vllm namespace, glue module), or why the column is skipped."""
    sys.path.insert(0, str(ROOT))
    from tests.oracle import paths

    root = paths.source_root("vllm")
    if not (root / "vllm" / "__init__.py").is_file():
        return (f"vLLM column skipped: no vllm=={paths.version('vllm')} sources under {root} "
                "(run `python tests/oracle/fetch.py vllm`)")
    from tests.oracle import vllm_dispatcher

    with contextlib.redirect_stdout(sys.stderr):  # vLLM logs its import-time notices
        return vllm_dispatcher.load(root), vllm_dispatcher


def _vllm_dispatch(vllm: Any, glue: Any, p: Plan, batch: list[int]) -> Callable[[int], object]:
    c = p.config
    d = glue.dispatcher(vllm, p.capture_sizes, c.cudagraph_mode.value, c.max_num_seqs,
                        c.num_speculative_tokens)
    for n in set(batch):  # the same decision before it is timed
        mode, desc = d.dispatch(n)
        ours = p.pad(n)
        assert (mode.name, desc.num_tokens) == (ours.mode.value, ours.padded), (n, mode, desc)
    return d.dispatch  # type: ignore[no-any-return]


def _methods(p: Plan, batch: list[int], dispatch: Callable[[int], object] | None
             ) -> dict[str, Callable[[], object]]:
    """One pass over the batch per method (each builds a list, like the empty baseline)."""
    sizes = p.capture_sizes
    table_ = padding_table(sizes)
    lookup = p.component("target").tables.lookup
    pad = p.pad
    fns: dict[str, Callable[[], object]] = {
        "empty": lambda: [None for _ in batch],
        "plan": lambda: [pad(n) for n in batch],
        "lookup": lambda: [lookup(n) for n in batch],
        "table": lambda: [table_[n] for n in batch],
        "bisect": lambda: [sizes[bisect_left(sizes, n)] for n in batch],
    }
    if dispatch is not None:
        fns["vllm"] = lambda: [dispatch(n) for n in batch]
    return fns


def measure() -> tuple[list[dict[str, Any]], str]:
    vllm = _vllm()
    note = vllm if isinstance(vllm, str) else ""
    rows = []
    for label, fields in CONFIGS:
        # the reference is vLLM 0.33's own dispatcher: graphfit's model of the same release
        p = plan(EngineConfig(**fields, engine_version="0.33.0"))  # type: ignore[arg-type]
        sizes = p.capture_sizes
        rng = random.Random(0)
        batch = [rng.randint(1, sizes[-1]) for _ in range(N)]
        dispatch = None if isinstance(vllm, str) else _vllm_dispatch(vllm[0], vllm[1], p, batch)
        fns = _methods(p, batch, dispatch)
        seconds = dict(zip(fns, paired_medians(list(fns.values()), repeat=25)))
        ns = {k: max(0.0, (v - seconds["empty"]) / N * 1e9) for k, v in seconds.items()
              if k != "empty"}
        rows.append({"ladder": f"{label} ({len(sizes)} graphs, max {sizes[-1]})", **ns})
    return rows, note


def report(rows: list[dict[str, Any]], note: str) -> str:
    has_vllm = "vllm" in rows[0]
    headers = ["ladder", "Plan.pad", "DispatchTables.lookup", "padding table[n]",
               "bisect"]
    if has_vllm:
        headers += ["vLLM dispatch()", "vLLM / Plan.pad"]
    body = []
    for r in rows:
        row = [r["ladder"], f"{r['plan']:.0f}", f"{r['lookup']:.0f}", f"{r['table']:.0f}",
               f"{r['bisect']:.0f}"]
        if has_vllm:
            row += [f"{r['vllm']:.0f}", f"{r['vllm'] / r['plan']:.1f}x"]
        body.append(row)
    out = table("Pad lookup, ns per call (medians, loop overhead subtracted)", headers, body)
    return out + (f"\n{note}\n" if note else "")


if __name__ == "__main__":
    figures, why = measure()
    print(report(figures, why))
    if len(sys.argv) > 2 and sys.argv[1] == "--summary":
        with open(sys.argv[2], "w") as fh:
            json.dump({"rows": figures, "note": why}, fh)
