"""graphfit == SGLang 0.5.23 on WHERE a local checkpoint's quantization config comes from
(graphfit.inputs.sglang_quant_files, sglang_quantization.effective_config): generated
checkpoint directories holding a config.json (with or without quantization_config /
compression_config), an hf_quant_config.json (ModelOpt) and a ModelSlim
quant_model_description.json, each read by graphfit's reader (model_config.quant_settings)
and by SGLang's own `_verify_quantization` with that directory as model_path
(tests.oracle.sglang_quantization_oracle.verify), for a drawn `--quantization` and GPU."""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.inputs import model_config  # noqa: E402
from graphfit.inputs import sglang_quant_files as files  # noqa: E402
from graphfit.planner.core.errors import ConfigError  # noqa: E402
from tests.oracle import sglang_quant_cases as qc  # noqa: E402
from tests.oracle import sglang_quantization_oracle as qo  # noqa: E402

COUNT, SEED = 240, 7
_ALGOS = ("FP8", "NVFP4", "MXFP8", "INT4_AWQ", "W4A8_AWQ", "nvfp4", None)


def _hf_quant(rng: random.Random) -> Any:
    algo = rng.choice(_ALGOS)
    inner: dict[str, Any] = {"quant_algo": algo, "kv_cache_quant_algo": None}
    if rng.random() < 0.15:
        inner = {"quant_algo": "MIXED_PRECISION", "quantized_layers": {
            "model.layers.0.mlp": {"quant_algo": rng.choice(("NVFP4", "FP8"))}}}
    shape = rng.choice(("nested", "nested", "flat", "odd"))
    if shape == "nested":
        return {"producer": {"name": "modelopt"}, "quantization": inner}
    return inner if shape == "flat" else {"quantization": "FP8"}


def checkpoint(rng: random.Random) -> tuple[dict[str, Any], dict[str, Any]]:
    """(config.json, the other files by name) for one drawn checkpoint."""
    config: dict[str, Any] = {"architectures": ["LlamaForCausalLM"]}
    if rng.random() < 0.35:
        config["quantization_config"] = qc.layout(rng)
    if rng.random() < 0.35:
        config["compression_config"] = rng.choice((
            {"quant_method": "compressed-tensors", "format": "pack-quantized"},
            {"quant_method": "Compressed-Tensors"}, {"format": "float-quantized"},
            {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True}))
    others: dict[str, Any] = {}
    if rng.random() < 0.6:
        others[files.HF_QUANT] = _hf_quant(rng)
    if rng.random() < 0.25:
        others[files.MODELSLIM] = rng.choice((
            {}, {"model.layers.0.self_attn.q_proj.weight": "W8A8"},
            {"quant_method": "other", "fa_quant_type": "FAKQuant"}))
    return config, others


@functools.cache
def _checkpoints(root: str) -> tuple[tuple[str, str | None, int, str], ...]:
    """(directory, flag, capability, SGLang's answer) per drawn checkpoint."""
    rng = random.Random(SEED)
    out = []
    for index in range(COUNT):
        config, others = checkpoint(rng)
        folder = Path(root) / f"ckpt{index}"
        qc.write_checkpoint(folder, config, others)
        flag = rng.choice((*qc.OVERRIDDEN, "modelopt_fp4", "compressed-tensors", "modelslim",
                           "w8a8_int8", "mxfp8"))
        cap = rng.choice(qc.CAPABILITIES)
        theirs = qo.verify(flag, config.get("quantization_config"), divmod(cap, 10),
                           model_dir=str(folder), compression=config.get("compression_config"))
        out.append((str(folder), flag, cap, theirs))
    return tuple(out)


def _graphfit(folder: str, flag: str | None, cap: int) -> str:
    try:
        settings = {s.field: s.value for s in model_config.quant_settings(folder)}
    except ConfigError as exc:
        return f"crash: {exc}"
    return qc.from_settings(flag, settings, cap)


def _wrong(root: str) -> tuple[list[str], dict[str, int]]:
    return qc.compare((f"{Path(folder).name} --quantization {flag} SM{cap}",
                       _graphfit(folder, flag, cap), theirs)
                      for folder, flag, cap, theirs in _checkpoints(root))


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("quant-checkpoints"))


def test_every_generated_checkpoint_agrees(root: str) -> None:
    """graphfit reads the config SGLang verifies, from the file SGLang reads it from."""
    wrong, counts = _wrong(root)
    assert not wrong, f"{len(wrong)} of {counts['cases']} differ:\n" + "\n".join(wrong[:10])
    assert counts["not modelled"] == 0 and counts["accepted"] > COUNT // 5, counts
    answers = {theirs for *_, theirs in _checkpoints(root)}
    assert {"modelslim", "compressed-tensors", "modelopt_fp4", "mxfp8"} <= answers, answers


_ORIGINAL = files.effective_config
PLANTS: dict[str, Callable[[pytest.MonkeyPatch], None]] = {
    # the ModelSlim description wins over config.json (model_config.py:2064)
    "modelslim wins": lambda m: m.setattr(files, "effective_config", lambda q, c, h, s: (
        _ORIGINAL(q, c, h, None) if q is not None else _ORIGINAL(q, c, h, s))),
    # compressed-tensors' old key (model_config.py:1743-1745)
    "compression_config": lambda m: m.setattr(files, "effective_config", lambda q, c, h, s: (
        _ORIGINAL(q, None, h, s))),
    # a local hf_quant_config.json (model_config.py:1814-1822)
    "hf_quant_config.json": lambda m: m.setattr(files, "HF_QUANT", "absent.json"),
}


@pytest.mark.parametrize("plant", sorted(PLANTS))
def test_a_planted_error_is_caught(plant: str, root: str,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Each file rule, broken on purpose, makes some checkpoint differ from SGLang."""
    _checkpoints(root)  # SGLang's answers first, on the files as written
    PLANTS[plant](monkeypatch)
    assert _wrong(root)[0], plant
