"""The RoPE dict SGLang's own ChatGLM / DBRX / OLMo-3 / Mamba / Kimi-Linear / Nemotron-H /
Qwen3-Next / HY-V4 config classes carry, against SGLang 0.5.23's own ModelConfig (issue 23,
s41c): graphfit.inputs.sglang_own_rope. Each line writes a RoPE dict of each type under
`rope_scaling` or `rope_parameters`, in config.json or by --json-model-override-args, with
or without `original_max_position_embeddings` and a length key; SGLang's context length
(get_context_length, utils/hf_transformers/common.py:677-700, on the config its class
loaded) or its refusal is graphfit's max_model_len or error. Runs with SGLang's sources
(tests/oracle/paths.require)."""

from __future__ import annotations

import itertools
import json
import random
import tempfile
from pathlib import Path
from typing import Any

import pytest

from graphfit.inputs.sglang_own_rope import NO_DICT_CLASSES, PARENT, RAW_CLASSES
from tests.oracle import sglang_context_length_oracle as t
from tests.oracle.paths import require

require("sglang")

_ROOT = tempfile.mkdtemp(prefix="graphfit-own-rope-test-")
# the model types (the sub-config classes' entries: tests/oracle/test_sglang_sub_configs_oracle)
CLASSES = sorted((RAW_CLASSES | NO_DICT_CLASSES | {"hy_v4"}) - {
    "internlm2", PARENT, "deepseek_vl_v2", "bailingmm_moe_v2_lite", "minimax_m3_vl"})
KINDS = ("linear", "yarn", "llama3", "longrope", "default")


def _rope(kind: str, rng: random.Random) -> dict[str, Any]:
    rope: dict[str, Any] = {rng.choice(("rope_type", "type")): kind,
                            "factor": rng.choice((2.0, 4.0))}
    if kind == "llama3":
        rope.update(low_freq_factor=1.0, high_freq_factor=4.0)
    if kind == "longrope":
        rope.update(short_factor=[1.0] * 64, long_factor=[2.0] * 64)
    if rng.random() < 0.5:
        rope["original_max_position_embeddings"] = 4096
    if rng.random() < 0.25:  # llama3's validation and HY-V4 (hy_v4.py:90) read it
        rope["rope_theta"] = 1000000.0
    return rope


def _line(kind: str, name: str, where: str, model_type: str, rng: random.Random
          ) -> tuple[str, tuple[str, ...]]:
    config = dict(t.BASE, model_type=model_type)
    key = rng.choice((None, "max_position_embeddings", "seq_length"))
    if key is not None:
        config[key] = 8192
    rope = _rope(kind, rng)
    argv: tuple[str, ...] = ()
    if where == "file":
        config[name] = rope
    else:
        argv = ("--json-model-override-args", json.dumps({name: rope}))
    directory = Path(tempfile.mkdtemp(dir=_ROOT))
    (directory / "config.json").write_text(json.dumps(config))
    return str(directory), argv


@pytest.mark.parametrize("model_type", CLASSES)
def test_own_class_rope_is_sglangs(model_type: str) -> None:
    """Every RoPE type, both names, written or overriding: SGLang's context length is
    graphfit's, and a file SGLang fails to load graphfit refuses (both refuse)."""
    rng = random.Random(model_type)
    refused = 0
    for kind, name, where in itertools.product(KINDS, ("rope_scaling", "rope_parameters"),
                                               ("file", "override")):
        model, argv = _line(kind, name, where, model_type, rng)
        verdict = t.verdict(model, argv, {})
        assert verdict in ("agree", "refused"), (model_type, kind, name, where,
                                                 Path(model, "config.json").read_text()[-300:],
                                                 argv, verdict)
        refused += verdict == "refused"
    assert refused < 20  # most lines load


def test_refusal_names_sglangs_failure() -> None:
    """graphfit's refusal of a file SGLang cannot load says why, in one line."""
    for model_type, rope in (("olmo3", {"rope_type": "yarn", "factor": 2.0}),
                             ("hy_v4", {"rope_type": "linear", "factor": 2.0}),
                             ("chatglm", {"rope_type": "llama3", "factor": 2.0,
                                          "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                          "original_max_position_embeddings": 2048})):
        directory = Path(tempfile.mkdtemp(dir=_ROOT))
        (directory / "config.json").write_text(json.dumps(
            dict(t.BASE, model_type=model_type, rope_parameters=rope)))
        assert isinstance(t.sglang_length(str(directory), (), {}), str)
        error = t.graphfit_length(str(directory), (), {})
        assert isinstance(error, str) and "SGLang fails loading it" in error, error
        assert "\n" not in error and len(error) <= 400


def test_step3p5_rope_dict_loads_as_sglang() -> None:
    """Step-3.5 loads first as transformers' Step3p7TextConfig, then as SGLang's own
    Step3p5Config (utils/hf_transformers/config.py:228, :281-295): a written llama3 / yarn /
    longrope dict under either name, with or without its keys, named by `rope_type` or
    `type`, or given by the override args: SGLang's context length is graphfit's, or both
    refuse."""
    rng = random.Random("step3p5")
    verdicts = []
    for kind, name in itertools.product(("yarn", "llama3", "longrope"),
                                        ("rope_scaling", "rope_parameters")):
        for where in ("file", "file", "override"):
            model, argv = _line(kind, name, where, "step3p5", rng)
            verdict = t.verdict(model, argv, {})
            assert verdict in ("agree", "refused"), (kind, name, where, argv, verdict,
                                                     Path(model, "config.json").read_text())
            verdicts.append(verdict)
    assert "refused" in verdicts and "agree" in verdicts
