"""Agreement of graphfit with SGLang 0.5.23's target-layer resolution over N generated pasted
DFLASH / DSPARK lines (not a test; tests.oracle.sglang_dflash_layers, issue 23 s53k).

    python -m tests.oracle.measure_sglang_dflash_layers 40

Each line names a target of 1 to 6 layers (the oracle's Llama config otherwise) and a draft
of 1 to 3 layers naming target layer ids (in range or not) or none. SGLang's answer is its own
`_resolve_dflash_aux_hidden_state` on the two configs; graphfit's is the pasted line's
(`graphfit plan -- python -m sglang.launch_server ...`). Prints how many lines both refuse
for the layer ids, both pass the resolution, and where they differ; `before` runs the same
lines with graphfit's check turned off (graphfit.inputs.sglang_dflash_layers.check a no-op:
main's behaviour before s53k).
"""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphfit.inputs import sglang_dflash_layers
from tests.oracle import sglang_dflash_layers as dl
from tests.oracle.sglang_dspark_compare import draft_dir as dspark_dir

SENTENCES = ("num_target_layers >= 4", "out-of-range layer id", "must be positive")


def _lines(draw: st.DrawFn) -> tuple[str, str, str]:
    algorithm = draw(st.sampled_from(("DFLASH", "DSPARK")))
    target = dl.model_dir({"num_hidden_layers": draw(st.integers(1, 6))})
    fields: dict[str, object] = {"num_hidden_layers": draw(st.integers(1, 3))}
    if draw(st.booleans()):
        fields["dflash_config"] = {"target_layer_ids": draw(
            st.lists(st.integers(0, 6), min_size=1, max_size=3))}
    draft = dl.model_dir({**fields, "block_size": 4}) if algorithm == "DFLASH" \
        else dspark_dir(None, None, None, json.dumps(fields))
    return algorithm, target, draft


def measure(n: int) -> dict[str, collections.Counter[str]]:
    counts: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    shown: list[str] = []

    @settings(max_examples=n, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(st.composite(_lines)())
    def run(line: tuple[str, str, str]) -> None:
        algorithm, target, draft = line
        written = [json.loads((Path(p) / "config.json").read_text()) for p in (target, draft)]
        theirs = dl.sglang_refusal(*written, dspark=algorithm == "DSPARK")
        for mode in ("before", "after"):
            if mode == "before":
                with mock.patch.object(sglang_dflash_layers, "check", lambda *a: None):
                    ours = dl.pasted(target, "--speculative-algorithm", algorithm,
                                     "--speculative-draft-model-path", draft)
            else:
                ours = dl.pasted(target, "--speculative-algorithm", algorithm,
                                 "--speculative-draft-model-path", draft)
            refused = ours is not None and any(s in ours for s in SENTENCES)
            if theirs is None and not refused:
                key = "both pass the resolution"
            elif theirs is not None and refused and theirs.split(".")[0] in ours:
                key = "both refuse (SGLang's sentence)"
            else:
                key = "differ"
                if len(shown) < 6:
                    shown.append(f"{mode} {algorithm} {written[0]['num_hidden_layers']} "
                                 f"layers: SGLang {theirs!r}; graphfit {ours!r}")
            counts[mode][key] += 1

    run()
    for line in shown:
        print(line)
    return counts


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    counts = measure(n)
    for mode in ("before", "after"):
        told = ", ".join(f"{k} {v}" for k, v in sorted(counts[mode].items()))
        print(f"{mode}: {n} lines: {told}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
