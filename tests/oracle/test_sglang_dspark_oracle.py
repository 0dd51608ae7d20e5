"""SGLang 0.5.23 DSPARK: graphfit against SGLang's own argument pipeline and runners.

SGLang's side: prepare_server_args + resolve_once (`_handle_dspark`, speculative_hook.py:
666-883), then the target runner and the draft's DecodeCudaGraphRunner + SGLang's own
`DsparkDraftSampler` built on CPU (tests/oracle/sglang_dspark_oracle.py). graphfit's side: the
same line pasted into `graphfit plan`, and SGLang's resolved values given to graphfit
(tests/oracle/sglang_dspark_compare.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_dspark_compare as kc  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle.sglang_dspark_compact import compact_lines as _compact_lines  # noqa: E402


def test_oracle_dspark_runners() -> None:
    """What SGLang builds for a DSPARK line: the target-verify runner of gamma + 1 rows and the
    draft's own runner of gamma rows (a draft sampling from the anchor row), and the folded
    sampler's `out` of max(decode.bs) * gamma tokens and step logits [max_bs, gamma, vocab]."""
    r = so.resolve(kc.dspark("--max-running-requests", "20", "--speculative-dspark-block-size",
                             "7", "--cuda-graph-max-bs-decode", "16", "--speculative-num-steps",
                             "3", "--speculative-eagle-topk", "2"))
    assert isinstance(r, so.Resolved)
    assert (r.speculative_num_steps, r.speculative_eagle_topk) == (1, 1)  # forced
    assert r.speculative_num_draft_tokens == 8  # gamma + 1
    run = so.runners(r, vocab_size=1000)
    assert set(run) == {"target", "dspark_draft"}
    draft = run["dspark_draft"]
    assert (run["target"].width, draft.width) == (8, 7)
    assert draft.capture_bs[-1] == 16
    assert draft.buffers["input_ids"].shape == (16 * 7,)
    assert draft.buffers["sampler_out"].shape == (16 * 7,)
    # the draft model's vocabulary (the draft config's 128256, model_config.py:1605;
    # models/dspark.py:393-396), not the target's 1000 the runners were given
    assert draft.buffers["sampler_step_logits"].shape == (16, 7, 128256)
    assert draft.buffers["next_token_logits_buffer"].shape[-1] == 128256
    assert run["target"].buffers["next_token_logits_buffer"].shape[-1] == 1000
    assert "sampler_verify_ids" not in draft.buffers  # SGLANG_OPT_DSV41_DSPARK_MID_FOLD off


def _local(key: str | None, gamma: int | None, anchor: bool | None, *extra: str
           ) -> tuple[str, ...]:
    return ("--speculative-algorithm", "DSPARK", kc.DRAFT, kc.draft_dir(key, gamma, anchor),
            *extra)


EDGE: list[tuple[tuple[str, ...], str]] = [
    (kc.dspark("--speculative-dspark-block-size", "7"), "runner"),
    (kc.dspark("--speculative-num-draft-tokens", "8"), "runner"),
    (kc.dspark("--speculative-dspark-block-size", "4", "--speculative-num-draft-tokens", "5",
               "--speculative-num-steps", "3", "--speculative-eagle-topk", "4"), "runner"),
    (kc.dspark("--speculative-num-draft-tokens", "16", "--max-running-requests", "7",
               "--disable-cuda-graph-padding"), "runner"),
    (kc.dspark("--speculative-num-draft-tokens", "6", "--tp-size", "4",
               "--cuda-graph-bs-decode", "1", "3", "8"), "runner"),
    (kc.dspark("--speculative-num-draft-tokens", "3", "--enable-two-batch-overlap",
               "--tp-size", "2"), "rejected"),  # TBO needs DP (validation_hook.py:756-772)
    (kc.dspark("--speculative-num-draft-tokens", "2", "--tp-size", "2", "--attn-cp-size", "2",
               "--cuda-graph-bs-decode", "1", "2", "3", "5", "7"), "runner"),
    (kc.dspark("--speculative-num-draft-tokens", "8", "--disable-cuda-graph"), "no_runner"),
    (kc.dspark("--speculative-num-draft-tokens", "8", "--speculative-dspark-block-size", "4"),
     "rejected"),  # speculative_hook.py:826-835
    (kc.dspark("--speculative-dspark-block-size", "0"), "rejected"),  # :807-812
    (kc.dspark("--speculative-num-draft-tokens", "1"), "rejected"),  # :846-850
    (kc.dspark("--speculative-num-draft-tokens", "8", draft=False), "rejected"),  # :750-755
    (kc.dspark("--speculative-num-draft-tokens", "8", "--tp-size", "2", "--attn-dp-size", "2"),
     "rejected"),  # needs --enable-dp-lm-head (:674-676)
]


