"""MiniMax-M3's sparse KV pool, one token's bytes a rank: graphfit (graphfit.planner.engines.
sglang_minimax_kv, the shape read by graphfit.inputs.sglang_minimax_kv from a pasted line's
target directory) vs SGLang 0.5.23's own `PoolConfigurator._compute_cell_size` on the line
SGLang resolves (tests/oracle/sglang_minimax_kv_oracle), per pipeline stage.

The cases cover each branch of the price: dense / sparse / index-K-only layers, a
`sparse_attention_freq` shorter than the layer count, KV heads above / below the attention-TP
width, attention DP, pipeline stages, the KV dtypes, the index dtype's SM90 and SM100
fp8-GEMM paths (the backend flag, the hook's default, the kill switch), the VL wrapper's
nested config and a JSON override. Kept to a handful of SGLang resolutions (CI budget);
`python -m tests.oracle.measure_sglang_minimax_kv` draws more.
"""

from __future__ import annotations

import random
import shlex
from typing import Any

import pytest

from tests.oracle.paths import require

require("sglang")

import graphfit  # noqa: E402
from graphfit.cli.options import resolve_values  # noqa: E402
from graphfit.inputs import commandline  # noqa: E402
from graphfit.planner.core.errors import ConfigError  # noqa: E402
from graphfit.planner.engines.sglang_minimax_kv import (  # noqa: E402
    MiniMaxSparseKv,
    pool_page,
    prices,
)
from tests.oracle import sglang_minimax_kv_oracle as kv  # noqa: E402
from tests.oracle import sglang_minimax_target_oracle as mo  # noqa: E402

CAPABILITY = {"H100": (9, 0), "B200": (10, 0), "A100": (8, 0)}
KILL = (("SGLANG_DISABLE_M3_FP8_ATTN_GEMM", "1"),)
HISPARSE = ("--enable-hisparse", "--disable-radix-cache")


def case(freq: list[int], off: list[int] | None = None, layers: int | None = None,
         kv_heads: int = 4, head_dim: int = 128, index_dim: int = 64, tp: tuple[int, int] = (1, 1),
         pp: int = 1, gpu: str = "H100", more: tuple[str, ...] = (),
         env: tuple[tuple[str, str], ...] = (), nested: bool = False,
         override: dict[str, Any] | None = None) -> dict[str, Any]:
    """One line: the target's fields, its layout and flags."""
    sparse: dict[str, Any] = {"sparse_attention_freq": freq, "sparse_num_index_heads": 4,
                              "sparse_index_dim": index_dim}
    if off is not None:
        sparse["sparse_disable_index_value"] = off
    count = layers or len(freq)
    fields = {"num_hidden_layers": count, "moe_layer_freq": [0] * count,
              "num_key_value_heads": kv_heads, "head_dim": head_dim,
              "qk_norm_type": "per_head", "sparse_attention_config": sparse}
    return {"fields": fields, "tp": tp, "pp": pp, "gpu": gpu, "more": more, "env": env,
            "nested": nested, "override": override}


def argv_of(c: dict[str, Any]) -> tuple[str, ...]:
    tp, dp = c["tp"]
    argv: tuple[str, ...] = ("--tp-size", str(tp), "--attn-dp-size", str(dp))
    argv += () if c["pp"] == 1 else ("--pp-size", str(c["pp"]))
    if c["override"] is not None:
        import json

        argv += ("--json-model-override-args", json.dumps(c["override"]))
    return argv + tuple(c["more"])


def path_of(c: dict[str, Any]) -> str:
    return mo.target_dir(c["fields"], c["nested"], hf_quant=c.get("hf_quant"),
                         modelslim=c.get("modelslim"))


def sglang_prices(c: dict[str, Any]) -> kv.Priced | str:
    return kv.cell_sizes(path_of(c), argv_of(c), CAPABILITY[c["gpu"]], c["env"])


def pasted_line(c: dict[str, Any]) -> list[str]:
    """A case's pasted launch line: its environment words, then SGLang's launch command
    (shared with the draft KV oracle and both measure scripts; issue 23, s56x)."""
    return [*(f"{k}={v}" for k, v in c["env"]), "python", "-m", "sglang.launch_server",
            "--model-path", path_of(c), *argv_of(c)]


