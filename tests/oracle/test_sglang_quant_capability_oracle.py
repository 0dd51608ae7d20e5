"""graphfit == SGLang 0.5.23 on the model loader's GPU check (model_loader/loader.py:253-262,
restated by graphfit.planner.engines.sglang_quant_capability). The lines are generated
(--quantization, config.json quantization_config, named GPU) triples. graphfit reads each
one whole (`graphfit plan --gpu-memory-gb GPU -- python -m sglang.launch_server
--model-path DIR ...`). SGLang's ModelConfig and loader run on the same triple
(tests.oracle.sglang_quant_capability_oracle).

Only lines that reach SGLang's check are judged: where SGLang refuses there, graphfit must
refuse with the same bar; where the check passes, graphfit must not refuse on it. Lines
SGLang stops earlier are other rules' (test_sglang_quantization_oracle.py)."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.planner.engines import sglang_quant_capability as capability  # noqa: E402
from tests.oracle import sglang_quant_capability_oracle as co  # noqa: E402
from tests.oracle.sglang_quant_capability_compare import (  # noqa: E402
    FLAGS,
    GPUS,
    LAYOUTS,
    LOADER,
    compare,
    graphfit_line,
)


def test_every_flag_without_a_checkpoint_config_on_every_gpu() -> None:
    """Each flag alone (no quantization_config) on each GPU: SGLang builds the method's own
    config class, so this covers every bar the loader can meet from a flag."""
    wrong, stages = [], []
    for flag, gpu in itertools.product(FLAGS, GPUS):
        stage, bad = compare(flag, None, gpu)
        stages.append(stage)
        if bad:
            wrong.append(bad)
    assert not wrong, "\n".join(wrong[:8])
    # not vacuous: the check refuses some lines (mxfp8 / nvfp4_online below SM100, fp8 on a
    # T4 ...) and passes others
    assert stages.count("capability") >= 10 and stages.count("passed") >= 20


@given(st.sampled_from(FLAGS), st.sampled_from(LAYOUTS), st.sampled_from(GPUS))
def test_generated_lines_agree(flag: str | None, layout: str | None, gpu: str) -> None:
    """A drawn flag, checkpoint layout and GPU: the same verdict on the loader's check."""
    _, bad = compare(flag, layout, gpu)
    assert bad is None, bad


def test_seeded_lines_reach_the_check() -> None:
    """120 seeded triples: they agree, and enough of them reach SGLang's check both ways for
    the comparison to mean something (most drawn pairs stop at the ModelConfig's clash
    check: 67 of these 120; 4 reach a capability refusal, 17 pass it)."""
    rng = random.Random(45)
    stages, wrong = [], []
    for _ in range(120):
        stage, bad = compare(rng.choice(FLAGS), rng.choice(LAYOUTS), rng.choice(GPUS))
        stages.append(stage)
        if bad:
            wrong.append(bad)
    assert not wrong, "\n".join(wrong[:8])
    assert stages.count("capability") >= 3 and stages.count("passed") >= 10


def test_mxfp8_on_an_h100_is_refused_as_sglang_does() -> None:
    """The line that opened this rule: `--quantization mxfp8` on an H100 (SM 9.0)."""
    assert co.load("mxfp8", None, 90).stage == "capability"
    code, said = graphfit_line("mxfp8", None, "H100")
    assert code == 2 and LOADER in said and "fp8.py:329-339" in said
    assert graphfit_line("mxfp8", None, "B200")[0] == 0


def test_a_planted_error_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """mxfp8 given fp8's bar (both are Fp8Config): graphfit plans an H100 line SGLang
    refuses, and the comparison says so."""
    monkeypatch.setitem(capability.MIN_CAPABILITY, "mxfp8", (80, "planted"))
    _, bad = compare("mxfp8", None, "H100")
    assert bad is not None and "SGLang needs 100" in bad and "graphfit 0" in bad
