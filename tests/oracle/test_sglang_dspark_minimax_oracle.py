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
# at TP 2 on the NCCL ring (module graphfit.inputs.sglang_dspark_minimax_tp): planned
TP_LINES = [
    ('{"qk_norm_type": "per_head"}', ("--disable-custom-all-reduce",)),
    ('{"qk_norm_type": "multi_head", "sample_from_anchor": false}',
     ("--disable-custom-all-reduce", "--cuda-graph-max-bs-decode", "24")),
    ('{"qk_norm_type": "per_head"}', ("SGLANG_DSPARK_NVLINK_VOCAB_GATHER=0",)),
    ('{"qk_norm_type": "per_head"}', ("SGLANG_OPT_USE_CUSTOM_ALL_REDUCE_V2=0",)),
    # the V2 custom all-reduce without its pull plane: no pull_out (s45a)
    ('{"qk_norm_type": "per_head"}', ("SGLANG_FORCE_CUSTOM_ALL_REDUCE_V2_PULL_SIZE_KB=0",)),
    ('{"qk_norm_type": "multi_head"}', ("SGLANG_CUSTOM_ALL_REDUCE_V2_MAX_SIZE_KB=0",)),
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


@pytest.mark.parametrize(("fields", "extra"), TP_LINES)
def test_minimax_draft_lines_at_tp2(fields: str, extra: tuple[str, ...]) -> None:
    """A MiniMax draft SGLang builds at TP 2 with no symmetric buffer (the NCCL ring) is
    planned, and the plan agrees with SGLang's runners and folded sampler."""
    env = tuple(word for word in extra if "=" in word)  # the line's VAR=value prefix
    argv = (*env, "--speculative-algorithm", "DSPARK", "--tp-size", "2",
            *(word for word in extra if "=" not in word), kc.DRAFT, kc.minimax_dir(fields))
    outcome, diffs = kc.compare_line(argv, 80)
    assert outcome == "runner" and diffs == [], (fields, outcome, diffs)


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
    with so.sglang_stubs.fake_cuda(r.gpu_mem_mib):
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


# at TP > 1 (graphfit.inputs.sglang_dspark_minimax_tp): the draft's vocabulary, its Markov
# head type, SGLang's two switches and --disable-custom-all-reduce, on a draft that builds at
# attention TP > 1 (a per_head QK norm; the default per_layer one raises there)
TP_FIELDS: dict[str, tuple[object, ...]] = {
    "vocab_size": (VOCAB, VOCAB, 1000),
    "dspark_markov_head_type": ("vanilla", "Vanilla", "gated"),
    "qk_norm_type": ("per_head", "per_head", "multi_head", "per_layer"),
}
TP_ENV = {"SGLANG_DSPARK_OPT_MARKOV_W2_TP_SHARD": ("0", "1", "no", "x"),
          "SGLANG_DSPARK_NVLINK_VOCAB_GATHER": ("0", "false", "1", "maybe"),
          # the legacy custom all-reduce (no multicast plane) with "0" / "false" (s44s)
          "SGLANG_OPT_USE_CUSTOM_ALL_REDUCE_V2": ("0", "false", "1", "x"),
          # the V2 pull plane's sizes, read at import (custom_all_reduce_v2.py:72-77) (s45a)
          "SGLANG_FORCE_CUSTOM_ALL_REDUCE_V2_PULL_SIZE_KB": ("0", "-4", "64", "x"),
          "SGLANG_CUSTOM_ALL_REDUCE_V2_MAX_SIZE_KB": ("0", "-1", "16384", "z")}


@st.composite
def _tp_draft(draw: st.DrawFn) -> tuple[str, dict[str, str], bool]:
    fields = {name: draw(st.sampled_from(values)) for name, values in TP_FIELDS.items()}
    names = draw(st.lists(st.sampled_from(sorted(TP_ENV)), max_size=2, unique=True))
    environ = {name: draw(st.sampled_from(TP_ENV[name])) for name in names}
    return json.dumps(fields, sort_keys=True), environ, draw(st.booleans())


def _agrees(fields: str, tp: int, environ: dict[str, str], car: bool, dp: int = 1,
            tied: bool = False) -> None:
    """SGLang's own model + attach_shared_modules on both GPU kinds against graphfit; with
    `dp` > 1 under attention DP with --enable-dp-lm-head, the oracle's Llama target (its
    lm_head on the attention-TP group, or with `tied` its embedding on the TP group)."""
    from graphfit.inputs.sglang_dspark_minimax import refusal
    from graphfit.inputs.sglang_dspark_minimax_tp import lm_group
    from tests.oracle import sglang_dspark_minimax_tp as kt

    path = kc.minimax_dir(fields)
    data: dict[str, Any] = json.loads((kc.Path(path) / "config.json").read_text())
    group = lm_group("LlamaForCausalLM", tied) if dp > 1 else "tp"
    said = refusal(data, VOCAB, tp, tp // dp, VOCAB, environ, car, group)
    r = _resolved(tp) if dp == 1 else _resolved_dp(tp, dp)
    theirs, width = kt.outcome(r, path, VOCAB, tp, environ, car, tied)
    if said is not None and "config class's default" in said:
        return
    ours = ("plain" if said is None else "gpus" if "not modelled" in said else "raises")
    assert ours == theirs, (fields, tp, dp, tied, environ, car, said, theirs)
    if theirs == "plain":  # graphfit plans the sampler's step logits with the target's rows
        assert width == VOCAB, (fields, tp, width)


@functools.cache
def _resolved_dp(tp: int, dp: int) -> so.Resolved:
    """SGLang's resolution of a MiniMax-draft line under attention DP (DSPARK needs
    --enable-dp-lm-head there, speculative_hook.py:674-711)."""
    return so.resolve(["--model-path", str(so.oracle().model_dir), "--speculative-algorithm",
                       "DSPARK", kc.DRAFT, kc.minimax_dir("{}"), "--tp-size", str(tp),
                       "--dp-size", str(dp), "--enable-dp-attention", "--enable-dp-lm-head"])


@settings(max_examples=24, deadline=None)
@given(st.sampled_from((2, 4)), _tp_draft())
def test_minimax_tp_gathers_match_sglang(tp: int, drawn: tuple[str, dict[str, str], bool]
                                         ) -> None:
    """At TP > 1 graphfit plans exactly where SGLang's own attach keeps no symmetric buffer
    on either GPU kind (and the sampler's step logits keep the target's rows), refuses with
    SGLang's reason exactly where it raises, and as not modelled exactly where the buffer
    exists only on multicast GPUs."""
    fields, environ, car = drawn
    _agrees(fields, tp, environ, car)


@pytest.mark.parametrize(("fields", "environ", "car", "expected"), [
    ('{"qk_norm_type": "per_head"}', {}, True, "gpus"),  # SGLang's defaults
    ('{"qk_norm_type": "per_head"}', {}, False, "plain"),  # --disable-custom-all-reduce
    ('{"qk_norm_type": "per_head"}', {"SGLANG_DSPARK_NVLINK_VOCAB_GATHER": "0"}, True,
     "plain"),
    ('{"qk_norm_type": "per_head", "vocab_size": 1000}', {}, False, "raises"),
    ('{"qk_norm_type": "per_head"}', {"SGLANG_DSPARK_OPT_MARKOV_W2_TP_SHARD": "0"}, False,
     "gpus"),
    ('{"qk_norm_type": "per_head"}', {"SGLANG_OPT_USE_CUSTOM_ALL_REDUCE_V2": "0"}, True,
     "plain"),  # the legacy custom all-reduce: the NCCL ring (s44s)
    ('{"qk_norm_type": "per_head", "dspark_markov_head_type": "gated"}',
     {"SGLANG_OPT_USE_CUSTOM_ALL_REDUCE_V2": "0"}, True, "gpus"),  # the multimem gatherer
    # the V2 pull plane off: no pull_out, the push slot or the ring (s45a)
    ('{"qk_norm_type": "per_head"}', {"SGLANG_FORCE_CUSTOM_ALL_REDUCE_V2_PULL_SIZE_KB": "0"},
     True, "plain"),
    ('{"qk_norm_type": "per_head"}', {"SGLANG_CUSTOM_ALL_REDUCE_V2_MAX_SIZE_KB": "0"}, True,
     "plain"),
    ('{"qk_norm_type": "per_head"}', {"SGLANG_CUSTOM_ALL_REDUCE_V2_MAX_SIZE_KB": "0",
                                      "SGLANG_FORCE_CUSTOM_ALL_REDUCE_V2_PULL_SIZE_KB": "4"},
     True, "gpus"),  # the forced pull size overrides the cap (:151-152)
    ('{"qk_norm_type": "per_head"}', {"SGLANG_CUSTOM_ALL_REDUCE_V2_MAX_SIZE_KB": "x"}, True,
     "gpus"),  # unparsable: the default 16 MB (environ.py:79-86)
    ('{"qk_norm_type": "per_head", "dspark_markov_head_type": "gated"}',
     {"SGLANG_FORCE_CUSTOM_ALL_REDUCE_V2_PULL_SIZE_KB": "0"}, True, "gpus"),  # multimem
])
def test_minimax_tp_edges(fields: str, environ: dict[str, str], car: bool,
                          expected: str) -> None:
    """The edges: SGLang's own outcome is the one expected, and graphfit agrees."""
    from tests.oracle import sglang_dspark_minimax_tp as kt

    assert kt.outcome(_resolved(2), kc.minimax_dir(fields), VOCAB, 2, environ, car)[0] \
        == expected
    _agrees(fields, 2, environ, car)


@settings(max_examples=16, deadline=None)
@given(st.sampled_from(((2, 2), (4, 2), (4, 4))), st.booleans(), _tp_draft())
def test_minimax_dp_gathers_match_sglang(sizes: tuple[int, int], tied: bool,
                                         drawn: tuple[str, dict[str, str], bool]) -> None:
    """Under attention DP with --enable-dp-lm-head (graphfit.inputs.sglang_dspark_minimax_tp.
    lm_group): the draft built on the attention-TP group, the target's lm_head on the group
    SGLang shards it on; graphfit plans, refuses with SGLang's reason or as not modelled
    exactly where SGLang's own attach keeps no buffer, raises, or keeps a multicast one."""
    fields, environ, car = drawn
    _agrees(fields, sizes[0], environ, car, sizes[1], tied)


# (fields, tp, dp, tied, --disable-custom-all-reduce off, SGLang's outcome)
DP_EDGES = [
    ('{"qk_norm_type": "per_head"}', 4, 2, False, True, "gpus"),  # attention TP 2 multicast
    ('{"qk_norm_type": "per_head"}', 4, 2, False, False, "plain"),  # its NCCL ring
    ('{"qk_norm_type": "per_head", "dspark_markov_head_type": "gated"}', 4, 2, False, True,
     "plain"),  # no base-logit gatherer on the attention-TP group (models/dspark.py:569)
    ('{"vocab_size": 1000}', 2, 2, False, True, "plain"),  # attention TP 1: no shard check
    ('{"qk_norm_type": "per_head", "vocab_size": 1000}', 4, 2, False, True, "raises"),
    ('{"dspark_markov_head_type": "gated"}', 4, 4, True, True, "gpus"),  # tied: TP 4's
]


@pytest.mark.parametrize(("fields", "tp", "dp", "tied", "car", "expected"), DP_EDGES)
def test_minimax_dp_edges(fields: str, tp: int, dp: int, tied: bool, car: bool,
                          expected: str) -> None:
    """The attention-DP edges: SGLang's own outcome is the one expected, and graphfit
    agrees."""
    from tests.oracle import sglang_dspark_minimax_tp as kt

    assert kt.outcome(_resolved_dp(tp, dp), kc.minimax_dir(fields), VOCAB, tp, {}, car,
                      tied)[0] == expected
    _agrees(fields, tp, {}, car, dp, tied)


DP = ("--enable-dp-attention", "--enable-dp-lm-head", "--dp-size")
# whole pasted lines under attention DP (the oracle's untied Llama target): planned
DP_LINES = [
    ('{"qk_norm_type": "per_head"}', ("--tp-size", "4", *DP, "2",
                                      "--disable-custom-all-reduce")),
    ("{}", ("--tp-size", "2", *DP, "2")),
    ('{"qk_norm_type": "per_head", "dspark_markov_head_type": "gated"}',
     ("--tp-size", "4", *DP, "2")),
    ('{"vocab_size": 1000, "sample_from_anchor": false}', ("--tp-size", "2", *DP, "2")),
]


@pytest.mark.parametrize(("fields", "extra"), DP_LINES)
def test_minimax_draft_lines_under_attention_dp(fields: str, extra: tuple[str, ...]) -> None:
    """A MiniMax draft SGLang builds under attention DP with no symmetric buffer is planned,
    and the plan agrees with SGLang's runners and folded sampler."""
    argv = ("--speculative-algorithm", "DSPARK", *extra, kc.DRAFT, kc.minimax_dir(fields))
    outcome, diffs = kc.compare_line(argv, 80)
    assert outcome == "runner" and diffs == [], (fields, outcome, diffs)


def test_minimax_draft_line_under_attention_dp_on_sglangs_defaults() -> None:
    """On SGLang's defaults at attention TP 2 SGLang builds the draft and graphfit refuses it
    as not modelled (the multicast vocab gather, decided by the GPUs)."""
    default = ("--speculative-algorithm", "DSPARK", "--tp-size", "4", *DP, "2", kc.DRAFT,
               kc.minimax_dir('{"qk_norm_type": "per_head"}'))
    assert kc.compare_line(default, 80) == ("not_modelled", [])


@pytest.mark.parametrize("tp", [1, 2])
@pytest.mark.parametrize("fields", ['{"nested": true, "vocab_size": null}',
                                    '{"nested": true, "vocab_size": null, '
                                    '"qk_norm_type": "per_head"}',
                                    '{"nested": true, "qk_norm_type": "per_head"}'])
def test_a_nested_draft_without_vocab_size(fields: str, tp: int) -> None:
    """A nested text config without `vocab_size`: SGLang's Markov head raises
    (models/dspark.py:393) at any TP; graphfit refuses with that reason exactly then."""
    from graphfit.inputs.sglang_dspark_minimax import refusal

    data: dict[str, Any] = json.loads(
        (kc.Path(kc.minimax_dir(fields)) / "config.json").read_text())
    said = refusal(data, VOCAB, tp, tp, VOCAB, {}, False)
    theirs = _sglang(fields, tp)
    assert (said is not None and "not modelled" not in said) == (theirs is not None), \
        (fields, tp, said, theirs)
