"""Where TensorRT-LLM's encoder runners keep their static tensors, and graphfit's placements.

`EncoderCUDAGraphRunner._create_shared_static_tensors` (`ref.cite_fact(
"encoder_token_placement")`, feature mode `ref.cite_fact("feature_mode_runner")`) allocates
device tensors the graphs read and host tensors it stages them in (pinned copies of
`input_ids` / `position_ids`, `seq_lens`, the feature mirrors, the pageable `_arange_max`).
Over generated configs of the three runners (encoder-only, encoder-decoder, feature mode):
every tensor the engine allocates is a planned buffer of its placement, shape (at the
engine's rows) and dtype, none is planned that the engine does not allocate, and the plan's
device and host reference bytes are the engine's device and host bytes. The device figure
holds no host byte.

Each graph's device sequence lengths (`ref.cite_fact("encoder_graph_seq_lens_cuda")`): the
engine gives every captured key's graph attention metadata its own (b,) int32
`_seq_lens_cuda`; graphfit plans one `seq_lens_cuda` of the largest captured batch size,
staged by the host `seq_lens`, whose reference rows are the engine's over all its keys. Which
host buffers the plan pins is which the engine allocates with `pin_memory=prefer_pinned()`
(`ref.pinned_host_tensors`).
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings

from graphfit import plan
from graphfit.planner.core.layout import lay_out
from graphfit.planner.engines.trtllm_features import MIRROR_BUFFER
from graphfit.planner.keyed_plan import KeyedComponentPlan
from tests.oracle import trtllm_reference as ref
from tests.oracle.test_trtllm_encdec_reference import encdec_args
from tests.oracle.test_trtllm_encoder_reference import encode_args
from tests.oracle.test_trtllm_parallel_reference import feature_case, feature_lines
from tests.oracle.test_trtllm_reference import graphfit_config

# graphfit's buffer -> the engine's tensor (placement, name in its dict or attribute)
TOKEN_NAMES = {"input_ids": (ref.DEVICE, "input_ids"),
               "position_ids": (ref.DEVICE, "position_ids"),
               "input_ids_host": (ref.HOST, "input_ids"),
               "position_ids_host": (ref.HOST, "position_ids"),
               "seq_lens": (ref.HOST, "seq_lens"),
               "arange_max": (ref.HOST, "_arange_max"),
               "seq_lens_cuda": (ref.DEVICE, "_seq_lens_cuda")}
GRAPH_OWNED = "seq_lens_cuda"  # one engine tensor per captured key, not one static tensor


def _engine_view(comp: KeyedComponentPlan) -> dict[tuple[str, str], tuple[tuple[int, ...],
                                                                          str]]:
    """The planned buffers as the engine's tensors: (placement, engine name) -> (shape at
    the engine's rows, dtype)."""
    out = {}
    for b in comp.buffers:
        if b.name == GRAPH_OWNED:
            continue
        shape = (*b.spec.leading, b.reference_capacity, *b.spec.trailing)
        out[TOKEN_NAMES[b.name]] = (shape, b.dtype)
    return out


def _device_figure_has_no_host_byte(p: Any, comp: KeyedComponentPlan) -> None:
    device = [b for b in comp.buffers if b.on_device]
    assert comp.total_bytes == lay_out([b.bytes for b in device], comp.layout,
                                       comp.alignment)[1]
    assert comp.host_bytes == sum(b.bytes for b in comp.buffers if not b.on_device)
    assert p.host_bytes == comp.host_bytes  # the encoders' are a plan's only host buffers


def _check_graph_lengths(comp: KeyedComponentPlan, captured: Any, raw: Any) -> int:
    """The planned `seq_lens_cuda` against the engine's per-key tensors: every key's rows fit
    the plan's capacity, its reference bytes are theirs; returns their bytes."""
    theirs = ref.graph_seq_lens_cuda(captured)
    engine_bytes = ref.placed_bytes({(ref.DEVICE, str(k)): v for k, v in theirs.items()},
                                    ref.DEVICE)
    b = comp.buffer(GRAPH_OWNED)
    assert b.on_device and b.dtype == "int32", raw
    assert b.reference_bytes == engine_bytes, (ref.cite_fact("encoder_graph_seq_lens_cuda"),
                                                raw)
    assert all(shape[0] <= b.capacity for shape, _ in theirs.values()), raw
    assert {k: comp.dispatch.rows_of(k, GRAPH_OWNED) for k in comp.dispatch.captured} == {
        k: shape[0] for k, (shape, _) in theirs.items()}, raw
    return engine_bytes


