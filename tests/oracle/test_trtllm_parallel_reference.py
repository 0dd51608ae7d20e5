"""TensorRT-LLM's tensor parallelism as graph planning sees it, and the feature-mode encoder's
host mirrors: graphfit against the restated engine (tests/oracle/trtllm_reference.py).

* `tensor_parallel_size` / `enable_attention_dp` are read from the LLM-API options (and
  trtllm-serve's `--tp_size`); the attention-DP rank count the plan records
  (`attention_dp_ranks`) is the engine's (`ref.cite_fact("adp_ranks")`), and one batch per
  such rank dispatches as the engine's `_get_padded_batch` does.
* A feature-mode encoder (Whisper) stays eager at TP > 1 (`ref.cite_fact(
  "feature_mode_create")`, the `mapping.tp_size > 1` check): no graph, no buffer rows.
* The two pinned host mirrors of `input_features` (`ref.cite_fact("feature_mode_mirrors")`)
  are planned as `encoder.input_features_host` (leading dim 2): TensorRT-LLM's shapes, and
  every replay's rows fit the planned capacity, one row less the largest does not.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import ConfigError, EngineConfig, plan
from graphfit.inputs.settings import COMMAND_LINE, Setting
from graphfit.planner.engines.trtllm import attention_dp_ranks, plan_adp_dispatch
from graphfit.planner.engines.trtllm_features import MIRROR_BUFFER
from tests.helpers import run_cli
from tests.oracle import trtllm_reference as ref
from tests.oracle.test_trtllm_reference import graphfit_config


@st.composite
def parallel_lines(draw: st.DrawFn) -> tuple[dict[str, Any], int]:
    raw: dict[str, Any] = {"max_batch_size": draw(st.integers(1, 200)),
                           "max_num_tokens": draw(st.integers(1, 2000)),
                           "tensor_parallel_size": draw(st.integers(1, 8)),
                           "enable_attention_dp": draw(st.booleans())}
    cfg: dict[str, Any] = {"enable_padding": draw(st.booleans())}
    if draw(st.booleans()):
        cfg["batch_sizes"] = draw(st.lists(st.integers(1, 200), min_size=1, max_size=6))
    raw["cuda_graph_config"] = cfg
    return raw, draw(st.integers(0, 2**16))


@settings(max_examples=60, deadline=None)
@given(parallel_lines())
def test_attention_dp_ranks_and_dispatch_are_the_engines(case: tuple[dict[str, Any], int]
                                                         ) -> None:
    """The plan's rank count is `_get_padded_batch`'s (the TP ranks under attention DP at TP
    > 1, else one), and for batches of one generation batch per rank graphfit's dispatch is
    the engine's: the all-gathered padding with several ranks, the rank's own padding with
    one. Any other number of rank batches is refused."""
    raw, seed = case
    args = ref.llm_args(raw)
    engine = ref.model_engine(args)
    p = plan(graphfit_config(raw))
    ranks = ref.attention_dp_ranks(args)
    assert attention_dp_ranks(p.config) == ranks, (ref.cite_fact("adp_ranks"), raw)
    shown = dict(p.engine_inputs)
    assert shown.get("attention_dp_ranks") == (str(ranks) if raw["enable_attention_dp"]
                                               else None)
    sizes = p.capture_sizes if p.has_graphs else ()
    rng = random.Random(seed)
    for _ in range(20):
        batches = tuple(rng.randint(1, raw["max_batch_size"]) for _ in range(ranks))
        theirs = (engine.adp_dispatch(batches) if ranks > 1
                  else (engine.dispatch(batches[0]),))
        assert plan_adp_dispatch(p.config, sizes, batches) == theirs, (raw, batches)
    with pytest.raises(ConfigError, match="rank"):
        plan_adp_dispatch(p.config, sizes, (1,) * (ranks + 1))


def test_tp_is_read_from_the_serve_line_and_its_yaml(tmp_path: Any) -> None:
    """trtllm-serve's `--tp_size` and the YAML's `tensor_parallel_size` /
    `enable_attention_dp` reach the plan (the YAML over the flag, as serve.py merges it);
    a vLLM config file's `tensor_parallel_size` stays ignored there."""
    options = tmp_path / "adp.yaml"
    options.write_text(yaml.safe_dump({"enable_attention_dp": True, "max_batch_size": 64}))
    line = ["trtllm-serve", "meta-llama/Llama-3.1-8B", "--tp_size", "4",
            "--extra_llm_api_options", str(options)]
    code, out, err = run_cli(["plan", "--", *line])
    assert code == 0, err
    assert "tensor_parallel_size 4, attention_dp_ranks 4" in out
    options.write_text(yaml.safe_dump({"tensor_parallel_size": 2, "max_batch_size": 64}))
    code, out, err = run_cli(["plan", "--", *line])
    assert code == 0, err
    assert "tensor_parallel_size 2" in out and "attention_dp_ranks" not in out
    vllm = tmp_path / "vllm.yaml"
    vllm.write_text(yaml.safe_dump({"tensor_parallel_size": 4, "max_num_seqs": 64}))
    code, out, err = run_cli(["plan", "--config", str(vllm)])
    assert code == 0, err
    assert "vLLM" in out and "tensor_parallel_size" in out + err  # noted as ignored


