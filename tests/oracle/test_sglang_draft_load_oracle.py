"""graphfit == SGLang 0.5.23 on a plain text class's config.json writing a `text_config`
(issue 23, s64c): SGLang's own ModelConfig on the directory with the line's override args
(tests.oracle.sglang_draft_load) fails exactly where graphfit's
`model_config.plain_text_config_failure` says so; a draft written that way is refused on a
pasted line, a config file and the live check (graphfit.inputs.sglang_draft_load) where
SGLang's resolution or its draft ModelConfig fails.
"""

from __future__ import annotations

import dataclasses
import json
import random
import types

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.inputs import (  # noqa: E402
    model_config,
    sglang_draft_load,
    sglang_mla_reads,
    sglang_text_pick,
    target_overrides,
)
from graphfit.planner.core.errors import ConfigError  # noqa: E402
from tests.oracle import sglang_draft_load as dlo  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_stubs  # noqa: E402

FULL = dict(dlo.KEYS)
LESS = {key: {k: v for k, v in FULL.items() if k != key} for key in FULL}
MLA = {**FULL, **dlo.MLA_KEYS}
MLA_LESS = {key: {k: v for k, v in MLA.items() if k != key} for key in dlo.MLA_KEYS}
V4 = {**MLA, **dlo.V4_KEYS}  # s67c
V4_LESS = {key: {k: v for k, v in V4.items() if k != key} for key in dlo.V4_KEYS}
# (model_type, text_config, override args) on the fixed grid
FIXED: list[dlo.Case] = [
    *(("llama", text, None) for text in (None, "x", [1], {}, FULL, *LESS.values())),
    ("qwen3_moe", {"num_attention_heads": 16}, None),
    ("qwen3_moe", {"num_attention_heads": 16, "hidden_size": 1024}, None),
    # overrides: merged into the parsed sub-config (a missing read filled in), never
    # before the parser's assert; null at the ModelConfig's assert
    ("llama", LESS["vocab_size"], {"text_config": {"vocab_size": 128256}}),
    ("llama", {}, {"text_config": FULL}),
    ("llama", FULL, {"text_config": None}),
    # SGLang's Qwen3NextConfig keeps a dict: an override replaces it whole
    ("qwen3_next", FULL, {"text_config": {"head_dim": 64}}),
    ("qwen3_next", {"num_attention_heads": 16}, {"text_config": FULL}),
    # s65c: an MLA architecture's latent sizes, read off the text config
    *(("deepseek_v3", text, None) for text in (MLA, *MLA_LESS.values())),
    ("deepseek_v2", MLA_LESS["qk_rope_head_dim"], None),
    ("deepseek_v3", MLA_LESS["kv_lora_rank"], {"text_config": {"kv_lora_rank": 512}}),
    ("deepseek_v3", MLA_LESS["kv_lora_rank"], {"architectures": ["LlamaForCausalLM"]}),
    ("llama", MLA_LESS["qk_nope_head_dim"], {"architectures": ["DeepseekV3ForCausalLM"]}),
    # Pixtral's branch only where the text config writes kv_lora_rank
    ("llama", MLA_LESS["qk_rope_head_dim"],
     {"architectures": ["PixtralForConditionalGeneration"]}),
    ("llama", {k: v for k, v in MLA_LESS["qk_rope_head_dim"].items() if k != "kv_lora_rank"},
     {"architectures": ["PixtralForConditionalGeneration"]}),
    # two reads missing: the first SGLang makes names the failure (the sites test)
    ("deepseek_v3", {k: v for k, v in MLA_LESS["kv_lora_rank"].items()
                     if k not in ("head_dim", "hidden_size")}, None),
    ("deepseek_v3", {k: v for k, v in MLA_LESS["qk_rope_head_dim"].items()
                     if k != "vocab_size"}, None),
    # s66c: the other MLA branches (configs/model_config.py:1443-1517), each read's absence
    *((f"llama/{name}", text, None)
      for name in ("DeepseekVL2ForCausalLM", "KimiVLForConditionalGeneration",
                   "KimiK3ForConditionalGeneration", "BailingMoeV2_5ForCausalLM",
                   "BailingMoeV3VLForConditionalGeneration", "SarvamMLAForCausalLM",
                   "MiniCPM3ForCausalLM")
      for text in (MLA, *MLA_LESS.values())),
    # the branches' switches: DeepSeek-VL2 without use_mla, Bailing V3's use_mla_nope, the
    # Bailing NextN branch only with kv_lora_rank
    ("llama/DeepseekVL2ForCausalLM", {**MLA_LESS["kv_lora_rank"], "use_mla": False}, None),
    ("llama/BailingMoeV3ForCausalLM", {**MLA_LESS["qk_rope_head_dim"], "use_mla_nope": True},
     None),
    ("llama/BailingMoeForCausalLMNextN", MLA_LESS["kv_lora_rank"], None),
    ("llama/BailingMoeForCausalLMNextN", MLA_LESS["qk_nope_head_dim"], None),
    # the chain's order, not the list's: Kimi-VL's branch before Bailing V3's
    ("llama", {**MLA_LESS["qk_rope_head_dim"], "use_mla_nope": True},
     {"architectures": ["BailingMoeV3ForCausalLM", "KimiVLForConditionalGeneration"]}),
    # top-level reads: the class's defaults, a top-level override, the text config's keys
    # copied up before the override args (utils/hf_transformers/config.py:258-267), not null
    ("deepseek_v3/SarvamMLAForCausalLM", MLA_LESS["kv_lora_rank"], None),
    ("deepseek_v3/BailingMoeV2_5ForCausalLM", MLA_LESS["v_head_dim"], None),
    ("llama/SarvamMLAForCausalLM", MLA_LESS["kv_lora_rank"], {"kv_lora_rank": 512}),
    ("llama/SarvamMLAForCausalLM", MLA_LESS["kv_lora_rank"],
     {"text_config": {"kv_lora_rank": 512}}),
    ("llama/SarvamMLAForCausalLM", {**MLA, "kv_lora_rank": None}, None),
    ("llama/MiniCPM3ForCausalLM", MLA_LESS["qk_rope_head_dim"], {"qk_rope_head_dim": 64}),
    # Qwen3-Next's own config class reloads the file after the copy: nothing copied stays
    ("qwen3_next/SarvamMLAForCausalLM", MLA, None),
    # s67c: DeepSeek-V4's top-level reads (:1423-1429): copied up from the text config, the
    # class's own keys (Mixtral's head_dim None is not overwritten by the copy), overrides;
    # each read's absence
    *((f"{kind}/DeepseekV4ForCausalLM", text, None) for kind in ("llama", "qwen2", "mixtral")
      for text in (MLA, V4, *V4_LESS.values())),
    ("mixtral/DeepseekV4ForCausalLM", MLA, dlo.V4_KEYS),
    ("deepseek_v3/DeepseekV4ForCausalLMNextN", V4_LESS["qk_rope_head_dim"], None),
    ("llama/DeepseekV4ForCausalLM", V4, {"qk_rope_head_dim": None}),
    # s67c: a null read used in a sum (:1347, :1504, :1510, :1613), or only stored
    ("llama", {**FULL, "head_dim": None, "hidden_size": None}, None),
    ("llama", {**FULL, "head_dim": None, "num_attention_heads": None}, None),
    *((f"llama/{name}", {**MLA, key: None}, None)
      for name in ("DeepseekV3ForCausalLM", "KimiLinearForCausalLM", "BailingMoeV2_5ForCausalLM",
                   "BailingMoeV3ForCausalLM", "KimiVLForConditionalGeneration")
      for key in ("kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim")),
    ("llama/BailingMoeV3ForCausalLM", {**MLA, "qk_rope_head_dim": None, "use_mla_nope": True},
     None),
    ("llama/SarvamMLAForCausalLM", MLA, {"qk_nope_head_dim": None}),
    ("deepseek_v3/SarvamMLAForCausalLM", FULL, {"qk_rope_head_dim": None}),
    # s67c: SGLang's own KimiLinearConfig / BailingHybridConfig keep a text_config dict: the
    # same reads, their own defaults (Kimi-Linear's latent sizes None: :1613 without a text
    # config), an override of the text config replacing the dict whole (the assert again)
    *((kind, text, over) for kind in dlo.OWN_TYPES
      for text, over in ((dlo.ABSENT, None), (dlo.ABSENT, dict(dlo.MLA_KEYS)), (FULL, None),
                         (MLA, None), (MLA_LESS["v_head_dim"], None),
                         ({**MLA, "qk_rope_head_dim": None}, None),
                         (MLA, {"text_config": {"qk_nope_head_dim": 128}}))),
    # s68c: a plain class's config.json with no text_config is its own text config: the
    # class's defaults, and the preamble's head_dim / v_head_dim set on it (:1341-1355)
    *((kind, dlo.ABSENT, over) for kind in ("llama/DeepseekV3ForCausalLM", "deepseek_v3")
      for over in (None, dict(dlo.MLA_KEYS), {"qk_nope_head_dim": None})),
    ("llama/MiniCPM3ForCausalLM", dlo.ABSENT, {"kv_lora_rank": 512}),
    ("llama/BailingMoeV2_5ForCausalLM", dlo.ABSENT, MLA_LESS["v_head_dim"]),
    ("llama/SarvamMLAForCausalLM", dlo.ABSENT, MLA_LESS["v_head_dim"]),
    ("llama/PixtralForConditionalGeneration", dlo.ABSENT, None),
    ("deepseek_v3/PixtralForConditionalGeneration", dlo.ABSENT, None),
    *((f"{kind}/DeepseekV4ForCausalLM", dlo.ABSENT, over) for kind in ("mixtral", "qwen2")
      for over in (dlo.V4_KEYS, V4_LESS["head_dim"], V4_LESS["sliding_window"])),
    ("llama/DeepseekV4ForCausalLM", dlo.ABSENT, {**dlo.V4_KEYS, "qk_rope_head_dim": None}),
    # s68c: the sub-config SGLang's parser picks before text_config ("TYPE/CLASS/KEY+KEY+":
    # the values in order, "-torch_dtype" drops the file's dtype): a null language_config /
    # thinker_config leaves the top level as the text config, another value fails setting
    # its dtype (common.py:580) or in _patch_text_config (:541), llm_config's heads assert
    # (:597), thinker_config's own text_config (:587), a bad text_config under a picked one
    *(("llama//language_config+", [value], None) for value in (None, "x", {}, FULL)),
    ("llama//language_config+-torch_dtype+", ["x", None], None),
    ("llama//thinker_config+", [{**FULL, "text_config": FULL}], None),
    ("llama//thinker_config+", [{}], None),
    *(("llama//llm_config+", [value], None) for value in (None, LESS["num_attention_heads"])),
    ("llama//llm_config+text_config+", [FULL, None], None),
    ("llama//language_config+llm_config+", [FULL, {}], None),
    ("llama//language_config+text_config+", [MLA, None], None),
    ("qwen2//text_config+language_config+", ["x", FULL], None),
    ("qwen2//text_config+language_config+-torch_dtype+", ["x", FULL, None], None),
    *((f"{kind}/DeepseekV3ForCausalLM/language_config+text_config+", [None, MLA], None)
      for kind in ("llama", "deepseek_v3")),
    *(("llama/DeepseekV3ForCausalLM/thinker_config+", [text], None)
      for text in (MLA, MLA_LESS["kv_lora_rank"])),
    # the parser copies the picked sub-config's keys up (utils/hf_transformers/config.py:258-267)
    *(("llama/SarvamMLAForCausalLM/language_config+text_config+", [text, MLA], None)
      for text in (FULL, MLA)),
    ("kimi_linear//language_config+", [MLA], None),
    ("kimi_linear//language_config+", [FULL], None),
    # Kimi-VL / Bailing-V3-VL: a null language_config, their text_config kept when not a dict
    *((f"{kind}/language_config+", [None], None) for kind in dlo.LANGUAGE_TYPES),
    *((f"{kind}/thinker_config+", [MLA], None) for kind in dlo.LANGUAGE_TYPES),
    *((f"{kind}/text_config+", ["x"], None) for kind in dlo.LANGUAGE_TYPES),
    *((f"{kind}/text_config+-torch_dtype+", [[1], None], None) for kind in dlo.LANGUAGE_TYPES),
    *((f"{kind}/text_config+", [None], None) for kind in dlo.LANGUAGE_TYPES),
    # under a picked language_config with no dtype: Kimi-VL keeps it unread, Bailing-V3-VL's
    # class reads it (configs/bailing_hybrid.py:263-276)
    *((f"{kind}/text_config+language_config+-torch_dtype+", ["x", MLA, None], None)
      for kind in dlo.LANGUAGE_TYPES),
    # s67c: a language_config dict on SGLang's own Kimi-VL / Bailing-V3-VL classes wins over
    # their text config: no heads assert, the same reads (the heads too, :1348)
    *((kind, text, None) for kind in dlo.LANGUAGE_KINDS
      for text in (FULL, MLA, {}, *({k: v for k, v in MLA.items() if k not in less}
                                    for less in (("num_attention_heads",), ("head_dim",),
                                                 ("head_dim", "num_attention_heads"),
                                                 ("vocab_size",))),
                   {**MLA, "qk_nope_head_dim": None})),
]
# s66c: drafts whose ModelConfig renames the class into another branch (:1063-1064, :1121-1127)
DRAFTS: list[dlo.Case] = [
    *((f"llama/{name}", text, None)
      for name in ("BailingMoeV2_5ForCausalLM", "BailingMoeV3ForCausalLM",
                   "BailingMoeV2ForCausalLM")
      for text in (MLA_LESS["kv_lora_rank"], MLA_LESS["qk_rope_head_dim"],
                   {**MLA_LESS["qk_rope_head_dim"], "use_mla_nope": True})),
    ("llama", MLA_LESS["kv_lora_rank"],
     {"architectures": ["Glm4MoeForCausalLM", "KimiVLForConditionalGeneration"]}),
]


