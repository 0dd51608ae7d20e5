"""`--json-model-override-args` and the config classes' names for the expert count in the
"more TP ranks than experts" rules (graphfit.inputs.sglang_moe_experts_config, issue 23
s70k), against SGLang's own resolution and MoE block built on the meta device
(tests/oracle/test_sglang_deepep_class_oracle.py's `sglang`) from the config SGLang's
ModelConfig holds: `get_config(model, model_override_args=...)` (configs/model_config.py:
612-626, utils/hf_transformers/config.py:405-424), the block of the class its
`architectures` names (model_loader/utils.py:198-201).

Fixed lines each way (overrides of `num_experts`, of the mapped `num_local_experts`, of
`n_routed_experts`, of `architectures`; a file writing both names; a file without the
count), on a pasted line, in graphfit's config file and on the live ServerArgs; drawn: class
x written count x overridden name x value x TP x EP.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import test_sglang_deepep_class_oracle as dc  # noqa: E402
from tests.oracle import test_sglang_qwen_moe_experts_oracle as tq  # noqa: E402
from tests.oracle import test_sglang_sparse_moe_experts_oracle as ts  # noqa: E402
from tests.oracle import test_sglang_sparse_moe_split_oracle as sm  # noqa: E402
from tests.oracle.sglang_draft_build import NEXTN_DRAFTS  # noqa: E402

CONFIGS: dict[str, dict[str, Any]] = {
    "qwen3": {**tq.QWEN3, "shared_expert_intermediate_size": 512},
    "qwen2": tq.QWEN2,
    "deepseek_v3": NEXTN_DRAFTS["deepseek_v3"], "glm4_moe": NEXTN_DRAFTS["glm4_moe"],
    "qwen3_next": NEXTN_DRAFTS["qwen3_next"],  # SGLang's own Qwen3NextConfig
}
COUNT_NAME = {"qwen3": "num_experts", "qwen2": "num_experts",
              "deepseek_v3": "n_routed_experts", "glm4_moe": "n_routed_experts",
              "qwen3_next": "num_experts"}
KIND_OF = {"Qwen3MoeForCausalLM": "qwen3", "Qwen2MoeForCausalLM": "qwen2",
           "DeepseekV3ForCausalLM": "deepseek_v3", "Glm4MoeForCausalLM": "glm4_moe",
           "Qwen3NextForCausalLM": "qwen3_next"}
_DRAWN = tempfile.TemporaryDirectory(prefix="graphfit-moe-experts-overrides-")
# (kind, config.json fields over the class's base, override object, argv)
Case = tuple[str, dict[str, Any], dict[str, Any], tuple[str, ...]]
TP4: tuple[str, ...] = ("--tp-size", "4")
FIXED: tuple[Case, ...] = (
    ("qwen3", {"num_experts": 2}, {"num_experts": 8}, TP4),
    ("qwen3", {"num_experts": 8}, {"num_experts": 2}, TP4),
    ("qwen3", {"num_experts": 2}, {"num_local_experts": 8}, TP4),
    ("qwen3", {"num_experts": 8}, {"num_local_experts": 2}, TP4),
    ("qwen3", {"num_experts": 2, "num_local_experts": 8}, {}, TP4),
    ("qwen3", {"num_experts": 8, "num_local_experts": 2}, {}, TP4),
    # MoE-TP 4 for Qwen3-MoE's block, the full TP size 8 for Qwen2-MoE's
    ("qwen3", {"num_experts": 4}, {}, ("--tp-size", "8", "--ep-size", "2")),
    ("qwen3", {"num_experts": 4}, {"architectures": ["Qwen2MoeForCausalLM"]},
     ("--tp-size", "8", "--ep-size", "2")),
    # no count written: the class default (Qwen2MoeConfig: 60) split over EP
    ("qwen2", {}, {}, ("--tp-size", "8", "--ep-size", "8")),
    ("qwen2", {}, {}, ("--tp-size", "4", "--ep-size", "4")),
    ("deepseek_v3", {"n_routed_experts": 2}, {"n_routed_experts": 8}, TP4),
    ("deepseek_v3", {"n_routed_experts": 8}, {"num_local_experts": 2}, TP4),
    ("deepseek_v3", {"n_routed_experts": 2}, {"num_local_experts": 8}, TP4),
    ("glm4_moe", {"n_routed_experts": 2}, {"num_local_experts": 4}, TP4),
    ("glm4_moe", {"n_routed_experts": 4}, {"n_routed_experts": 2}, TP4),
    ("qwen3_next", {"num_experts": 2}, {"num_experts": 8}, TP4),
    ("qwen3_next", {"num_experts": 8}, {"num_experts": 2}, TP4),
)


def model_dir(kind: str, fields: dict[str, Any], root: Path) -> Path:
    """A small config.json of the class with `fields` over it (the count's own name dropped
    first, so a case without it leaves the class default)."""
    tag = "-".join(f"{k}{v}" for k, v in sorted(fields.items())) or "none"
    folder = root / f"{kind}-{tag}"
    folder.mkdir(parents=True, exist_ok=True)
    base = {k: v for k, v in CONFIGS[kind].items() if k != COUNT_NAME[kind]}
    (folder / "config.json").write_text(json.dumps({**base, **fields}))
    return folder


def line(overrides: dict[str, Any], argv: tuple[str, ...]) -> tuple[str, ...]:
    return (*argv, "--json-model-override-args", json.dumps(overrides)) if overrides else argv


def _block(model: Path, overrides: dict[str, Any]) -> Any:
    """The block of the class the overridden config names, built from that config."""

    def build(_: Any, quant: Any) -> None:
        from sglang.srt.utils.hf_transformers_utils import get_config

        config = get_config(str(model), trust_remote_code=False,
                            model_override_args=overrides or None)
        kind = KIND_OF[config.architectures[0]]
        block = (tq._block(kind) if kind in ("qwen3", "qwen2") else
                 sm._qwen3_next_block if kind == "qwen3_next" else ts._block(kind))
        block(config, quant)
    return build


_SAID: dict[tuple[Path, tuple[str, ...]], str | None] = {}


def theirs_on(model: Path, overrides: dict[str, Any], argv: tuple[str, ...]) -> str | None:
    """SGLang's answer, once per (target, line)."""
    full = line(overrides, argv)
    if (model, full) not in _SAID:
        _SAID[model, full] = dc.sglang(model, full, True, block=_block(model, overrides))
    return _SAID[model, full]


