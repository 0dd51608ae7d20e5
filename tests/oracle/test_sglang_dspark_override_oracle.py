"""SGLang 0.5.23 DSPARK: a draft config under `--json-model-override-args`, a non-bool
`sample_from_anchor`, and a MiniMax M3.1 draft, against SGLang's own code.

- The override args reach the draft's config in SGLang's argument hook (gamma,
  read_draft_checkpoint_config, dspark_config.py:146-154) and in the draft's ModelConfig the
  worker checks (model_config.py:950-975 -> :612-626, dspark_worker_v2.py:261-265); the
  oracle's runners are built on SGLang's own overridden config (sglang_dspark_oracle).
- `sample_from_anchor` is `bool()` of any value (dspark_config.py:29-31).
- A MiniMax M3.1 draft is rewritten by `configure_minimax_m3_dspark` (minimax_vl.py:64-111)
  before the parse: SGLang's own rewrite, parse and worker check against
  graphfit.inputs.sglang_dspark_minimax over generated configs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_dspark_compare as kc  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402

VOCAB = 128256  # the oracle target's rows (its config.json vocab_size)


def _line(override: object, fields: str = "{}", *flags: str) -> tuple[str, ...]:
    argv = (*kc.dspark(*flags, draft=False), kc.DRAFT,
            kc.draft_dir("dspark_block_size", 4, None, fields))
    return (*argv, "--json-model-override-args", json.dumps(override)) if override else argv


OVERRIDE_EDGE: list[tuple[tuple[str, ...], str, int | None, int | None]] = [
    # (line, outcome, SGLang's verify window, the draft runner's width)
    (_line({"dspark_block_size": 6}), "runner", 7, 6),  # the override's gamma, not 4
    (_line({"dflash_config": {"block_size": 2}}), "runner", 5, 4),  # prefixed 4 wins
    (_line({"sample_from_anchor": False}), "runner", 5, 5),  # gamma + 1 rows
    (_line({"sample_from_anchor": "false"}), "runner", 5, 4),  # bool("false") is True
    (_line({"sample_from_anchor": 0}), "runner", 5, 5),
    (_line({"sample_from_anchor": None}), "runner", 5, 5),  # bool(None) is False
    (_line({}, '{"sample_from_anchor": "no"}'), "runner", 5, 4),  # the file's, any value
    (_line({}, '{"sample_from_anchor": []}'), "runner", 5, 5),
    (_line({"markov_rank": 0}), "rejected", None, None),  # the worker: no Markov head
    (_line({"mask_token_id": VOCAB}), "rejected", None, None),  # past the target's rows
    # the target's ModelConfig applies the override too: its rows are now 300000
    (_line({"vocab_size": 300000}, '{"mask_token_id": 200000}'), "runner", 5, 4),
    (_line({"vocab_size": 300000}, '{"mask_token_id": 300000}'), "rejected", None, None),
    (_line({"markov_head_type": "lstm"}), "rejected", None, None),  # the parse raises
    (_line({"dspark_block_size": 6}, "{}", "--speculative-num-draft-tokens", "5"),
     "rejected", None, None),  # the override's gamma 6 clashes with the window 5
    (_line({"dspark_block_size": 6}, "{}", "--speculative-num-draft-tokens", "7"),
     "runner", 7, 6),
]


def _id(argv: tuple[str, ...]) -> str:
    return " ".join(a.rsplit("-", 1)[-1] if "graphfit-" in a else a for a in argv[2:])


@pytest.mark.parametrize(("argv", "outcome", "window", "width"), OVERRIDE_EDGE,
                         ids=[_id(a) for a, *_ in OVERRIDE_EDGE])
def test_override_args_reach_the_dspark_draft(argv: tuple[str, ...], outcome: str,
                                              window: int | None, width: int | None) -> None:
    """SGLang's own hook and worker read the overridden draft config; graphfit agrees on the
    outcome and every compared buffer, and on the window and width SGLang resolved."""
    assert kc.compare_line(argv, 80) == (outcome, [])
    if window is None:
        return
    sg = kc.sc.sglang(argv, 80)
    assert isinstance(sg.resolved, so.Resolved) and sg.runners is not None
    assert (sg.resolved.speculative_num_draft_tokens, sg.runners["dspark_draft"].width) == (
        window, width)


@settings(max_examples=15, deadline=None)
@given(kc.override_args(), st.sampled_from((None, "--speculative-dspark-block-size")))
def test_generated_override_lines(override: str, flag: str | None) -> None:
    """Generated override args on the oracle's working draft (gamma 4 in the file): the same
    outcome and buffers in both."""
    flags = (flag, "3") if flag else ()
    argv = (*_line(None, "{}", *flags), "--json-model-override-args", override)
    verdict, diffs = kc.compare_line(argv, 80)
    assert diffs == [], (override, verdict, diffs)


# --- MiniMax M3.1 drafts ------------------------------------------------------------------

FLASH = {"num_target_layers": 8, "num_hidden_layers": 2, "target_layer_ids": [1, 5],
         "block_size": 4}
MINIMAX_FIELDS: dict[str, tuple[object, ...]] = {
    "dspark_config": ({"use_dense_ffn": True, "ffn_hidden_size": 1024},
                      {"use_dense_ffn": False}, {"use_dense_ffn": True}, None, "x", {}),
    "dspark_use_dense_ffn": (True, 0),
    "dspark_ffn_hidden_size": (512, "x"),
    "dflash_config": ({"num_target_layers": 8}, {"num_hidden_layers": "x"},
                      {"target_layer_ids": [1, 1]}, {"target_layer_ids": [8]},
                      {"target_layer_ids": []}, {"target_layer_ids": 3},
                      {"target_layer_ids": ["2", 0]}, {"layer_types": ["full_attention"] * 2},
                      {"num_target_layers": 2}),
    "dspark_block_size": (4, "5", None, "x"),
    "dspark_markov_rank": (1, 0, "2", -1),
    "dspark_markov_head_type": ("gated", "lstm", None),
    "dspark_noise_token_id": (7, VOCAB, "x", None, -3),
}
WORKING = {"dspark_config": {"use_dense_ffn": True, "ffn_hidden_size": 1024},
           "dspark_block_size": 4, "dspark_markov_rank": 1, "dspark_noise_token_id": 7}


@st.composite
def minimax_configs(draw: st.DrawFn) -> dict[str, Any]:
    """The oracle's Llama config as a MiniMax M3.1 DSPARK draft: a working base (dense FFN,
    block 4, rank 1, mask 7, dflash_config FLASH) with 0 to 3 fields replaced, removed
    (None for the dspark_* keys) or merged into dflash_config; on 1 in 4 the non-dspark
    fields nested under text_config."""
    config = json.loads((so.oracle().model_dir / "config.json").read_text())
    config.update({"architectures": ["DSparkMiniMaxDraftModel"], **WORKING,
                   "dflash_config": dict(FLASH)})
    for name in draw(st.lists(st.sampled_from(sorted(MINIMAX_FIELDS)), max_size=3,
                              unique=True)):
        value = draw(st.sampled_from(MINIMAX_FIELDS[name]))
        if name == "dflash_config":
            config["dflash_config"] = {**FLASH, **value}  # type: ignore[dict-item]
        elif value is None:
            config.pop(name, None)
        else:
            config[name] = value
    if draw(st.integers(0, 3)) == 0:
        inner = {k: v for k, v in config.items() if not k.startswith("dspark_")}
        config = {"architectures": config["architectures"], "model_type": "llama",
                  "text_config": inner,
                  **{k: v for k, v in config.items() if k.startswith("dspark_")}}
    return config


def _sglang_minimax(path: str) -> tuple[str, ...]:
    """SGLang's own: get_config, `configure_minimax_m3_dspark` (what raises, by type), then
    `resolve_runtime_config` (the parse and the worker's checks) on the rewritten config."""
    from sglang.srt.configs.minimax_vl import configure_minimax_m3_dspark
    from sglang.srt.speculative.dspark_components.dspark_config import (
        resolve_runtime_config,
    )
    from sglang.srt.utils.hf_transformers_utils import get_config

    with so.sglang_stubs.fake_cuda():
        config = get_config(path, trust_remote_code=False)
        try:
            text = configure_minimax_m3_dspark(config)
        except Exception as exc:  # SGLang's own exception, compared by type
            return ("rewrite", type(exc).__name__)
        try:
            resolve_runtime_config(draft_hf_config=text, speculative_num_draft_tokens=5,
                                   target_vocab_size=VOCAB)
        except (ValueError, TypeError):
            return ("worker",)
    return ("starts",)


def _graphfit_minimax(config: dict[str, Any]) -> tuple[str, ...]:
    """graphfit's rewrite, then its DSPARK parse and worker checks on the rewritten config
    (the draft model's constructors in between: test_sglang_dspark_minimax_oracle.py)."""
    from graphfit.inputs import sglang_dspark_parse as parse
    from graphfit.inputs.sglang_dspark_minimax import configured, is_minimax, refusal

    assert is_minimax(config)
    said = refusal(config, VOCAB) or ""
    if "rewrite raises" in said:
        return ("rewrite", said.split("): ", 1)[1].split(":", 1)[0])
    parsed = parse.parse(configured(config))
    if parsed.problem is not None or parse.worker_problem(parsed, VOCAB) is not None:
        return ("worker",)
    return ("starts",)


@settings(max_examples=120, deadline=None)
@given(minimax_configs())
def test_minimax_rewrite_matches_sglang(config: dict[str, Any]) -> None:
    """Whether SGLang's own rewrite raises (and with which exception), else whether its worker
    refuses the rewritten draft: graphfit's restatement says the same."""
    text = json.dumps(config, sort_keys=True)
    path = kc.draft_dir(None, None, None, "{}")  # a fresh directory per config
    directory = Path(path).parent / f"minimax-{abs(hash(text))}"
    directory.mkdir(exist_ok=True)
    (directory / "config.json").write_text(text)
    assert _graphfit_minimax(config) == _sglang_minimax(str(directory)), text


def test_a_minimax_draft_line_is_refused_in_one_line(tmp_path: Path) -> None:
    """A MiniMax M3.1 draft that SGLang starts at TP 1 is planned (graphfit's exit 0;
    compared with SGLang's own runners in test_sglang_dspark_minimax_oracle.py); one the
    rewrite or the model's constructor raises on is refused with SGLang's reason, one at TP 2
    as not modelled; one `error:` line of <= 200 characters either way."""
    from tests.helpers import run_cli

    config = json.loads((so.oracle().model_dir / "config.json").read_text())
    for name, extra, said in (("ok", {"use_gemma_norm": False}, None),
                              ("tp2", {"use_gemma_norm": False, "qk_norm_type": "per_head",
                                       "tp": 2}, "not modelled"),
                              ("no-gemma", {}, "use_gemma_norm"),
                              ("sparse", {"dspark_config": {"use_dense_ffn": False}},
                               "dense draft FFN"),
                              # TP 2 on the NCCL ring: planned (sglang_dspark_minimax_tp)
                              ("ring", {"use_gemma_norm": False, "qk_norm_type": "per_head",
                                        "tp": 2, "flags": ["--disable-custom-all-reduce"]},
                               None),
                              ("vocab", {"use_gemma_norm": False, "qk_norm_type": "per_head",
                                         "vocab_size": 1000, "tp": 2,
                                         "flags": ["--disable-custom-all-reduce"]},
                               "org_vocab_size 128256 != markov vocab_size 1000"),
                              ("gated", {"use_gemma_norm": False, "qk_norm_type": "per_head",
                                         "dspark_markov_head_type": "gated", "tp": 2},
                               "not modelled")):
        tp = str(extra.pop("tp", 1))
        flags = list(extra.pop("flags", []))
        directory = tmp_path / name
        directory.mkdir()
        (directory / "config.json").write_text(json.dumps({
            **config, "architectures": ["DSparkMiniMaxDraftModel"], **WORKING,
            "dflash_config": FLASH, **extra}))
        code, _, out = run_cli(["plan", "--json", "--", "python", "-m",
                                "sglang.launch_server", "--model-path",
                                str(so.oracle().model_dir), "--speculative-algorithm",
                                "DSPARK", "--speculative-draft-model-path", str(directory),
                                "--tp-size", tp, *flags])
        errors = [ln for ln in out.splitlines() if ln.startswith("error:")]
        if said is None:
            assert code == 0 and not errors, out
            continue
        assert code == 2 and len(errors) == 1 and said in errors[0], out
        assert len(errors[0]) <= 200, errors[0]


@pytest.mark.parametrize(("written", "override"), [
    ("DeepseekV4ForCausalLM", None), ("DeepseekV4ForCausalLMDSpark", None),
    ("DeepseekV4ForCausalLMNextN", None), ("DeepseekV3ForCausalLM", None),
    ("LlamaForCausalLM", ["DeepseekV4ForCausalLM"]),  # the override makes it one
    ("DeepseekV4ForCausalLM", ["LlamaForCausalLM"]),  # and unmakes it
])
def test_a_deepseek_v4_draft_is_refused_as_not_modelled(written: str,
                                                        override: list[str] | None) -> None:
    """SGLang's own `is_deepseek_v4` on the draft config its `draft_is_deepseek_v4` reads
    (get_config with the line's override args, dspark_config.py:34-48) decides whether the
    worker takes the MoE path; graphfit refuses exactly those drafts as not modelled and
    plans the others."""
    # s68c: with the keys SGLang's ModelConfig reads for those classes (kc.MLA_READ_FIELDS)
    fields = json.dumps({"architectures": [written], **dict(kc.MLA_READ_FIELDS)})
    path = kc.draft_dir("dspark_block_size", 4, None, fields)
    overrides = {"architectures": override} if override else {}
    with so.sglang_stubs.fake_cuda():
        from sglang.srt.configs.model_config import is_deepseek_v4
        from sglang.srt.utils.hf_transformers_utils import get_config

        moe = is_deepseek_v4(get_config(path, trust_remote_code=False,
                                        model_override_args=overrides))
    argv = (*kc.dspark(draft=False), kc.DRAFT, path,
            *(("--json-model-override-args", json.dumps(overrides)) if override else ()))
    gf = kc.pasted(argv, 80)
    refused = gf.rejected is not None and "DeepSeek-V4 (MoE) DSPARK draft" in gf.rejected
    assert refused is moe, gf.rejected
    assert (gf.rejected is None) is not moe, gf.rejected