_ANSWERS: dict[str, str] = {}


def _sglang(case: dlo.Case, path: str | None = None, draft: bool = False) -> str:
    """SGLang's answer on the case, asked once per module (the plants change graphfit only)."""
    key = json.dumps([case, path, draft], sort_keys=True)
    if key not in _ANSWERS:
        _ANSWERS[key] = dlo.sglang(case, path, draft=draft)
    return _ANSWERS[key]


def _agree(case: dlo.Case, draft: bool = False) -> str | None:
    theirs, ours = _sglang(case, draft=draft), dlo.graphfit(case, draft=draft)
    return None if (theirs == "loads") == (ours is None) else f"{case}: SGLang {theirs}; {ours}"


def test_fixed_text_configs_as_sglang() -> None:
    """The fixed grid: every read's absence, the non-dict values, and the override forms."""
    wrong = [said for case in FIXED if (said := _agree(case)) is not None]
    assert not wrong, wrong
    assert sum(_sglang(case) != "loads" for case in FIXED) >= 12


def test_fixed_draft_renames_as_sglang() -> None:
    """s66c: a draft's ModelConfig renames Bailing V2 / V2.5 / V3 to the Bailing NextN class
    (its branch needs kv_lora_rank in the text config) and Glm4-MoE to its NextN class (a
    branch with no MLA read, ahead of Kimi-VL's): graphfit judges the renamed class, as
    SGLang's draft ModelConfig; as targets the same configs fail elsewhere."""
    wrong = [said for case in DRAFTS if (said := _agree(case, draft=True)) is not None]
    assert not wrong, wrong
    moved = [case for case in DRAFTS if (_sglang(case) == "loads")
             != (_sglang(case, draft=True) == "loads")]
    assert len(moved) >= 4, moved