def compare(case: Case, root: Path) -> str | None:
    """Assert both sides agree on the pasted line; SGLang's answer."""
    kind, fields, overrides, argv = case
    model = model_dir(kind, fields, root)
    theirs = theirs_on(model, overrides, argv)
    tq.judged(model, line(overrides, argv), theirs, (kind, fields, overrides))
    return theirs


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    so.oracle()
    return tmp_path_factory.mktemp("moe-experts-overrides")


@pytest.mark.parametrize("case", FIXED)
def test_fixed_lines_agree(case: Case, root: Path) -> None:
    compare(case, root)


def test_fixed_lines_are_not_vacuous(root: Path) -> None:
    """Some fixed line raises and some starts, for each class."""
    answers = [(c[0], theirs_on(model_dir(c[0], c[1], root), c[2], c[3])) for c in FIXED]
    for kind in CONFIGS:
        said = [a for k, a in answers if k == kind]
        assert None in said and any(a is not None for a in said), answers


def _file_answer(model: Path, overrides: dict[str, Any], argv: tuple[str, ...],
                 root: Path) -> int:
    """graphfit's exit status on its own config file holding the line's keys."""
    import contextlib
    import io

    from graphfit.cli.application import main

    keys: dict[str, Any] = {"engine": "sglang", "model_path": str(model)}
    pairs = dict(zip(argv[::2], argv[1::2], strict=True))
    keys.update({k.removeprefix("--").replace("-", "_"): int(v) for k, v in pairs.items()})
    if overrides:
        keys["json_model_override_args"] = json.dumps(overrides)
    path = root / f"{model.name}-{abs(hash(json.dumps(keys)))}.json"
    path.write_text(json.dumps(keys))
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            main(["plan", "--gpu-memory-gb", "80", "--config", str(path)])
        except SystemExit as exc:
            return exc.code if isinstance(exc.code, int) else 1
    return 0


def test_config_file_agrees(root: Path) -> None:
    """graphfit's config file with `json_model_override_args` beside `model_path`: refused
    where SGLang's block raises, planned where it builds."""
    for case in (FIXED[0], FIXED[1], FIXED[2], FIXED[7], FIXED[12]):
        kind, fields, overrides, argv = case
        model = model_dir(kind, fields, root)
        theirs = theirs_on(model, overrides, argv)
        code = _file_answer(model, overrides, argv, root)
        assert (theirs is None) == (code == 0), (case, theirs, code)


def test_live_server_args_agree(root: Path) -> None:
    """The live check (`from_sglang` on SGLang's own resolved ServerArgs, which carry the
    override text) refuses where the MoE block raises and plans where it builds."""
    from graphfit.integrations.sglang import from_sglang
    from graphfit.planner.core.errors import ConfigError

    for case in (FIXED[0], FIXED[1], FIXED[2], FIXED[7]):
        kind, fields, overrides, argv = case
        model = model_dir(kind, fields, root)
        theirs = theirs_on(model, overrides, argv)
        r = so.resolve(line(overrides, argv), model=str(model))
        assert isinstance(r, so.Resolved), r
        try:
            from_sglang(r.record, environ={}, max_num_seqs=8, gpu_memory_gb=80.0)
            said = None
        except ConfigError as exc:
            said = str(exc)
        assert (theirs is None) == (said is None), (case, theirs, said)


