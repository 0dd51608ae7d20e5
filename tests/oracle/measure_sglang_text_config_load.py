"""A plain text class's config.json writing a `text_config` (issue 23, s64c), as the target
or as an EAGLE draft of a pasted SGLang line, with the line's `--json-model-override-args` on
some. SGLang: its own ModelConfig on that directory with those override args
(tests.oracle.sglang_draft_load.sglang; the draft worker's ModelConfig takes the same,
configs/model_config.py:950-975). graphfit: the pasted line (graphfit.inputs.commandline.read)
refused with a `text_config` reason, or not. s65c: the deepseek_v3 / deepseek_v2 cases carry
their MLA architecture, whose ModelConfig also reads the latent sizes off the text config
(configs/model_config.py:1366-1400). s66c: some cases name another MLA branch's class
(tests.oracle.sglang_draft_load.BRANCH_CLASSES, :1443-1517), and a draft is judged by the
draft worker's ModelConfig, which renames some classes first (:1011-1215). s67c: DeepSeek-V4
classes (top-level reads, :1418-1431), null latent sizes (the sums that use them) and
config.json files writing no text_config at all are drawn too
(tests.oracle.sglang_draft_load.V4_KEYS, NULLABLE, ABSENT). s68c: the plain classes' files
without text_config too, and sub-configs SGLang's parser picks before text_config
(tests.oracle.sglang_draft_load.draw_sub: thinker_config, llm_config, language_config; null,
not dicts, over a text_config).

    python -m tests.oracle.measure_sglang_text_config_load [COUNT] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import json
import random
import sys
from typing import Any

ROLES = ("target", "draft")


def line(role: str, case: Any) -> list[str]:
    """The pasted line of the case: the directory as the target, or as an EAGLE draft of the
    oracle's Llama target."""
    from tests.oracle import sglang_draft_load as dlo
    from tests.oracle import sglang_oracle as so

    model_type, text, overrides = case
    where = dlo.folder(model_type, text)
    words = ["python", "-m", "sglang.launch_server", "--max-running-requests", "16"]
    if overrides is not None:
        words += ["--json-model-override-args", json.dumps(overrides)]
    if role == "target":
        return [*words, "--model-path", where]
    return [*words, "--model-path", str(so.oracle().model_dir), "--speculative-algorithm",
            "EAGLE", "--speculative-draft-model-path", where]


def refuses(words: list[str]) -> str | None:
    """graphfit's error where it names the text config, the language config or SGLang's
    ModelConfig (s67c: a null read's TypeError; the error line is cut at 200 characters,
    after the config.json's path), else None."""
    from graphfit.inputs import commandline
    from graphfit.planner.core.errors import GraphfitError

    try:
        commandline.read(words)
    except GraphfitError as exc:
        said = str(exc)
        return said if any(word in said for word in (
            "text_config", "language_config", "SGLang's ModelConfig",
            "thinker_config", "llm_config",  # s68c: the other sub-configs, class fields
            "transformers refuses", "transformers fails", "got None")) else None
    return None


def measure(count: int, seed: int) -> dict[str, int]:
    """Score `count` drawn (role, case); print and return the counts."""
    from tests.oracle import sglang_draft_load as dlo
    from tests.oracle import sglang_oracle as so

    rng = random.Random(seed)
    counts = {"agree": 0, "differ": 0, "sglang fails": 0}
    shown = 0
    for _ in range(count):
        role, case = rng.choice(ROLES), dlo.draw(rng, dlo.types())
        theirs = dlo.sglang(case, draft=role == "draft")
        if role == "draft" and theirs == "loads":  # the override args reach the target too
            theirs = dlo.sglang(case, str(so.oracle().model_dir))
        ours = refuses(line(role, case))
        counts["sglang fails"] += theirs != "loads"
        same = (theirs == "loads") == (ours is None)
        counts["agree" if same else "differ"] += 1
        if not same and shown < 6:
            shown += 1
            print(f"  {role} {case}: SGLang {theirs}; graphfit {ours}")
    print({**counts, "lines": count})
    return counts


def main(argv: list[str]) -> int:
    from tests.oracle.measure_root import main_with_before

    return main_with_before("measure_sglang_text_config_load", measure, argv, 200, "lines")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