def planned_prices(c: dict[str, Any]) -> tuple[Any, Any, MiniMaxSparseKv] | str:
    """graphfit's planned config, per-stage prices and sparse KV shape on the pasted line
    (`--gpu-memory-gb GPU`), "refused: ..." where it refuses the line, "not priced: ..."
    where it shows no figure (shared with the draft KV oracle; issue 23, s56x)."""
    try:
        config = resolve_values({"gpu_memory_gb": c["gpu"]}, environ={},
                                pasted=commandline.read([shlex.join(pasted_line(c))])).config()
        config = graphfit.plan(config).config
    except ConfigError as exc:
        return f"refused: {exc}"
    priced = prices(config)
    if priced is None or isinstance(priced, str):
        return f"not priced: {priced}"
    return config, priced, MiniMaxSparseKv.of(config.minimax_sparse_kv or ())


def graphfit_prices(c: dict[str, Any]) -> kv.Priced | str:
    """graphfit's per-stage totals and page on the pasted line (`planned_prices`)."""
    got = planned_prices(c)
    if isinstance(got, str):
        return got
    config, priced, shape = got
    return tuple(p.total for p in priced), pool_page(config, shape)


CASES = [
    case([0, 1, 1, 1], [0, 0, 1, 0], tp=(2, 1)),  # every layer kind
    case([1, 1], [1, 0], kv_heads=2, tp=(4, 1), index_dim=128),  # heads below the TP width
    case([0, 1, 1], layers=4, tp=(4, 2)),  # freq shorter than the layers; attention DP
    case([0, 1, 1, 0, 1], [0, 1, 0, 0, 1], pp=2, tp=(2, 1)),  # two stages, uneven
    case([0, 1], more=("--kv-cache-dtype", "fp8_e4m3")),  # SM90: fp8 index K
    case([0, 1], more=("--kv-cache-dtype", "fp8_e5m2")),  # SM90 e5m2: model-dtype index
    case([0, 1], gpu="B200", more=("--kv-cache-dtype", "fp8_e4m3")),  # the hook's trtllm_mha
    case([0, 1], gpu="B200", more=("--kv-cache-dtype", "fp8_e4m3"), env=KILL),  # kill switch
    case([0, 1], gpu="B200", more=("--kv-cache-dtype", "fp8_e4m3",
                                   "--attention-backend", "triton")),  # not trtllm_mha
    case([0, 1], gpu="A100", more=("--kv-cache-dtype", "fp8_e4m3")),  # neither path
    case([1, 0], [1, 0], head_dim=64, nested=True, tp=(2, 1)),  # the VL wrapper's text config
    case([0, 1], override={"num_key_value_heads": 8}, more=("--kv-cache-dtype", "bf16")),
    # HiSparse needs the radix cache off (hisparse_hook.py:109-111, issue 23 s67b)
    case([0, 1, 1, 1], [0, 0, 1, 0], tp=(2, 1), more=(*HISPARSE,)),  # ratio 2
    case([0, 1, 1], [0, 1, 0], more=(*HISPARSE, "--hisparse-config",
                                     '{"host_to_device_ratio": 3}')),
]


def draw(rng: random.Random) -> dict[str, Any]:
    """A generated line (the measure script's): layer kinds, shapes, layout, dtype, GPU."""
    count = rng.randint(2, 6)
    freq = [rng.choice((0, 1, 1)) for _ in range(rng.choice((count, count, count - 1)))]
    off = rng.choice((None, [rng.choice((0, 1)) for _ in freq]))
    gpu = rng.choice(("H100", "B200", "A100"))
    more: tuple[str, ...] = ()
    dtype = rng.choice((None, "fp8_e4m3", "fp8_e4m3", "fp8_e5m2", "bf16"))
    more += () if dtype is None else ("--kv-cache-dtype", dtype)
    backend = rng.choice((None, None, "triton", "trtllm_mha" if gpu == "B200" else "fa3"))
    more += () if backend is None else ("--attention-backend", backend)
    if rng.random() < 0.2:
        more += HISPARSE
        more += rng.choice(((), ("--hisparse-config", '{"host_to_device_ratio": 4}')))
    tp = rng.choice(((1, 1), (2, 1), (4, 1), (4, 2), (8, 1)))
    return case(freq, off, layers=count, kv_heads=rng.choice((1, 2, 4, 8)),
                head_dim=rng.choice((64, 128)), index_dim=rng.choice((64, 128)), tp=tp,
                pp=rng.choice((1, 1, 2)), gpu=gpu, more=more,
                env=KILL if rng.random() < 0.2 else (), nested=rng.random() < 0.25)