def _draft_edges() -> list[tuple[tuple[str, ...], str]]:
    """Lines whose draft checkpoint decides: gamma from each of SGLang's keys, the window
    clashing with it, the flag over it, `sample_from_anchor: false`."""
    local = _local
    return [
        (local("block_size", 4, None), "runner"),
        (local("dflash_config", 5, False, "--tp-size", "2"), "runner"),
        (local("dspark_block_size", 3, False, "--enable-two-batch-overlap", "--tp-size", "2"),
         "rejected"),  # TBO needs DP (validation_hook.py:756-772)
        (local("block_size", 4, True, "--speculative-num-draft-tokens", "5"), "runner"),
        (local("block_size", 4, True, "--speculative-num-draft-tokens", "6"), "rejected"),
        (local("block_size", 4, False, "--speculative-dspark-block-size", "2"), "runner"),
        (local(None, None, False, "--speculative-num-draft-tokens", "3",
               "--cuda-graph-bs-decode", "1", "3", "5", "8"), "runner"),
        # an odd gamma under CP 2: only the anchor-false width (gamma + 1) keeps batch 1
        # capturable, so graphfit must plan SGLang's resolved values with the draft's
        # sample_from_anchor from the start (found by the generated lines)
        (local("block_size", 11, False, "--max-running-requests", "1",
               "--disable-cuda-graph-padding", "--tp-size", "2", "--attn-cp-size", "2"),
         "runner"),
    ]


EDGE += _draft_edges()


def _id(argv: tuple[str, ...]) -> str:
    return " ".join(a.rsplit("/", 1)[-1] if "graphfit-" in a else a for a in argv[2:8])


@pytest.mark.parametrize(("argv", "outcome"), EDGE, ids=[_id(a) for a, _ in EDGE])
def test_dspark_edge_lines(argv: tuple[str, ...], outcome: str) -> None:
    got, diffs = kc.compare_line(argv)
    assert (got, diffs) == (outcome, [])


def test_dspark_gamma_from_the_draft_config() -> None:
    """Without gamma or a verify window SGLang reads the draft's config.json, 7 when it names
    none (speculative_hook.py:814-823); graphfit reads a local draft's the same way, and a
    draft's `sample_from_anchor: false` widens its runner to gamma + 1 rows in both."""
    for argv, window, width in ((kc.dspark(), 8, 7),
                                (_local("dflash_config", 3, False), 4, 4),
                                (_local("dspark_block_size", 9, True), 10, 9)):
        sg = kc.sc.sglang(argv, 80)
        assert sg.runners is not None and isinstance(sg.resolved, so.Resolved)
        assert sg.resolved.speculative_num_draft_tokens == window
        assert sg.runners["dspark_draft"].width == width
        assert kc.compare_line(argv) == ("runner", [])


@pytest.mark.parametrize("fields", [{"vocab_size": 64000}, {"torch_dtype": "float16"},
                                    {"vocab_size": 32000, "torch_dtype": "float32"}])