def test_fixed_failure_sites_as_sglang() -> None:
    """Where SGLang's ModelConfig fails on a read, graphfit's line names that line (the
    reads' order: the width for a missing head size, the MLA sizes, then the rest)."""
    sites = [(case, _sglang(case)) for case in FIXED]
    wrong = [(case, site, dlo.graphfit(case)) for case, site in sites
             if site.startswith("AttributeError configs/model_config.py:")
             and site.rsplit(":", 1)[1] not in (dlo.graphfit(case) or "")]
    assert not wrong, wrong
    assert sum(site.endswith(("py:1398", "py:1399", "py:1400")) for _, site in sites) >= 5
    # s66c: the other branches' sites, text and top-level reads
    lines = {site.rsplit(":", 1)[1] for _, site in sites if site.startswith("AttributeError")}
    assert {"1446", "1447", "1453", "1459", "1471", "1485", "1488", "1496", "1500", "1510",
            "1513", "1516"} <= lines, lines
    # s67c: DeepSeek-V4's reads, a config without text_config, and the sums on a null read
    assert {"1423", "1424", "1425", "1428", "1429", "1398", "1348"} <= lines, lines
    # s68c: the parser's failures on the sub-configs it picks (common.py)
    parser = {site.rsplit(":", 1)[1] for _, site in sites if "common.py:" in site}
    assert {"541", "580", "587", "597", "605"} <= parser, parser
    used = [(case, site, dlo.graphfit(case)) for case, site in sites
            if site.startswith("TypeError configs/model_config.py:")]
    wrong = [(case, site, ours) for case, site, ours in used
             if f"TypeError, configs/model_config.py:{site.rsplit(':', 1)[1]})" not in (ours or "")]
    assert not wrong, wrong
    assert {site.rsplit(":", 1)[1] for _, site, _ in used} >= {"1347", "1424", "1504", "1510",
                                                               "1613"}


