"""graphfit == SGLang 0.5.23 on a draft config.json whose one layer's entry SGLang cannot read
(graphfit.inputs.sglang_draft_layer_entries; issue 23, s67d).

Drawn entries: SGLang's own config class made from the entry (Step3p5Config, whose default
`moe_layers_enum` is a tuple; transformers' ExaoneMoeConfig, the class SGLang's get_config
loads for `exaone_moe`), then SGLang's own read of the draft's layer (Step-3.5's
`_is_moe_layer` at layer 45, Exaone-MoE's `stage_facts` at layer 0): the same exception, type
and words, or none. InternS2-Mobius: SGLang's own draft ModelConfig on the directory.
Fixed lines: SGLang's resolution of an EAGLE line and its draft model built on meta
(tests.oracle.sglang_draft_build.build_draft) against graphfit's CLI on the pasted line: both
refuse (graphfit's one error line names the entry and SGLang's exception) or both start.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.inputs.sglang_draft_layer_entries import entry_failure  # noqa: E402
from tests.oracle import sglang_draft_build as sdb  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_stubs  # noqa: E402

_ABSENT = object()
_STEP = {k: v for k, v in sdb.NEXTN_DRAFTS["step3p5"].items() if k != "moe_layers_enum"}
_EXAONE = {k: v for k, v in sdb.NEXTN_DRAFTS["exaone_moe"].items() if k != "is_moe_layer"}
_MOBIUS = sdb.NEXTN_DRAFTS["interns2_mobius"]


@pytest.fixture(scope="module", autouse=True)
def _oracle() -> None:
    so.oracle()  # SGLang's sources importable


def _said(call: Any, *args: Any) -> str | None:
    """`call(*args)`'s exception as "Type: words", None where it returns."""
    try:
        call(*args)
    except (AttributeError, ValueError, IndexError, KeyError, TypeError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def _with(base: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    return dict(base) if value is _ABSENT else {**base, key: value}


def _step_value(rng: random.Random) -> Any:
    kind = rng.randrange(6)
    if kind == 0:
        return rng.choice((_ABSENT, None, [45], ["x"], [None], 45, True, {"45": 1}, 4.5, ""))
    ids = [str(i) for i in rng.sample(range(48), rng.randint(1, 6))]
    if kind == 1:  # a piece int() refuses, or takes (spaces, a sign, an underscore), or blank
        ids[rng.randrange(len(ids))] = rng.choice(("", " ", "x", "4.5", " 4_5", "+45 ", "0x2d"))
    return ",".join(ids)


def _exaone_value(rng: random.Random) -> Any:
    return rng.choice((_ABSENT, None, [], [True], [False, True], [0], "", "T", 0, 1.0,
                       {"0": True}, [[]], [None]))


def _theirs(folder: Path, data: dict[str, Any], read: Any) -> str | None:
    """SGLang's answer for the config `data`: its own get_config on the directory (the
    exception: "load: ..."), then `read` on the (text) config it returns ("build: ...")."""
    with sglang_stubs.imports():
        from sglang.srt.utils.hf_transformers_utils import get_config
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(data))
    try:
        config = get_config(str(folder), trust_remote_code=False)
    except (AttributeError, ValueError, TypeError) as exc:
        return f"load: {type(exc).__name__}: {exc}"
    said = _said(read, getattr(config, "text_config", config))
    return said and f"build: {said}"


def _ours(arch: str, data: dict[str, Any]) -> str | None:
    said = entry_failure(arch, data)
    return said and f"{said[1]}: {said[2]}"


def test_step3p5_entry_agrees(tmp_path: Path) -> None:
    with sglang_stubs.imports():
        from sglang.srt.models.step3p5 import Step3p5DecoderLayer

    def read(config: Any) -> None:
        Step3p5DecoderLayer._is_moe_layer(config, 45)  # the MTP block (step3p5_mtp.py:77)

    rng = random.Random(67)
    seen = set()
    # each stage and exception first (absent, a bad piece at load, a list, a blank piece, a
    # number at load, a good string), then drawn values
    fixed: list[Any] = [_ABSENT, "3,4,x", [45], "3,,45", 45, "3,45"]
    for index in range(16):
        value = fixed[index] if index < len(fixed) else _step_value(rng)
        data = _with(_STEP, "moe_layers_enum", value)
        arch, written = (("Step3p5ForCausalLM", data) if index % 2 else (
            "Step3p7ForConditionalGeneration", {**sdb.NEXTN_DRAFTS["step3p7"],
                                                "text_config": {**data,
                                                                "model_type": "step3p5"}}))
        theirs = _theirs(tmp_path / str(index), written, read)
        ours = _ours(arch, written)
        assert ours == theirs, (arch, value, ours, theirs)
        seen.add((theirs or "builds").split(":", 2)[:2].__str__())
    assert len(seen) >= 5, seen  # not vacuous


def test_exaone_entry_agrees(tmp_path: Path) -> None:
    with sglang_stubs.imports():
        from sglang.srt.models.exaone_moe import ExaoneMoEDecoderLayer

    def read(config: Any) -> None:
        config.num_hidden_layers = 1  # the MTP model's (models/exaone_moe_mtp.py:47)
        ExaoneMoEDecoderLayer.stage_facts(config, 0)

    rng = random.Random(67)
    seen = set()
    for index in range(20):
        value = _exaone_value(rng)
        data = _with(_EXAONE, "is_moe_layer", value)
        theirs = _theirs(tmp_path / str(index), data, read)
        ours = _ours("ExaoneMoEForCausalLM", data)
        if theirs is not None and "AttributeError" in theirs:
            # the config class's name in transformers' words; graphfit names the key alone
            assert ours is not None and ours.startswith("build: AttributeError") and \
                "'is_moe_layer'" in theirs and "'is_moe_layer'" in ours, (value, ours)
        else:
            assert ours == theirs, (value, ours, theirs)
        seen.add((theirs or "builds").split(":", 2)[:2].__str__())
    assert len(seen) >= 5, seen


# (the draft's name, its config.json) on EAGLE lines over the oracle's Qwen3-MoE target
LINES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("step3p5", sdb.NEXTN_DRAFTS["step3p5"]),  # control: builds
    ("step3p5_no_enum", _STEP),
    ("step3p5_bad_enum", {**_STEP, "moe_layers_enum": "3,4,x"}),
    ("step3p7_no_enum", {**sdb.NEXTN_DRAFTS["step3p7"], "text_config": {
        **{k: v for k, v in _STEP.items() if k != "architectures"}, "model_type": "step3p5"}}),
    ("exaone_no_flags", _EXAONE),
    # (the Exaone-MoE and InternS2-Mobius controls build in test_sglang_draft_dispatch_oracle)
    ("mobius_no_mtp_num_experts_per_tok", {**_MOBIUS, "text_config": {
        k: v for k, v in _MOBIUS["text_config"].items() if k != "mtp_num_experts_per_tok"}}),
)


