"""SGLang 0.5.23's DSPARK lines: SGLang's own argument pipeline and runners against graphfit.

SGLang's side is `sglang_compare.sglang` (prepare_server_args + resolve_once with
`_handle_dspark`, then the target runner and the DSPARK draft runner + folded sampler built by
sglang_dspark_oracle.dspark_runner on CPU). graphfit reads the very same line pasted
(`graphfit plan --json -- python -m sglang.launch_server ...`), and the model-level aspects
are compared as for every other SGLang line (sglang_compare.compare_model: graphfit given
SGLang's resolved values).
"""

from __future__ import annotations

import functools
import hashlib
import json
import tempfile
from pathlib import Path

from hypothesis import strategies as st

from tests.oracle import sglang_block_drafts as bd
from tests.oracle import sglang_compare as sc
from tests.oracle import sglang_oracle as so
from tests.oracle.sglang_block_drafts import pasted, shared_flags
from tests.oracle.sglang_dflash_compare import DRAFT

__all__ = ["DRAFT", "compare_line", "draft_dir", "dspark", "dspark_lines", "minimax_dir",
           "pasted", "translated"]

RUNNER = "dspark_draft"
# the DSPARK modes SGLang reads from its environment (graphfit.inputs.sglang_dspark_env)
DEFAULTS: dict[str, object] = {"dspark_proposal": "sampling", "dspark_mid_fold": False,
                                "ragged_verify_mode": "static",
                                "dspark_post_forward_graph": False,
                                # read from the local draft (compact's strided hidden)
                                "dspark_target_layers": None}
ENV_OPTIONS = tuple(DEFAULTS)
# SGLang's spellings of each variable's values (EnvBool, environ.py:143-150; an unparseable
# one keeps the default, environ.py:67-86)
ENV_VALUES: dict[str, tuple[str, ...]] = {
    "SGLANG_DSPARK_USE_GREEDY_DRAFT": ("1", "true", "Yes", "0", "n", "maybe"),
    "SGLANG_DSPARK_FOLDED_PROPOSAL": ("0", "false", "NO", "1", "y", "off"),
    "SGLANG_OPT_DSV41_DSPARK_MID_FOLD": ("1", "TRUE", "y", "0", "no", "2"),
    # compact and cap-accept planned (their buffers compared by compare_buffers / the
    # compact oracle, sglang_dspark_compact); a value SGLang does not know fails both
    "SGLANG_RAGGED_VERIFY_MODE": ("static", "Static", "ragged", "compact", "cap-accept"),
    # the V4.1 epilogue's variables (dspark_worker_v2.py:400-468, dspark_verify.py:586-661):
    # block_accept_lens under the first; the deferred commit and the future relay need a
    # static verify (none under compact), and there is no epilogue in static mode here
    "SGLANG_OPT_DSV41_POST_FORWARD_CUDA_GRAPH": ("1", "true", "0", "x"),
    "SGLANG_DSPARK_DEFER_CONTEXT_KV": ("1", "yes", "0"),
    "SGLANG_OPT_DSV41_DSPARK_POST_FOLD": ("1", "Y", "no"),
}


def environment(draw: st.DrawFn) -> list[str]:
    """A VAR=value prefix of 0 to 3 of SGLang's DSPARK variables (none on 1 line in 2)."""
    if draw(st.booleans()):
        return []
    names = draw(st.lists(st.sampled_from(sorted(ENV_VALUES)), min_size=1, max_size=3,
                          unique=True))
    return [f"{name}={draw(st.sampled_from(ENV_VALUES[name]))}" for name in names]


def compare_line(argv: tuple[str, ...], gpu_mem_gb: float | None = 80
                 ) -> tuple[str, list[sc.Difference]]:
    """(outcome, differences), as sglang_block_drafts.compare_line for the DSPARK draft
    runner, plus both runners' widths on the pasted line; "not_modelled" (no difference,
    counted apart) for a MiniMax M3.1 draft at TP > 1 that SGLang builds and graphfit
    refuses as not modelled (graphfit.inputs.sglang_dspark_minimax)."""
    outcome, diffs = bd.compare_line(argv, gpu_mem_gb, RUNNER, compare_widths, translated)
    if outcome == "differs" and [d.aspect for d in diffs] == ["acceptance"]:
        said = diffs[0].detail  # "SGLang accepts; graphfit rejects (its reason)"
        if said.startswith("SGLang accepts") and "MiniMax M3.1 DSPARK draft at TP" in said \
                and "not modelled" in said:
            return "not_modelled", []
    return outcome, diffs


