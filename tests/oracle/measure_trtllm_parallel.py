"""Agreement of graphfit with the restated TensorRT-LLM over N generated lines with tensor
parallelism (not a test; tests/oracle/test_trtllm_parallel_reference.py is):

    python -m tests.oracle.measure_trtllm_parallel 400

Decode lines (tensor_parallel_size 1..8, enable_attention_dp on or off): the attention-DP rank
count and, for 20 random sets of one generation batch per rank, the graph every rank replays.
Feature-mode encoder lines (TP 1, 2 or 4): whether the encoder has graphs, their keys, and the
host mirrors' rows against every replay. Each count is printed twice: graphfit as it reads
the line, and graphfit with the line's tensor_parallel_size dropped (what graphfit read before
TP was an input: every line at TP 1), against the same reference in the same run.
"""

from __future__ import annotations

import contextlib
import random
import sys
import time
from typing import Any

from graphfit import ConfigError, EngineConfig, plan
from graphfit.inputs.settings import COMMAND_LINE, Setting
from graphfit.planner.engines.trtllm import attention_dp_ranks, plan_adp_dispatch
from graphfit.planner.engines.trtllm_features import MIRROR_BUFFER
from tests.oracle import trtllm_reference as ref
from tests.oracle.test_trtllm_reference import graphfit_config


def _config(raw: dict[str, Any], *extra: Setting, drop_tp: bool = False) -> EngineConfig:
    """graphfit's reading of the line (the tests' reader), `tensor_parallel_size` dropped
    with `drop_tp` (what graphfit computed before it read the key)."""
    line = {k: v for k, v in raw.items() if not (drop_tp and k == "tensor_parallel_size")}
    return graphfit_config(line, *extra)


def _decode(rng: random.Random, drop_tp: bool) -> tuple[bool, int, int]:
    """(ranks agree, dispatches agreeing, dispatches compared) for one drawn line."""
    raw: dict[str, Any] = {"max_batch_size": rng.randint(1, 200),
                           "max_num_tokens": rng.randint(1, 2000),
                           "tensor_parallel_size": rng.randint(1, 8),
                           "enable_attention_dp": rng.random() < 0.5,
                           "cuda_graph_config": {"enable_padding": rng.random() < 0.5}}
    if rng.random() < 0.5:
        raw["cuda_graph_config"]["batch_sizes"] = [rng.randint(1, 200)
                                                   for _ in range(rng.randint(1, 6))]
    args = ref.llm_args(raw)
    engine = ref.model_engine(args)
    p = plan(_config(raw, drop_tp=drop_tp))
    theirs, mine = ref.attention_dp_ranks(args), attention_dp_ranks(p.config)
    sizes = p.capture_sizes if p.has_graphs else ()
    agree = 0
    for _ in range(20):
        batches = tuple(rng.randint(1, raw["max_batch_size"]) for _ in range(theirs))
        expected = (engine.adp_dispatch(batches) if theirs > 1
                    else (engine.dispatch(batches[0]),))
        with contextlib.suppress(ConfigError):  # graphfit's rank count is not the engine's
            agree += plan_adp_dispatch(p.config, sizes, batches) == expected
    return theirs == mine, agree, 20


def _feature(rng: random.Random, drop_tp: bool) -> tuple[bool, bool]:
    """(graphs and keys agree, every replay's mirror rows fit the plan) for one drawn line."""
    sizes = rng.sample(range(1, 13), rng.randint(1, 6))
    padding, fixed = rng.random() < 0.5, rng.randint(1, 5)
    max_bs, tokens, tp = rng.randint(1, 10), rng.randint(1, 60), rng.choice([1, 1, 2, 4])
    shape = tuple(rng.randint(1, 4) for _ in range(rng.randint(1, 2)))
    raw = {"max_batch_size": 8, "max_num_tokens": 256, "max_seq_len": 64,
           "tensor_parallel_size": tp, "encoder_max_batch_size": max_bs,
           "encoder_max_num_tokens": tokens,
           "encoder_cuda_graph_config": {"batch_sizes": sizes, "enable_padding": padding}}
    spec = (shape, "float32", fixed)
    theirs = ref.feature_runner_ref(sizes, padding, max_bs, tokens, spec, tp_size=tp)
    p = plan(_config(raw, Setting("encoder_feature_spec", [list(shape), "float32", fixed],
                                  "the model class", COMMAND_LINE), drop_tp=drop_tp))
    comp = p.keyed["encoder"]
    replays = ref.FeatureMirrorsRef(comp.buffer(MIRROR_BUFFER).capacity)
    for b in range(1, max_bs + 1):
        key = theirs.replay_key([fixed] * b)
        if key is not None and b * fixed <= tokens:
            replays.replay(key, b)
    return set(comp.graph_keys) == theirs.capture_keys, replays.fits()


def main(n: int) -> int:
    start = time.perf_counter()
    for label, drop in (("graphfit", False), ("graphfit without TP", True)):
        rng = random.Random(0)  # the same lines for both readings
        ranks = dispatched = compared = 0
        for _ in range(n):
            same, agree, total = _decode(rng, drop)
            ranks, dispatched, compared = ranks + same, dispatched + agree, compared + total
        keys = fits = 0
        for _ in range(n):
            same_keys, fit = _feature(rng, drop)
            keys, fits = keys + same_keys, fits + fit
        print(f"{label}: attention-DP ranks agree {ranks}/{n}, rank dispatches agree "
              f"{dispatched}/{compared}; feature encoders' graphs agree {keys}/{n}, mirror "
              f"rows fit every replay {fits}/{n}")
    print(f"({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 200))
