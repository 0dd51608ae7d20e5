"""TensorRT-LLM's prefill CUDA graphs (piecewise / breakable) as the plan's `prefill` component.

Each rule is checked against its restatement in tests/oracle/trtllm_reference.py, which cites
the source read (`ref.cite_fact(...)` names path@commit:lines and the function):

* `normalize_prefill`: TorchLlmArgs.normalize_prefill_cuda_graph_config
  (tensorrt_llm/llmapi/llm_args.py@0004396720:6216-6273) -- the legacy
  torch_compile_config spellings, the default list, conflicts;
* `filter_piecewise_capture_num_tokens`:
  tensorrt_llm/_torch/pyexecutor/model_engine.py@c0edad93fd:207-248
  `_filter_piecewise_capture_num_tokens` (= `_filter_prefill_capture_num_tokens`);
* `get_padding_params`: tensorrt_llm/_torch/pyexecutor/engine/runners/common.py@13b902ed48:84-145
  (one rank and attention DP), whose own unit-test examples are replayed below.

Properties: pad(n) >= n and minimal over the component's ladder, eager above its largest count,
padded <= capacity for every reachable batch (the plan's proof, and directly per batch), and
the buffers TensorRT-LLM allocates (max_num_tokens rows) hold what graphfit plans.
"""

from __future__ import annotations

import json
from bisect import bisect_left
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tests.oracle.trtllm_reference as ref
from graphfit import ConfigError, CUDAGraphMode, EngineConfig, plan
from graphfit.inputs.config_file import mapping_settings
from graphfit.inputs.settings import merge
from graphfit.planner.engines.trtllm_ladders import (
    DEFAULT_PREFILL_CAPTURE_NUM_TOKENS,
    prefill_padding,
)
from graphfit.planner.engines.trtllm_prefill import prefill_counts
from tests.helpers import run_cli


def trt(**kw: Any) -> EngineConfig:
    return EngineConfig.from_dict({"engine": "trtllm", **kw})


@st.composite
def configs(draw: st.DrawFn) -> EngineConfig:
    """S, T, max_seq_len, a backend that is on, the default list or a drawn one, mrope."""
    backend = draw(st.sampled_from(("piecewise", "breakable")))
    fields: dict[str, Any] = {
        "max_num_seqs": draw(st.integers(1, 300)),
        "max_num_batched_tokens": draw(st.integers(1, 5000)),
        "max_model_len": draw(st.integers(1, 4096)),
        "prefill_cuda_graph_backend": backend,
        "multimodal": backend == "piecewise" and draw(st.booleans()),
    }
    if draw(st.booleans()):
        fields["prefill_capture_num_tokens"] = draw(
            st.lists(st.integers(-4, 6000), max_size=12))
    return trt(**fields)


# ------------------------------------------------------------------------------ the sources


def test_default_list_and_backend_values() -> None:
    """_DEFAULT_PREFILL_CAPTURE_NUM_TOKENS and PrefillCudaGraphBackend
    (ref.cite_fact("prefill_backend_enum"))."""
    assert list(DEFAULT_PREFILL_CAPTURE_NUM_TOKENS) == ref.DEFAULT_PREFILL_CAPTURE_NUM_TOKENS
    p = plan(trt(max_num_seqs=64, max_num_batched_tokens=8192, max_model_len=4096,
                 prefill_cuda_graph_backend="piecewise"))
    assert p.component("prefill").tables.sizes == DEFAULT_PREFILL_CAPTURE_NUM_TOKENS
    assert "prefill" not in plan(trt(max_num_seqs=64)).components  # disabled by default
    with pytest.raises(ConfigError, match="prefill_cuda_graph_backend"):
        trt(max_num_seqs=8, prefill_cuda_graph_backend="full")