@settings(max_examples=8, deadline=None)
@given(st.sampled_from(tuple(CONFIGS)), st.sampled_from((1, 2, 4, 8)),
       st.sampled_from(("", "field", "num_local_experts")), st.sampled_from((1, 2, 4, 8)),
       st.sampled_from((2, 4, 8)), st.sampled_from((1, 2)))
def test_drawn_lines_agree(kind: str, written: int, name: str, value: int, tp: int,
                           ep: int) -> None:
    """Class x written count x overridden name x value x TP x EP."""
    so.oracle()
    overrides = {} if not name else {COUNT_NAME[kind] if name == "field" else name: value}
    argv: tuple[str, ...] = ("--tp-size", str(tp)) + (("--ep-size", "2") if ep > 1 else ())
    compare((kind, {COUNT_NAME[kind]: written}, overrides, argv), Path(_DRAWN.name))


# Beam's class refusals (graphfit.inputs.sglang_beam_build) on a target the override args
# make Beam: a Beam config.json (SGLang's BeamConfig) naming Qwen3-MoE's class, overridden
BEAM = {"architectures": ["BeamForCausalLM"]}


def beam_dir(root: Path) -> Path:
    from tests.oracle import sglang_beam_build_oracle as bo

    folder = root / "beam-as-qwen3"
    folder.mkdir(parents=True, exist_ok=True)
    data = {**bo.BEAM, "architectures": ["Qwen3MoeForCausalLM"]}
    (folder / "config.json").write_text(json.dumps(data))
    return folder
BEAM_LINES: tuple[tuple[dict[str, Any], tuple[str, ...]], ...] = (
    (BEAM, ("--tp-size", "4", "--moe-dense-tp-size", "1")),
    (BEAM, ("--tp-size", "4", "--ep-size", "4", "--ep-num-redundant-experts", "2")),
    (BEAM, ("--tp-size", "4")),
    ({}, ("--tp-size", "4", "--moe-dense-tp-size", "1")),
)


def beam_theirs(model: Path, overrides: dict[str, Any], argv: tuple[str, ...]) -> str | None:
    """SGLang on the line: "Rejected: ..." where resolution refuses, Beam's
    NotImplementedError with its site where the overridden config names Beam and its class
    raises (tests.oracle.sglang_beam_build_oracle's glue), else None."""
    import traceback

    from tests.oracle import sglang_beam_build_oracle as bo

    r = so.resolve(["--model-path", str(model), *line(overrides, argv)])
    if not isinstance(r, so.Resolved):
        return f"Rejected: {getattr(r, 'text', r)}"
    with so.sglang_stubs.stubbed(), so.published(r):
        import sglang.srt.models.beam as beam
        from sglang.srt.utils.hf_transformers_utils import get_config

        config = get_config(str(model), trust_remote_code=False,
                            model_override_args=overrides or None)
        if config.architectures[0] != "BeamForCausalLM":
            return None
        saved = beam.BeamModel
        beam.BeamModel = bo._stop  # stop where the layers' build begins (beam.py:1319)
        try:
            beam.BeamForCausalLM(config, quant_config=None)
        except bo._Reached:
            return None
        except NotImplementedError as exc:
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            site = frame.filename.split("/sglang/srt/", 1)[-1]
            return f"build: NotImplementedError: {exc} @ {site}:{frame.lineno}"
        finally:
            beam.BeamModel = saved
    raise AssertionError("unreachable")


@pytest.mark.parametrize(("overrides", "argv"), BEAM_LINES)
def test_beam_override_lines_agree(overrides: dict[str, Any], argv: tuple[str, ...],
                                   root: Path) -> None:
    """A pasted line and graphfit's config file (and, on the first line, the live ServerArgs):
    refused where Beam's class raises (pasted: citing its line), planned where it builds or
    the target is not Beam (SGLang's Beam class not built: the last line)."""
    model = beam_dir(root)
    theirs = beam_theirs(model, overrides, argv)
    tq.judged(model, line(overrides, argv), theirs, ("beam", overrides))
    code = _file_answer(model, overrides, argv, root)
    assert (theirs is None) == (code == 0), (overrides, argv, theirs, code)
    if overrides == BEAM and argv == BEAM_LINES[0][1]:
        assert theirs is not None and "beam.py" in theirs, theirs
        from graphfit.integrations.sglang import from_sglang
        from graphfit.planner.core.errors import ConfigError

        r = so.resolve(line(overrides, argv), model=str(model))
        assert isinstance(r, so.Resolved), r
        with pytest.raises(ConfigError, match="BeamForCausalLM"):  # the live ServerArgs
            from_sglang(r.record, environ={}, max_num_seqs=8, gpu_memory_gb=80.0)