def test_the_drafts_own_vocabulary_and_dtype(fields: dict[str, object]) -> None:
    """The draft runner's logits view and input_embeds, and the folded sampler's step logits,
    follow the DRAFT's ModelConfig (model_config.py:1605, :881; decode_cuda_graph_runner.py:
    474-478; models/dspark.py:393-396), not the target's: SGLang's runners against graphfit's
    plan of the same pasted line, which reads the draft's config.json."""
    argv = ("--speculative-algorithm", "DSPARK", kc.DRAFT,
            kc.draft_dir(None, None, None, json.dumps(fields, sort_keys=True)))
    sg = kc.sc.sglang(argv, 80)
    assert sg.runners is not None
    draft = sg.runners["dspark_draft"].buffers
    vocab = int(fields.get("vocab_size", 128256))  # type: ignore[call-overload]
    assert draft["next_token_logits_buffer"].shape[-1] == vocab
    assert draft["sampler_step_logits"].shape[-1] == vocab
    assert kc.compare_line(argv) == ("runner", [])


def test_dspark_gamma_of_a_draft_graphfit_cannot_read_is_refused() -> None:
    """A hub draft (not a local directory): SGLang downloads its config.json, graphfit does not
    read it and refuses with the flags to give, never plans another gamma."""
    gf = kc.pasted(("--speculative-algorithm", "DSPARK", kc.DRAFT, "org/dspark-draft"), 80)
    assert gf.rejected is not None and "--speculative-dspark-block-size" in gf.rejected


def _env(*words: str) -> tuple[str, ...]:
    return (*words, *kc.dspark("--speculative-dspark-block-size", "5"))


ENV_EDGE: list[tuple[tuple[str, ...], set[str]]] = [
    # the sampler SGLang folds (SGLang's own DsparkDraftSampler), by the line's prefix
    (_env(), {"out", "temperatures", "greedy_mask", "step_temperatures", "step_logits"}),
    (_env("SGLANG_DSPARK_USE_GREEDY_DRAFT=1"),  # no step logits (:189-193)
     {"out", "temperatures", "greedy_mask", "step_temperatures"}),
    (_env("SGLANG_DSPARK_FOLDED_PROPOSAL=false"), set()),  # no sampler (worker :600-613)
    (_env("SGLANG_DSPARK_FOLDED_PROPOSAL=0", "SGLANG_DSPARK_USE_GREEDY_DRAFT=1"), set()),
    # no sampler, and a draft that does not sample from the anchor: the width still gamma + 1
    # (found by the generated lines: the oracle took the anchor flag from the sampler)
    (("SGLANG_DSPARK_FOLDED_PROPOSAL=0", *_local(None, None, False,
                                                 "--speculative-dspark-block-size", "1")),
     set()),
    (_env("SGLANG_OPT_DSV41_DSPARK_MID_FOLD=yes"),  # verify_ids (:63-68)
     {"out", "temperatures", "greedy_mask", "step_temperatures", "step_logits", "verify_ids"}),
    (_env("SGLANG_OPT_DSV41_DSPARK_MID_FOLD=1", "SGLANG_DSPARK_USE_GREEDY_DRAFT=Y"),
     {"out", "temperatures", "greedy_mask", "step_temperatures", "verify_ids"}),
    # a value EnvBool cannot parse keeps the default (environ.py:67-86)
    (_env("SGLANG_DSPARK_FOLDED_PROPOSAL=off", "SGLANG_DSPARK_USE_GREEDY_DRAFT=2"),
     {"out", "temperatures", "greedy_mask", "step_temperatures", "step_logits"}),
    (_env("SGLANG_RAGGED_VERIFY_MODE=static"),
     {"out", "temperatures", "greedy_mask", "step_temperatures", "step_logits"}),
    # S left to SGLang (48): the sampler sized from the unclamped decode list (256 at 80 GB)
    (("SGLANG_DSPARK_USE_GREEDY_DRAFT=1", "--speculative-algorithm", "DSPARK",
      "--speculative-num-draft-tokens", "4", kc.DRAFT, kc.draft_dir(None, None, None)),
     {"out", "temperatures", "greedy_mask", "step_temperatures"}),
]


