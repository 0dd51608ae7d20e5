"""Measure the draft's context-length check on graphfit's own `--config` file (issue 23 s62c):
`python -m tests.oracle.measure_sglang_file_draft_length [COUNT] [SEED] [BEFORE]` (default 20
draws, seed 23). A draw is a STANDALONE line of tests/oracle/sglang_context_length_oracle.
draft_case (a drawn target, a local draft maybe shorter than it, the environment's allowance),
written as a JSON config file twice: naming `model_path`, and naming none with graphfit's
`--model-path` flag as the target. Each file is planned by `graphfit plan --config` of this
tree (and of BEFORE, e.g. /work/main) in a child process; counted: whether it accepts exactly
the lines SGLang's draft ModelConfig accepts (t.sglang_draft_length)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from tests.oracle import sglang_context_length_oracle as t
from tests.oracle import sglang_file_draft_length as f
from tests.oracle.before_tree import frozen


def _plans(root: str, file: Path, model: str | None, env: dict[str, str]) -> bool:
    more = ["--model-path", model] if model else []
    out = subprocess.run([sys.executable, "-m", "graphfit", "plan", "--gpu-memory-gb", "H100",
                          "--config", str(file), *more], capture_output=True, text=True,
                         check=False, cwd=root,
                         env={**os.environ, **env, "PYTHONPATH": root})
    return out.returncode == 0


def main(count: int = 20, seed: int = 23, root: str | None = None) -> None:
    rng = random.Random(seed)
    folder = tempfile.mkdtemp(prefix="graphfit-file-draft-length-")
    here = str(Path(__file__).resolve().parents[2])
    counts: dict[str, Counter[str]] = {"after (this tree)": Counter()}
    if root:
        counts[f"before ({root})"] = Counter()
    for i in range(count):
        model, draft, argv, env = t.draft_case(rng, folder)
        starts = isinstance(t.sglang_draft_length(model, draft, argv, env), int)
        for flag in (False, True):
            file = Path(folder) / f"line{i}{'-flag' if flag else ''}.json"
            file.write_text(json.dumps(f.file_keys(model, argv, flag)))
            for name, tree in (("after (this tree)", here), (f"before ({root})", root)):
                if tree is None:
                    continue
                plans = _plans(frozen(tree), file, model if flag else None, env)
                counts[name]["as SGLang" if plans == starts else
                             "plans where SGLang refuses" if plans else
                             "refuses where SGLang starts"] += 1
    for name in reversed(counts):
        print(f"{name}: {dict(sorted(counts[name].items()))}")


if __name__ == "__main__":
    args = sys.argv[1:]
    main(int(args[0]) if args else 20, int(args[1]) if len(args) > 1 else 23,
         args[2] if len(args) > 2 else None)