def _written(kind: str, text: object, **top: object) -> dict[str, object]:
    return {**dlo.config(kind, text), **top}


# s67c: top-level keys the file writes: a null head_dim LlamaConfig computes (DERIVED), one
# DeepseekV3Config keeps null, Mixtral's written over its None default
WRITTEN = [_written("llama/DeepseekV4ForCausalLM", V4, head_dim=None),
           _written("mistral/DeepseekV4ForCausalLM", V4, head_dim=None),
           _written("deepseek_v3/DeepseekV4ForCausalLM", V4, head_dim=None),
           _written("mixtral/DeepseekV4ForCausalLM", V4, head_dim=192),
           _written("kimi_linear", dlo.ABSENT, kv_lora_rank=512, qk_nope_head_dim=128,
                    qk_rope_head_dim=64),
           # s68c: a plain class's config.json with no text_config
           _written("mixtral/DeepseekV4ForCausalLM", dlo.ABSENT, **dlo.V4_KEYS),
           _written("qwen2/DeepseekV4ForCausalLM", dlo.ABSENT, **V4_LESS["compress_ratios"]),
           _written("llama/DeepseekV3ForCausalLM", dlo.ABSENT, **dlo.MLA_KEYS),
           _written("mistral/DeepseekV3ForCausalLM", dlo.ABSENT, kv_lora_rank=512)]


