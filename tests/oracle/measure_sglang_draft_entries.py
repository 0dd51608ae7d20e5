"""Qwen4-Exp MTP drafts and drafts whose one layer's config entry SGLang cannot read (issue 23,
s67d) over drawn EAGLE lines on a Qwen3-MoE target (tests.oracle.sglang_draft_deepep_oracle's
draw: draft and target a2a backends, --deepep-mode, runners, JIT DeepGEMM, FP8, attention DP,
multi-layer EAGLE, a dense draft 15% of the time). The draft: Qwen4-Exp, or a Step-3.5 /
Exaone-MoE / InternS2-Mobius config missing or mangling its entry (`moe_layers_enum`,
`is_moe_layer`, `mtp_num_experts`). SGLang: its resolution and the draft's build on meta
(tests.oracle.test_sglang_draft_layer_entries_oracle.answers: the DeepEPMoE oracle's, an
exception the draft's entry raises counted as its refusal); graphfit: its CLI. Both refuse
or both start.

    python -m tests.oracle.measure_sglang_draft_entries [COUNT] [SEED] [BEFORE_ROOT]

Prints this checkout's counts, then the same lines scored by BEFORE_ROOT's graphfit (default
/work/main) in a child process ("before").
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

_BROKEN: dict[str, tuple[str, str, Any]] = {  # name -> (base draft, key, value; None: absent)
    "step3p5_no_enum": ("step3p5", "moe_layers_enum", None),
    "step3p5_bad_enum": ("step3p5", "moe_layers_enum", "3,4,x"),
    "step3p5_blank_enum": ("step3p5", "moe_layers_enum", "3,,45"),
    "step3p5_list_enum": ("step3p5", "moe_layers_enum", [3, 45]),
    "exaone_no_flags": ("exaone_moe", "is_moe_layer", None),
    "exaone_empty_flags": ("exaone_moe", "is_moe_layer", []),
    "mobius_no_experts": ("interns2_mobius", "mtp_num_experts", None),
}


def _write_broken(root: Path) -> dict[str, Path]:
    from tests.oracle import sglang_draft_build as sdb

    out = {}
    for name, (base, key, value) in _BROKEN.items():
        data = json.loads(json.dumps(sdb.NEXTN_DRAFTS[base]))
        where = data["text_config"] if base == "interns2_mobius" else data
        where.pop(key)
        if value is not None:
            where[key] = value
        folder = root / name
        folder.mkdir()
        (folder / "config.json").write_text(json.dumps(data))
        out[name] = folder
    return out


def measure(count: int, seed: int) -> dict[str, int]:
    """Score `count` drawn lines; print and return the counts."""
    from tests.oracle import sglang_draft_deepep_oracle as ddo
    from tests.oracle import sglang_oracle as so
    from tests.oracle.measure_root import tally_refusals
    from tests.oracle.test_sglang_draft_layer_entries_oracle import answers

    so.oracle()
    root = Path(tempfile.mkdtemp())
    paths = {**ddo.dirs(root, ("qwen4_exp",)), **_write_broken(root)}
    drafts = ("qwen4_exp", "qwen4_exp", "qwen4_exp", *_BROKEN)
    rng = random.Random(seed)

    def rows() -> Iterator[tuple[str, str | None, int, str, bool]]:
        for _ in range(count):
            line, jit = ddo.draw(rng, paths, drafts)
            theirs, (code, said) = answers(paths, line, jit)
            yield (f"{Path(line[9]).name} {line[10:]}", theirs, code, said,
                   ddo.agree(theirs, code, said))

    return tally_refusals(count, rows())


def main(argv: list[str]) -> int:
    from tests.oracle.measure_root import main_with_before

    return main_with_before("measure_sglang_draft_entries", measure, argv, 40, "lines")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