@pytest.mark.parametrize(("fields", "words"), [
    ({"markov_rank": 0}, "markov_rank > 0"),  # dspark_config.py:94-98
    ({"markov_head_type": "gated"}, "markov_rank > 0"),  # the rank defaults to 0 (:241-250)
    ({"mask_token": "<m>"}, "mask_token_id to be set"),  # :119-122 (a token, no id)
    ({"mask_token_id": 128256}, "outside the target vocab size 128256"),  # :123-128
    ({"dflash_config": {"mask_token_id": 128256}}, "outside the target vocab"),
    ({"mask_token_id": 128255}, None),  # the last row
    ({"dspark_markov_rank": 2, "dspark_noise_token_id": 3}, None),  # prefixed: no head type
])
def test_the_workers_start_up_checks(fields: dict[str, object], words: str | None) -> None:
    """SGLang's worker refuses a draft with no Markov head or without a mask token id below
    the target's embedding rows (`resolve_runtime_config`, run by the oracle's runners on
    SGLang's own parse): both refuse, graphfit with SGLang's reason, or both plan."""
    argv = (*kc.dspark("--speculative-dspark-block-size", "4", draft=False), kc.DRAFT,
            kc.draft_dir(None, None, None, json.dumps(fields, sort_keys=True)))
    verdict, diffs = kc.compare_line(argv, 80)
    assert diffs == []
    assert (verdict == "rejected") is (words is not None), verdict
    if words is not None:
        gf = kc.pasted(argv, 80)
        assert gf.rejected is not None and words in gf.rejected


@pytest.mark.parametrize(("argv", "sampler"), ENV_EDGE,
                         ids=[" ".join(a for a in argv if "=" in a) or "none"
                              for argv, _ in ENV_EDGE])
def test_dspark_environment_modes(argv: tuple[str, ...], sampler: set[str]) -> None:
    """A pasted line's VAR=value prefix: SGLang run under that environment builds its own
    sampler (or none); graphfit reads the prefix and plans exactly those buffers (every
    aspect of compare_line, the sampler's names both ways included)."""
    sg = kc.bd.sglang(argv, 80)
    assert sg.runners is not None
    built = {k[len("sampler_"):] for k in sg.runners["dspark_draft"].buffers
             if k.startswith("sampler_")}
    assert built == sampler
    assert kc.compare_line(argv) == ("runner", [])


def test_invalid_ragged_verify_mode_fails_both() -> None:
    """A SGLANG_RAGGED_VERIFY_MODE SGLang does not know: its runner raises at start-up
    (ragged_verify.py:19-27); graphfit refuses with SGLang's reason."""
    argv = _env("SGLANG_RAGGED_VERIFY_MODE=Compact")
    sg = kc.bd.sglang(argv, 80)
    assert sg.rejected is not None and "invalid SGLANG_RAGGED_VERIFY_MODE" in sg.rejected
    assert kc.compare_line(argv) == ("rejected", [])


@pytest.mark.parametrize("mode", ["compact", "cap-accept"])
def test_non_static_ragged_verify_lines_agree(mode: str) -> None:
    """SGLang runs DSPARK in these modes; graphfit plans them: the draft's sampler holds
    SGLang's confidence outputs (built by SGLang's own confidence head), compared by name,
    shape and dtype with every other aspect of compare_line; under compact the verify
    epilogue too (compare_compact)."""
    from tests.oracle.sglang_dspark_compact import compare_compact

    argv = _env(f"SGLANG_RAGGED_VERIFY_MODE={mode}")
    sg = kc.bd.sglang(argv, 80)
    assert sg.rejected is None and sg.runners is not None
    built = set(sg.runners["dspark_draft"].buffers)
    assert {"sampler_confidence_out", "sampler_confidence_raw_out"} <= built
    assert kc.compare_line(argv) == ("runner", [])
    assert compare_compact(argv) == ("runner" if mode == "compact" else "no_runner", [])


@given(kc.dspark_lines())
def test_generated_dspark_lines(case: tuple[tuple[str, ...], float | None]) -> None:
    """Acceptance, then ladders, widths, padding of every batch, components, buffers (the
    sampler's too) and fills."""
    outcome, diffs = kc.compare_line(*case)
    assert diffs == [], "\n".join(str(d) for d in diffs[:8])
    assert outcome in ("runner", "no_runner", "rejected")


