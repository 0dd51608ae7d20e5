"""DSPARK lines on a Qwen3-MoE target (issue 23, s69k): graphfit's plan of each pasted line
against SGLang 0.5.23's own resolution and runners, on two drawn families.

* sizes: lines without attention DP (TP 1 / 2, deepep with `--disable-attn-tp-gather`,
  compact verify on some), compared as every block-draft line is
  (sglang_dspark_compare.compare_line); printed with the oracle as it now sizes the target
  (the line's own model, sglang_oracle._target_sizes) and as it did before s69k (the oracle
  model's 4096 / 128256, restored in-process on the same lines);
* gather: attention-DP lines with the DP LM head and megamoe on an H100, `--moe-dense-tp-size`
  unset / 1 / the TP size (tests.oracle.sglang_dspark_targets.compare: the per-rank gathers,
  `global_num_tokens` entries and padded batches included).

BEFORE_ROOT's graphfit runs the same draw in a child process.

    python -m tests.oracle.measure_sglang_dspark_targets [COUNT] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import contextlib
import json
import logging
import random
import sys
from collections.abc import Iterator
from typing import Any
from unittest import mock

from tests.oracle.measure_root import main_with_before


def _draw_sizes(rng: random.Random) -> tuple[str, ...]:
    from tests.oracle import sglang_dspark_compare as kc
    from tests.oracle import sglang_moe_a2a_compare as mc

    env = ("SGLANG_RAGGED_VERIFY_MODE=compact",) if rng.random() < 0.25 else ()
    parallel = rng.choice(((), ("--tp-size", "2"),
                           ("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", "deepep",
                            "--disable-attn-tp-gather")))
    draft = kc.draft_dir("block_size", rng.randint(1, 8), rng.choice((True, False)))
    return (*env, "--model-path", mc.model_dir(), "--max-running-requests",
            str(rng.choice((4, 8, 16, 48))), *parallel, "--speculative-algorithm", "DSPARK",
            kc.DRAFT, draft)


def _draw_gather(rng: random.Random) -> tuple[str, ...]:
    from tests.oracle import sglang_dspark_compare as kc

    tp, dp = rng.choice(((4, 2), (8, 2), (8, 4), (4, 4)))
    dense = rng.choice(((), ("--moe-dense-tp-size", "1"), ("--moe-dense-tp-size", "1"),
                        ("--moe-dense-tp-size", str(tp))))
    draft = kc.draft_dir("block_size", rng.randint(1, 8), rng.choice((True, False)))
    return ("--max-running-requests", str(rng.choice((8, 16, 32))), "--tp-size", str(tp),
            "--attn-dp-size", str(dp), "--enable-dp-lm-head", "--moe-a2a-backend", "megamoe",
            *dense, "--speculative-algorithm", "DSPARK", kc.DRAFT, draft)


@contextlib.contextmanager
def old_oracle() -> Iterator[None]:
    """The oracle's target sizing before s69k: the caller's sizes (default the oracle
    model's) unless override args are given; the translated line given sizes only with
    override args; the translated draft given its hidden size only when it is not the
    oracle model's. Caches cleared on entry and exit."""
    from tests.oracle import sglang_block_drafts as bd
    from tests.oracle import sglang_compare as sc
    from tests.oracle import sglang_dspark_compare as kc
    from tests.oracle import sglang_oracle as so

    def overridden(r: Any) -> bool:
        return bool(json.loads(getattr(r.record, "json_model_override_args", None) or "{}"))

    def sizes(r: Any, hidden: int | None, vocab: int | None) -> tuple[int, int]:
        if not overridden(r):
            return hidden or so.DEFAULT_HIDDEN, vocab or so.DEFAULT_VOCAB
        from sglang.srt.arg_groups.model_override_base import model_config_of

        mc = model_config_of(r.record)
        return int(mc.hidden_size), int(mc.vocab_size)

    def model(r: Any) -> tuple[str, ...]:
        if not overridden(r):
            return ()
        h, v = sizes(r, None, None)
        return ("--hidden-size", str(h), "--vocab-size", str(v))

    def clear() -> None:
        for cached in (bd.sglang, sc.sglang, sc.graphfit_cli):
            cached.cache_clear()

    clear()
    with mock.patch.object(so, "_target_sizes", sizes), \
            mock.patch.object(sc, "_overridden_model", model), \
            mock.patch.object(kc, "_target_hidden", lambda sg: so.DEFAULT_HIDDEN):
        yield
    clear()


def _tally(name: str, lines: list[tuple[str, ...]], compare: Any) -> int:
    counts: dict[str, int] = {}
    shown: list[str] = []
    for argv in lines:
        outcome, diffs = compare(argv)
        counts[outcome] = counts.get(outcome, 0) + 1
        if outcome == "differs":
            shown.append(f"{diffs[0].aspect}: {diffs[0].detail[:140]}")
    agree = len(lines) - counts.get("differs", 0)
    print(f"{name}: {agree}/{len(lines)} agree {dict(sorted(counts.items()))}")
    for line in shown[:4]:
        print("   ", line)
    return counts.get("differs", 0)


def measure(count: int, seed: int) -> dict[str, int]:
    from tests.oracle import sglang_dspark_compare as kc
    from tests.oracle import sglang_dspark_targets as dt

    logging.disable(logging.WARNING)
    rng = random.Random(seed)
    sizes = [_draw_sizes(rng) for _ in range(count)]
    gather = [_draw_gather(rng) for _ in range(count)]
    differ = _tally("sizes (oracle sized by the line's model)", sizes, kc.compare_line)
    with old_oracle():
        _tally("sizes (oracle sized by its own model, before s69k)", sizes, kc.compare_line)
    differ += _tally("gather (megamoe, attention DP, H100)", gather, dt.compare)
    counts = {"agree": 2 * count - differ, "differ": differ}
    print(counts)
    return counts


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_dspark_targets", measure, sys.argv[1:],
                                      20, "lines per family"))
