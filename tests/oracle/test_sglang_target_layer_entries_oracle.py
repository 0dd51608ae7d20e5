"""graphfit == SGLang 0.5.23 on a Step-3.5 / 3.7 or Exaone-MoE TARGET whose layer entry SGLang
cannot read (graphfit.inputs.sglang_target_layer_entries; issue 23, s68d).

Drawn entries: SGLang's own get_config on the directory (its load's exception), then SGLang's
own reads of every target layer on the config it returns (Step-3.5's `_is_moe_layer` for each
layer and the next, Exaone-MoE's `stage_facts` for each layer): the same exception, type and
words, or none. Fixed lines: SGLang's resolution and its own target model built on meta
(tests.oracle.sglang_draft_build.build_draft, `as_target`) against graphfit's CLI: both refuse
(graphfit's one line names the entry and SGLang's exception) or both start.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_draft_build as sdb  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_stubs  # noqa: E402
from tests.oracle import test_sglang_draft_layer_entries_oracle as de  # noqa: E402
from tests.oracle import test_sglang_longcat_rope_oracle as lr  # noqa: E402

# a 4-layer Step-3.5 target (its other per-layer lists keep the checkpoint's 48), and
# both without their entry
_STEP = {**de._STEP, "num_hidden_layers": 4, "layer_types": ["full_attention"] * 4}
_EXAONE = de._EXAONE


@pytest.fixture(scope="module", autouse=True)
def _oracle() -> None:
    so.oracle()


def _ours(arch: str, data: dict[str, Any]) -> str | None:
    # imported here: measure_sglang_target_entries scores this module's lines with an older
    # graphfit too
    from graphfit.inputs.sglang_target_layer_entries import target_failure

    said = target_failure(arch, data)
    return said and f"{said[1]}: {said[2]}"


def test_step3p5_target_entry_agrees(tmp_path: Path) -> None:
    with sglang_stubs.imports():
        from sglang.srt.models.step3p5 import Step3p5DecoderLayer

    def read(config: Any) -> None:
        for layer in range(config.num_hidden_layers):  # step3p5.py:475-476, 481
            Step3p5DecoderLayer._is_moe_layer(config, layer)
            Step3p5DecoderLayer._is_moe_layer(config, layer + 1)

    rng = random.Random(68)
    seen = set()
    fixed: list[Any] = [de._ABSENT, "0,x", [1], "1,,2", 3, "1,3"]
    for index in range(14):
        value = fixed[index] if index < len(fixed) else de._step_value(rng)
        data = de._with(_STEP, "moe_layers_enum", value)
        arch, written = (("Step3p5ForCausalLM", data) if index % 2 else (
            "Step3p7ForConditionalGeneration", {**sdb.NEXTN_DRAFTS["step3p7"],
                                                "text_config": {**data,
                                                                "model_type": "step3p5"}}))
        theirs = de._theirs(tmp_path / str(index), written, read)
        assert _ours(arch, written) == theirs, (arch, value, theirs)
        seen.add(str((theirs or "builds").split(":", 2)[:2]))
    assert len(seen) >= 5, seen  # not vacuous


def _exaone(rng: random.Random) -> tuple[int, Any]:
    layers = rng.randint(1, 4)
    kind = rng.randrange(3)
    if kind == 0:
        return layers, de._exaone_value(rng)
    size = rng.choice((layers, layers, layers - 1, layers + 1, 0))
    flags = [rng.random() < 0.7 for _ in range(max(size, 0))]
    return layers, flags if kind == 1 else "".join("T" if f else "" for f in flags) or "TT"


def test_exaone_target_entry_agrees(tmp_path: Path) -> None:
    with sglang_stubs.imports():
        from sglang.srt.models.exaone_moe import ExaoneMoEDecoderLayer

    def read(config: Any) -> None:
        for layer in range(config.num_hidden_layers):  # exaone_moe.py:466
            ExaoneMoEDecoderLayer.stage_facts(config, layer)

    rng = random.Random(68)
    seen = set()
    for index in range(24):
        layers, value = _exaone(rng)
        data = {**de._with(_EXAONE, "is_moe_layer", value), "num_hidden_layers": layers,
                "layer_types": ["full_attention"] * layers}
        theirs = de._theirs(tmp_path / str(index), data, read)
        ours = _ours("ExaoneMoEForCausalLM", data)
        if theirs is not None and "AttributeError" in theirs:
            # the config class's name in transformers' words; graphfit names the key alone
            assert ours is not None and ours.startswith("build: AttributeError") and \
                "'is_moe_layer'" in ours, (value, ours)
        else:
            assert ours == theirs, (layers, value, ours, theirs)
        seen.add(str((theirs or "builds").split(":", 2)[:2]))
    assert len(seen) >= 4, seen


# (name, config.json) served as the target of a plain line
LINES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("step3p5", {**_STEP, "moe_layers_enum": "1,3"}),  # control: builds
    ("step3p5_no_enum", de._with(_STEP, "moe_layers_enum", de._ABSENT)),
    ("step3p5_bad_enum", {**_STEP, "moe_layers_enum": "0,x"}),  # at the load
    ("step3p5_blank_enum", {**_STEP, "moe_layers_enum": "1,,3"}),
    ("exaone", sdb.NEXTN_DRAFTS["exaone_moe"]),  # control: builds
    ("exaone_no_flags", _EXAONE),
    ("exaone_short_flags", {**_EXAONE, "is_moe_layer": [True, True]}),
    ("exaone_null_flags", {**_EXAONE, "is_moe_layer": None}),
)


def _sglang(model: Path) -> str | None:
    r = so.resolve(("--tp-size", "2"), model=str(model))
    if isinstance(r, so.Rejected):
        return f"resolution: {r.text}"
    with sglang_stubs.stubbed(), so.published(r):
        from sglang.srt.layers.dp_attention import initialize_dp_attention_flags
        from sglang.srt.runtime_context import get_parallel

        initialize_dp_attention_flags(None)
        return de._said(sdb.build_draft, r.record, str(model), False,
                        get_parallel().moe_ep_size, True, False, True)


def agree(theirs: str | None, code: int, said: str) -> bool:
    """Both start, or both refuse with graphfit's one line naming the target's entry and
    SGLang's exception."""
    lines = said.splitlines()
    if theirs is None:
        return code == 0
    return (code == 2 and len(lines) == 1 and len(lines[0]) <= 200
            and re.findall(r"\w+Error", theirs)[0] in lines[0] and "Traceback" not in said
            and "the target" in lines[0]
            and any(key in lines[0] for key in ("moe_layers_enum", "is_moe_layer"))
            # where: SGLang's resolution loads the config, the model build reads the layers
            and ("config load" if theirs.startswith("resolution") else "model build")
            in lines[0])


def draw(rng: random.Random) -> dict[str, Any]:
    """A drawn target config.json: Step-3.5, Step-3.7 or Exaone-MoE with a drawn entry."""
    kind = rng.randrange(3)
    if kind == 2:
        layers, value = _exaone(rng)
        return {**de._with(_EXAONE, "is_moe_layer", value), "num_hidden_layers": layers,
                "layer_types": ["full_attention"] * layers}
    data = de._with(_STEP, "moe_layers_enum", de._step_value(rng))
    if kind == 0:
        return data
    return {**sdb.NEXTN_DRAFTS["step3p7"], "text_config": {**data, "model_type": "step3p5"}}


def test_lines_agree(tmp_path: Path) -> None:
    wrong, refused = [], []
    for name, data in LINES:
        model = tmp_path / name
        model.mkdir()
        (model / "config.json").write_text(json.dumps(data))
        theirs = _sglang(model)
        code, said = lr.graphfit(model, ("--tp-size", "2"))
        refused.append(theirs is not None)
        if not agree(theirs, code, said):
            wrong.append(f"{name}: SGLang {theirs}; graphfit {code} {said[:300]}")
    assert not wrong, "\n".join(wrong)
    assert refused == [False, True, True, True, False, True, True, True], refused
