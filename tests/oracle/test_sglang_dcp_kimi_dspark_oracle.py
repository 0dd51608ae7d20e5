"""Kimi-K3 under DCP with DSPARK (issue 23 s55k): SGLang 0.5.23's Kimi-K3 override
(`kimi_k3.py:54-120`) refuses a ragged verify mode other than "static" (:66-76) and otherwise
puts verify on the cutedsl_mla decode backend (`speculative_attention_mode=decode`, :78-82).
SGLang's own resolution and runners (tests/oracle/sglang_dcp_oracle.py, with FlashInfer
0.6.17's signature given to the override's check) against graphfit's plan of the same line."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_dcp_oracle as dc  # noqa: E402

MRR = ("--max-running-requests", "24")
MODE = "SGLANG_RAGGED_VERIFY_MODE"


def _dspark() -> tuple[str, ...]:
    return dc.model_drafts()[3]  # DSPARK on sglang_dspark_compare's draft dir


def _lines() -> list[dc.Case]:
    return [(("--tp-size", "4", "--dcp-size", "2", *MRR, *_dspark()), "B200", dc.KIMI),
            (("--tp-size", "4", "--dcp-size", "2", *MRR, "--dcp-comm-backend", "a2a",
              *_dspark()), "B200", dc.KIMI)]


def test_static_mode_lines_agree() -> None:
    """The default "static" mode: SGLang serves the line with decode on cutedsl_mla and verify
    on it (not vacuous: the override's writes are there), and graphfit's plan agrees."""
    for case in _lines():
        assert dc.compare(case) == ("agree", [])
        from sglang.srt.arg_groups.model_override_base import attention_backends_of
        from sglang.srt.arg_groups.overrides import resolving_view

        sg = dc.sglang_answer(case)
        assert isinstance(sg.resolved, dc.so.Resolved)
        cfg = resolving_view(sg.resolved.record)
        assert attention_backends_of(cfg)[1] == "cutedsl_mla"
        assert cfg.speculative_attention_mode == "decode"


def _sglang_under(case: dc.Case, mode: str) -> object:
    from tests.oracle import sglang_post_capture_oracle as pc

    argv, gpu, model = case
    gb, capability = dc.GPUS[gpu]
    with pc.environment(None, ((MODE, mode),)), dc.flashinfer_decode():
        return dc.so.resolve(argv, gpu_mem_gb=gb, model=dc.model_path(model),
                             capability=capability)


def _graphfit_under(case: dc.Case, mode: str) -> str | None:
    from graphfit import ConfigError
    from graphfit.cli.options import resolve_values
    from graphfit.inputs import commandline
    from tests.oracle import sglang_post_capture_oracle as pc

    argv, gpu, model = case
    line = pc.graphfit_line(argv, model, None, ((MODE, mode),))
    try:
        import graphfit

        graphfit.plan(resolve_values({"gpu_memory_gb": gpu}, environ={},
                                     pasted=commandline.read(line)).config())
        return None
    except ConfigError as exc:
        return str(exc)


@pytest.mark.parametrize("mode", ["cap-accept", "compact"])
def test_other_modes_refused_with_sglangs_reason(mode: str) -> None:
    case = _lines()[1]
    theirs = _sglang_under(case, mode)
    assert isinstance(theirs, dc.so.Rejected) and "requires SGLANG_RAGGED_VERIFY_MODE=static" \
        in theirs.text, theirs
    ours = _graphfit_under(case, mode)
    assert ours is not None and "kimi_k3.py:66-76" in ours and mode in ours, ours


def test_the_refusal_is_dcps() -> None:
    """Not vacuous: without --dcp-size SGLang's override does not read the mode, and graphfit
    does not refuse the line on it."""
    argv = tuple(a for a in _lines()[1][0] if a not in ("--dcp-size", "2", "--dcp-comm-backend",
                                                        "a2a"))
    plain = (argv, "B200", dc.KIMI)
    assert "--dcp-size" not in argv
    theirs = _sglang_under(plain, "cap-accept")
    ours = _graphfit_under(plain, "cap-accept")
    assert isinstance(theirs, dc.so.Resolved), theirs
    assert ours is None or "kimi_k3.py:66-76" not in ours, ours