def test_written_top_level_as_sglang() -> None:
    """Top-level keys written in the file, judged with the class's handling of them
    (sglang_mla_reads.CLASS_KEYS): graphfit fails where SGLang's ModelConfig does."""
    said = []
    for written in WRITTEN:
        where = dlo.content_dir(dlo.root(), json.dumps(written, sort_keys=True))
        theirs = _sglang(("llama", None, None), where)
        ours = model_config.plain_text_config_failure(written)
        if (theirs == "loads") != (ours is None):
            said.append(f"{written}: SGLang {theirs}; {ours}")
    assert not said, said


@settings(max_examples=15)
@given(st.integers(0, 2**32 - 1))
def test_drawn_text_configs_as_sglang(seed: int) -> None:
    """Drawn (plain type, text_config, override args), as the measure draws them."""
    said = _agree(dlo.draw(random.Random(seed), dlo.types()))
    assert said is None, said


def _draft(text: object, arch: str = "LlamaForCausalLM") -> str:
    return dlo.content_dir(dlo.root(), json.dumps(
        {**dlo.config("llama", text), "architectures": [arch], "block_size": 4},
        sort_keys=True))


def _sglang_draft(argv: list[str]) -> tuple[str, object]:
    """("fails", why) where SGLang's resolution or the draft worker's ModelConfig
    (managers/tp_worker.py:465-482) fails, else ("loads", the resolved line)."""
    r = so.resolve(argv)
    if isinstance(r, so.Rejected):
        return "fails", r.kind
    with so.sglang_stubs.imports():
        from sglang.srt.configs.model_config import ModelConfig
    with sglang_stubs.fake_cuda(80 * 1024):
        try:
            ModelConfig.from_server_args(r.record, model_path=so.draft_path(r),
                                         is_draft_model=True)
        except Exception as exc:  # compared by whether it loads
            return "fails", type(exc).__name__
    return "loads", r


@pytest.mark.parametrize("algorithm", ["EAGLE", "STANDALONE", "DFLASH"])
def test_draft_refused_as_sglang(algorithm: str) -> None:
    """A pasted line's draft: refused with the draft's reason exactly where SGLang fails,
    and the live check on a record naming it says the same."""
    from graphfit.inputs import sglang_live

    arch = "DFlashDraftModel" if algorithm == "DFLASH" else "LlamaForCausalLM"
    for text in ({}, {"num_attention_heads": 16}, LESS["vocab_size"], FULL):
        draft = _draft(text, arch)
        argv = ["--speculative-algorithm", algorithm, "--speculative-draft-model-path", draft]
        theirs, resolved = _sglang_draft(argv)
        values = {"model_path": str(so.oracle().model_dir), "speculative_algorithm": algorithm,
                  "speculative_draft_model_path": draft}
        ours = sglang_draft_load.failure(values)
        assert (theirs == "fails") == (ours is not None), (text, theirs, ours)
        assert ours is None or (ours.startswith("the draft ") and len(ours) <= 200)
        # SGLang 0.5.23's resolution already builds the draft's ModelConfig, so a resolved
        # record never holds a failing draft: the live check reads a ServerArgs-like record
        record = types.SimpleNamespace(**values, max_running_requests=16)
        if ours is None:
            assert isinstance(resolved, so.Resolved)
            sglang_live.config_settings(record)
        else:
            with pytest.raises(ConfigError, match=r"the draft .*text_config"):
                sglang_live.config_settings(record)


def test_mla_draft_refused_as_sglang() -> None:
    """An EAGLE draft with an MLA architecture (the draft's ModelConfig renames it to
    DeepseekV3ForCausalLMNextN, configs/model_config.py:1032-1036, MLA too): refused where
    its text config lacks a latent size, as SGLang's draft ModelConfig fails (s65c)."""
    for text, fails in ((MLA, False), (MLA_LESS["kv_lora_rank"], True),
                        (MLA_LESS["qk_rope_head_dim"], True)):
        ours = _eagle_draft_agrees(text, "DeepseekV3ForCausalLM", fails)
        assert ours is None or len(ours) <= 200


def _eagle_draft_agrees(text: object, architecture: str, fails: bool) -> str | None:
    """An EAGLE draft of `architecture` with text config `text`: SGLang's draft ModelConfig
    fails exactly when graphfit refuses it, and that is `fails`; graphfit's reason."""
    draft = _draft(text, architecture)
    theirs, _ = _sglang_draft(["--speculative-algorithm", "EAGLE",
                               "--speculative-draft-model-path", draft])
    ours = sglang_draft_load.failure({
        "model_path": str(so.oracle().model_dir), "speculative_algorithm": "EAGLE",
        "speculative_draft_model_path": draft})
    assert (theirs == "fails", ours is not None) == (fails, fails), (text, theirs, ours)
    return ours