def _argv(draft: Path) -> tuple[str, ...]:
    return ("--tp-size", "2", "--speculative-algorithm", "EAGLE", "--speculative-num-steps",
            "2", "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "3",
            "--speculative-draft-model-path", str(draft))


def _sglang(target: Path, draft: Path) -> str | None:
    """SGLang's refusal of the line: its resolution, then the draft model's build."""
    r = so.resolve(_argv(draft), model=str(target))
    if isinstance(r, so.Rejected):
        return f"resolution: {r.text}"
    with sglang_stubs.stubbed(), so.published(r):
        from sglang.srt.layers.dp_attention import initialize_dp_attention_flags
        from sglang.srt.runtime_context import get_parallel

        initialize_dp_attention_flags(None)
        return _said(sdb.build_draft, r.record, str(draft), False, get_parallel().moe_ep_size)


def _graphfit(target: Path, draft: Path) -> tuple[int, str]:
    from graphfit.cli.application import main

    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            main(["plan", "--gpu-memory-gb", "80", "--", "sglang", "serve", "--model-path",
                  str(target), *_argv(draft)])
            code = 0
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, err.getvalue().strip()


def test_lines_agree(tmp_path: Path) -> None:
    target = sglang_stubs.write_moe_model_dir(tmp_path / "target")
    wrong, refused = [], []
    for name, data in LINES:
        draft = tmp_path / name
        draft.mkdir()
        (draft / "config.json").write_text(json.dumps(data))
        theirs = _sglang(target, draft)
        code, said = _graphfit(target, draft)
        refused.append(theirs is not None)
        lines = said.splitlines()
        if theirs is None:
            ok = code == 0
        else:
            ok = (code == 2 and len(lines) == 1 and len(lines[0]) <= 200
                  and re.findall(r"\w+Error", theirs)[0] in lines[0] and "Traceback" not in said
                  and any(key in lines[0] for key in ("moe_layers_enum", "is_moe_layer",
                                                      "mtp_num_experts")))
        if not ok:
            wrong.append(f"{name}: SGLang {theirs}; graphfit {code} {said[:300]}")
    assert not wrong, "\n".join(wrong)
    assert refused == [False, True, True, True, True, True], refused


