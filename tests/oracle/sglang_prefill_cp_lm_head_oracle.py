"""The DP LM head on DeepSeek-family prefill-CP lines under attention DP (issue 23 s68p): the
family override forces `moe_dense_tp_size` 1 with deepep (model_overrides/deepseek_v2.py:
106-145, 191-210), so SGLang 0.5.23's `require_mlp_tp_gather` is off with the DP LM head
(utils/common.py:4090-4128) and the decode runners keep one `global_num_tokens` row
(runner_utils/buffers.py:212-217); the DP LM head's assert (overrides.py:1421-1427) reads the
widths after the override folded `--dp-size` into attention DP.

`compare(case)`: sglang_prefill_cp_dsa_oracle.compare (ladders, padding, components, batch
buffers, fills, the prefill backend, the fraction), then the fixed-axis `global_num_tokens`
entries it leaves out (`global_rows`)."""

from __future__ import annotations

import random

from tests.oracle import sglang_prefill_cp_dsa_oracle as dsa

Case = dsa.Case


def global_rows(case: Case) -> tuple[int, int] | None:
    """(SGLang's target runner's `global_num_tokens_gpu` entries, graphfit's); None where
    SGLang builds no target runner (decode graphs off: a prefill server, say)."""
    from tests.oracle import sglang_compare as sc
    from tests.oracle import sglang_dcp_oracle as dc

    dsa.model_dir(case[2])
    theirs = dc.sglang_answer(case).runners
    ours, _ = dc.graphfit_answer(case, cli=True)
    assert theirs is not None and ours.plan is not None, ours.rejected
    if "target" not in theirs:
        return None
    planned = {b.name: b for b in ours.plan.components[sc.GF_COMPONENT.get(
        "target", "target")].buffers}
    return (int(theirs["target"].buffers["global_num_tokens_gpu"].shape[0]),
            planned["global_num_tokens_gpu"].capacity)


def compare(case: Case) -> tuple[str, list[str]]:
    outcome, diffs = dsa.compare(case)
    if outcome != "agree":
        return outcome, diffs
    rows = global_rows(case)
    if rows is not None and rows[0] != rows[1]:
        return "differs", [f"global_num_tokens_gpu: SGLang {rows[0]}, graphfit {rows[1]}"]
    return "agree", []


def generate(count: int, seed: int) -> list[Case]:
    """`count` of dsa.generate's family lines, each with attention DP or DP replicas (2 or
    4) and `--enable-dp-lm-head`."""
    rng = random.Random(seed)
    out: list[Case] = []
    for argv, gpu, model in dsa.generate(count, rng.randrange(1 << 30)):
        words = list(argv)
        if "--attn-dp-size" not in words and "--dp-size" not in words:
            words += [rng.choice(("--attn-dp-size", "--dp-size")), str(rng.choice((2, 4)))]
        out.append(((*words, "--enable-dp-lm-head"), gpu, model))
    return out