@pytest.mark.parametrize("anchor", [None, False])
def test_live_check_of_the_dspark_draft_runner(sa: Any, anchor: bool | None,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The draft's runner is SGLang's DecodeCudaGraphRunner on a draft model runner: the
    plugin's BEFORE hook checks it against `dspark_draft` (not the target's wider component),
    from SGLang's own live buffers (width gamma, or gamma + 1 without anchor sampling)."""
    import pkgutil

    import torch

    from graphfit.integrations import sglang as gs

    argv = _local(None, None, anchor, "--speculative-dspark-block-size", "3",
                  "--max-running-requests", "8")
    with sa.sglang_env():
        resolved = so.resolve(argv)
        assert isinstance(resolved, so.Resolved)
        built = so.runners(resolved, device="cpu", hidden_size=64, vocab_size=128)
        cls = pkgutil.resolve_name(gs.RUNNERS["target"][1])
    live = built["dspark_draft"].live
    runner = object.__new__(cls)  # its __init__ captures on CUDA: fields set as it sets them
    runner.buffers, runner.model_runner = live.buffers, live.model_runner
    check = gs.check_live_runners(resolved.record, {"dspark_draft": runner},
                                  dspark_samples_anchor=anchor is not False)
    assert check.ok and check.live and all(k.startswith("dspark_draft.") for k in check.live)
    monkeypatch.setenv("GRAPHFIT_SGLANG", "check")
    assert gs.before_capture(runner) is None  # safe: starts (the width from its hf_config)
    monkeypatch.setattr(runner.buffers, "input_ids", torch.zeros(5, dtype=torch.int64))
    with pytest.raises(gs.UnsafeServerArgsError, match=r"dspark_draft\.input_ids"):
        gs.before_capture(runner)


# --- SGLANG_RAGGED_VERIFY_MODE=compact: the token-tier verify dispatch (sglang_dspark_compact)
COMPACT_EDGE: list[tuple[tuple[str, ...], str]] = [
    (_env("SGLANG_RAGGED_VERIFY_MODE=compact"), "runner"),
    (_env("SGLANG_RAGGED_VERIFY_MODE=compact", "--max-running-requests", "12"), "runner"),
    (_env("SGLANG_RAGGED_VERIFY_MODE=compact", "--max-running-requests", "1"), "runner"),
    (_env("SGLANG_RAGGED_VERIFY_MODE=compact", "--cuda-graph-max-bs-decode", "24"), "runner"),
    (_env("SGLANG_RAGGED_VERIFY_MODE=compact", "SGLANG_DSPARK_USE_GREEDY_DRAFT=1",
          "--tp-size", "2"), "runner"),
    # SGLang's constructor refuses these under compact (decode_cuda_graph_runner.py:411-421)
    (_env("SGLANG_RAGGED_VERIFY_MODE=compact", "--disable-cuda-graph-padding"), "rejected"),
    (_env("SGLANG_RAGGED_VERIFY_MODE=compact", "--enable-two-batch-overlap"), "rejected"),
]


@pytest.mark.parametrize(("argv", "outcome"), COMPACT_EDGE)
def test_compact_verify_dispatch_edge(argv: tuple[str, ...], outcome: str) -> None:
    """Tiers, capture slots, token capacity and every ragged batch's tier: graphfit's
    CompactVerify == SGLang's own runner methods (tests/oracle/sglang_dspark_compact)."""
    from tests.oracle.sglang_dspark_compact import compare_compact

    assert compare_compact(argv) == (outcome, [])


@pytest.mark.parametrize(("key", "layers"), [("dspark_target_layer_ids", 3),
                                             ("dflash_config", 2), ("target_layer_ids", 5)])
def test_compact_epilogue_hidden_follows_the_drafts_layers(key: str, layers: int) -> None:
    """A draft naming its target layer ids: SGLang's own epilogue allocates its strided
    hidden that many target hidden sizes wide, and graphfit reads the same count."""
    from tests.oracle.sglang_dspark_compact import compare_compact, layered_draft, sglang_epilogue

    argv = list(_env("SGLANG_RAGGED_VERIFY_MODE=compact"))
    at = argv.index("--speculative-draft-model-path") + 1
    argv[at] = layered_draft(argv[at], key, layers)
    table, shared = sglang_epilogue(kc.bd.sglang(tuple(argv), 80))
    assert table["strided_hidden"][0][1] == layers * 4096 and shared
    assert compare_compact(tuple(argv)) == ("runner", [])