def compare_widths(sg: sc.SglangAnswer, gf: sc.GraphfitAnswer) -> list[sc.Difference]:
    """The pasted line's target and draft widths (gamma + 1 and gamma or gamma + 1)."""
    assert sg.runners is not None and gf.plan is not None
    diffs: list[sc.Difference] = []
    if RUNNER in sg.runners and sc._gf_graphs(gf):
        for name in ("target", RUNNER):
            ours = sg.runners[name].width
            theirs = gf.plan.components[name].tables.uniform_query_len
            if ours != theirs:
                diffs.append(sc.Difference(f"{name}_width", f"SGLang {ours}, graphfit "
                                                            f"{theirs}"))
    return diffs


# a working DSPARK draft's Markov head and mask token id (draft_dir)
WORKER_FIELDS = (("markov_rank", 1), ("markov_head_type", "vanilla"), ("mask_token_id", 0))
NO_FIELDS = hashlib.sha256(b"{}").hexdigest()[:12]  # a draft_dir name's end without fields
# issue 23 s68c: what SGLang's ModelConfig reads with no default off a draft naming a
# DeepSeek-V4 class (the top level, configs/model_config.py:1423-1429) or DeepSeek-V3's (the
# latent sizes, :1398-1400), for fixtures that name those classes over the oracle's Llama
# config.json (graphfit.inputs.sglang_mla_reads refuses the draft without them, as SGLang fails)
MLA_READ_FIELDS = (("qk_rope_head_dim", 64), ("sliding_window", 128), ("index_head_dim", 128),
                   ("compress_ratios", [1]), ("kv_lora_rank", 512), ("qk_nope_head_dim", 64))
_DRAFTS = tempfile.TemporaryDirectory(prefix="graphfit-dspark-drafts-")


@functools.cache
def draft_dir(key: str | None, gamma: int | None, anchor: bool | None,
              fields: str = "{}") -> str:
    """A DSPARK draft checkpoint directory: the oracle's Llama config.json plus `key`
    (dspark_block_size, block_size, or dflash_config.block_size) = gamma and
    `sample_from_anchor` when given (SGLang reads both, dspark_config.py:29-31, 214-297), then
    `fields` (a JSON object: more keys of the config, "dflash_config" / "dspark_config" merged
    into the nested objects; `draft_fields`)."""
    digest = hashlib.sha256(fields.encode()).hexdigest()[:12]  # NO_FIELDS for "{}"
    path = Path(_DRAFTS.name) / f"draft-{key}-{gamma}-{anchor}-{digest}"
    config = json.loads((so.oracle().model_dir / "config.json").read_text())
    if key == "dflash_config":
        config["dflash_config"] = {"block_size": gamma}
    elif key is not None:
        config[key] = gamma
    if anchor is not None:
        config["sample_from_anchor"] = anchor
    # the Markov head and mask token id SGLang's worker requires (dspark_config.py:94-128),
    # at the top level where `fields` naming either (nested or not) replace or shadow them
    if "markov" not in fields:
        config.update(WORKER_FIELDS[:2])
    if "mask_token" not in fields and "noise_token" not in fields:
        config.update(WORKER_FIELDS[2:])
    for name, value in json.loads(fields).items():
        if name in ("dflash_config", "dspark_config") and isinstance(value, dict):
            config[name] = {**config.get(name, {}), **value}
        else:
            config[name] = value
    path.mkdir(parents=True, exist_ok=True)
    (path / "config.json").write_text(json.dumps(config))
    return str(path)


def translated(sg: sc.SglangAnswer, gf: sc.GraphfitAnswer | None = None
               ) -> sc.GraphfitAnswer:
    """graphfit given SGLang's resolved values (sglang_compare.graphfit_translated), the
    draft's `sample_from_anchor` as SGLang read it (graphfit's flags carry no draft
    checkpoint) and the environment's DSPARK modes as the pasted line read them."""
    options: dict[str, object] = {}
    if sg.runners and RUNNER in sg.runners and not _samples_anchor(sg.runners[RUNNER]):
        options["dspark_samples_anchor"] = False
    if sg.runners and RUNNER in sg.runners:  # the draft ModelConfig's hidden size
        hidden = int(sg.runners[RUNNER].live.model_runner.model_config.hidden_size)
        if hidden != _target_hidden(sg):  # a MiniMax draft's own, or a dense draft sized
            options["draft_hidden_size"] = hidden  # apart from its target (s69k)
    if gf is not None and gf.plan is not None:
        config = gf.plan.config
        options.update({k: getattr(config, k, DEFAULTS[k]) for k in ENV_OPTIONS
                        if getattr(config, k, DEFAULTS[k]) != DEFAULTS[k]})
        # the draft's own vocabulary and dtype, read from the same draft by the pasted line
        # (graphfit.inputs.sglang_draft_shape): the translated flags carry no draft checkpoint
        options.update({k: getattr(config, k) for k in ("draft_vocab_size", "draft_dtype")
                        if getattr(config, k, None) is not None})
    return bd.translated_with(sg, options)


