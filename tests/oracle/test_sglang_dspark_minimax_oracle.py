"""SGLang 0.5.23 DSPARK with a MiniMax M3.1 draft (`DSparkMiniMaxDraftModel`), against SGLang's
own code: planned at TP 1, refused with SGLang's reason where its rewrite, the draft model's
constructors or its worker raise, refused as not modelled at TP > 1
(graphfit.inputs.sglang_dspark_minimax).

- `test_minimax_draft_lines`: whole pasted lines through the DSPARK oracle
  (sglang_dspark_compare.compare_line: SGLang's own argument pipeline,
  `configure_minimax_m3_dspark`, `DSparkMiniMaxDraftModel` built on the meta device, the
  draft's `DecodeCudaGraphRunner` and folded sampler on the rewritten config) against
  graphfit's plan of the same line.
- `test_minimax_construction_matches_sglang`: generated MiniMax drafts at TP 1 / 2 / 4, SGLang's
  own constructor (and its worker's checks) against graphfit's `refusal`.
"""

from __future__ import annotations

import functools
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_dspark_compare as kc  # noqa: E402
from tests.oracle import sglang_dspark_oracle as ko  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402

VOCAB = 128256  # the oracle model's rows

# (draft fields, TP): planned at TP 1 (a narrower hidden size, a sliding window, nested under
# text_config with sample_from_anchor false), refused by SGLang (no use_gemma_norm, a sliding
# layer without a window, the per_layer QK norm at TP 2), not modelled at TP 2 (per_head)
LINES = [
    ('{"hidden_size": 2048}', 1),
    ('{"dflash_config": {"layer_types": ["sliding_attention", "full_attention"]}, '
     '"sliding_window": 512}', 1),
    ('{"nested": true, "sample_from_anchor": false}', 1),
    ('{"use_gemma_norm": null}', 1),
    ('{"dflash_config": {"layer_types": ["sliding_attention", "full_attention"]}}', 1),
    ("{}", 2),
    ('{"qk_norm_type": "per_head"}', 2),
]


@pytest.mark.parametrize(("fields", "tp"), LINES)
def test_minimax_draft_lines(fields: str, tp: int) -> None:
    """No difference between SGLang's runners (or its refusal) and graphfit's plan (or its
    refusal); graphfit refuses as not modelled only at TP > 1."""
    argv = ("--speculative-algorithm", "DSPARK", "--tp-size", str(tp), kc.DRAFT,
            kc.minimax_dir(fields))
    outcome, diffs = kc.compare_line(argv, 80)
    assert diffs == [] and outcome != "differs", (fields, tp, diffs)
    assert outcome != "not_modelled" or tp > 1, (fields, tp)


@functools.cache
def _resolved(tp: int) -> so.Resolved:
    """SGLang's resolution of a MiniMax-draft line at TP `tp` (its published parallel layout
    is what the draft model's constructors read)."""
    return so.resolve(["--model-path", str(so.oracle().model_dir), "--speculative-algorithm",
                       "DSPARK", kc.DRAFT, kc.minimax_dir("{}"), "--tp-size", str(tp)])


def _sglang(fields: str, tp: int) -> str | None:
    """SGLang's own: get_config, the rewrite, `DSparkMiniMaxDraftModel` and the worker's
    `resolve_runtime_config`; the exception's type, or None when the draft starts."""
    r = _resolved(tp)
    with so.sglang_stubs.stubbed():
        from sglang.srt.speculative.dspark_components.dspark_config import (
            resolve_runtime_config,
        )
        from sglang.srt.utils.hf_transformers_utils import get_config

        try:
            config = ko.minimax_rewritten(get_config(kc.minimax_dir(fields),
                                                     trust_remote_code=False))
            ko.minimax_model(r, config)
            resolve_runtime_config(draft_hf_config=config, speculative_num_draft_tokens=5,
                                   target_vocab_size=VOCAB)
        except AssertionError as exc:
            if "oracle glue" in str(exc):
                raise
            return type(exc).__name__
        except Exception as exc:  # SGLang's own exception: the server does not start
            return type(exc).__name__
    return None


@settings(max_examples=30, deadline=None)
@given(st.sampled_from((1, 1, 2, 4)), kc.minimax_fields())
def test_minimax_construction_matches_sglang(tp: int, fields: str) -> None:
    """graphfit refuses with SGLang's reason exactly where SGLang's own rewrite, constructor
    or worker raises; it plans (TP 1) or refuses as not modelled (TP > 1) where SGLang
    starts the draft. A key left to the config class's default is no claim either way."""
    from graphfit.inputs.sglang_dspark_minimax import refusal

    data: dict[str, Any] = json.loads(
        (kc.Path(kc.minimax_dir(fields)) / "config.json").read_text())
    said = refusal(data, VOCAB, tp, tp)
    theirs = _sglang(fields, tp)
    if said is not None and "config class's default" in said:
        return
    ours_refuse = said is not None and "at TP" not in said
    assert ours_refuse == (theirs is not None), (fields, tp, said, theirs)
    assert (said is None) == (tp == 1 and theirs is None), (fields, tp, said, theirs)