@given(_compact_lines())
def test_generated_compact_lines(case: tuple[tuple[str, ...], float | None]) -> None:
    from tests.oracle.sglang_dspark_compact import compare_compact

    outcome, diffs = compare_compact(*case)
    assert diffs == [], "\n".join(str(d) for d in diffs[:8])
    assert outcome in ("runner", "no_runner", "rejected")


# --- the draft's config.json as SGLang's DSPARK parse reads it (graphfit.inputs.
# sglang_dspark_parse): a config it raises on makes the argument hook fall back to the flags
# or 7 (speculative_hook.py:796-805) and the worker refuse the draft at start-up
# (dspark_worker_v2.py:261-265)
def _sglang_parse(path: str) -> tuple[object, ...]:
    """SGLang's own `parse_dspark_draft_config` on the config its `get_config` reads:
    ("raises",) or (gamma, number of target layer ids or None)."""
    with so.sglang_stubs.fake_cuda():  # the imports too: the first one needs the stubs
        from sglang.srt.speculative.dspark_components.dspark_config import (
            parse_dspark_draft_config,
        )
        from sglang.srt.utils.hf_transformers_utils import get_config

        config = get_config(path, trust_remote_code=False)
    try:
        parsed = parse_dspark_draft_config(draft_hf_config=config)
    except (ValueError, TypeError):
        return ("raises",)
    ids = parsed.target_layer_ids
    return (parsed.gamma, None if ids is None else len(ids))


GAMMA_KEYS = (None, "dspark_block_size", "block_size", "dflash_config")
# two fields where SGLang reads one before the other (dspark_config.py:238-311): each pair's
# answer changes if the order is turned round
SHADOWED = ({"dflash_config": {"mask_token_id": "3"}, "dspark_config": {"mask_token_id": -4}},
            {"dspark_markov_rank": 0, "markov_rank": -1},
            {"dspark_markov_head_type": "vanilla", "markov_head_type": "mlp"},
            {"dspark_noise_token_id": 7, "dspark_config": {"mask_token_id": -4}},
            {"dspark_block_size": "x", "block_size": "3"},
            {"dspark_target_layer_ids": [1, 3], "target_layer_ids": [0, 2, 4]},
            {"dflash_config": {"block_size": 5}, "block_size": "3"})


def _both_parses(key: str | None, gamma: int, fields: str
                 ) -> tuple[tuple[object, ...], tuple[object, ...], str | None]:
    """(SGLang's parse, graphfit's, graphfit's problem) of the draft config: ("raises",) or
    (gamma, target layer count) each."""
    from graphfit.inputs.sglang_dspark_parse import parse

    path = kc.draft_dir(key, gamma if key else None, None, fields)
    ours = _sglang_parse(path)
    theirs = parse(json.loads((Path(path) / "config.json").read_text()))
    got = ("raises",) if theirs.problem else (theirs.gamma, theirs.target_layers)
    return ours, got, theirs.problem


def test_each_draft_field_value_alone_parses_as_sglang() -> None:
    """Every value of every field SGLang's parse reads (kc.DRAFT_FIELDS, valid or not), alone
    on the draft, the gamma keys and gammas taken in turn, then the SHADOWED pairs: SGLang's
    parse and graphfit's agree. Each value is met here; the drawn test below meets them in
    pairs and threes."""
    cases = [(GAMMA_KEYS[i % 4], 1 + i % 9, json.dumps({name: value}))
             for i, (name, value) in enumerate(
                 (name, value) for name in sorted(kc.DRAFT_FIELDS)
                 for value in kc.DRAFT_FIELDS[name])]
    assert len(cases) == sum(map(len, kc.DRAFT_FIELDS.values()))
    cases += [(None, 1, json.dumps(pair, sort_keys=True)) for pair in SHADOWED]
    answers = {case: _both_parses(*case) for case in cases}
    differ = {case[2]: answer for case, answer in answers.items() if answer[0] != answer[1]}
    assert not differ, differ
    raised = sum(sglang == ("raises",) for sglang, _, _ in answers.values())
    assert 0 < raised < len(cases), raised  # both outcomes compared