@pytest.mark.parametrize(("args", "expected"), [
    # test_padding_params_round_up_to_capture_bucket (both backends)
    ((129, 1, None, None), (256, True, None)),
    # test_attention_dp_padding_uses_all_rank_context_and_token_counts
    ((1, 0, [1, 129, 1, 1], [0, 1, 0, 0]), (256, True, [256] * 4)),
    ((1, 0, [1, 129, 1, 1], [0, 0, 0, 0]), (1, False, [1, 129, 1, 1])),
    ((1, 0, [1, 513, 1, 1], [0, 1, 0, 0]), (1, False, [1, 513, 1, 1])),
])
def test_tensorrt_llms_own_padding_examples(args: tuple[Any, ...],
                                            expected: tuple[Any, ...]) -> None:
    """TensorRT-LLM's unit tests of get_padding_params over [128, 256, 512], against the
    reference and graphfit (ref.cite_fact("prefill_padding"))."""
    total, ctx, ranks, rank_ctx = args
    sizes = [128, 256, 512]
    for backend in ("piecewise", "breakable"):
        assert ref.get_padding_params(total, ctx, ranks, backend, sizes, rank_ctx) == expected
    padded, replay, out = prefill_padding(sizes, total, ctx, ranks, rank_ctx)
    assert (padded, replay, None if out is None else list(out)) == expected


@given(st.lists(st.integers(1, 3000), max_size=8).map(lambda v: sorted(set(v))),
       st.lists(st.tuples(st.integers(1, 4000), st.integers(0, 3)), min_size=1, max_size=6),
       st.booleans())
def test_prefill_padding_is_get_padding_params(sizes: list[int],
                                               ranks: list[tuple[int, int]],
                                               adp: bool) -> None:
    """graphfit's restatement equals the reference on one rank and under attention DP."""
    tokens = [t for t, _ in ranks]
    contexts = [c for _, c in ranks]
    own_tokens, own_ctx = ranks[0]
    want = ref.get_padding_params(own_tokens, own_ctx, tokens if adp else None, "piecewise",
                                  sizes, contexts if adp else None)
    got = prefill_padding(sizes, own_tokens, own_ctx, tokens if adp else None,
                          contexts if adp else None)
    assert (got[0], got[1], None if got[2] is None else list(got[2])) == want
    if got[1]:
        assert got[0] in sizes  # a padded forward is always a captured count


RAW_CASES: list[dict[str, Any]] = [
    {"prefill_cuda_graph_backend": "piecewise"},
    {"prefill_cuda_graph_backend": "breakable", "prefill_capture_num_tokens": [64, 8, 8]},
    {"torch_compile_config": {"enable_piecewise_cuda_graph": True}},
    {"torch_compile_config": {"enable_piecewise_cuda_graph": True,
                              "capture_num_tokens": [512, 64]}},
    {"torch_compile_config": {"capture_num_tokens": [512, 64]}},
    {"prefill_cuda_graph_backend": "piecewise",
     "torch_compile_config": {"enable_piecewise_cuda_graph": True}},
    {"prefill_cuda_graph_backend": "breakable",
     "torch_compile_config": {"enable_piecewise_cuda_graph": True}},
    {"prefill_cuda_graph_backend": "disabled",
     "torch_compile_config": {"enable_piecewise_cuda_graph": True}},
    {"prefill_capture_num_tokens": [64, 512],
     "torch_compile_config": {"enable_piecewise_cuda_graph": True,
                              "capture_num_tokens": [512, 64, 64]}},
    {"prefill_capture_num_tokens": [64],
     "torch_compile_config": {"enable_piecewise_cuda_graph": True,
                              "capture_num_tokens": [512]}},
    {"prefill_cuda_graph_backend": "piecewise", "prefill_capture_num_tokens": []},
    {"torch_compile_config": {"enable_piecewise_cuda_graph": True,
                              "capture_num_tokens": [0, 64]}},
    {"prefill_cuda_graph_backend": "breakable", "torch_compile_config": {}},
    {"prefill_cuda_graph_backend": "breakable", "torch_compile_config": None},
    {"prefill_cuda_graph_backend": "piecewise", "torch_compile_config": {"enable_inductor": True}},
]


@pytest.mark.parametrize("raw", RAW_CASES, ids=lambda r: str(sorted(r.items())))
def test_the_reader_normalizes_as_tensorrt_llm(raw: dict[str, Any]) -> None:
    """The LLM-API YAML keys (new and legacy) give the backend and the list TensorRT-LLM's
    normalize_prefill_cuda_graph_config gives, or both refuse (ref.cite_fact(
    "prefill_normalize"), ref.cite_fact("torch_compile_config"))."""
    try:
        want = ref.normalize_prefill(raw)
    except ref.Rejected:
        with pytest.raises(ConfigError):
            plan(merge(*mapping_settings(raw, "x")).config(max_num_seqs=64))
        return
    config = merge(*mapping_settings(raw, "x")).config(max_num_seqs=64)
    backend, buckets = want
    assert config.prefill_cuda_graph_backend == backend
    listed = config.prefill_capture_num_tokens
    if backend == "disabled":
        assert prefill_counts(config) == ((), ())
        return
    effective = DEFAULT_PREFILL_CAPTURE_NUM_TOKENS if listed is None else listed
    assert buckets is not None and sorted(set(effective)) == sorted(set(buckets))


