"""Agreement of graphfit with SGLang 0.5.23 on N generated DFLASH target / draft pairs whose
target keeps its text settings in a sub-config (not a test; tests.oracle.
sglang_dflash_text_config, issue 23 s54d).

    python -m tests.oracle.measure_sglang_dflash_text_config 150 [--before /work/main]

SGLang's answer: its own get_config + get_hf_text_config + `_resolve_dflash_aux_hidden_state`
on the written target (a ValueError's text, None, or a load failure). graphfit's answer:
`sglang_dflash_layers.refusal` of this tree ("after") and of the tree named by --before
(default /work/main: its graphfit/inputs/sglang_dflash_layers.py loaded as a module beside
this tree's other modules). A pair agrees when both give the same sentence or both pass; where
SGLang cannot load the target, graphfit agrees by giving no layer sentence (another check's).
"""

from __future__ import annotations

import collections
import importlib.util
import sys
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings

from graphfit.inputs import sglang_dflash_layers
from tests.oracle import sglang_dflash_text_config as tc
from tests.oracle.before_tree import frozen


def _before(root: str) -> Any:
    path = Path(root) / "graphfit" / "inputs" / "sglang_dflash_layers.py"
    spec = importlib.util.spec_from_file_location("before_sglang_dflash_layers", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _key(theirs: str | None, ours: str | None) -> str:
    if theirs is not None and theirs.startswith("load:"):
        return "SGLang cannot load, no layer sentence" if ours is None \
            else "SGLang cannot load, graphfit refuses for the layers"
    if theirs == ours:
        return "both pass" if theirs is None else "both refuse (SGLang's sentence)"
    return "SGLang refuses, graphfit passes" if ours is None else "differ"


def main() -> int:
    args = sys.argv[1:]
    root = "/work/main"
    if "--before" in args:
        at = args.index("--before")
        root = args[at + 1]
        del args[at:at + 2]
    n = int(args[0]) if args else 150
    before = _before(frozen(root))
    counts: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    shown: list[str] = []

    @settings(max_examples=n, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(tc.targets(), tc.drafts())
    def run(target: dict[str, Any], draft: dict[str, Any]) -> None:
        theirs = tc.loaded_refusal(target, draft)
        for mode, module in (("before", before), ("after", sglang_dflash_layers)):
            key = _key(theirs, module.refusal(target, draft))
            counts[mode][key] += 1
            if mode == "after" and key in ("differ", "SGLang refuses, graphfit passes") \
                    and len(shown) < 6:
                shown.append(f"{target} / {draft}: SGLang {theirs!r}")

    run()
    for line in shown:
        print(line)
    for mode in ("before", "after"):
        agree = sum(v for k, v in counts[mode].items() if k.startswith(("both", "SGLang cannot "
                                                                          "load, no")))
        told = ", ".join(f"{k} {v}" for k, v in sorted(counts[mode].items()))
        print(f"{mode}: {agree} of {n} agree ({told})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