def test_draft_that_is_the_target_is_named_so(tmp_path: Path) -> None:
    """A Step-3.5 target serving its own MTP layer (NEXTN, the draft path filled in or
    given): SGLang's target layers read `moe_layers_enum` first (models/step3p5.py:475-476);
    graphfit's line says the target (and draft)."""
    model = tmp_path / "step"
    model.mkdir()
    (model / "config.json").write_text(json.dumps(_STEP))
    values = {"speculative_algorithm": "NEXTN", "model_path": str(model),
              "speculative_draft_model_path": str(model)}
    from graphfit.inputs.sglang_draft_layer_entries import failure

    said = failure(values)
    assert said is not None and said[1].startswith("the target (and draft) step:"), said
    assert failure({**values, "speculative_algorithm": "DFLASH"}) is None  # not restated


def answers(paths: dict[str, Path], line: tuple[str, ...], jit: bool
            ) -> tuple[str | None, tuple[int, str]]:
    """tests.oracle.sglang_draft_deepep_oracle.answers (the target's build, then the draft's),
    an exception the draft's layer entry raises there counted as SGLang's refusal."""
    from tests.oracle import sglang_draft_deepep_oracle as ddo
    from tests.oracle import test_sglang_deepep_class_oracle as dc

    try:
        return ddo.answers(paths, line, jit)
    except (AttributeError, IndexError, KeyError, TypeError) as exc:
        return (f"build: {type(exc).__name__}: {exc}",
                dc.graphfit(paths["target"], line, jit))


def test_the_target_builds_first(tmp_path: Path) -> None:
    """SGLang builds the target before the draft (speculative/eagle_worker_v2.py:178-231):
    the target's DeepEPMoE assert (layers/moe/ep_moe/layer.py:135-147) is its answer for a
    line whose draft's entry is missing too, and graphfit's; without the target's a2a
    backend, the draft's entry."""
    from tests.oracle import sglang_draft_deepep_oracle as ddo

    paths = ddo.dirs(tmp_path)
    broken = tmp_path / "exaone_no_flags"
    broken.mkdir()
    (broken / "config.json").write_text(json.dumps(_EXAONE))
    said = []
    for target_a2a in ("deepep", "none"):
        line = ddo.argv(broken, "none", target_a2a, "low_latency", "deep_gemm")
        theirs, (code, ours) = answers(paths, line, False)
        assert theirs is not None and code == 2 and ddo.agree(theirs, code, ours), (
            theirs, ours)
        said.append(ours)
    assert "ep_moe/layer.py" in said[0] and "is_moe_layer" in said[1], said

