"""Beam's model-class refusals (graphfit.inputs.sglang_beam_build, issue 23 s69n) against
SGLang's own `BeamForCausalLM.__init__` run on the resolved line
(tests/oracle/sglang_beam_build_oracle.py): graphfit refuses a pasted line with SGLang's
exception, citing the line SGLang raised at, exactly where SGLang's class raises, and plans
it where SGLang's checks pass (or refuses it where SGLang's resolution does).

Fixed lines: each check on its own, both ways (--moe-dense-tp-size 1 / TP, EPLB, redundant
experts, a non-trivial expert location, LoRA, a line's --quantization on a BF16 checkpoint, a
quantized checkpoint with --moe-dense-tp-size 1). Drawn: TP x attention DP x the dense TP
value x one other flag group.

Checkpoint formats (s69u): a checkpoint's own quantization_config Beam refuses (fp8, AWQ,
ModelOpt FP8 / NVFP4_AWQ, compressed-tensors int or without groups) and the ModelOpt NVFP4 one
it builds, fixed and drawn against the dense-TP flag. A float-quantized compressed-tensors
checkpoint is not among them: the oracle stubs the compressed_tensors library, so SGLang's
scheme check cannot run faithfully here (graphfit does not judge it).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_beam_build_oracle as bo  # noqa: E402
from tests.oracle import sglang_compare as sc  # noqa: E402
from tests.oracle.test_sglang_minimax_target_oracle import cites  # noqa: E402

EPLB = ("--ep-size", "4", "--enable-eplb")
REDUNDANT = ("--ep-size", "4", "--ep-num-redundant-experts", "2")
LOCATION = ("--init-expert-location", "random")
LORA = ("--enable-lora", "--max-lora-rank", "8", "--lora-target-modules", "all")
FP8 = ("--quantization", "fp8")
_BLOCK = {"quantization_config": {"quant_method": "fp8", "activation_scheme": "dynamic",
                                  "weight_block_size": [128, 128]}}
FIXED: tuple[tuple[dict[str, Any], tuple[str, ...]], ...] = (
    ({}, ("--tp-size", "4")),
    ({}, ("--tp-size", "4", "--moe-dense-tp-size", "1")),
    ({}, ("--tp-size", "4", "--moe-dense-tp-size", "4")),
    ({}, ("--tp-size", "4", "--attn-dp-size", "2", "--moe-dense-tp-size", "1")),
    ({}, ("--tp-size", "4", *EPLB)), ({}, ("--tp-size", "4", *REDUNDANT)),
    ({}, ("--tp-size", "4", *LOCATION)), ({}, ("--tp-size", "2", *LORA)),
    ({}, ("--tp-size", "2", *FP8)), ({}, ("--tp-size", "2", *FP8, "--moe-dense-tp-size", "1")),
    (_BLOCK, ("--tp-size", "2", "--moe-dense-tp-size", "1")),
)
_CT = {"quant_method": "compressed-tensors", "ignore": ["lm_head"], "config_groups": {
    "group_0": {"targets": ["Linear"], "weights": {"type": "int", "num_bits": 8},
                "input_activations": {"type": "int", "num_bits": 8}}}}
_MO = {"quant_method": "modelopt", "group_size": 16, "exclude_modules": ["lm_head"]}
FORMATS: dict[str, dict[str, Any]] = {
    "fp8-block": _BLOCK["quantization_config"],
    "fp8-tensor": {"quant_method": "fp8", "activation_scheme": "static"},
    "awq": {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True,
            "version": "gemm"},
    "ct-int8": {**_CT, "format": "int-quantized"},
    "ct-no-groups": {**_CT, "format": "float-quantized", "config_groups": {}},
    "modelopt-fp8": {**_MO, "quant_algo": "FP8"},
    "modelopt-nvfp4-awq": {**_MO, "quant_algo": "NVFP4_AWQ"},
    "modelopt-nvfp4": {**_MO, "quant_algo": "NVFP4"},
}
OTHERS = ((), (), EPLB, REDUNDANT, LOCATION, LORA, FP8)


def graphfit_line(path: str, argv: tuple[str, ...]) -> tuple[int, str]:
    """graphfit's reading of `python -m sglang.launch_server --model-path path *argv`:
    (exit code, last error line or "")."""
    from graphfit.cli.options import PASTED

    token = PASTED.set(("python", "-m", "sglang.launch_server", "--model-path", path, *argv))
    try:
        code, _, output = sc.run_graphfit(["plan", "--gpu-memory-gb", "80"])
    finally:
        PASTED.reset(token)
    errors = [ln for ln in output.splitlines() if ln.startswith("error:")]
    return code, (errors[-1] if errors else "")


def compare(fields: dict[str, Any], argv: tuple[str, ...], via_file: bool = False
            ) -> str | None:
    """Assert graphfit answers the line as SGLang does; SGLang's answer. `via_file`: graphfit
    reads the flags from its own config file (s69g's `planned_file`), not a pasted line."""
    from tests.oracle.sglang_quant_gptq_dynamic_compare import planned_file

    path = bo.target_dir(fields)
    theirs = bo.build(path, argv)
    code, said = planned_file(path, argv, "80") if via_file else graphfit_line(path, argv)
    case = (fields, argv, theirs, code, said)
    if theirs is None:
        assert code == 0, case
        return theirs
    assert code == 2 and said.startswith("error: ") and len(said) <= 200, case
    if theirs.startswith("NotImplementedError"):
        assert "SGLang cannot build BeamForCausalLM" in said, case
        assert "(NotImplementedError, " in said and cites(said, theirs.rsplit(" @ ", 1)[1]), case
    return theirs


@pytest.mark.parametrize(("fields", "argv"), FIXED)
def test_fixed_lines_agree(fields: dict[str, Any], argv: tuple[str, ...]) -> None:
    """Each check on its own, both ways."""
    compare(fields, argv)


@pytest.mark.parametrize(("fields", "argv"), FIXED)
def test_fixed_lines_agree_from_a_config_file(fields: dict[str, Any], argv: tuple[str, ...]
                                              ) -> None:
    """The same lines as graphfit's own config file (graphfit.inputs.config_file)."""
    compare(fields, argv, via_file=True)


def test_fixed_lines_are_not_vacuous() -> None:
    """The fixed lines reach each of SGLang's four raises and a line it builds."""
    answers = {bo.build(bo.target_dir(fields), argv) for fields, argv in FIXED}
    sites = {answer.rsplit(":", 1)[1] for answer in answers if answer}
    assert None in answers and {"1297", "1303", "1312", "1317"} <= sites, answers


@settings(max_examples=8, deadline=None)
@given(st.sampled_from(((1, 1), (2, 1), (4, 1), (4, 2), (2, 2))),
       st.sampled_from((None, 1, "tp")), st.sampled_from(OTHERS))
def test_drawn_lines_agree(layout: tuple[int, int], dense: int | str | None,
                           other: tuple[str, ...]) -> None:
    """TP x attention DP x --moe-dense-tp-size (unset, 1, the TP size) x one other group."""
    tp, attn_dp = layout
    argv = ("--tp-size", str(tp), "--attn-dp-size", str(attn_dp))
    if dense is not None:
        argv += ("--moe-dense-tp-size", str(tp if dense == "tp" else dense))
    if "--ep-size" in other and tp < 4:
        other = ()
    compare({}, argv + other)


@pytest.mark.parametrize(("name", "via_file"), [
    *((name, False) for name in sorted(FORMATS)), ("ct-int8", True), ("modelopt-nvfp4", True)])
def test_checkpoint_formats_agree(name: str, via_file: bool) -> None:
    """A checkpoint's own quantization_config, no other flag: refused where Beam's format
    check raises (models/beam.py:1296-1300), planned for ModelOpt NVFP4; two of them also
    from graphfit's config file."""
    compare({"quantization_config": FORMATS[name]}, ("--tp-size", "2"), via_file)


def test_checkpoint_formats_are_not_vacuous() -> None:
    """SGLang raises at the format check for every format but ModelOpt NVFP4, which builds."""
    answers = {name: bo.build(bo.target_dir({"quantization_config": fields}), ("--tp-size", "2"))
               for name, fields in FORMATS.items()}
    assert answers.pop("modelopt-nvfp4") is None, answers
    assert all(str(a).endswith("models/beam.py:1297") for a in answers.values()), answers


@settings(max_examples=5, deadline=None)
@given(st.sampled_from(sorted(FORMATS)), st.sampled_from((1, 2, 4)),
       st.sampled_from(((), ("--moe-dense-tp-size", "1"), LOCATION)))
def test_drawn_checkpoint_formats_agree(name: str, tp: int, other: tuple[str, ...]) -> None:
    """A checkpoint format x TP x (nothing, dense TP 1, a non-trivial expert location): the
    format check comes first in SGLang's order, then the others."""
    compare({"quantization_config": FORMATS[name]}, ("--tp-size", str(tp), *other))


def live(path: str, argv: tuple[str, ...]) -> str | None:
    """graphfit's live check (`from_sglang`) on SGLang's own resolved ServerArgs of the line:
    its ConfigError, or None where it plans."""
    from graphfit.integrations.sglang import from_sglang
    from graphfit.planner.core.errors import ConfigError
    from tests.oracle import sglang_oracle as so

    r = so.resolve(["--model-path", path, *argv])
    assert isinstance(r, so.Resolved), r
    try:
        from_sglang(r.record, environ={}, max_num_seqs=8, gpu_memory_gb=80.0)
    except ConfigError as exc:
        return str(exc)
    return None


def test_live_server_args_agree() -> None:
    """The live check reads the resolved ServerArgs as a pasted line: refused where Beam's
    class raises (dense TP 1, redundant experts), planned where it builds."""
    path = bo.target_dir()
    for argv in (("--tp-size", "4"), ("--tp-size", "4", "--moe-dense-tp-size", "1"),
                 ("--tp-size", "4", "--moe-dense-tp-size", "4"), ("--tp-size", "4", *REDUNDANT)):
        theirs, said = bo.build(path, argv), live(path, argv)
        assert (theirs is None) == (said is None), (argv, theirs, said)
        assert said is None or "models/beam.py:13" in said, said