def _target_hidden(sg: sc.SglangAnswer) -> int:
    """The target ModelConfig's hidden size (SGLang's own, the translated line's
    --hidden-size, sglang_compare._overridden_model), which graphfit's translated draft
    takes unless given its own."""
    from sglang.srt.arg_groups.model_override_base import model_config_of

    return int(model_config_of(sg.resolved.record).hidden_size)  # type: ignore[union-attr]


def _samples_anchor(run: so.Runner) -> bool:
    """The draft's `sample_from_anchor` as SGLang reads it: its own sampler's when one is
    folded, else SGLang's own `get_dspark_sample_from_anchor` on the draft model runner's
    hf_config (no sampler under SGLANG_DSPARK_FOLDED_PROPOSAL=0; the width still depends
    on it, model_runner.py:880-895)."""
    if run.live.sampler is not None:
        return bool(run.live.sampler.sample_from_anchor)
    from sglang.srt.speculative.dspark_components.dspark_config import (
        get_dspark_sample_from_anchor,
    )

    return bool(get_dspark_sample_from_anchor(run.live.model_runner.model_config.hf_config))


# the draft config fields SGLang's DSPARK parse reads (dspark_config.py:214-318, over
# dflash_utils.py:588-813), each with values it accepts and values it raises on: a raise
# makes the argument hook fall back to the flags or 7 (speculative_hook.py:796-805) and the
# worker refuse the draft at start-up (dspark_worker_v2.py:261-265)
DRAFT_FIELDS: dict[str, tuple[object, ...]] = {
    "markov_rank": (0, 4, "8", 2.5, -1, "x", None),
    "markov_head_type": ("vanilla", "GATED", "rnn", "mlp", 3, None),
    "dspark_markov_rank": (8, 0, "2", "x", -3),
    "dspark_markov_head_type": ("vanilla", "Rnn", "lstm"),
    "mask_token_id": (5, 0, -1, "5", 2.0, True, 128255, 128256),  # the target's rows
    "dspark_noise_token_id": (7, "7", -2, "x", 1.5),
    "dspark_block_size": ("4", 3.7, "x", 0, -2, [3]),
    "block_size": ("3", 2.9, 0, "x"),
    "dspark_target_layer_ids": ([1, 3], [], "x", [1, "a"], [None], ["2"]),
    "target_layer_ids": ([0, 2], [], 5, [None]),
    "num_target_layers": (4, 0, "x"),
    "mask_token": ("<m>", "", 5),
    "dflash_config": ({"output_multiplier": 0}, {"output_multiplier": "x"},
                      {"output_multiplier": 2}, {"conv_kernel_size": 3},
                      {"conv_kernel_size": 3, "conv_group_size": 2},
                      {"selector_rank": 4}, {"attention_sink_bias": 1},
                      {"attention_value_scale": True}, {"final_logit_softcapping": "y"},
                      {"markov_rank": 2}, {"mask_token_id": "3"}, {"block_size": -1}),
    "dspark_config": ({"markov_rank": 3}, {"markov_rank": 3, "markov_head_type": "gated"},
                      {"markov_head_type": None}, {"mask_token_id": -4},
                      {"mask_token_id": "9"}),
    # any JSON value: SGLang takes bool() of it (dspark_config.py:29-31)
    "sample_from_anchor": ("false", 0, None, 1, "", [0], "no"),
}

# drafts SGLang parses but its worker refuses at start-up (dspark_config.py:94-128), or whose
# parse raises, drawn on the oracle's own draft (`draft_dir` keeps WORKER_FIELDS' other keys)
WORKER_REFUSED = ('{"markov_rank": 0}', '{"dspark_markov_rank": 0}',
                  '{"mask_token_id": 128256}', '{"mask_token_id": 250000}',
                  '{"dspark_noise_token_id": null}', '{"markov_rank": 2}',
                  '{"markov_head_type": "lstm"}', '{"mask_token_id": 128255}')

