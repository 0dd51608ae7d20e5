"""Generated checkpoint directories for SGLang 0.5.23's safetensors header read
(`has_fp8_weights_in_checkpoint`, utils/common.py:3857-3921) and the comparison with
graphfit.inputs.sglang_safetensors.

SGLang reads only the 8-byte length and the JSON header of one shard, so each shard written
here is its header plus a few zero bytes (no tensor data): the read sees exactly what it
would see on a real checkpoint. The directories hold a `model.safetensors.index.json`, a
single `model.safetensors`, both, or neither, with tensors named as DeepSeek V3 / Moonlight
name them (routed and shared experts, scales, attention, embeddings), dtypes FP8 / BF16 /
other FP8 spellings, a `__metadata__` entry, and broken files on some (a truncated length,
a length past the end, bad JSON, a header or tensor entry of the wrong type, an index whose
weight map names a missing shard, a list, a number, or nothing).
"""

from __future__ import annotations

import json
import random
import struct
from pathlib import Path
from typing import Any

from tests.oracle import sglang_stubs

NAMES = ("model.layers.3.mlp.experts.0.down_proj.weight",
         "model.layers.3.mlp.experts.17.gate_proj.weight",
         "model.layers.3.mlp.experts.0.down_proj.weight_scale_inv",
         "model.layers.3.mlp.shared_experts.up_proj.weight",
         "model.layers.3.mlp.experts.0.down_proj.bias",
         "model.layers.0.self_attn.q_a_proj.weight", "model.embed_tokens.weight",
         "model.layers.3.mlp.gate.weight", "lm_head.weight", "experts_weight_tied")
DTYPES = ("F8_E4M3", "F8_E4M3", "BF16", "BF16", "F32", "F8_E5M2", "f8_e4m3", None)
SHARDS = ("model-00001-of-00003.safetensors", "model-00002-of-00003.safetensors",
          "model-00003-of-00003.safetensors")


def _header(rng: random.Random, names: list[str]) -> Any:
    header: dict[str, Any] = {}
    if rng.random() < 0.3:
        header["__metadata__"] = {"format": "pt", "experts.weight": "F8_E4M3"}
    for name in names:
        meta: Any = {"shape": [1, 1], "data_offsets": [0, 0]}
        dtype = rng.choice(DTYPES)
        if dtype is not None:
            meta["dtype"] = dtype
        if rng.random() < 0.04:
            meta = rng.choice(("F8_E4M3", ["F8_E4M3"], None))  # a field of the wrong type
        header[name] = meta
    if rng.random() < 0.03:
        return [header]
    return header


def _shard_bytes(rng: random.Random, header: Any) -> bytes:
    text = json.dumps(header).encode()
    broken = rng.random()
    if broken < 0.03:
        return struct.pack("<Q", len(text))[: rng.randrange(8)]  # truncated length
    if broken < 0.06:
        return struct.pack("<Q", len(text) + rng.randrange(1, 40)) + text  # past the end
    if broken < 0.09:
        text = text[: max(1, len(text) - rng.randrange(1, 10))]  # bad JSON
    return struct.pack("<Q", len(text)) + text + bytes(rng.randrange(0, 64))