def verdict(c: dict[str, Any]) -> tuple[str, Any, Any]:
    """("agree" | "differ" | "sglang refuses", SGLang's, graphfit's)."""
    theirs, ours = sglang_prices(c), graphfit_prices(c)
    if isinstance(theirs, str):
        return ("sglang refuses", theirs, ours)
    return ("agree" if theirs == ours else "differ", theirs, ours)


@pytest.mark.parametrize("c", CASES, ids=[str(i) for i in range(len(CASES))])
def test_sparse_kv_price_equals_sglang(c: dict[str, Any]) -> None:
    outcome, theirs, ours = verdict(c)
    assert outcome == "agree", (theirs, ours, argv_of(c), c["fields"])


def test_the_plan_shows_sglang_price() -> None:
    """The plan's line states SGLang's figure per token and per page (the first case)."""
    from graphfit.planner.engines.sglang_minimax_kv import sparse_kv_line

    c = CASES[0]
    theirs = sglang_prices(c)
    assert not isinstance(theirs, str), theirs
    (total,), page = theirs
    line = [*(f"{k}={v}" for k, v in c["env"]), "python", "-m", "sglang.launch_server",
            "--model-path", path_of(c), *argv_of(c)]
    config = graphfit.plan(resolve_values({"gpu_memory_gb": c["gpu"]}, environ={},
                                          pasted=commandline.read([shlex.join(line)])).config()
                           ).config
    shown = sparse_kv_line(config)
    assert shown is not None and shown[0] == "minimax_sparse_kv"
    assert f"{total} B a token" in shown[1] and f"{total * page} B a page of {page}" in shown[1]


# the override hook serves mxfp8 projections with NVFP4 packed experts as minimax_m3_nvfp4
# (arg_groups/model_overrides/minimax_m3.py:18-34); on Blackwell the pool is the packed one
NVFP4 = {"quantization_config": {"quant_method": "mxfp8", "moe_quant_algo": "NVFP4",
                                 "moe_quant_format": "nvfp4-pack-quantized",
                                 "activation_scheme": "dynamic", "weight_block_size": [1, 32]}}


@pytest.mark.parametrize("c", [case([0, 1, 1], [0, 0, 1], more=("--page-size", "128")),
                               case([1, 1, 0, 1], kv_heads=8, tp=(2, 1), index_dim=128)],
                         ids=["tp1", "tp2"])
def test_packed_nvfp4_price_equals_sglang(c: dict[str, Any]) -> None:
    """The packed layout's price (`cell_price(packed=True)` on the shape graphfit reads) is
    SGLang's on a B200. The plan itself does not reach it: graphfit refuses every
    minimax_m3_nvfp4 line (sglang_arch_overrides, issue 23 s50p's report)."""
    from graphfit.inputs.sglang_minimax_kv import shape_of
    from graphfit.planner.engines.sglang_minimax_kv import cell_price

    c = {**c, "gpu": "B200", "fields": {**c["fields"], **NVFP4}}
    theirs = sglang_prices(c)
    assert not isinstance(theirs, str), theirs
    import json
    from pathlib import Path

    raw = shape_of(json.loads(Path(path_of(c), "config.json").read_text()), nvfp4=True)
    assert raw is not None
    shape = MiniMaxSparseKv.of(raw)
    tp, dp = c["tp"]
    ours = cell_price(shape, (0, shape.num_layers), tp // dp, 1, 1, packed=True).total
    assert theirs == ((ours,), 128)