# `--json-model-override-args` values SGLang applies to the draft's config (and the
# target's) before the hook's and the worker's parse (dspark_config.py:146-154,
# model_config.py:950-975): the keys graphfit's DSPARK reader reads, accepted or refused
OVERRIDE_FIELDS: dict[str, tuple[object, ...]] = {
    "sample_from_anchor": (False, True, "false", 0, None),
    "markov_rank": (0, 2, "x"),
    "markov_head_type": ("gated", "lstm"),
    "mask_token_id": (3, 128256, -1),
    "dspark_block_size": (3, 9, "x"),
    "block_size": (5, 0),
    "dflash_config": ({"block_size": 6}, {"markov_rank": 0}, {"target_layer_ids": [0, 1]}),
    "dspark_target_layer_ids": ([0, 1, 2], []),
}


def _some_fields(draw: st.DrawFn, table: dict[str, tuple[object, ...]], most: int) -> str:
    """1 to `most` of `table`'s fields with one of their values each, as a JSON object."""
    names = draw(st.lists(st.sampled_from(sorted(table)), min_size=1, max_size=most,
                          unique=True))
    return json.dumps({name: draw(st.sampled_from(table[name])) for name in names},
                      sort_keys=True)


@st.composite
def override_args(draw: st.DrawFn) -> str:
    """1 or 2 of OVERRIDE_FIELDS with one of their values each, as a JSON object."""
    return _some_fields(draw, OVERRIDE_FIELDS, 2)


@st.composite
def draft_fields(draw: st.DrawFn) -> str:
    """1 to 3 of DRAFT_FIELDS with one of their values each, as a JSON object."""
    return _some_fields(draw, DRAFT_FIELDS, 3)


# a MiniMax M3.1 DSPARK draft SGLang builds: the oracle's Llama config rewritten by
# configure_minimax_m3_dspark (minimax_vl.py:64-111) with the keys the MiniMax-M3 layers read
# (models/dspark_minimax.py:112; minimax_m3.py:741-909)
MINIMAX_BASE: dict[str, object] = {
    "architectures": ["DSparkMiniMaxDraftModel"], "use_gemma_norm": False,
    "dspark_config": {"use_dense_ffn": True, "ffn_hidden_size": 1024},
    "dspark_block_size": 4, "dspark_markov_rank": 1, "dspark_noise_token_id": 7,
    "dflash_config": {"num_target_layers": 8, "num_hidden_layers": 2,
                      "target_layer_ids": [1, 5], "block_size": 4}}
# fields replaced (None: removed) on a MiniMax draft: what its layers, the rewrite, the parse
# and the runner read, accepted or refused by SGLang
MINIMAX_FIELDS: dict[str, tuple[object, ...]] = {
    "use_gemma_norm": (True, None),
    "hidden_size": (2048, 1024),
    "hidden_act": ("gelu", "swigluoai"),
    "qk_norm_type": ("per_head", "multi_head", "per_layer", "rms"),
    "sliding_window": (512, "x", "64"),
    "sample_from_anchor": (False, 0, True),
    "dspark_block_size": (2, 9),
    "dspark_markov_rank": (0, 3),
    "num_attention_heads": (16, 8),
    "num_key_value_heads": (3, 1, None),
    "swiglu_alpha": (1.702,),
    # the draft's layer_types reach its layers through dflash_config (minimax_vl.py:89-91)
    "dflash_config": ({"target_layer_ids": [0, 2, 4]}, {"target_layer_ids": [9]},
                      {"layer_types": ["sliding_attention"] * 2},
                      {"layer_types": ["sliding_attention", "full_attention"]},
                      {"layer_types": ["full_attention"] * 2}, {"layer_types": "x"},
                      {"layer_types": ["sliding_attention"]}),
}


@functools.cache
def minimax_dir(fields: str = "{}") -> str:
    """A MiniMax M3.1 DSPARK draft checkpoint directory: the oracle's Llama config with
    MINIMAX_BASE, then `fields` (a JSON object; null removes a key, "dflash_config" merges;
    "nested": true puts the non-dspark keys under text_config)."""
    digest = hashlib.sha256(fields.encode()).hexdigest()[:12]
    path = Path(_DRAFTS.name) / f"minimax-{digest}"
    config = {**json.loads((so.oracle().model_dir / "config.json").read_text()),
              **MINIMAX_BASE}
    extra = json.loads(fields)
    nested = extra.pop("nested", False)
    for name, value in extra.items():
        if name == "dflash_config":
            config[name] = {**config[name], **value}  # type: ignore[dict-item]
        elif value is None:
            config.pop(name, None)
        else:
            config[name] = value
    if nested:
        config = {"architectures": config["architectures"], "model_type": "llama",
                  "text_config": {k: v for k, v in config.items() if not k.startswith("dspark_")},
                  **{k: v for k, v in config.items() if k.startswith("dspark_")}}
    path.mkdir(parents=True, exist_ok=True)
    (path / "config.json").write_text(json.dumps(config))
    return str(path)