@given(st.sampled_from(GAMMA_KEYS), st.integers(1, 9), kc.draft_fields())
def test_draft_config_parse_matches_sglang(key: str | None, gamma: int, fields: str) -> None:
    """Generated draft configs (1 to 3 of the fields SGLang's parse reads, valid or not, over
    each gamma key): whether SGLang's parse raises, and if not the gamma and target layer
    count it reads, equal graphfit's restatement."""
    ours, got, problem = _both_parses(key, gamma, fields)
    assert got == ours, f"{fields}: SGLang {ours}, graphfit {got} ({problem})"


@pytest.mark.parametrize(("fields", "flags", "window"), [
    ('{"markov_rank": 8}', (), 8),  # no head type: gamma 7, not the draft's 4
    ('{"markov_rank": 8}', ("--speculative-num-draft-tokens", "3"), 3),  # no clash check
    ('{"dspark_markov_head_type": "lstm"}', ("--speculative-dspark-block-size", "2"), 3),
    ('{"dflash_config": {"output_multiplier": 0}}', (), 8),
])
def test_a_draft_sglang_cannot_parse_falls_back_then_is_refused(
        fields: str, flags: tuple[str, ...], window: int) -> None:
    """SGLang's resolution swallows the parse error and resolves the window from the flags or
    gamma 7 (the draft's block size 4 unread), then the worker's own parse raises: the server
    does not start. graphfit refuses the line with SGLang's message."""
    argv = ("--speculative-algorithm", "DSPARK", kc.DRAFT,
            kc.draft_dir("block_size", 4, None, fields), *flags)
    sg = kc.sc.sglang(argv, 80)
    assert isinstance(sg.resolved, so.Resolved)
    assert sg.resolved.speculative_num_draft_tokens == window
    assert sg.rejected is not None
    gf = kc.pasted(argv, 80)
    assert gf.rejected is not None and "cannot parse this draft config" in gf.rejected
    assert kc.compare_line(argv) == ("rejected", [])


# --- the V4.1 epilogue's variables under compact (sglang_dspark_epilogue)
@pytest.mark.parametrize(("words", "extra"), [
    (("SGLANG_OPT_DSV41_POST_FORWARD_CUDA_GRAPH=1",), {"block_accept_lens"}),
    (("SGLANG_OPT_DSV41_POST_FORWARD_CUDA_GRAPH=maybe",), set()),  # unparsed: the default
    # refused outside static verify (dspark_deferred_commit.py:280-300) / static path only
    (("SGLANG_DSPARK_DEFER_CONTEXT_KV=1", "SGLANG_OPT_DSV41_DSPARK_POST_FOLD=1"), set()),
])
def test_compact_epilogue_under_the_v41_variables(words: tuple[str, ...], extra: set[str]
                                                 ) -> None:
    """SGLang's own epilogue under these variables holds exactly the extra tensors graphfit
    plans (`block_accept_lens` [max_bs] int32), and no deferred commit or future relay."""
    from tests.oracle.sglang_dspark_compact import compare_compact, sglang_epilogue

    argv = _env("SGLANG_RAGGED_VERIFY_MODE=compact", *words)
    sg = kc.bd.sglang(argv, 80)
    table, _ = sglang_epilogue(sg)
    plain, _ = sglang_epilogue(kc.bd.sglang(_env("SGLANG_RAGGED_VERIFY_MODE=compact"), 80))
    assert set(table) - set(plain) == extra
    epilogue = sg.runners["dspark_draft"].live.epilogue  # type: ignore[index]
    assert epilogue.deferred_commit is None and epilogue.future_relay is None
    assert compare_compact(argv) == ("runner", [])
    assert kc.compare_line(argv) == ("runner", [])