@given(configs())
def test_captured_counts_are_the_engines_filter(config: EngineConfig) -> None:
    """The component's ladder is _filter_prefill_capture_num_tokens over the list
    (ref.cite_fact("piecewise_filter")); no component when it keeps nothing."""
    wanted = config.prefill_capture_num_tokens
    candidates = ref.DEFAULT_PREFILL_CAPTURE_NUM_TOKENS if wanted is None else list(wanted)
    kept, unrecordable = ref.filter_piecewise_capture_num_tokens(
        candidates, config.max_num_batched_tokens, config.max_num_seqs, config.max_model_len)
    assert prefill_counts(config) == (tuple(kept), tuple(unrecordable))
    p = plan(config)
    if kept:
        assert p.component("prefill").tables.sizes == tuple(kept)
    else:
        assert "prefill" not in p.components
        assert any("no token count" in w for w in p.warnings)
    if unrecordable:
        assert any("clamped" in w for w in p.warnings)


# ---------------------------------------------------------------------------- properties


@given(configs(), st.data())
def test_pad_is_next_size_up_and_eager_above_the_largest(config: EngineConfig,
                                                         data: st.DataObject) -> None:
    """A mixed batch of n tokens pads to the smallest captured count >= n (pad(n) >= n and
    minimal over the ladder), runs eagerly unpadded above the largest, and equals
    get_padding_params with a context request; uniform decodes (no context request) never
    replay a prefill graph."""
    p = plan(config)
    if "prefill" not in p.components:
        return
    sizes = p.component("prefill").tables.sizes
    T = config.max_num_batched_tokens
    for n in {1, sizes[-1], min(T, sizes[-1] + 1), T,
              data.draw(st.integers(1, T), label="n")}:
        d = p.pad(n, component="prefill")
        want, replay, _ = ref.get_padding_params(n, 1, None, "piecewise", list(sizes))
        assert (d.mode is CUDAGraphMode.PIECEWISE) == replay and d.padded == want
        if n <= sizes[-1]:
            assert d.padded >= n and d.padded in sizes
            assert d.padded == sizes[bisect_left(sizes, n)]  # no smaller size holds n
            assert d.num_reqs is None
        else:
            assert d.mode is CUDAGraphMode.NONE and d.padded == n
        r = min(n, config.max_num_seqs)  # a uniform decode of r one-token requests
        assert p.pad(r, uniform_decode=True, component="prefill").mode is CUDAGraphMode.NONE


@given(configs())
def test_every_reachable_prefill_fits_and_the_engines_allocation_suffices(
        config: EngineConfig) -> None:
    """padded <= capacity for every reachable batch (the proof; and per batch below), and
    TensorRT-LLM's own max_num_tokens rows (the reference capacities) hold the same."""
    p = plan(config)
    assert p.verify().ok
    reference = {b.key: b.reference_capacity for comp in p.components.values()
                 for b in comp.buffers}
    if config.max_beam_width == 1:
        assert p.verify(reference).ok
    if "prefill" not in p.components:
        return
    comp = p.component("prefill")
    T = config.max_num_batched_tokens
    for b in comp.buffers:
        assert b.axis.value == "tokens" and b.capacity == T == b.reference_capacity
    for n in (*comp.tables.sizes, T):
        assert p.pad(n, component="prefill").padded <= min(b.capacity for b in comp.buffers)


def test_breakable_refuses_multimodal_models() -> None:
    """_validate_breakable_cuda_graph_compatibility (called from `PyTorchModelEngine.__init__`,
    tensorrt_llm/_torch/pyexecutor/model_engine.py@c0edad93fd:474) refuses them."""
    with pytest.raises(ConfigError, match="breakable prefill CUDA graphs do not support"):
        plan(trt(max_num_seqs=8, multimodal=True, prefill_cuda_graph_backend="breakable"))
    mrope = plan(trt(max_num_seqs=8, multimodal=True, prefill_cuda_graph_backend="piecewise"))
    shapes = {b.name: b.shape for b in mrope.component("prefill").buffers}
    assert shapes["mrope_position_ids"] == (3, 1, 8192)