def _pinned_of(comp: KeyedComponentPlan, names: dict[str, str]) -> frozenset[str]:
    return frozenset(names[b.name] for b in comp.buffers if b.pinned)


def _check_token_runner(raw: dict[str, Any], theirs: Any) -> None:
    p = plan(graphfit_config(raw))
    comp = p.keyed["encoder"]
    _device_figure_has_no_host_byte(p, comp)
    if not theirs.enabled:  # graphs off: the runner creates no static tensor at all
        assert (comp.reference_bytes, comp.host_reference_bytes) == (0, 0), raw
        assert not theirs.captured_keys(), raw  # nor any graph's metadata
        return
    tensors = ref.token_mode_tensors(theirs.static_rows(), theirs.seq_lens_rows())
    assert _engine_view(comp) == tensors, (ref.cite_fact("encoder_token_placement"), raw)
    # each host copy stages (refills before a replay) the device tensor the engine's does
    staged = {TOKEN_NAMES[b.name]: TOKEN_NAMES[b.stages] for b in comp.buffers if b.stages}
    assert staged == ref.TOKEN_STAGING_ALL, (ref.cite_fact("encoder_token_staging"), raw)
    graphs = _check_graph_lengths(comp, theirs.captured_keys(), raw)
    assert comp.reference_bytes == ref.placed_bytes(tensors, ref.DEVICE) + graphs
    host_names = {b: name for b, (where, name) in TOKEN_NAMES.items() if where == ref.HOST}
    assert _pinned_of(comp, host_names) == ref.pinned_host_tensors(False), (
        ref.cite_fact("encoder_token_placement"), raw)
    assert comp.host_reference_bytes == ref.placed_bytes(tensors, ref.HOST)


@settings(max_examples=40, deadline=None)
@given(encode_args())
def test_encoder_only_runner_placements_are_the_engines(raw: dict[str, Any]) -> None:
    _check_token_runner(raw, ref.encoder_runner_from_args(raw))


@settings(max_examples=30, deadline=None)
@given(encdec_args())
def test_encoder_decoder_runner_placements_are_the_engines(raw: dict[str, Any]) -> None:
    _check_token_runner(raw, ref.encdec_runner_from_args(raw)[0])


@settings(max_examples=30, deadline=None)
@given(feature_lines())
def test_feature_mode_placements_are_the_engines(
        case: tuple[dict[str, Any], list[int], int, tuple[Any, ...]]) -> None:
    raw = case[0]
    theirs, config = feature_case(case)
    p = plan(config)
    comp = p.keyed["encoder"]
    _device_figure_has_no_host_byte(p, comp)
    tensors = ref.feature_mode_tensors(theirs)
    placed = {b.name: b.placement.value for b in comp.buffers}
    assert placed == {"input_features": ref.DEVICE, "seq_lens": ref.HOST,
                      MIRROR_BUFFER: ref.HOST, GRAPH_OWNED: ref.DEVICE}, \
        ref.cite_fact("feature_mode_runner")
    assert {where for where, name in tensors if name == "seq_lens"} <= {ref.HOST}
    graphs = _check_graph_lengths(comp, theirs.capture_keys if theirs.enabled else set(),
                                  raw)
    assert comp.reference_bytes == ref.placed_bytes(tensors, ref.DEVICE) + graphs
    # the mirrors are one planned buffer of MIRRORS slots: pinned iff every mirror is
    pinned = {b.name for b in comp.buffers if b.pinned}
    engine = {n if n == "seq_lens" else MIRROR_BUFFER for n in ref.pinned_host_tensors(True)}
    assert pinned == engine, (ref.cite_fact("feature_mode_runner"), raw)
    assert {b.name: b.stages for b in comp.buffers if b.stages} == {
        "seq_lens": GRAPH_OWNED, MIRROR_BUFFER: "input_features"}, raw
    assert comp.host_reference_bytes == ref.placed_bytes(tensors, ref.HOST), (
        ref.cite_fact("feature_mode_runner"), raw)
