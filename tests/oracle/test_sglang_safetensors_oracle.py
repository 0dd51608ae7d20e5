"""graphfit == SGLang 0.5.23 on DeepSeek V3's FP8-expert detection: generated checkpoint
directories (tests.oracle.sglang_safetensors_cases: safetensors headers only, an index or a
single file, broken files on some) read by graphfit's reader (graphfit.inputs.
sglang_safetensors) and by SGLang's own `has_fp8_weights_in_checkpoint` (utils/common.py:
3857-3921); then the whole `--quantization` resolution of a DeepseekV3ForCausalLM line
without a flag, graphfit's (model_config.quant_settings -> sglang_quantization) against
SGLang's `_deepseek_moe_quant_resolution` (arg_groups/overrides.py:763-807) reading the same
directory."""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.inputs import sglang_safetensors as ss  # noqa: E402
from graphfit.planner.engines import sglang_model_quant as smq  # noqa: E402
from tests.oracle import sglang_model_quant_oracle as mo  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_safetensors_cases as cases  # noqa: E402

COUNT, SEED = 300, 11
LINES, LINE_SEED = 60, 12
@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    so.oracle()
    return tmp_path_factory.mktemp("safetensors")


def test_the_reader_agrees_on_every_generated_checkpoint(root: Path) -> None:
    """graphfit's header read answers as SGLang's on each directory."""
    wrong, counts = cases.compare(root / "reader", COUNT, SEED)
    assert not wrong, f"{len(wrong)} of {COUNT} differ:\n" + "\n".join(wrong[:10])
    assert counts["fp8"] > COUNT // 20 and counts["not fp8"] > COUNT // 4, counts


PLANTS: dict[str, Callable[[pytest.MonkeyPatch], None]] = {
    # the index is read first (utils/common.py:3892)
    "index ignored": lambda m: m.setattr(ss, "INDEX", "absent.json"),
    # a tensor counts only when its name holds both "experts" and "weight" (:3896, 3917)
    "experts only": lambda m: m.setattr(ss, "_expert_weight",
                                        lambda n: isinstance(n, str) and "experts" in n),
    # the dtype is compared as written (:3918)
    "any FP8": lambda m: m.setattr(ss, "FP8_DTYPE", "F8_E5M2"),
}


@pytest.mark.parametrize("plant", sorted(PLANTS))
def test_a_planted_reader_error_is_caught(plant: str, root: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Each rule of the read, broken on purpose, makes some directory differ."""
    PLANTS[plant](monkeypatch)
    assert cases.compare(root / plant.replace(" ", "-"), COUNT, SEED)[0], plant


@functools.cache
def _lines(root: str) -> tuple[tuple[str, Any, bool, tuple[str, str | None, str | None]], ...]:
    """(directory, quantization_config, sm100, SGLang's answer) per drawn line."""
    rng, out = random.Random(LINE_SEED), []
    for index in range(LINES):
        folder = Path(root) / f"line{index}"
        quant, sm100 = cases.write_line(rng, folder)
        theirs = mo.resolve("DeepseekV3ForCausalLM", None, quant, sm100,
                            model_path=str(folder))
        out.append((str(folder), quant, sm100, theirs))
    return tuple(out)


def _wrong(root: str) -> list[str]:
    wrong = []
    for folder, quant, sm100, theirs in _lines(root):
        ours = cases.graphfit_flag(folder, sm100)
        if cases.differs(ours, theirs):
            wrong.append(f"{Path(folder).name} {quant} sm100={sm100}: graphfit {ours}, "
                         f"SGLang {theirs[:2]}")
    return wrong


def test_the_flag_after_deepseeks_resolution_agrees(root: Path) -> None:
    """Without a flag DeepSeek V3 on SM100 runs as fp8 exactly where SGLang's header read
    finds FP8 experts; graphfit knows the flag on every local line."""
    wrong = _wrong(str(root))
    assert not wrong, f"{len(wrong)} of {LINES} differ:\n" + "\n".join(wrong[:10])
    flags = {theirs[1] for *_, theirs in _lines(str(root))}
    assert {"fp8", None, "modelopt_fp4"} <= flags, flags  # not vacuous


def test_a_planted_resolution_error_is_caught(root: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Taking every header-read DeepSeek V3 as fp8 (the class's name, not its weights)
    differs from SGLang on the BF16 ones."""
    _lines(str(root))
    original = smq.flag_after_overrides

    def planted(*args: Any, **kwargs: Any) -> tuple[bool, str | None]:
        return original(*args[:6], fp8_experts=True if args[6:] and args[6] is not None
                        else None)
    monkeypatch.setattr(smq, "flag_after_overrides", planted)
    assert _wrong(str(root))