def test_mla_refusal_is_one_error_line() -> None:
    """Through the CLI: exit 2 and one whole `error:` line (not cut) naming SGLang's site."""
    from tests.helpers import run_cli

    where = dlo.folder("deepseek_v3", MLA_LESS["qk_nope_head_dim"])
    code, out, err = run_cli(["plan", "--", "python", "-m", "sglang.launch_server",
                              "--model-path", where, "--max-running-requests", "16"])
    lines = err.strip().splitlines()
    assert code == 2 and not out and len(lines) == 1, (code, out, err)
    assert lines[0].startswith("error: ") and len(lines[0]) <= 200 and " ... " not in lines[0]
    assert "qk_nope_head_dim" in lines[0] and "model_config.py:1399" in lines[0]


def test_bailing_draft_as_sglang() -> None:
    """s66c: an EAGLE draft naming Bailing V2.5 whose text config lacks kv_lora_rank loads
    (renamed to the Bailing NextN class, whose MLA branch it does not take), one lacking
    qk_nope_head_dim fails, as SGLang's draft ModelConfig from the resolved line."""
    for text, fails in ((MLA_LESS["kv_lora_rank"], False), (MLA_LESS["qk_nope_head_dim"], True)):
        _eagle_draft_agrees(text, "BailingMoeV2_5ForCausalLM", fails)


def test_top_level_refusal_is_one_error_line() -> None:
    """s66c, through the CLI: a top-level read (Sarvam's kv_lora_rank) refused in one whole
    `error:` line naming SGLang's site, exit 2."""
    from tests.helpers import run_cli

    where = dlo.folder("qwen3_moe/SarvamMLAForCausalLM", MLA_LESS["kv_lora_rank"])
    code, out, err = run_cli(["plan", "--", "python", "-m", "sglang.launch_server",
                              "--model-path", where, "--max-running-requests", "16"])
    lines = err.strip().splitlines()
    assert code == 2 and not out and len(lines) == 1, (code, out, err)
    assert lines[0].startswith("error: ") and len(lines[0]) <= 200 and " ... " not in lines[0]
    assert "no kv_lora_rank on top or in text_config" in lines[0], lines[0]
    assert "model_config.py:1513" in lines[0], lines[0]


@pytest.mark.parametrize(("kind", "text", "said"), [
    ("llama/DeepseekV4ForCausalLM", V4_LESS["sliding_window"], "model_config.py:1425"),
    ("qwen3_moe/DeepseekV3ForCausalLM", {**MLA, "qk_rope_head_dim": None}, "TypeError"),
    ("kimi_linear", dlo.ABSENT, "model_config.py:1613"),
    ("bailing_moe_v3_vl/BailingMoeV3VLForConditionalGeneration/language_config",
     MLA_LESS["kv_lora_rank"], "model_config.py:1496")])
def test_s67c_refusals_are_one_error_line(kind: str, text: object, said: str) -> None:
    """s67c, through the CLI: a V4 read, a null sum, SGLang's own class without a text
    config, a language_config: exit 2 and one whole `error:` line naming SGLang's site."""
    from tests.helpers import run_cli

    code, out, err = run_cli(["plan", "--", "python", "-m", "sglang.launch_server",
                              "--model-path", dlo.folder(kind, text),
                              "--max-running-requests", "16"])
    lines = err.strip().splitlines()
    assert code == 2 and not out and len(lines) == 1, (code, out, err)
    assert lines[0].startswith("error: ") and len(lines[0]) <= 200 and " ... " not in lines[0]
    assert said in lines[0] and "SGLang's ModelConfig" in lines[0], lines[0]


@pytest.mark.parametrize(("kind", "text", "said"), [
    ("llama/DeepseekV3ForCausalLM", dlo.ABSENT, "no kv_lora_rank, no text_config"),
    ("qwen2/DeepseekV4ForCausalLM", dlo.ABSENT, "model_config.py:1423"),
    ("llama//thinker_config+", [{"text_config": FULL}], "common.py:587"),
    ("llama//llm_config+", [{}], "common.py:597"),
    ("llama//language_config+", ["x"], "common.py:580"),
    ("qwen2/DeepseekV3ForCausalLM/language_config+", [None], "model_config.py:1398"),
    ("llama/DeepseekV3ForCausalLM/thinker_config+", [MLA_LESS["kv_lora_rank"]],
     "thinker_config lacks kv_lora_rank")])
def test_s68c_refusals_are_one_error_line(kind: str, text: object, said: str) -> None:
    """s68c, through the CLI: a plain class's config.json without text_config, and the
    sub-configs SGLang's parser picks before text_config: exit 2 and one whole `error:`
    line naming SGLang's site."""
    from tests.helpers import run_cli

    code, out, err = run_cli(["plan", "--", "python", "-m", "sglang.launch_server",
                              "--model-path", dlo.folder(kind, text),
                              "--max-running-requests", "16"])
    lines = err.strip().splitlines()
    assert code == 2 and not out and len(lines) == 1, (code, out, err)
    assert lines[0].startswith("error: ") and len(lines[0]) <= 200 and " ... " not in lines[0]
    assert said in lines[0] and lines[0].endswith(")"), lines[0]