@st.composite
def feature_lines(draw: st.DrawFn) -> tuple[dict[str, Any], list[int], int, tuple[Any, ...]]:
    sizes = draw(st.lists(st.integers(1, 12), min_size=1, max_size=6, unique=True))
    fixed = draw(st.integers(1, 5))
    max_bs = draw(st.integers(1, 10))
    tokens = draw(st.integers(1, 60))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=2)))
    dtype = draw(st.sampled_from(["float32", "bfloat16"]))
    tp = draw(st.sampled_from([1, 1, 2, 4]))
    padding = draw(st.booleans())
    raw = {"max_batch_size": 8, "max_num_tokens": 256, "max_seq_len": 64,
           "tensor_parallel_size": tp, "encoder_max_batch_size": max_bs,
           "encoder_max_num_tokens": tokens,
           "encoder_cuda_graph_config": {"batch_sizes": sizes, "enable_padding": padding}}
    return raw, sizes, tp, (shape, dtype, fixed)


def feature_case(case: tuple[dict[str, Any], list[int], int, tuple[Any, ...]]
                 ) -> tuple[Any, EngineConfig]:
    """A `feature_lines` case as the engine's feature-mode runner (`ref.feature_runner_ref`)
    and graphfit's config of it (the spec as the model class's `encoder_feature_spec`)."""
    raw, sizes, tp, spec = case
    shape, dtype, fixed = spec
    theirs = ref.feature_runner_ref(sizes, raw["encoder_cuda_graph_config"]["enable_padding"],
                                    raw["encoder_max_batch_size"],
                                    raw["encoder_max_num_tokens"], spec, tp_size=tp)
    return theirs, graphfit_config(raw, Setting("encoder_feature_spec",
                                                [list(shape), dtype, fixed],
                                                "the model class", COMMAND_LINE))


@settings(max_examples=60, deadline=None)
@given(feature_lines())
def test_feature_mode_tp_and_host_mirrors_are_the_engines(
        case: tuple[dict[str, Any], list[int], int, tuple[Any, ...]]) -> None:
    """At TP > 1 the feature encoder is eager as `EncoderConfigMixin.create` keeps it; at TP
    1 `encoder.input_features_host` is TensorRT-LLM's two mirrors stacked, and every batch
    that replays a graph (replayed in turn, the slots rotating) touches no more rows of its
    slot than planned; one row less, the largest graph's replay goes short."""
    raw, _, tp, spec = case
    shape, dtype, fixed = spec
    theirs, config = feature_case(case)
    assert config.tensor_parallel_size == tp
    p = plan(config)
    comp = p.keyed["encoder"]
    assert bool(comp.graph_keys) == theirs.enabled, (ref.cite_fact("feature_mode_create"), raw)
    assert set(comp.graph_keys) == theirs.capture_keys
    mirrors = comp.buffer(MIRROR_BUFFER)
    tensors = theirs.static_tensors()
    slots = [v for k, v in sorted(tensors.items()) if k.startswith("mirror")]
    if theirs.enabled:
        assert len(slots) == ref.FEATURE_MIRROR_SLOTS
        assert all(s == ((mirrors.reference_capacity, *shape), dtype) for s in slots)
        assert tuple(mirrors.shape) == (len(slots), mirrors.capacity, *shape)
    else:
        assert not slots and mirrors.capacity == 0
    replays = ref.FeatureMirrorsRef(mirrors.capacity)
    for b in range(1, raw["encoder_max_batch_size"] + 1):
        key = theirs.replay_key([fixed] * b)
        if key is None or b * fixed > raw["encoder_max_num_tokens"]:
            continue
        assert comp.lookup((b, b * fixed, fixed)) == key
        replays.replay(key, b)
    assert replays.fits(), (ref.cite_fact("feature_mode_mirrors"), replays.touched)
    assert {s for s, _ in replays.touched} <= set(range(ref.FEATURE_MIRROR_SLOTS))
    assert p.verify().ok
    if comp.graph_keys:
        short = p.verify(capacities={mirrors.key: mirrors.capacity - 1})
        assert not short.ok and {r.buffer for r in short.ranges()} == {MIRROR_BUFFER}
        largest = max(k[0] for k in comp.graph_keys)
        assert not ref.FeatureMirrorsRef(mirrors.capacity - 1, touched=[(0, largest)]).fits()


@pytest.mark.parametrize("pp", [2, 3, 4])
def test_pipeline_refusal_names_the_stage_s_micro_batches(pp: int) -> None:
    """`--pp_size N` is refused in one line (s48t) naming the micro batches the executor keeps
    in flight (`ref.cite_fact("pp_micro_batches")`); a stage's layers are the tensor_split
    share (`ref.cite_fact("pp_layers")`), which sums to the model's layers."""
    line = ["trtllm-serve", "meta-llama/Llama-3.1-8B", "--pp_size", str(pp)]
    code, _, err = run_cli(["plan", "--", *line])
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and len(lines[0]) <= 200, err
    assert f"keeps {ref.pp_micro_batches(pp)} micro batches in flight" in lines[0], err
    layers = ref.pp_stage_layers(32, pp)
    assert sum(layers) == 32 and max(layers) - min(layers) <= 1 and layers == sorted(
        layers, reverse=True)
