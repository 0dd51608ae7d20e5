"""graphfit == SGLang 0.5.23 where graphfit's own config file names the GPU
(`gpu_memory_gb: T4`): the name sets the GPU's capability as the `--gpu-memory-gb T4` flag
does (graphfit.inputs.config_file._gpu_memory_gb), so a found quantize_config.json under
`--quantization awq_marlin` gets AWQMarlinConfig's own GPU reason below Marlin's bar
(awq/awq.py:282-284, marlin_utils.py:78-79) and plans past it. SGLang's real ModelConfig and
loader run on each line (tests.oracle.sglang_quant_file_gpu_compare); larger counts:
`python -m tests.oracle.measure_sglang_quant_file_gpu`."""

from __future__ import annotations

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_quant_file_gpu_compare as fg  # noqa: E402

_AWQ = {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True}


def test_a_named_gpu_in_the_file_gives_sglangs_reason() -> None:
    """A T4 (below Marlin's SM80 bar) and an A100 (past it) named in the file."""
    seen, wrong = [], []
    for gpu in ("T4", "A100"):
        reason, bad = fg.compare_named("awq_marlin", _AWQ, gpu)
        seen.append(reason)
        if bad:
            wrong.append(bad)
    assert not wrong, "\n".join(wrong)
    assert seen == ["marlin", "passed"]  # not vacuous: SGLang refuses on the T4 only