def test_draft_refused_on_a_line_and_a_config_file() -> None:
    """The pasted line and a DFLASH config file's draft reader both refuse it."""
    from graphfit.inputs import commandline, sglang_file_drafts

    draft = _draft({"num_attention_heads": 16}, "DFlashDraftModel")
    keys = {"model_path": str(so.oracle().model_dir), "speculative_algorithm": "DFLASH",
            "speculative_draft_model_path": draft}
    with pytest.raises(ConfigError, match=r"the draft .*hidden_size"):
        sglang_file_drafts.settings(keys, [], [])
    with pytest.raises(ConfigError, match=r"the draft .*hidden_size"):
        commandline.read(["python", "-m", "sglang.launch_server", "--model-path",
                          keys["model_path"], "--speculative-algorithm", "EAGLE",
                          "--speculative-draft-model-path", draft])
    # the target's own checkpoint as the draft: the target's rule words it
    assert sglang_draft_load.failure({**keys, "speculative_draft_model_path":
                                      keys["model_path"]}) is None


def _plant(monkeypatch: pytest.MonkeyPatch, plant: str) -> None:
    if plant == "reads":
        monkeypatch.setattr(model_config, "TEXT_CONFIG_READS", {})
    elif plant == "written":
        real = model_config.plain_text_config_failure
        monkeypatch.setattr(model_config, "plain_text_config_failure",
                            lambda data, written=None: real(data))
    elif plant == "mla":
        monkeypatch.setattr(sglang_mla_reads, "FIRST_BRANCH", frozenset())
    elif plant == "branches":  # s66c: the other branches' reads dropped
        monkeypatch.setattr(sglang_mla_reads, "BRANCHES", ())
    elif plant == "order":  # the chain walked in the list's order
        monkeypatch.setattr(sglang_mla_reads, "BRANCHES", sglang_mla_reads.BRANCHES[::-1])
    elif plant == "switches":  # DeepSeek-VL2's use_mla and Bailing V3's use_mla_nope ignored
        real_reads = sglang_mla_reads.mla_reads
        monkeypatch.setattr(sglang_mla_reads, "mla_reads", lambda data, text: real_reads(
            data, {k: v for k, v in text.items() if not k.startswith("use_mla")}))
    elif plant == "top":  # top-level reads judged off the text config
        real_missing = sglang_mla_reads.missing
        monkeypatch.setattr(sglang_mla_reads, "missing", lambda read, data, text, written,
                            sub="text_config": real_missing(
                                dataclasses.replace(read, top=False), data, text, written,
                                sub))
    elif plant == "copy":  # the text config's keys not copied up (or copied after overrides)
        real_missing = sglang_mla_reads.missing
        monkeypatch.setattr(sglang_mla_reads, "missing", lambda read, data, text, written,
                            sub="text_config": real_missing(
                                read, data, text, text if read.top else written, sub))
    elif plant == "qwen3_next":
        monkeypatch.setattr(target_overrides, "PLAIN_SUB_CONFIGS", {})
    elif plant == "v4":  # s67c: DeepSeek-V4's top-level reads dropped
        monkeypatch.setattr(sglang_mla_reads, "BRANCHES", (
            (sglang_mla_reads.BRANCHES[0][0], ()), *sglang_mla_reads.BRANCHES[1:]))
    elif plant == "nulls":  # s67c: a null read never fails
        real_missing = sglang_mla_reads.missing
        monkeypatch.setattr(sglang_mla_reads, "missing", lambda read, data, text, written,
                            sub="text_config": not read.null and real_missing(
                                read, data, text, written, sub))
    elif plant == "class_keys":  # s67c: the classes' own keys unknown
        monkeypatch.setattr(sglang_mla_reads, "CLASS_KEYS", {})
    elif plant == "none_default":  # s67c: a class's None default read as a number
        monkeypatch.setattr(sglang_mla_reads, "NONE", "none (planted)")
    elif plant == "derived":  # s67c: a written null head_dim kept null on every class
        monkeypatch.setattr(sglang_mla_reads, "DERIVED", "derived (planted)")
    elif plant == "absent":  # s67c: a config without text_config not judged
        real_mla = sglang_mla_reads.mla_reads
        monkeypatch.setattr(sglang_mla_reads, "mla_reads", lambda data, text: real_mla(
            data, text) if "text_config" in data else ())
    elif plant == "own":  # s67c: SGLang's own classes keeping a text_config dict not judged
        monkeypatch.setattr(sglang_mla_reads, "OWN_TEXT_DICT_CLASSES", frozenset())
    elif plant == "own_merge":  # s67c: their text_config override merged, not replaced
        monkeypatch.setattr(target_overrides, "PLAIN_SUB_CONFIGS", {
            k: v for k, v in target_overrides.PLAIN_SUB_CONFIGS.items() if k not in dlo.OWN_TYPES})
    elif plant == "language":  # s67c: a language_config dict not judged
        monkeypatch.setattr(model_config, "LANGUAGE_CONFIG_CLASSES", frozenset())
    elif plant == "plain_absent":  # s68c: a plain class's config without text_config
        real_view = sglang_mla_reads.own_text_view  # not judged
        monkeypatch.setattr(sglang_mla_reads, "own_text_view", lambda data, written, sub: {
            **real_view(data, written, sub), **({} if data.get("model_type") in dlo.OWN_TYPES
                                           else {"architectures": []})})
    elif plant == "preamble":  # s68c: the preamble's head sizes not set on the config itself
        monkeypatch.setattr(sglang_mla_reads, "own_text_view", sglang_mla_reads.top_view)
    elif plant == "priority":  # s68c: text_config always picked (the others ignored)
        monkeypatch.setattr(sglang_text_pick, "PRIORITY", ("text_config",))
    elif plant == "dtype":  # s68c: the dtype conversion's failure (common.py:580) dropped
        monkeypatch.setattr(sglang_text_pick, "CONVERTED", ())
    elif plant == "sub_values":  # s68c: a null or non-dict sub-config read as absent
        real_pick = sglang_text_pick.pick
        monkeypatch.setattr(sglang_text_pick, "pick", lambda written, kind, **kw: real_pick(
            {k: v for k, v in written.items() if k not in sglang_text_pick.PRIORITY[:-1]
             or isinstance(v, dict)}, kind, **kw))
    elif plant == "thinker_text":  # s68c: a thinker_config's own text_config not refused
        real_pick = sglang_text_pick.pick
        monkeypatch.setattr(sglang_text_pick, "pick", lambda written, kind, **kw: real_pick(
            {k: ({kk: vv for kk, vv in v.items() if kk != "text_config"}
                 if k == "thinker_config" and isinstance(v, dict) else v)
             for k, v in written.items()}, kind, **kw))
    elif plant == "copy_sub":  # s68c: the keys copied up from text_config, not the pick
        real_missing = sglang_mla_reads.missing
        monkeypatch.setattr(sglang_mla_reads, "missing", lambda read, data, text, written,
                            sub="text_config": real_missing(read, data, text, written))
    elif plant == "heads":  # s67c: the heads' read (:1348) dropped
        real_reads = model_config.text_config_reads
        monkeypatch.setattr(model_config, "text_config_reads", lambda data, text: [
            r for r in real_reads(data, text) if r.site != "1348"])
    else:
        monkeypatch.setattr(sglang_draft_load, "ALGORITHMS", frozenset())


