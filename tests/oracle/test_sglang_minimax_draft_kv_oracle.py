"""MiniMax-M3 with a DFLASH / DSPARK draft: one token's KV bytes a rank, the target's sparse
pool plus the draft's own pool (issue 23 s55d). graphfit (graphfit.planner.engines.
sglang_minimax_kv.draft_price, the draft's shape read by graphfit.inputs.sglang_minimax_kv.
draft_shape from the pasted line's draft directory) vs SGLang 0.5.23's own
`_compute_cell_size`, `resolve_dflash_draft_cell_size` and
`scale_kv_cell_size_per_token_for_dflash` on the line SGLang resolves
(tests/oracle/sglang_minimax_draft_kv_oracle), per pipeline stage.

The cases cover the draft's KV heads above / below the attention-TP width, attention DP, a
head_dim / v_head_dim the draft names, the draft KV dtype following the target's
(--kv-cache-dtype), an explicit --speculative-draft-kv-cache-dtype, the fa4 draft backend's
model-dtype KV, an explicit `auto` draft KV dtype (the model dtype, not the target's), and a
MiniMax M3.1 draft (SGLang's rewrite for DSPARK, none for DFLASH). Kept to a handful of SGLang
resolutions (CI budget); `python -m tests.oracle.measure_sglang_minimax_draft_kv` draws more.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from tests.oracle.paths import require

require("sglang")

from graphfit.planner.engines.sglang_minimax_kv import (  # noqa: E402
    draft_price,
    pool_page,
)
from tests.oracle import sglang_dspark_compare as kc  # noqa: E402
from tests.oracle import sglang_minimax_draft_kv_oracle as dk  # noqa: E402
from tests.oracle import test_sglang_minimax_kv_oracle as t  # noqa: E402


def case(algo: str = "DSPARK", draft: dict[str, Any] | None = None, minimax: bool = False,
         tp: tuple[int, int] = (2, 1), gpu: str = "H100",
         more: tuple[str, ...] = ()) -> dict[str, Any]:
    """One line: a MiniMax-M3 target (every layer kind), the draft's config fields (on the
    oracle's Llama DSPARK draft, or a MiniMax M3.1 draft), layout, GPU and flags."""
    target = t.case([0, 1, 1, 1], [0, 0, 1, 0], tp=tp, gpu=gpu)
    fields = json.dumps(draft or {}, sort_keys=True)
    path = kc.minimax_dir(fields) if minimax else kc.draft_dir(None, None, None, fields)
    extra = ("--speculative-algorithm", algo, "--speculative-draft-model-path", path, *more)
    return {**target, "more": extra, "draft": path}


def sglang_prices(c: dict[str, Any]) -> Any:
    return dk.cell_sizes(t.path_of(c), c["draft"], t.argv_of(c), t.CAPABILITY[c["gpu"]])


def graphfit_prices(c: dict[str, Any]) -> Any:
    """graphfit's per-stage totals (target + draft) and page on the pasted line, "refused: ..."
    where it refuses, "not priced: ..." where it shows no figure or no draft share."""
    got = t.planned_prices(c)
    if isinstance(got, str):
        return got
    config, priced, shape = got
    draft = draft_price(config, shape)
    if not isinstance(draft, int):
        return f"not priced: the draft's share ({draft})"
    return tuple(p.total + draft for p in priced), pool_page(config, shape)


def verdict(c: dict[str, Any]) -> tuple[str, Any, Any]:
    """("agree" | "differ" | "sglang refuses", SGLang's, graphfit's)."""
    theirs, ours = sglang_prices(c), graphfit_prices(c)
    if isinstance(theirs, str):
        return ("sglang refuses", theirs, ours)
    return ("agree" if theirs == ours else "differ", theirs, ours)


CASES = [
    case(),  # the draft's 8 KV heads over attention TP 2
    case("DFLASH", {"num_key_value_heads": 1, "head_dim": 64, "v_head_dim": 96},
         tp=(4, 1)),  # heads below the TP width; v_head_dim named
    case(tp=(4, 2), draft={"num_hidden_layers": 3},
         more=("--enable-dp-lm-head",)),  # attention DP
    case(more=("--kv-cache-dtype", "fp8_e4m3")),  # the draft follows the target's fp8
    case("DFLASH", gpu="B200", more=("--speculative-draft-kv-cache-dtype", "fp8_e4m3")),
    case("DFLASH", gpu="B200", more=("--kv-cache-dtype", "fp8_e4m3",
                                     "--speculative-draft-attention-backend", "fa4")),
    case(minimax=True, tp=(1, 1), draft={"dflash_config": {"target_layer_ids": [1, 2]}}),
    case("DFLASH", gpu="B200"),  # the hook's fa4 target: an fa4 draft, model-dtype KV
    case(more=("--kv-cache-dtype", "fp8_e4m3", "--speculative-draft-kv-cache-dtype", "auto")),
    case("DFLASH", minimax=True, tp=(1, 1), gpu="B200",
         draft={"dflash_config": {"target_layer_ids": [1, 2]}}),  # not rewritten for DFLASH
]


def draw(rng: random.Random) -> dict[str, Any]:
    """A generated line (the measure script's): algorithm, the draft's shape, layout, GPU,
    target / draft KV dtypes and the draft backend."""
    gpu = rng.choice(("H100", "B200"))
    draft: dict[str, Any] = {"num_hidden_layers": rng.choice((1, 2, 5))}
    if rng.random() < 0.5:
        draft["num_key_value_heads"] = rng.choice((1, 2, 4, 8))
    if rng.random() < 0.3:
        draft["head_dim"] = rng.choice((64, 128))
    if rng.random() < 0.2:
        draft["v_head_dim"] = rng.choice((64, 96))
    more: tuple[str, ...] = ()
    kv = rng.choice((None, None, "fp8_e4m3", "bf16"))
    more += () if kv is None else ("--kv-cache-dtype", kv)
    dkv = rng.choice((None, None, "auto", "fp8_e4m3", "bf16"))
    more += () if dkv is None else ("--speculative-draft-kv-cache-dtype", dkv)
    if gpu == "B200" and rng.random() < 0.3:
        more += ("--speculative-draft-attention-backend", "fa4")
    if rng.random() < 0.15:
        draft["is_causal"] = True
    tp = rng.choice(((1, 1), (2, 1), (4, 1), (4, 2), (8, 1)))
    more += ("--enable-dp-lm-head",) if tp[1] > 1 else ()
    minimax = tp == (1, 1) and rng.random() < 0.3
    shape = {"dflash_config": {"target_layer_ids": [1, 2]}} if minimax else draft
    return case(rng.choice(("DSPARK", "DFLASH")), shape, minimax, tp, gpu, more)


@pytest.mark.parametrize("c", CASES, ids=[str(i) for i in range(len(CASES))])
def test_price_with_draft_equals_sglang(c: dict[str, Any]) -> None:
    outcome, theirs, ours = verdict(c)
    assert outcome == "agree", (theirs, ours, t.argv_of(c))
