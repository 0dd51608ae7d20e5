"""How often `graphfit plan`'s SGLang prefill component (and PD roles' decode graphs) agree
with SGLang 0.5.23, per aspect, on generated pasted lines.

    PYTHONPATH=. python tests/oracle/measure_sglang_plan_prefill.py [N] [SEED]  # default 300

Lines are drawn with `random` over the space of test_sglang_prefill_oracle.lines (S given,
prefill flags and JSON phase, TP / attention DP / CP, context length, two-batch overlap, PP,
--max-total-tokens, PD roles, torch_native) plus MLA models; each is compared by
tests/oracle/sglang_plan_prefill.compare. Prints one markdown row per aspect: lines compared,
lines equal, and the first difference of each aspect.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from graphfit.planner import ConfigError
from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_plan_prefill as spp
from tests.oracle import sglang_stubs

GPUS = (16, 30, 48, 80, 141, 192)


def draw(rng: random.Random) -> tuple[tuple[str, ...], float, bool]:
    argv = ["--max-running-requests", str(rng.randint(1, 512))]
    if rng.random() < 0.5:
        argv += ["--chunked-prefill-size", str(rng.randint(64, 20000))]
    choice = rng.choice(("default", "backend", "off", "max_bs", "bs", "json"))
    if choice == "backend":
        argv += ["--cuda-graph-backend-prefill", rng.choice(("full", "breakable", "disabled"))]
    elif choice == "off":
        argv.append(rng.choice(("--disable-prefill-cuda-graph", "--disable-cuda-graph")))
    elif choice == "max_bs":
        argv += ["--cuda-graph-max-bs-prefill", str(rng.randint(4, 20000))]
    elif choice == "bs":
        argv += ["--cuda-graph-bs-prefill",
                 *map(str, rng.sample(range(1, 5001), rng.randint(1, 5)))]
    elif choice == "json":
        key = rng.choice(("backend", "max_bs", "bs", "full_prefill_max_req"))
        value: object = (rng.choice(("full", "breakable", "disabled")) if key == "backend"
                         else rng.randint(4, 9000) if key == "max_bs"
                         else rng.randint(1, 64) if key == "full_prefill_max_req"
                         else [rng.randint(1, 3000) for _ in range(rng.randint(1, 4))])
        phase: dict[str, object] = {key: value}
        if key == "full_prefill_max_req":
            phase["backend"] = "full"
        argv += ["--cuda-graph-config", json.dumps({"prefill": phase})]
    tp = rng.choice((1, 2, 4, 8))
    if tp > 1:
        argv += ["--tp", str(tp)]
        split = rng.choice(("none", "dp", "cp"))
        if split == "dp":
            argv += ["--attn-dp-size", str(rng.choice([d for d in (2, 4, 8) if tp % d == 0]))]
        elif split == "cp":
            argv += ["--attn-cp-size", "2"]
    if rng.random() < 0.25:
        argv += ["--context-length", str(rng.randint(2, 4096))]
    extra = rng.choice(("", "tbo", "pp", "max_total", "decode", "prefill", "native"))
    if extra == "tbo":
        argv += so.tbo(argv)
    elif extra == "pp":
        argv += ["--pp-size", "2"]
    elif extra == "max_total":
        argv += ["--max-total-tokens", str(rng.randint(100, 20000))]
    elif extra in ("decode", "prefill"):
        argv += ["--disaggregation-mode", extra]
    elif extra == "native":
        argv += ["--attention-backend", "torch_native"]
    return tuple(argv), rng.choice(GPUS), rng.random() < 0.15


@dataclass
class Tally:
    """The lines SGLang rejects, those graphfit refuses (not modelled) and, over the lines
    both plan, how many agree per aspect and each aspect's first difference: the counts every
    prefill measure script prints."""

    rejected: int = 0
    refused: int = 0
    compared: int = 0
    on: int = 0
    equal: Counter[str] = field(default_factory=Counter)
    first: dict[str, str] = field(default_factory=dict)

    def planned(self, out: Any) -> bool:
        """Count one line's outcome (a compare's `sglang_rejects`, `graphfit_refuses`,
        `prefill_on`); True when both sides planned it, so its aspects are to be counted."""
        if out.sglang_rejects:
            self.rejected += 1
            return False
        if out.graphfit_refuses:
            self.refused += 1
            return False
        self.compared += 1
        self.on += out.prefill_on
        return True

    def count(self, aspects: Iterable[str], diffs: dict[str, list[str]], line: str) -> None:
        """Each aspect equal on `line`, or its first difference kept."""
        for aspect in aspects:
            if aspect in diffs:
                self.first.setdefault(aspect, f"{line}: {diffs[aspect][0]}")
            else:
                self.equal[aspect] += 1


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 23)
    mla = str(sglang_stubs.write_mla_model_dir(Path(tempfile.mkdtemp()) / "dsv3"))
    t = Tally()
    mla_lines = 0
    also_refused = 0  # of the lines SGLang rejects, those graphfit refuses as well
    for _ in range(n):
        argv, gb, use_mla = draw(rng)
        out = spp.compare(argv, gb, mla if use_mla else None)
        if out.sglang_rejects:
            also_refused += _graphfit_refuses(argv, gb, mla if use_mla else None)
        if not t.planned(out):
            continue
        mla_lines += use_mla
        t.count(spp.ASPECTS, out.diffs, f"{' '.join(argv)} @{gb}")
    print(f"{n} lines: SGLang rejects {t.rejected} (graphfit refuses {also_refused} of them), "
          f"graphfit refuses {t.refused} (not modelled), {t.compared} compared ({t.on} with "
          f"prefill graphs on, {mla_lines} on an MLA model)\n")
    print_aspects(spp.ASPECTS, t.equal, t.compared, t.first)


def _graphfit_refuses(argv: tuple[str, ...], gb: float | None, model: str | None) -> bool:
    """Whether graphfit refuses a line SGLang's server rejects (a plan there would be a plan
    for a server that never starts)."""
    try:
        spp.graphfit_plan(argv, gb, model)
    except ConfigError:
        return True
    return False


def print_aspects(aspects: tuple[str, ...], equal: Counter[str], compared: int,
                  first: dict[str, str]) -> None:
    """The agreement table (equal / compared per aspect), then each aspect's first difference."""
    print("| aspect | equal | compared |\n|---|---|---|")
    for aspect in aspects:
        print(f"| {aspect} | {equal[aspect]} | {compared} |")
    for aspect, text in first.items():
        print(f"\nfirst {aspect} difference: {text[:400]}")


if __name__ == "__main__":
    main()
