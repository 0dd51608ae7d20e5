"""A keyed component in the plan (graphs keyed on (requests, tokens, longest request)):
engine-neutral sizing and proof (graphfit.planner.keyed_plan), the plan document, the CLI's
tables and `check --plan`, with TensorRT-LLM's encoder-only graphs as the engine that has one
(tests/oracle/test_trtllm_encoder_reference.py compares that component with the engine's
code)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import ConfigError, EngineConfig, Plan, plan
from graphfit.planner.core.batches import Stream
from graphfit.planner.core.buffers import ZERO, Axis, BufferSpec, Demand
from graphfit.planner.core.keyed import KeyedDispatch, reachable_keys, split
from graphfit.planner.document import plan_document
from graphfit.planner.engines.base import KeyedComponentModel
from graphfit.planner.keyed_plan import KeyedComponentPlan, keyed_capacities, keyed_rows
from graphfit.planner.plan import BufferPlan
from tests.helpers import run_cli, saved_plan


def encode_config(S: int = 8, T: int = 256, L: int = 64, *, padding: bool = True,
                  num_tokens: tuple[int, ...] | None = (16, 64, 128, 256),
                  seq_lens: tuple[int, ...] | None = (8, 32, 64)) -> EngineConfig:
    return EngineConfig.from_dict({
        "engine": "trtllm", "max_num_seqs": S, "max_num_batched_tokens": T,
        "max_model_len": L, "cuda_graph_padding": padding,
        "options": {"cuda_graph_mode": "encode", "encode_num_tokens": num_tokens,
                    "encode_seq_lens": seq_lens}})


def _bucket_dispatch(buckets: tuple[int, ...]) -> KeyedDispatch:
    """An engine-neutral toy rule: pad the tokens to the next bucket, key (1, bucket, 0)."""
    def rule(batch: tuple[int, int, int]) -> tuple[int, ...] | None:
        n = batch[1]
        return next(((1, t, 0) for t in buckets if t >= n), None)
    return KeyedDispatch(rule, frozenset((1, t, 0) for t in buckets), lambda key: key[1])


def _spec(name: str) -> BufferSpec:
    return BufferSpec(name, "int32", Axis.TOKENS, (Demand(Stream.GRAPH_TOKENS),), 0, ZERO)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(1, 40), min_size=1, max_size=5, unique=True).map(
    lambda v: tuple(sorted(v))))
def test_capacity_is_the_largest_captured_key_and_every_batch_fits(buckets: tuple[int, ...]
                                                                   ) -> None:
    """Sizing knows no engine: capacity = the largest captured key's rows, and every batch
    within the bounds replays a key of at most that many rows (checked by brute force)."""
    dispatch = _bucket_dispatch(buckets)
    witnesses = {(1, t, 0): (1, t, t) for t in buckets}
    model = KeyedComponentModel("toy", dispatch, (1, 40, 40), (_spec("ids"),), witnesses)
    rows = keyed_rows(model)
    assert rows == buckets[-1]
    for batch in reachable_keys(1, 40, 40):
        key = dispatch.lookup(batch)
        assert key is None or dispatch.rows(key) <= rows


def test_keyed_model_refusals() -> None:
    dispatch = _bucket_dispatch((4, 8))
    with pytest.raises(ConfigError, match="no batch replays"):
        KeyedComponentModel("toy", dispatch, (1, 8, 8), (_spec("ids"),), {(1, 4, 0): (1, 4, 4)})
    with pytest.raises(ConfigError, match="not on token rows"):  # a fixed-size buffer
        KeyedComponentModel("toy", dispatch, (1, 8, 8), (BufferSpec(
            "r", "int32", Axis.FIXED, (), 4, ZERO),), {})
    wrong = KeyedComponentModel("toy", dispatch, (1, 8, 8), (_spec("ids"),),
                                {(1, 4, 0): (1, 8, 8), (1, 8, 0): (1, 8, 8)})
    with pytest.raises(ConfigError, match="does not replay"):
        keyed_rows(wrong)  # a witness must replay its own key


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(1, 9), min_size=1, max_size=4, unique=True).map(
    lambda v: tuple(sorted(v))))
def test_request_rows_are_the_largest_captured_keys_requests(sizes: tuple[int, ...]) -> None:
    """A request-axis buffer (per-request lengths) of a keyed component holds the largest
    captured key's padded requests (`key[0]`); every batch within the bounds replays a key of
    at most that many requests, and one row less is a violation naming a batch that replays
    the largest key."""
    def rule(batch: tuple[int, int, int]) -> tuple[int, ...] | None:
        return next(((b, 4 * b, 4) for b in sizes if b >= batch[0]), None)

    dispatch = KeyedDispatch(rule, frozenset((b, 4 * b, 4) for b in sizes), lambda k: k[1],
                             buffer_rows={"lens": lambda k: k[0]})
    seq = BufferSpec("lens", "int32", Axis.REQUESTS, (Demand(Stream.TARGET_REQUESTS),), 0, ZERO)
    witnesses = {(b, 4 * b, 4): (b, b, 1) for b in sizes}
    model = KeyedComponentModel("toy", dispatch, (9, 36, 4), (_spec("ids"), seq), witnesses)
    rows = keyed_capacities(model)
    assert rows == {"ids": 4 * sizes[-1], "lens": sizes[-1]} and keyed_rows(model) == 4 * sizes[-1]
    for batch in reachable_keys(9, 36, 4):
        key = dispatch.lookup(batch)
        assert key is None or (key[0] <= sizes[-1] and batch[0] <= key[0])
    comp = KeyedComponentPlan("toy", tuple(BufferPlan(s, "toy", rows[s.name], 0)
                                           for s in model.buffers), dispatch, model.bounds,
                              witnesses)
    found, _ = comp.check({"ids": 4 * sizes[-1], "lens": sizes[-1]})
    assert not found
    found, _ = comp.check({"ids": 4 * sizes[-1], "lens": sizes[-1] - 1})
    assert [(v.buffer, v.first, v.padded) for v in found] == [("lens", sizes[-1], sizes[-1])]


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 6), st.integers(8, 96), st.integers(4, 32), st.booleans())
def test_plan_proves_the_encoder_and_one_row_less_fails(S: int, T: int, L: int,
                                                        padding: bool) -> None:
    p = plan(encode_config(S, T, L, padding=padding, num_tokens=(4, 16, 32, 64, 96),
                           seq_lens=(2, 8, 16, 32)))
    comp = p.keyed["encoder"]
    verification = p.verify()
    assert verification.ok and p.verify_engine().ok
    tokens = [b for b in comp.buffers if b.axis is Axis.TOKENS]
    assert {b.capacity for b in tokens} == {keyed_rows_of(p)}
    # the host seq_lens: the largest captured key's requests
    seq_lens = comp.buffer("seq_lens")
    assert seq_lens.capacity == max((k[0] for k in comp.graph_keys), default=0)
    for batch in reachable_keys(*comp.bounds):  # exhaustive: no reachable batch goes short
        key = comp.lookup(batch)
        assert key is None or (all(comp.dispatch.rows(key) <= b.capacity for b in tokens)
                               and batch[0] <= key[0] <= seq_lens.capacity)
    for key in comp.graph_keys:  # each witness replays its key, within the bounds
        assert comp.lookup(comp.witnesses[key]) == key
        lens = comp.probe(key)
        assert (len(lens), sum(lens), max(lens)) == comp.witnesses[key]
    cap = keyed_rows_of(p)
    if cap:
        short = p.verify({"encoder.position_ids": cap - 1})
        assert not short.ok and {r.key for r in short.ranges()} == {"encoder.position_ids"}
        r = short.ranges()[0]
        assert (r.padded, r.capacity) == (cap, cap - 1)
        most = seq_lens.capacity
        short = p.verify({"encoder.seq_lens": most - 1})
        assert not short.ok and {r.key for r in short.ranges()} == {"encoder.seq_lens"}
        assert (short.ranges()[0].padded, short.ranges()[0].capacity) == (most, most - 1)


def keyed_rows_of(p: Plan) -> int:
    """The rows of the largest captured key (what the plan's capacity must be)."""
    return max((k[1] for k in p.keyed["encoder"].graph_keys), default=0)


def test_decode_plans_have_no_keyed_component_and_the_same_document() -> None:
    p = plan(EngineConfig.from_dict({"engine": "trtllm", "max_num_seqs": 8}))
    assert not p.keyed
    doc = plan_document(p, p.verify())
    assert "keyed_components" not in doc  # /3 documents without one are unchanged
    encoded = plan(encode_config())
    doc = plan_document(encoded, encoded.verify())
    assert doc["schema"] == "graphfit.plan/3"
    graphs = doc["keyed_components"]["encoder"]["graphs"]
    assert [tuple(g["key"]) for g in graphs] == list(encoded.keyed["encoder"].graph_keys)
    assert doc["total_bytes"] == encoded.total_bytes == (
        sum(c.total_bytes for c in encoded.components.values())
        + encoded.keyed["encoder"].total_bytes)


def test_no_decode_graph_beside_the_encoder_whatever_the_ladder_policy() -> None:
    for ladder in ("auto", "explicit"):
        config = encode_config().replace(ladder=ladder, cudagraph_capture_sizes=(1, 2, 4, 8))
        p = plan(config)
        assert not p.capture_sizes and not p.graph_keys("target"), ladder
        assert dict(p.keyed["encoder"].ladders)["batch_sizes"] == (1, 2, 4, 8)


def test_encoder_buckets_need_mode_encode_and_no_decoder_features() -> None:
    with pytest.raises(ConfigError, match="need cuda_graph_mode encode"):
        plan(EngineConfig.from_dict({"engine": "trtllm", "max_num_seqs": 8,
                                     "options": {"encode_num_tokens": [8]}}))
    with pytest.raises(ConfigError, match="max_beam_width: not with cuda_graph_config mode"):
        plan(EngineConfig.from_dict({"engine": "trtllm", "max_num_seqs": 8, "options": {
            "cuda_graph_mode": "encode", "max_beam_width": 2}}))
    with pytest.raises(ConfigError, match="prefill_cuda_graph_backend: not with"):
        plan(EngineConfig.from_dict({"engine": "trtllm", "max_num_seqs": 8, "options": {
            "cuda_graph_mode": "encode", "prefill_cuda_graph_backend": "breakable"}}))


def test_cli_plan_json_check_and_capacity(tmp_path: Path) -> None:
    """`graphfit plan` text and --json show the encoder; `check --plan` accepts the document
    and refuses it edited; `--capacity encoder.input_ids=` one row short is UNSAFE (exit 1)."""
    config = tmp_path / "enc.yaml"
    config.write_text("max_batch_size: 8\nmax_num_tokens: 256\nmax_seq_len: 64\n"
                      "cuda_graph_config:\n  enable_padding: true\n  max_num_token: 256\n"
                      "  max_seq_len: 64\n")
    code, out, err = run_cli(["plan", "--engine", "trtllm", "--config", str(config)])
    assert code == 0, err
    assert "encoder: " in out and "graphs keyed on (requests, tokens, longest request)" in out
    assert "encoder.input_ids" in out and "SAFE" in out
    code, out, err = run_cli(["plan", "--engine", "trtllm", "--config", str(config), "--json"])
    assert code == 0, err
    saved = saved_plan(tmp_path, out)
    doc = json.loads(out)
    doc["keyed_components"]["encoder"]["buffers"][0]["capacity"] -= 1
    saved.write_text(json.dumps(doc))
    code, _, err = run_cli(["check", "--plan", str(saved)])
    assert code == 2 and "keyed_components.encoder.buffers[0].capacity" in err
    rows = json.loads(out)["keyed_components"]["encoder"]["buffers"][0]["capacity"]
    code, out, _ = run_cli(["plan", "--engine", "trtllm", "--config", str(config),
                            "--capacity", f"encoder.input_ids={rows - 1}"])
    assert code == 1 and f"encoder.input_ids: num_tokens {rows} pad to {rows}" in out


def test_split_has_the_batch_counts() -> None:
    for batch in reachable_keys(4, 12, 6):
        lens = split(batch)
        assert (len(lens), sum(lens), max(lens)) == batch and min(lens) >= 1


def test_cli_encoder_decoder_plan_check_capacity_and_rehearse(tmp_path: Path) -> None:
    """An encoder-decoder model's `encoder_cuda_graph_config` through the CLI: `graphfit plan`
    shows the encoder beside the decoder's ladder, `check --plan` accepts its document and
    refuses it edited, `--capacity` one row short on the token inputs or the host seq_lens is
    UNSAFE (exit 1), and `graphfit rehearse` replays both runners' graphs."""
    config = tmp_path / "t5.yaml"
    config.write_text("max_batch_size: 16\nmax_num_tokens: 4096\nmax_seq_len: 512\n"
                      "encoder_max_batch_size: 8\nencoder_cuda_graph_config:\n"
                      "  batch_sizes: [1, 2, 4, 8]\n  num_tokens: [64, 256, 1024]\n"
                      "  seq_lens: [32, 128, 512]\n  enable_padding: true\n")
    line = ["--", "trtllm-serve", "t5", "--extra_llm_api_options", str(config)]
    code, out, err = run_cli(["plan", *line])
    assert code == 0, err
    assert "encoder: 19 graphs keyed on (requests, tokens, longest request)" in out
    assert "encoder.seq_lens" in out and "target.input_ids" in out
    code, out, err = run_cli(["plan", "--json", *line])
    assert code == 0, err
    saved = saved_plan(tmp_path, out)
    doc = json.loads(out)
    encoder = doc["keyed_components"]["encoder"]
    assert encoder["bounds"] == [8, 4096, 512] and doc["ladder"]["capture_sizes"]
    sizes = {b["name"]: (b["capacity"], b["reference_capacity"]) for b in encoder["buffers"]}
    # the pinned host staging copies (shared_static_tensors_cpu) have the device tensors'
    # rows (tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:1355-1381)
    # and each captured key's graph owns a device _seq_lens_cuda of its batch size (planned
    # once, of the largest; the engine's rows summed over the keys: issue 23, s37t)
    per_graph = sum(g["key"][0] for g in encoder["graphs"])
    assert sizes == {"input_ids": (1024, 4096), "position_ids": (1024, 4096),
                     "seq_lens": (8, 8), "input_ids_host": (1024, 4096),
                     "position_ids_host": (1024, 4096), "arange_max": (1024, 4096),
                     "seq_lens_cuda": (8, per_graph)}
    placed = {b["name"]: b.get("placement", "device") for b in encoder["buffers"]}
    assert placed == {"input_ids": "device", "position_ids": "device", "seq_lens": "host",
                      "input_ids_host": "host", "position_ids_host": "host",
                      "arange_max": "host", "seq_lens_cuda": "device"}
    encoder["buffers"][2]["capacity"] -= 1
    saved.write_text(json.dumps(doc))
    code, _, err = run_cli(["check", "--plan", str(saved)])
    assert code == 2 and "keyed_components.encoder.buffers[2].capacity" in err
    code, out, _ = run_cli(["check", "--capacity", "encoder.input_ids=1023", *line])
    assert code == 1 and "encoder.input_ids: num_tokens 1024 pad to 1024" in out
    code, out, _ = run_cli(["check", "--capacity", "encoder.seq_lens=7", *line])
    assert code == 1 and "encoder.seq_lens: requests 8 pad to 8 > capacity 7" in out
    code, out, err = run_cli(["rehearse", *line])
    assert code == 0, err
    assert "encoder: 19 graphs captured, 19 replayed == eager" in out


def _serve_line(tmp_path: Path, name: str, checkpoint: dict[str, object], options: str
                ) -> tuple[Path, list[str]]:
    """(the checkpoint directory, the trtllm-serve line): a local checkpoint `name` with this
    config.json, served with these LLM-API options as --extra_llm_api_options."""
    model = tmp_path / name
    model.mkdir()
    (model / "config.json").write_text(json.dumps(checkpoint))
    config = tmp_path / f"{name}.yaml"
    config.write_text(options)
    return model, ["--", "trtllm-serve", str(model), "--extra_llm_api_options", str(config)]


# a T5-style checkpoint (relative attention) and its encoder graphs, padding on or off
T5_CHECKPOINT = {"architectures": ["T5ForConditionalGeneration"], "d_model": 512,
                 "relative_attention_num_buckets": 32, "torch_dtype": "bfloat16"}


def _t5_options(padding: bool) -> str:
    return ("max_batch_size: 8\nmax_num_tokens: 512\nmax_seq_len: 128\n"
            "encoder_max_batch_size: 4\nencoder_cuda_graph_config:\n"
            "  batch_sizes: [1, 2, 4]\n  num_tokens: [32, 64, 128]\n"
            f"  seq_lens: [16, 64]\n  enable_padding: {'true' if padding else 'false'}\n")


def test_cli_t5_checkpoint_plans_fixed_encoder_slots(tmp_path: Path) -> None:
    """A local T5-style checkpoint (config.json with relative_attention_num_buckets) turns on
    TensorRT-LLM's fixed encoder slots: the plan's encoder dispatch reads request lengths
    (its witnesses are the capture layouts), `check --plan` accepts the document and
    `rehearse` replays every graph; the same line without the key plans count keys."""
    model, line = _serve_line(tmp_path, "t5", T5_CHECKPOINT, _t5_options(True))
    code, out, err = run_cli(["plan", "--json", *line])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["config"]["options"]["encoder_fixed_slots"] is True
    assert "refusals" not in doc["engine"] and doc["engine"]["ok"]  # padding: no refusal
    assert "refusals" not in doc["keyed_components"]["encoder"]
    saved_plan(tmp_path, out)
    code, out, err = run_cli(["plan", *line])
    assert code == 0 and "fixed sequence slots (relative attention)" in out, err
    code, out, err = run_cli(["rehearse", *line])
    assert code == 0 and "replayed == eager" in out, err
    (model / "config.json").write_text(json.dumps({"d_model": 512}))
    code, out, err = run_cli(["plan", "--json", *line])
    assert code == 0, err
    assert json.loads(out)["config"]["options"]["encoder_fixed_slots"] is False


def test_cli_reports_the_batches_tensorrt_llm_refuses_with_fixed_slots(tmp_path: Path) -> None:
    """Fixed encoder slots without padding: TensorRT-LLM raises ValueError replaying a graph
    for every batch of its key but its capture layout (`EncDecGraphs.slot_refusals`, checked
    against the restated engine in tests/oracle/test_trtllm_encdec_reference.py). `plan`
    reports them under the encoder and in the engine's verdict (UNSAFE), `check` exits 1 on
    them, the JSON plan (still graphfit.plan/3) lists them, and `check --plan` reads both
    that file and one written before graphfit reported them."""
    _, line = _serve_line(tmp_path, "t5", T5_CHECKPOINT, _t5_options(False))
    code, out, err = run_cli(["plan", *line])
    assert code == 0, err  # graphfit's own plan is safe: its runtime replays these batches
    assert "refused by the engine: 6 of 11 graphs, e.g. encoder graph 2,32,64" in out
    assert "UNSAFE: encoder graph 2,32,64: TensorRT-LLM raises ValueError" in out
    code, out, _ = run_cli(["check", *line])
    assert code == 1 and "(e.g. [30, 2])" in " ".join(out.split())
    code, out, err = run_cli(["plan", "--json", *line])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["schema"] == "graphfit.plan/3" and doc["engine"]["ok"] is False
    refused = doc["keyed_components"]["encoder"]["refusals"]
    assert refused == doc["engine"]["refusals"] and len(refused) == 6
    assert refused[0]["key"] == "2,32,64" and refused[0]["example"] == [30, 2]
    saved = saved_plan(tmp_path, out)
    # the document an older graphfit wrote: no refusals, the engine's verdict ok
    del doc["keyed_components"]["encoder"]["refusals"]
    del doc["engine"]["refusals"]
    doc["engine"]["ok"] = True
    saved.write_text(json.dumps(doc))
    assert run_cli(["check", "--plan", str(saved)])[0] == 0
    doc["engine"]["ok"] = False  # but not a mix of the two
    saved.write_text(json.dumps(doc))
    code, _, err = run_cli(["check", "--plan", str(saved)])
    assert code == 2 and "engine.ok" in err


def test_cli_whisper_checkpoint_plans_feature_mode_encoder_graphs(tmp_path: Path) -> None:
    """A Whisper checkpoint (architecture WhisperForConditionalGeneration) gives the encoder
    its feature spec (graphfit.inputs.trtllm_features): one graph per batch size, keyed
    (b, b x 1500, 1500), `input_features` (9, 480000) float32 and `seq_lens` (9,); the token
    buckets are not needed. The checkpoint's preprocessor_config.json n_samples wins;
    `check --plan` takes the document; `rehearse` captures and replays its graphs."""
    model, line = _serve_line(tmp_path, "whisper", {
        "architectures": ["WhisperForConditionalGeneration"], "model_type": "whisper",
        "d_model": 384, "max_source_positions": 1500, "torch_dtype": "float16"},
        "max_batch_size: 8\nmax_num_tokens: 16384\nmax_seq_len: 1500\n"
        "encoder_max_batch_size: 9\nencoder_cuda_graph_config:\n"
        "  batch_sizes: [1, 2, 4, 8, 9]\n  enable_padding: true\n")
    code, out, err = run_cli(["plan", "--json", *line])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["config"]["options"]["encoder_feature_spec"] == [[480000], "float32", 1500]
    encoder = doc["keyed_components"]["encoder"]
    assert [g["key"] for g in encoder["graphs"]] == [[b, 1500 * b, 1500] for b in (1, 2, 4, 8, 9)]
    assert {b["name"]: b["shape"] for b in encoder["buffers"]} == {
        "input_features": [9, 480000], "seq_lens": [9],
        "input_features_host": [2, 9, 480000], "seq_lens_cuda": [9]}
    saved_plan(tmp_path, out)
    code, out, err = run_cli(["rehearse", *line])
    # the graphs read the device lengths, refilled from the host seq_lens (issue 23, s37t)
    assert code == 0 and ("encoder: 5 graphs captured, 5 replayed == eager (inputs: "
                          "input_features (staged from host), seq_lens_cuda (staged from "
                          "host))") in out, err
    (model / "preprocessor_config.json").write_text(json.dumps({"n_samples": 160000}))
    code, out, err = run_cli(["plan", "--json", *line])
    assert code == 0, err
    assert json.loads(out)["config"]["options"]["encoder_feature_spec"][0] == [160000]


def test_cli_glm5_next_checkpoint_plans_its_image_encoder_graphs(tmp_path: Path) -> None:
    """`multimodal_config.encoder_cuda_graph` with a checkpoint whose vision tower's inputs
    graphfit knows (GLM-5.3-Flash: x (hidden,), cos and sin (head_dim,) float32) is planned as
    the keyed `mm_encoder.image` component: one shared set of inputs for the largest graph
    (4,097 rows) where TensorRT-LLM holds one per graph (5,122 rows); without the checkpoint
    the graphs are only reported."""
    model, line = _serve_line(tmp_path, "glm", {
        "architectures": ["Glm5NextForConditionalGeneration"], "model_type": "glm5_next",
        "text_config": {"hidden_size": 512, "dtype": "bfloat16"},
        "vision_config": {"hidden_size": 256, "num_heads": 4}},
        "max_batch_size: 8\nmax_num_tokens: 8192\nmultimodal_config:\n"
        "  encoder_cuda_graph:\n    image:\n      buckets: [[1024, 1], [4096, 4]]\n")
    code, out, err = run_cli(["plan", "--json", *line])
    assert code == 0, err
    doc = json.loads(out)
    comp = doc["keyed_components"]["mm_encoder.image"]
    assert [g["key"] for g in comp["graphs"]] == [[1025, 2], [4097, 5]]
    assert {b["name"]: (b["shape"], b["dtype"], b["reference_capacity"])
            for b in comp["buffers"]} == {"x": ([4097, 256], "bfloat16", 5122),
                                          "cos": ([4097, 64], "float32", 5122),
                                          "sin": ([4097, 64], "float32", 5122)}
    saved_plan(tmp_path, out)
    code, out, err = run_cli(["rehearse", *line])
    assert code == 0 and ("mm_encoder.image: 2 graphs captured, 2 replayed == eager "
                          "(inputs: x, cos, sin)") in out, err
    (model / "config.json").write_text(json.dumps({"architectures": ["Other"]}))
    code, out, err = run_cli(["plan", "--json", *line])
    assert code == 0 and "keyed_components" not in json.loads(out), err