@pytest.mark.parametrize("plant", ["reads", "written", "qwen3_next", "draft", "mla",
                                   "branches", "order", "switches", "top", "copy", "renames",
                                   "v4", "nulls", "class_keys", "none_default", "derived",
                                   "absent", "own", "own_merge",
                                   "language", "heads", "plain_absent", "preamble",
                                   "priority", "dtype", "sub_values", "thinker_text",
                                   "copy_sub"])
def test_planted_errors_caught(monkeypatch: pytest.MonkeyPatch, plant: str) -> None:
    """Planted: the ModelConfig's reads dropped, the parser's assert judged after the
    overrides, Qwen3-Next's text config merged, the draft rule off, the MLA architectures'
    reads dropped (s65c), the other branches dropped, walked in the list's order, their
    switches ignored, their top-level reads judged off the text config, the text config's
    keys copied after the override args, the draft renames dropped (s66c): each differs from
    SGLang somewhere the tests above look."""
    if plant == "renames":
        monkeypatch.setattr(sglang_mla_reads, "DRAFT_RENAMES", {})
        assert any(_agree(case, draft=True) is not None for case in DRAFTS)
        return
    _plant(monkeypatch, plant)
    if plant == "draft":
        draft = _draft({}, "LlamaForCausalLM")
        assert _sglang_draft(["--speculative-algorithm", "EAGLE",
                              "--speculative-draft-model-path", draft])[0] == "fails"
        assert sglang_draft_load.failure({
            "model_path": str(so.oracle().model_dir), "speculative_algorithm": "EAGLE",
            "speculative_draft_model_path": draft}) is None
        return
    if plant == "derived":
        assert any((_sglang(("llama", None, None), dlo.content_dir(
            dlo.root(), json.dumps(w, sort_keys=True))) == "loads")
            != (model_config.plain_text_config_failure(w) is None) for w in WRITTEN)
        return
    assert any(_agree(case) is not None for case in FIXED), plant