@st.composite
def minimax_fields(draw: st.DrawFn) -> str:
    """0 to 2 of MINIMAX_FIELDS with one of their values each, nested on 1 draft in 4."""
    names = draw(st.lists(st.sampled_from(sorted(MINIMAX_FIELDS)), max_size=2, unique=True))
    fields = {name: draw(st.sampled_from(MINIMAX_FIELDS[name])) for name in names}
    if draw(st.integers(0, 3)) == 0:
        fields["nested"] = True
    return json.dumps(fields, sort_keys=True)


def with_draft(argv: list[str]) -> list[str]:
    """`argv` with the oracle's working DSPARK draft: the oracle's model plus the Markov head
    and mask token id SGLang's worker requires (draft_dir, WORKER_FIELDS)."""
    return [*argv, DRAFT, draft_dir(None, None, None)]


def dspark(*extra: str, draft: bool = True) -> tuple[str, ...]:
    argv = ["--speculative-algorithm", "DSPARK", *extra]
    return tuple(with_draft(argv) if draft else argv)


@st.composite
def dspark_lines(draw: st.DrawFn) -> tuple[tuple[str, ...], float | None]:
    """Generated DSPARK lines: gamma by --speculative-dspark-block-size or the verify window
    by --speculative-num-draft-tokens (or both, equal or clashing, or out of range), steps /
    topk SGLang overrides, the decode graph settings, TP / attention DP / CP, two-batch
    overlap; the draft: the oracle's model, a local draft naming its gamma (any of SGLang's
    three keys) and / or sample_from_anchor, on half of those with 1 to 3 more fields
    SGLang's parse reads (`draft_fields`, valid or not), a MiniMax M3.1 draft on 1 line in 4
    (`minimax_dir`, `minimax_fields`), or none (refused by both); on 1
    oracle draft in 4 one the worker refuses (WORKER_REFUSED); `--json-model-override-args`
    on 1 line with a draft in 4 (`override_args`); a VAR=value prefix of SGLang's DSPARK
    environment variables on half the lines; S left to SGLang on 1 line in 5."""
    argv = [*environment(draw), *bd.running_requests(draw)]
    argv += ["--speculative-algorithm", draw(st.sampled_from(("DSPARK", "dspark")))]
    gamma = draw(st.integers(1, 15))
    how = draw(st.sampled_from(("drafts", "drafts", "block", "block", "both", "both",
                                "clash", "low", "none", "none")))
    if how in ("drafts", "both"):
        argv += ["--speculative-num-draft-tokens", str(gamma + 1)]
    if how in ("block", "both"):
        argv += ["--speculative-dspark-block-size", str(gamma)]
    if how == "clash":  # speculative_hook.py:826-835
        argv += ["--speculative-num-draft-tokens", str(gamma),
                 "--speculative-dspark-block-size", str(gamma)]
    if how == "low":  # a window below 2 or a block below 1 (:807-812, :846-850)
        argv += draw(st.sampled_from((["--speculative-num-draft-tokens", "1"],
                                      ["--speculative-dspark-block-size", "0"])))
    argv += shared_flags(draw)
    kind = draw(st.sampled_from(("oracle", "oracle", "local", "local", "local", "missing",
                                 "minimax", "minimax")))
    if kind == "minimax":  # a MiniMax M3.1 draft (MINIMAX_BASE, minimax_fields)
        argv += [DRAFT, minimax_dir(draw(minimax_fields()))]
    elif kind == "oracle" and draw(st.integers(0, 3)) == 0:  # one the worker refuses
        argv += [DRAFT, draft_dir(None, None, None, draw(st.sampled_from(WORKER_REFUSED)))]
    elif kind == "oracle":  # the oracle's model: no gamma, samples from the anchor
        argv = with_draft(argv)
    elif kind == "local":  # a draft naming its gamma and / or sample_from_anchor
        key = draw(st.sampled_from((None, "dspark_block_size", "block_size", "dflash_config")))
        fields = draw(draft_fields()) if draw(st.booleans()) else "{}"
        argv += [DRAFT, draft_dir(key, None if key is None else draw(st.integers(1, 12)),
                                  draw(st.sampled_from((None, True, False))), fields)]
    if kind != "missing" and draw(st.integers(0, 3)) == 0:
        argv += ["--json-model-override-args", draw(override_args())]
    gb = draw(st.sampled_from((16, 24, 48, 80, 141, 192)))
    return tuple(argv), gb
