"""Agreement counts of graphfit with SGLang 0.5.23 over N generated `--speculative-adaptive`
lines (a fresh, non-derandomized draw each run):

    python -m tests.oracle.measure_sglang_adaptive [N]

and the memory of the buffers SGLang shares across its adaptive states, in one run: graphfit's
plan before shared buffers (every set its own copy), after, and SGLang's own distinct tensors
for the same buffers (its GraphSharedOutput and input pool, built on CPU):

    python -m tests.oracle.measure_sglang_adaptive --memory
"""

from __future__ import annotations

import collections
import sys

from hypothesis import HealthCheck, given, settings

from tests.oracle import sglang_adaptive_oracle as sa
from tests.oracle import sglang_compare as sc
from tests.oracle.test_sglang_adaptive_oracle import adaptive_lines


def main(n: int) -> None:
    counts: collections.Counter[str] = collections.Counter()
    examples: list[str] = []

    @settings(max_examples=n, derandomize=False, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(adaptive_lines())
    def draw(argv: tuple[str, ...]) -> None:
        diffs = sa.compare(argv)
        sg = sc.sglang(argv, 80)
        kind = ("rejected" if sg.rejected is not None
                else "kept on" if sa.states(sg.resolved) is not None else "fell back")
        bad = [str(d) for v in diffs.values() for d in v]
        counts[f"{kind}: {'differ' if bad else 'agree'}"] += 1
        if bad and len(examples) < 5:
            examples.append(f"{' '.join(argv)}: {bad[0]}")

    draw()
    total = sum(counts.values())
    agree = sum(v for k, v in counts.items() if k.endswith("agree"))
    print(f"{agree}/{total} generated lines agree")
    for key in sorted(counts):
        print(f"  {key}: {counts[key]}")
    for line in examples:
        print(f"  e.g. {line}")


MEMORY_LINES = (
    ("--max-running-requests", "48", "--speculative-algorithm", "EAGLE"),
    ("--max-running-requests", "33", "--speculative-algorithm", "EAGLE3",
     "--speculative-num-steps", "5"),
    ("--speculative-algorithm", "EAGLE", "--tp", "4", "--attn-cp-size", "2"),
)


def memory() -> None:
    import json

    from graphfit import EngineConfig, plan
    from graphfit.planner.engines import sglang as engine
    from tests.helpers import run_cli
    from tests.oracle import sglang_oracle as so

    mib = 2 ** 20
    for line in MEMORY_LINES:
        argv = (*line, "--speculative-adaptive")
        code, out, text = run_cli(["plan", "--json", "--gpu-memory-gb", "80", "--", "python",
                                   "-m", "sglang.launch_server", "--model-path",
                                   str(so.oracle().model_dir), *argv])
        assert code == 0, text
        config = EngineConfig.from_dict(json.loads(out)["config"])
        after = plan(config)
        saved, engine.share_like_sglang = engine.share_like_sglang, lambda comps: comps
        try:
            before = plan(config)
        finally:
            engine.share_like_sglang = saved
        r = so.resolve(argv, gpu_mem_gb=80)
        assert isinstance(r, so.Resolved)
        built = sa.shared_tensors(r)
        diffs, figures = sa.compare_sharing(after, r, built)
        assert built is not None
        users = sa.modelled_users(after, built)
        ours = sum(t.numel * t.element_size for t in sa.graphfit_groups(after, users))
        print(f"{' '.join(argv)}")
        print(f"  graphfit plan total: {before.total_bytes / mib:.1f} MiB before (each set its "
              f"own copy), {after.total_bytes / mib:.1f} MiB after ({len(after.shared)} "
              f"shared buffers)")
        print(f"  the runners' buffers SGLang allocates: {figures['sglang_bytes'] / mib:.1f} "
              f"MiB (SGLang, {figures['shared_tensors']} tensors shared by "
              f"{figures['shared_users']} runner buffers), {ours / mib:.1f} MiB (graphfit's "
              f"formulas, same buffers); sharing differences: {len(diffs)}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--memory"]:
        memory()
    else:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
