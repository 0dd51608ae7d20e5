"""graphfit == SGLang 0.5.23 on ModelOpt NVFP4's MoE method below Blackwell
(graphfit.planner.engines.sglang_nvfp4_moe): SGLang's real `ModelOptNvFp4FusedMoEMethod`
(layers/quantization/modelopt_quant.py:2369-2388) is built under the fake CUDA device for every
runner of its enum on GPUs each side of the Marlin fallback (SM80-SM99) and Blackwell (SM100,
SM110, SM120); then whole pasted lines on a Qwen3-MoE NVFP4 checkpoint, SGLang's side being
its server arguments plus that build (tests.oracle.sglang_nvfp4_moe_oracle). Larger counts:
`python -m tests.oracle.measure_sglang_nvfp4_moe`."""

from __future__ import annotations

import itertools

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.planner.engines import sglang_nvfp4_moe as rule  # noqa: E402
from tests.oracle import sglang_compare as sc  # noqa: E402
from tests.oracle import sglang_moe_a2a_compare as mc  # noqa: E402
from tests.oracle import sglang_nvfp4_moe_oracle as nm  # noqa: E402

CAPABILITIES = (75, 80, 89, 90, 100, 110, 120, 130)


def test_every_runner_on_each_gpu_gets_sglangs_answer() -> None:
    wrong, refused = [], 0
    answers = {cap: nm.method_refusals(cap, nm.runners()) for cap in CAPABILITIES}
    for runner, cap in itertools.product(nm.runners(), CAPABILITIES):
        theirs = answers[cap][runner]
        ours = rule.problem(runner, cap) or rule.runner_problem(runner)  # s60q: the runner
        refused += theirs is not None
        if (theirs is None) != (ours is None) or (
                ours is not None and theirs is not None and not theirs.startswith(ours)):
            wrong.append(f"{runner} SM{cap}: SGLang {theirs!r}, graphfit {ours!r}")
    assert not wrong, "\n".join(wrong)
    assert 0 < refused < len(nm.runners()) * len(CAPABILITIES)  # not vacuous


def _line(runner: str, gpu: str) -> tuple[str, ...]:
    return ("--gpu-memory-gb", gpu, "--model-path", mc.quantized_model_dir("NVFP4"),
            "--quantization", "modelopt_fp4", "--moe-runner-backend", runner)


def test_pasted_lines_are_refused_where_sglang_refuses_the_load() -> None:
    """flashinfer_cutlass on an H100 (refused at load) and on a B200 (loads)."""
    seen = []
    for runner, gpu in (("flashinfer_cutlass", "H100"), ("flashinfer_cutlass", "B200")):
        line = _line(runner, gpu)
        sg, gf = mc.sglang(line), mc.graphfit_cli(line)
        assert not sc.compare_acceptance(sg, gf), (line, sg.rejected, gf.rejected)
        seen.append(sg.rejected is not None)
        if gf.rejected is not None:
            assert rule.PLATFORM_WORDS in gf.rejected and "modelopt_quant.py" in gf.rejected
    assert seen == [True, False]
