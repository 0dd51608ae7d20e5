"""`--enable-waterfill` with `--moe-a2a-backend flashinfer_megamoe` against SGLang 0.5.23's own
resolution and graph runners (tests.oracle.sglang_moe_a2a_compare: start / refuse, the decode
ladder and padding, buffers, prefill graphs, mem_fraction_static, drafts): the runner is
resolved for the given backend (overrides.py:1449-1510, moe_hook.py:77-147 at pipeline.py:294),
then deepep replaces it (overrides.py:1595-1607 at :295) and flashinfer_megamoe's own checks
(moe_hook.py:315-345) do not run (graphfit.planner.engines.sglang_waterfill_megamoe).

A larger count: python -m tests.oracle.measure_sglang_waterfill_megamoe [COUNT] [SEED]."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_moe_a2a_compare as mc  # noqa: E402

WF = "--enable-waterfill"
BASE = ("--moe-a2a-backend", "flashinfer_megamoe", "--tp-size", "2")
EDGE = (  # (line, SGLang starts)
    # no attention DP, not SM100, bf16: every flashinfer_megamoe check skipped: starts
    ((*BASE, "--gpu-memory-gb", "H100", "--max-running-requests", "48", WF), True),
    # nvfp4_online off SM100: refused before the replacement (overrides.py:1457-1461)
    ((*BASE, "--gpu-memory-gb", "H100", "--quantization", "nvfp4_online", WF), False),
    # the cutedsl runner does not take the given backend (moe_hook.py:106-114, at :294)
    ((*BASE, "--gpu-memory-gb", "B200", "--quantization", "modelopt_fp4",
      "--moe-runner-backend", "flashinfer_cutedsl", WF), False),
    # an explicit runner mxfp8 keeps: starts, planned as deepep
    ((*BASE, "--attn-dp-size", "2", "--gpu-memory-gb", "B200", "--quantization", "mxfp8",
      "--moe-runner-backend", "flashinfer_trtllm", WF), True),
)
GENERATED = 5  # lines of mc.draw(seed 7, flashinfer_megamoe) with Waterfill added


def _modelled(argv: tuple[str, ...]) -> bool:
    """graphfit's answer is not a 'not modelled' refusal of a line SGLang starts."""
    rejected = mc.graphfit_cli(argv).rejected
    return not (rejected is not None and "not modelled" in rejected
                and mc.sglang(argv).rejected is None)


def _differences(argv: tuple[str, ...]) -> list[str]:
    return [d.detail for found in mc.compare(argv).values() for d in found]


@pytest.mark.parametrize("index", range(len(EDGE)))
def test_edge_lines_agree(index: int) -> None:
    argv, starts = EDGE[index]
    assert (mc.sglang(argv).rejected is None) is starts  # not vacuous
    assert _modelled(argv)
    assert not _differences(argv), _differences(argv)


@pytest.mark.parametrize("index", range(GENERATED))
def test_generated_lines_agree(index: int) -> None:
    """Generated lines agree on every aspect, or graphfit refuses as not modelled one whose
    runner SGLang resolves to flashinfer_megamoe under deepep."""
    argv = (*mc.lines(GENERATED, 7, "flashinfer_megamoe")[index], WF)
    if not _modelled(argv):
        assert "flashinfer_megamoe runner under a DeepEP" in str(mc.graphfit_cli(argv).rejected)
        return
    assert not _differences(argv), _differences(argv)


def test_mxfp8_auto_is_not_modelled() -> None:
    """mxfp8 makes the auto runner flashinfer_megamoe for the given backend
    (overrides.py:1499-1506): SGLang starts; graphfit says not modelled, never plans."""
    argv = (*BASE, "--attn-dp-size", "2", "--gpu-memory-gb", "B200", "--quantization",
            "mxfp8", WF)
    assert mc.sglang(argv).rejected is None
    assert "not modelled" in str(mc.graphfit_cli(argv).rejected)


def _planted(argv: tuple[str, ...], target: object, name: str, value: object) -> list[str]:
    with pytest.MonkeyPatch.context() as m:
        m.setattr(target, name, value)
        mc.graphfit_cli.cache_clear()
        try:
            return _differences(argv) if _modelled(argv) else ["not modelled"]
        finally:
            mc.graphfit_cli.cache_clear()


def test_planted_megamoe_checks_after_the_replacement_are_caught() -> None:
    """Planted: flashinfer_megamoe's own checks run on a Waterfill line (as if moe_hook.py:315
    read the given backend): graphfit refuses the first edge line SGLang starts."""
    from graphfit.planner.engines import sglang_flashinfer_megamoe as fim

    real = fim.check

    def given(config: object) -> None:
        real(type("V", (), {"__getattr__": lambda _, n: (
            False if n == "enable_waterfill" else getattr(config, n))})())

    assert _planted(EDGE[0][0], fim, "check", given)


def test_planted_runner_checks_on_deepep_are_caught() -> None:
    """Planted: the runner asserts read the replaced backend (deepep) instead of the given one:
    graphfit plans the cutedsl line SGLang refuses (moe_hook.py:106-114)."""
    from graphfit.planner.engines import sglang_quantization, sglang_waterfill_megamoe

    real = sglang_quantization.check_runner

    def on_deepep(*args: object, **kwargs: object) -> None:
        real(*args, **{**kwargs, "backend": "deepep"})  # type: ignore[arg-type]

    assert _planted(EDGE[2][0], sglang_waterfill_megamoe, "check_runner", on_deepep)