# --------------------------------------------------------------------------------- the CLI


def test_cli_plans_the_prefill_component_from_a_yaml(tmp_path: Path) -> None:
    """An LLM-API YAML with legacy piecewise graphs plans the component, says so on the
    inputs line and in a note, and proves it SAFE."""
    path = tmp_path / "extra.yaml"
    path.write_text("max_batch_size: 64\nmax_num_tokens: 4096\nmax_seq_len: 2048\n"
                    "torch_compile_config:\n  enable_piecewise_cuda_graph: true\n"
                    "  capture_num_tokens: [4096, 64, 512, 1000]\n")
    code, out, err = run_cli(["plan", "--engine", "trtllm", "--config", str(path), "--json"])
    assert code == 0, err
    doc = json.loads(out)
    prefill = doc["components"]["prefill"]
    assert [b["name"] for b in prefill["buffers"]] == ["input_ids", "position_ids"]
    assert all(b["capacity"] == 4096 for b in prefill["buffers"])
    assert doc["verification"]["ok"] is True
    assert "enable_piecewise_cuda_graph is deprecated" in err
    code, out, _ = run_cli(["plan", "--engine", "trtllm", "--config", str(path)])
    assert code == 0
    assert "prefill_cuda_graph_backend piecewise: 4 token counts 64..4096" in " ".join(
        out.split())
    bad = tmp_path / "bad.yaml"
    for text, needle in [
            ("prefill_cuda_graph_backend: full\n", "'full' is not one of disabled, piecewise"),
            ("prefill_cuda_graph_backend: breakable\ntorch_compile_config:\n"
             "  enable_piecewise_cuda_graph: true\n", "enable_piecewise_cuda_graph gives"),
            ("prefill_cuda_graph_backend: breakable\nmax_batch_size: 8\n",
             None)]:
        bad.write_text(text)
        code, _, err = run_cli(["plan", "--engine", "trtllm", "--config", str(bad)])
        if needle is None:
            assert code == 0, err
            continue
        lines = err.strip().splitlines()
        assert code == 2 and len(lines) == 1 and lines[0].startswith("error: ")
        assert needle in lines[0] and len(lines[0]) <= 200


def test_encoder_graphs_of_encoder_only_models_are_a_component(tmp_path: Path) -> None:
    """Encoder graphs are keyed on (batch size, num_tokens bucket, seq_len bucket): graphfit
    plans the encoder-only runner's (`cuda_graph_config: {mode: encode}`) as the keyed
    `encoder` component (tests/oracle/test_trtllm_encoder_reference.py compares it with the
    engine's code); an encoder-decoder model's `encoder_cuda_graph_config` is the same
    component, for the encoder-decoder runner (tests/oracle/test_trtllm_encdec_reference.py),
    beside the decoder's graphs. Mode encode with one bucket list unset keeps the encode step
    eager: a component without graphs."""
    path = tmp_path / "enc.yaml"
    path.write_text("max_batch_size: 8\nencoder_max_batch_size: 4\n"
                    "encoder_cuda_graph_config:\n  max_num_token: 64\n  max_seq_len: 32\n")
    code, out, err = run_cli(["plan", "--engine", "trtllm", "--config", str(path), "--json"])
    assert code == 0, err
    document = json.loads(out)
    encoder = document["keyed_components"]["encoder"]
    assert encoder["graphs"] and encoder["bounds"][0] == 4  # encoder_max_batch_size
    assert document["ladder"]["capture_sizes"] == list(range(1, 9))  # the decoder's graphs
    path.write_text("cuda_graph_config:\n  mode: encode\n  max_num_token: 64\n")
    code, out, err = run_cli(["plan", "--engine", "trtllm", "--config", str(path), "--json"])
    assert code == 0 and "stays eager" not in out and "keeps the encode step eager" in err
    document = json.loads(out)
    assert document["keyed_components"]["encoder"]["graphs"] == []
    path.write_text("max_batch_size: 8\nmax_num_tokens: 256\nmax_seq_len: 64\n"
                    "cuda_graph_config:\n  max_num_token: 256\n  max_seq_len: 64\n")
    code, out, err = run_cli(["plan", "--engine", "trtllm", "--config", str(path), "--json"])
    assert code == 0, err
    encoder = json.loads(out)["keyed_components"]["encoder"]
    assert encoder["graphs"] and encoder["bounds"] == [8, 256, 64]
