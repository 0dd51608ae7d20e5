"""What SGLang 0.5.23's MLA branches read off a plain class's configs with no default (issue 23,
s65c for the first branch, s66c for the rest).

`ModelConfig._derive_model_shapes` (configs/model_config.py:1331-1609) picks ONE branch of an
if / elif chain by the architectures (after the override args), and each MLA branch reads the
latent sizes off a config with a bare attribute access. On a plain class (its transformers
config class builds no text sub-config: graphfit.inputs.sglang_draft_layer_default.CLASS_LAYERS)
whose config.json writes a `text_config` dict, SGLang's text config is a bare
PretrainedConfig holding only the keys written (utils/hf_transformers/common.py:565-571), so a
missing key fails the load with an AttributeError. The reads, in the chain's order:

- the first branch (DeepSeek-V2 / V3 and its peers, Pixtral where its text config writes
  `kv_lora_rank`; :1366-1417): the text config's `kv_lora_rank`, `qk_nope_head_dim`,
  `qk_rope_head_dim` (:1398-1400);
- DeepSeek-V4 (:1418-1431; issue 23 s67c): the top level's `qk_rope_head_dim` (:1423),
  `head_dim` (:1424, minus the first: neither may be null), `sliding_window` (:1425),
  `index_head_dim` (:1428), `compress_ratios` (:1429) (`rope_scaling`, :1431, is on every
  plain class); Glm4-MoE's NextN (:1432-1442) reads none (its `head_dim is None` test never
  holds: the preamble set it, :1341-1350);
- MiniCPM3 (:1443-1447): the top level's `kv_lora_rank`, `qk_rope_head_dim`;
- DeepSeek-VL2 where the text config's `use_mla` is not falsy (default true, :1448-1455):
  `kv_lora_rank`, `qk_rope_head_dim`, `qk_nope_head_dim` off the text config;
- Kimi-VL (:1456-1462) and Kimi-Linear / Kimi-K3 (:1463-1475): `kv_lora_rank`,
  `qk_rope_head_dim`, (`v_head_dim`,) `qk_nope_head_dim` off the text config;
- Bailing V2.5, or a Bailing NextN draft whose text config writes `kv_lora_rank`
  (:1476-1489): `kv_lora_rank`, `qk_nope_head_dim`, `qk_rope_head_dim` off the text config,
  then the top level's `v_head_dim` (:1488);
- Bailing V3 (:1490-1504): `kv_lora_rank`, `qk_rope_head_dim` (not under a truthy
  `use_mla_nope`), `qk_nope_head_dim` off the text config;
- Sarvam (:1505-1517; Glm5Next is taken by the first branch): the top level's
  `qk_nope_head_dim`, `qk_rope_head_dim` (:1510), `kv_lora_rank`, `v_head_dim`.

The text config's `v_head_dim` and `head_dim` are never missing there: the chain's preamble
sets them (:1341-1355).

A top-level read finds the key where the config (with the override
args) writes it at the top level, where the file's text config writes it not null (SGLang's
parser copies the text config's keys up where the top level lacks them, before the override
args, utils/hf_transformers/config.py:258-267; not for Qwen3-Next, whose SGLang config class
reloads the file after that copy, :279-291, `RELOADED`), or in the class's defaults
(`CLASS_KEYS`; the copy skips a key the class has, so a class default of None stays);
`rope_scaling` is on every plain class (transformers 5.25).

s67c: a read that finds a null fails later, where the value is computed with (a TypeError;
`Read.null`): the preamble's `hidden_size // num_attention_heads` (:1347), DeepSeek-V4's
`head_dim - qk_rope_head_dim` (:1424), Sarvam's `qk_nope_head_dim + qk_rope_head_dim`
(:1510), Bailing V3's scale (:1504, its rope size 0 under `use_mla_nope`) and
`_init_mla_scaling`'s (:1613) for the first branch, Kimi-Linear and Bailing V2.5; a null
`kv_lora_rank` is only stored (SGLang loads it). A config.json with no `text_config` is its
own text config (utils/hf_transformers/common.py:611-613): its MLA reads find the key where
the file (with the override args) or the class's defaults (`CLASS_KEYS`) have it, after the
preamble set `head_dim` / `v_head_dim` on that same object (:1341-1355, `own_text_view`).
s67c judged that for `OWN_TEXT_DICT_CLASSES` (Kimi-Linear's latent sizes default to None:
:1613 without them); s68c for the plain classes too (measured: :1398 for DeepSeek-V3's class
on a Llama config.json, :1423 for DeepSeek-V4's), once graphfit's own test fixtures that
named those classes over a bare Llama config.json were given the keys.

A draft's ModelConfig renames its first architecture before the chain runs
(configs/model_config.py:1011-1215); the renames that move a class to another branch are
Bailing V2 / V2.5 / V3's to the Bailing NextN class (:1121-1127), whose branch needs the text
config's `kv_lora_rank`, and Glm4-MoE's to its NextN class (:1063-1064; `draft_renamed`). The
others keep the class in its branch (DeepSeek-V3's NextN: :1032-1036, and the rest).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphfit.planner.engines.sglang_attn_default import MLA_ARCHITECTURES


@dataclass(frozen=True)
class Read:
    """One bare attribute read: `key`, at `site` (a line of configs/model_config.py), off
    the top-level config where `top`, else off the text config; where `null`, the use of a
    value read before, which fails (a TypeError) where that value is null (s67c)."""

    key: str
    site: str
    top: bool = False
    null: bool = False

    def __post_init__(self) -> None:
        if not self.key or not self.site.isdigit():
            raise ValueError(f"a read needs a key and one line number: {self!r}")


def _text(*pairs: tuple[str, str]) -> tuple[Read, ...]:
    return tuple(Read(key, site) for key, site in pairs)


def _top(*pairs: tuple[str, str]) -> tuple[Read, ...]:
    return tuple(Read(key, site, top=True) for key, site in pairs)


def uses(site: str, *keys: str, top: bool = False) -> tuple[Read, ...]:
    """The uses of `keys` in one expression at `site` (s67c: a null one fails there)."""
    return tuple(Read(key, site, top=top, null=True) for key in keys)


# s67c: `_init_mla_scaling`'s sum of the latent head sizes (configs/model_config.py:1613)
SCALING = uses("1613", "qk_nope_head_dim", "qk_rope_head_dim")


# issue 23 s65c: the architectures of the first MLA branch (configs/model_config.py:1366-1395;
# Pixtral's only where the text config writes kv_lora_rank, :1386-1389)
FIRST_BRANCH = MLA_ARCHITECTURES - {
    "KimiK3ForConditionalGeneration",  # Kimi-Linear's branch (:1463-1475)
    "MiniCPM3ForCausalLM"}  # its own branch (:1443-1447)
PIXTRAL = "PixtralForConditionalGeneration"
BAILING_NEXTN = "BailingMoeForCausalLMNextN"
DEEPSEEK_VL2 = "DeepseekVL2ForCausalLM"
BAILING_V3 = frozenset({"BailingMoeV3ForCausalLM", "BailingMoeV3VLForConditionalGeneration"})
# the branches after the first, in the chain's order: (architectures, reads); a branch's
# condition beyond its architectures is `_taken`'s
BRANCHES: tuple[tuple[frozenset[str], tuple[Read, ...]], ...] = (
    # DeepSeek-V4 (:1418-1431, s67c): the top level only; Glm4-MoE NextN: none
    (frozenset({"DeepseekV4ForCausalLM", "DeepseekV4ForCausalLMNextN",
                "DeepseekV4ForCausalLMDSpark"}),
     _top(("qk_rope_head_dim", "1423"), ("head_dim", "1424"))
     + uses("1424", "head_dim", "qk_rope_head_dim", top=True)
     + _top(("sliding_window", "1425"), ("index_head_dim", "1428"),
            ("compress_ratios", "1429"))),
    (frozenset({"Glm4MoeForCausalLMNextN"}), ()),
    (frozenset({"MiniCPM3ForCausalLM"}),
     _top(("kv_lora_rank", "1446"), ("qk_rope_head_dim", "1447"))),
    (frozenset({DEEPSEEK_VL2}), _text(("kv_lora_rank", "1453"), ("qk_rope_head_dim", "1454"),
                                      ("qk_nope_head_dim", "1455"))),
    (frozenset({"KimiVLForConditionalGeneration"}),
     _text(("kv_lora_rank", "1459"), ("qk_rope_head_dim", "1460"),
           ("qk_nope_head_dim", "1462"))),
    (frozenset({"KimiLinearForCausalLM", "KimiK3LinearForCausalLM",
                "KimiK3ForConditionalGeneration"}),
     _text(("kv_lora_rank", "1471"), ("qk_rope_head_dim", "1472"),
           ("qk_nope_head_dim", "1474")) + SCALING),
    (frozenset({"BailingMoeV2_5ForCausalLM", BAILING_NEXTN}),
     _text(("kv_lora_rank", "1485"), ("qk_nope_head_dim", "1486"),
           ("qk_rope_head_dim", "1487")) + _top(("v_head_dim", "1488")) + SCALING),
    (BAILING_V3, _text(("kv_lora_rank", "1496"), ("qk_rope_head_dim", "1500"),
                       ("qk_nope_head_dim", "1503"))
     + uses("1504", "qk_nope_head_dim", "qk_rope_head_dim")),
    # Sarvam (Glm5Next, named there too, is the first branch's)
    (frozenset({"SarvamMLAForCausalLM"}),
     _top(("qk_nope_head_dim", "1510"), ("qk_rope_head_dim", "1510"))
     + uses("1510", "qk_nope_head_dim", "qk_rope_head_dim", top=True)
     + _top(("kv_lora_rank", "1513"), ("v_head_dim", "1516"))),
)
FIRST_READS = _text(("kv_lora_rank", "1398"), ("qk_nope_head_dim", "1399"),
                    ("qk_rope_head_dim", "1400")) + SCALING
# s67c (s66c's TOP_MLA_DEFAULTS widened): what transformers 5.25's plain config classes set of
# the keys the MLA branches read, whatever config.json writes (probed with
# `AutoConfig.for_model(TYPE, ...)`): NUMBER (a default number; a written null stays null),
# NONE (None unless written) or DERIVED (a written null is computed from other keys:
# LlamaConfig's / MistralConfig's `head_dim = hidden_size // num_attention_heads`,
# DeepseekV2Config's `head_dim = qk_rope_head_dim`). A key a class does not set is found only
# where written, or copied up from the text config.
NUMBER, NONE, DERIVED = "number", "none", "derived"
_LATENT = {"kv_lora_rank": NUMBER, "qk_nope_head_dim": NUMBER, "qk_rope_head_dim": NUMBER,
           "v_head_dim": NUMBER}
_WINDOWED = {"sliding_window": NUMBER}
CLASS_KEYS: dict[str, dict[str, str]] = {
    "deepseek_v2": {**_LATENT, "head_dim": DERIVED},
    "deepseek_v3": {**_LATENT, "head_dim": NUMBER},
    "llama": {"head_dim": DERIVED}, "mistral": {"head_dim": DERIVED, **_WINDOWED},
    "mixtral": {"head_dim": NONE, "sliding_window": NONE},
    "hunyuan_v1_dense": {"head_dim": NONE},
    **{kind: {"head_dim": NUMBER} for kind in ("gemma", "glm4", "minimax_m2", "qwen3_next")},
    **{kind: {"head_dim": NUMBER, **_WINDOWED} for kind in ("gemma2", "gemma3_text", "gpt_oss")},
    "qwen3": {"head_dim": NUMBER, "sliding_window": NONE},
    **{kind: dict(_WINDOWED) for kind in ("exaone4", "qwen2_moe")},
    **{kind: {"sliding_window": NONE} for kind in ("phi3", "qwen2", "qwen3_moe", "starcoder2")},
    # SGLang's own classes (`OWN_TEXT_DICT_CLASSES`)
    "kimi_linear": {**{key: NONE for key in _LATENT}, "head_dim": DERIVED},
    "bailing_hybrid": {**_LATENT, "head_dim": DERIVED},
}
# plain model types of SGLang's own `_CONFIG_REGISTRY` (utils/hf_transformers/common.py:117-273,
# Qwen3-Next, and s67c's `OWN_TEXT_DICT_CLASSES`): the parser reloads the file with that class
# after copying the text config's keys up (config.py:258-291), so nothing copied stays
# (measured through the oracle)
RELOADED = frozenset({"qwen3_next", "kimi_linear", "bailing_hybrid"})
# s67c: SGLang's own config classes (`_CONFIG_REGISTRY`) whose parsed config keeps a written
# `text_config` as a dict, judged as the plain classes are (the parser's assert, the
# ModelConfig's reads off that bare text config), reloaded (`RELOADED`), with their own keys
# (`CLASS_KEYS`): KimiLinearConfig (configs/kimi_linear.py:50-53, 69-71, 89-92: the latent
# sizes default to None, `head_dim` computed where None) and BailingHybridConfig
# (configs/bailing_hybrid.py:93-97, 129, 148-152: the latent sizes default to numbers,
# `head_dim or hidden_size // heads`); measured through the oracle
OWN_TEXT_DICT_CLASSES = frozenset({"kimi_linear", "bailing_hybrid"})


# the draft renames that move a class to another branch (module docstring)
DRAFT_RENAMES = {"BailingMoeV2ForCausalLM": BAILING_NEXTN, "BailingMoeForCausalLM": BAILING_NEXTN,
                 "BailingMoeV2_5ForCausalLM": BAILING_NEXTN,
                 "BailingMoeV3ForCausalLM": BAILING_NEXTN,
                 "Glm4MoeForCausalLM": "Glm4MoeForCausalLMNextN"}


def draft_renamed(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """`data` with its first architecture as a draft's ModelConfig renames it (module
    docstring); `data` itself where nothing is renamed."""
    names = data.get("architectures")
    if not isinstance(names, list) or not names or names[0] not in DRAFT_RENAMES:
        return data
    return {**data, "architectures": [DRAFT_RENAMES[names[0]], *names[1:]]}


def _taken(names: set[str], branch: frozenset[str], text: Mapping[str, Any]) -> bool:
    """Whether the branch of `branch`'s architectures is the one the chain takes, given
    no earlier branch was (its extra conditions: :1448-1450, :1476-1482)."""
    if not names & branch:
        return False
    if branch == {DEEPSEEK_VL2}:
        return bool(text.get("use_mla", True))
    if BAILING_NEXTN in branch and "BailingMoeV2_5ForCausalLM" not in names:
        return text.get("kv_lora_rank") is not None
    return True


def mla_reads(data: Mapping[str, Any], text: Mapping[str, Any]) -> tuple[Read, ...]:
    """The MLA branch's bare reads for the config `data` (with the override args) whose text
    config is `text` (module docstring), in SGLang's order; () where the chain takes no MLA
    branch graphfit restates."""
    architectures = data.get("architectures")
    names = set(architectures) if isinstance(architectures, list) else set()
    if names & FIRST_BRANCH or (PIXTRAL in names and text.get("kv_lora_rank") is not None):
        return FIRST_READS
    for branch, reads in BRANCHES:
        if _taken(names, branch, text):
            if branch == BAILING_V3 and text.get("use_mla_nope", False):  # rope size 0
                return tuple(r for r in reads if r.key != "qk_rope_head_dim")
            return reads
    return ()


def top_view(data: Mapping[str, Any], written: Mapping[str, Any],
             sub: str | None = "text_config") -> dict[str, Any]:
    """The top-level config as SGLang's parser leaves it (module docstring): the class's keys
    (`CLASS_KEYS`; 0 stands for a number), the file's text config's keys the top level lacks
    (not null; not kept by a `RELOADED` class), then the config `data` (with the override
    args; `written`: the file as written, for a DERIVED key it writes null). `sub`: the
    written sub-config the parser took as the text config (s68c:
    graphfit.inputs.sglang_text_pick; None: the top level, nothing copied)."""
    kind = data.get("model_type")
    keys = CLASS_KEYS.get(kind, {}) if isinstance(kind, str) else {}
    text = written.get(sub) if sub is not None else None
    copied = {k: v for k, v in text.items() if v is not None and k not in keys
              and k not in written} if isinstance(text, dict) and kind not in RELOADED else {}
    view = {**copied, **{k: None if how == NONE else 0 for k, how in keys.items()}, **data}
    for key, how in keys.items():
        if how == DERIVED and view[key] is None and key in written and written[key] is None:
            view[key] = 0
    return view


def own_text_view(data: Mapping[str, Any], written: Mapping[str, Any],
                  sub: str | None = "text_config") -> dict[str, Any]:
    """A config.json with no `text_config` as its own text config when the chain runs
    (issue 23 s68c): `top_view`, after the preamble, which sets an absent or null `head_dim`
    (from the width: the heads' read, :1347, fails first where that cannot be computed) and
    an absent, null or 0 `v_head_dim` on that same object (configs/model_config.py:1341-1355),
    so neither is missing or null in an MLA branch's reads (0 stands for a number)."""
    view = top_view(data, written, sub)
    if view.get("head_dim") is None:
        view["head_dim"] = 0
    if not view.get("v_head_dim"):
        view["v_head_dim"] = 0
    return view


def missing(read: Read, data: Mapping[str, Any], text: Mapping[str, Any],
            written: Mapping[str, Any], sub: str | None = "text_config") -> bool:
    """Whether SGLang fails at `read` (module docstring): the text config `text` (with the
    override args) lacks the key, or, for a top-level read, `top_view` lacks it; for a use
    (`Read.null`), the value found there is null. `data`: the config with the override
    args; `written`: the file as written; `sub`: `top_view`'s."""
    where = top_view(data, written, sub) if read.top else text
    if read.null:
        return read.key in where and where[read.key] is None
    return read.key not in where


__all__ = ["BRANCHES", "CLASS_KEYS", "DRAFT_RENAMES", "FIRST_BRANCH", "FIRST_READS",
           "OWN_TEXT_DICT_CLASSES", "RELOADED", "SCALING", "Read", "draft_renamed", "missing",
           "mla_reads", "own_text_view", "top_view", "uses"]