def write(rng: random.Random, folder: Path) -> None:
    """One drawn checkpoint directory (see the module docstring)."""
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps(
        {"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3"}))
    kind = rng.choice(("index", "index", "index", "single", "single", "both", "none"))
    names = rng.sample(NAMES, rng.randrange(0, 6))
    if kind in ("single", "both"):
        (folder / "model.safetensors").write_bytes(_shard_bytes(rng, _header(rng, names)))
    if kind not in ("index", "both"):
        return
    shards = list(SHARDS[: rng.randrange(1, 4)])
    weight_map: Any = {name: rng.choice(shards) for name in names}
    odd = rng.random()
    if odd < 0.03:
        weight_map = list(weight_map)
    elif odd < 0.06 and names:
        weight_map[names[0]] = rng.choice((7, ["a"], "missing.safetensors"))
    index: Any = {"metadata": {"total_size": 0}, "weight_map": weight_map}
    if rng.random() < 0.05:
        del index["weight_map"]
    text = json.dumps(index)
    if rng.random() < 0.03:
        text = text[:-2]
    (folder / "model.safetensors.index.json").write_text(text)
    for shard in shards:
        if rng.random() < 0.08:
            continue  # a shard the map names but the directory lacks
        held = [n for n in names if isinstance(weight_map, dict) and weight_map.get(n) == shard]
        if rng.random() < 0.2:
            held = rng.sample(NAMES, rng.randrange(0, 4))  # a header unlike the map
        (folder / shard).write_bytes(_shard_bytes(rng, _header(rng, held)))


# config.json quantization_configs a DeepSeek V3 checkpoint may carry: none (SGLang reads
# the headers), one without a method (refused first: "Unknown quantization method"), one
# with a method (it copies that)
QUANT: tuple[Any, ...] = (None, None, None, {}, {"fmt": "e4m3"}, {"quant_method": "fp8"},
                          {"quant_method": "modelopt", "quant_algo": "NVFP4"})


def write_line(rng: random.Random, folder: Path) -> tuple[Any, bool]:
    """A drawn DeepSeek V3 checkpoint directory with a drawn quantization_config; returns
    (that config, whether the GPU is SM100)."""
    write(rng, folder)
    quant = rng.choice(QUANT)
    config = json.loads((folder / "config.json").read_text())
    if quant is not None:
        config["quantization_config"] = quant
    (folder / "config.json").write_text(json.dumps(config))
    return quant, rng.random() < 0.8


def graphfit_flag(folder: str, sm100: bool) -> tuple[str, str | None]:
    """graphfit's `--quantization` after the overrides for a DeepSeek V3 line without a
    flag on this directory: ("ok", flag), ("unknown", None) or ("refused", message)."""
    from graphfit import EngineConfig
    from graphfit.inputs import model_config
    from graphfit.planner.core.errors import ConfigError
    from graphfit.planner.engines import sglang_quantization as sq

    try:
        options = {s.field: s.value for s in model_config.quant_settings(folder)}
        config = EngineConfig(engine="sglang", architecture="DeepseekV3ForCausalLM",
                              max_num_seqs=8, options={**options, "sm100": sm100,
                                                       "gpu_capability": 100 if sm100 else 90})
    except ConfigError as exc:
        return "refused", str(exc)
    if not sq.flag_known(config):
        return "unknown", None
    return "ok", sq.resolved_flag(config)


def differs(ours: tuple[str, str | None], theirs: tuple[str, str | None, str | None]) -> bool:
    """graphfit's answer against SGLang's (`sglang_model_quant_oracle.resolve`)."""
    return ours[0] != theirs[0] or (theirs[0] != "refused" and ours[1] != theirs[1])


def sglang_reads(folder: Path) -> bool:
    """SGLang's own has_fp8_weights_in_checkpoint on the directory."""
    with sglang_stubs.fake_cuda():
        from sglang.srt.utils.common import has_fp8_weights_in_checkpoint

        return bool(has_fp8_weights_in_checkpoint(str(folder)))


def compare(root: Path, count: int, seed: int) -> tuple[list[str], dict[str, int]]:
    """(the directories where graphfit's reader and SGLang's differ, counts)."""
    from graphfit.inputs.sglang_safetensors import fp8_experts

    rng, wrong = random.Random(seed), []
    counts = {"cases": count, "fp8": 0, "not fp8": 0}
    for index in range(count):
        folder = root / f"st{index}"
        write(rng, folder)
        theirs = sglang_reads(folder)
        counts["fp8" if theirs else "not fp8"] += 1
        ours = fp8_experts(folder)
        if ours != theirs:
            wrong.append(f"{folder}: graphfit {ours}, SGLang {theirs}")
    return wrong, counts
