"""DeepSeek-V4's KV pools in `graphfit plan` (graphfit.planner.engines.sglang_dsv4_plan):
the same figures from a pasted line, an SGLang `--config` file and a live ServerArgs; the
request pool every runner is bounded by is the one the plan shows; what is not restated is
said. (The figures themselves are compared with SGLang in
tests/oracle/test_sglang_dsv4_plan_oracle.py.)"""

from __future__ import annotations

import json
import re
import types
from pathlib import Path

import pytest

import graphfit
from graphfit import ConfigError
from graphfit.cli.options import resolve_values
from graphfit.inputs import commandline
from graphfit.integrations.sglang import from_sglang
from graphfit.planner.engines.sglang_pool import request_pool

FIELDS = {"architectures": ["DeepseekV4ForCausalLM"], "model_type": "deepseek_v4",
          "hidden_size": 1024, "num_attention_heads": 8, "num_key_value_heads": 8,
          "vocab_size": 32000, "torch_dtype": "bfloat16", "max_position_embeddings": 65536,
          "qk_rope_head_dim": 64, "head_dim": 512, "sliding_window": 128,
          "index_head_dim": 128, "compress_ratios": [0, 4, 128, 4, 128, 4],
          "num_hidden_layers": 6}
FLAGS = ["--max-running-requests", "32", "--disaggregation-mode", "decode",
         "--swa-prefix-tails", "8", "--disaggregation-decode-extra-slots", "4",
         "--disaggregation-decode-enable-radix-cache", "--swa-full-tokens-ratio", "0.25"]


def _model(tmp_path: Path, **changes: object) -> str:
    root = tmp_path / "dsv4"
    root.mkdir(exist_ok=True)
    (root / "config.json").write_text(json.dumps({**FIELDS, **changes}))
    return str(root)


def _pasted(model: str, flags: list[str], **values: object) -> graphfit.Plan:
    line = ["python", "-m", "sglang.launch_server", "--model-path", model, *flags]
    config = resolve_values({"gpu_memory_gb": 80.0, **values}, environ={},
                            pasted=commandline.read(line)).config()
    return graphfit.plan(config)


def _pools(plan: graphfit.Plan) -> str:
    return dict(plan.engine_inputs)["dsv4_kv_pools"]


def test_live_server_args_plan_what_the_pasted_line_plans(tmp_path: Path) -> None:
    model = _model(tmp_path)
    pasted = _pasted(model, FLAGS, weights_gb=40.0)
    args = types.SimpleNamespace(
        model_path=model, max_running_requests=32, disaggregation_mode="decode",
        swa_prefix_tails=8, disaggregation_decode_extra_slots=4,
        disaggregation_decode_enable_radix_cache=True, swa_full_tokens_ratio=0.25)
    live = graphfit.plan(from_sglang(args, environ={}, gpu_memory_gb=80.0, weights_gb=40.0))
    assert _pools(live) == _pools(pasted) and "full " in _pools(pasted)


def test_a_config_file_reads_the_flags(tmp_path: Path) -> None:
    model = _model(tmp_path)
    pasted = _pasted(model, FLAGS, weights_gb=40.0)
    yaml = tmp_path / "sglang.yaml"
    yaml.write_text("max-running-requests: 32\ndisaggregation-mode: decode\n"
                    "swa-prefix-tails: 8\ndisaggregation-decode-extra-slots: 4\n"
                    "disaggregation-decode-enable-radix-cache: true\n"
                    "swa-full-tokens-ratio: 0.25\n")
    from_file = _pasted(model, ["--config", str(yaml)], weights_gb=40.0)
    assert _pools(from_file) == _pools(pasted)


def test_every_flag_moves_a_figure(tmp_path: Path) -> None:
    """Each of the four flags changes what the plan shows (none is read and dropped)."""
    model = _model(tmp_path, model_type="deepseek_v41")  # cap mode: tails and slots count
    base = ["--max-running-requests", "32", "--disaggregation-mode", "decode"]
    shown = {_pools(_pasted(model, [*base, *extra], weights_gb=40.0)) for extra in (
        [], ["--swa-prefix-tails", "8"], ["--disaggregation-decode-extra-slots", "4"],
        ["--disaggregation-decode-enable-radix-cache"], ["--swa-full-tokens-ratio", "0.25"])}
    assert len(shown) == 5


def test_the_runners_are_bounded_by_the_pool_shown(tmp_path: Path) -> None:
    """A budget that binds (a V4.1 cap-mode line whose weights leave the fixed pools and
    about 300 full tokens): the plan's request pool, below DeepSeek-V4's 256 requests, is
    every runner's bound."""
    from graphfit.planner.engines.sglang_dsv4_plan import pool_of

    model = _model(tmp_path, model_type="deepseek_v41")
    first = _pasted(model, [], weights_gb=40.0)
    pool = pool_of(first.config)
    need = pool.fixed_bytes(256) + 300 * pool.bytes_per_full_token() + pool.padding_bytes(300)
    fraction = first.config.mem_fraction_static
    assert fraction is not None
    plan = _pasted(model, [], weights_gb=80.0 * fraction - need / (1 << 30))
    found = re.search(r"request pool (\d+)", _pools(plan))
    assert found is not None and int(found.group(1)) < 256
    assert int(found.group(1)) == request_pool(plan.config)
    assert plan.config.max_num_seqs == 256  # DeepSeek-V4's default (deepseek_v4_hook.py:138)
    assert max(plan.capture_sizes) <= int(found.group(1))


@pytest.mark.parametrize("values, flags, why", [
    ({}, [], "needs --weights-gb"),
])
def test_what_is_not_restated_is_said(tmp_path: Path, values: dict[str, object],
                                      flags: list[str], why: str) -> None:
    plan = _pasted(_model(tmp_path), flags, **values)
    assert f"not restated ({why}" in _pools(plan)


def test_pipeline_stages_are_sized_and_their_assumption_said(tmp_path: Path) -> None:
    """--pp-size 2 (s47k): the pools are shown with the later stage's layers and the
    --weights-gb assumption; the live path with the same partition plans the same line; the
    partition moves the figures (the stages' slices are read)."""
    model = _model(tmp_path)
    line = ["SGLANG_PP_LAYER_PARTITION=1,5", "python", "-m", "sglang.launch_server",
            "--model-path", model, "--pp-size", "2", "--max-running-requests", "64"]
    config = resolve_values({"gpu_memory_gb": 80.0, "weights_gb": 40.0}, environ={},
                            pasted=commandline.read(line)).config()
    shown = _pools(graphfit.plan(config))
    assert "later stages: [1, 6) c4 state" in shown and "hold --weights-gb" in shown
    args = types.SimpleNamespace(model_path=model, pp_size=2, max_running_requests=64)
    live = graphfit.plan(from_sglang(args, environ={"SGLANG_PP_LAYER_PARTITION": "1,5"},
                                     gpu_memory_gb=80.0, weights_gb=40.0))
    assert _pools(live) == shown
    even = _pools(_pasted(model, ["--pp-size", "2", "--max-running-requests", "64"],
                          weights_gb=40.0))
    assert "later stages: [3, 6) c4 state" in even and even != shown


def test_the_environment_that_changes_the_layout_is_said(tmp_path: Path) -> None:
    line = ["SGLANG_OPT_USE_ONLINE_COMPRESS=1", "python", "-m", "sglang.launch_server",
            "--model-path", _model(tmp_path)]
    config = resolve_values({"gpu_memory_gb": 80.0, "weights_gb": 40.0}, environ={},
                            pasted=commandline.read(line)).config()
    assert "not restated (online c128" in _pools(graphfit.plan(config))


def test_another_model_ignores_the_environment_and_the_ratio(tmp_path: Path) -> None:
    model = _model(tmp_path, architectures=["LlamaForCausalLM"], model_type="llama")
    plan = _pasted(model, ["--swa-full-tokens-ratio", "0.5", "--max-running-requests", "8"],
                   weights_gb=4.0)
    assert "dsv4_kv_pools" not in dict(plan.engine_inputs)


@pytest.mark.parametrize("shape", [
    "x", [[1, 1, 1, 1], [4], []], [[1, 1, 1, 1, 0], [3], []], [[1, 1, 1, 1, 0], [], []]])
def test_a_bad_shape_option_is_refused(shape: object) -> None:
    with pytest.raises(ConfigError, match="dsv4_pool_shape"):
        graphfit.EngineConfig(engine="sglang", max_num_seqs=8,
                              options={"dsv4_pool_shape": shape})


def test_max_total_tokens_caps_the_full_pool(tmp_path: Path) -> None:
    """Below what the budget buys, the full pool is the page-aligned cap (kv_cache_
    configurator.py:3090-3117, pool_configurator.py:1463-1466); above, nothing changes."""
    model = _model(tmp_path)
    free = _pools(_pasted(model, [], weights_gb=40.0))
    assert _pools(_pasted(model, ["--max-total-tokens", str(10**12)], weights_gb=40.0)) == free
    capped = _pools(_pasted(model, ["--max-total-tokens", "100000"], weights_gb=40.0))
    assert capped.startswith(f"full {100000 // 256 * 256} tokens")


def _c128_state(plan: graphfit.Plan) -> int:
    found = re.search(r"c128 state (\d+)", _pools(plan))
    assert found is not None
    return int(found.group(1))


def test_dp_replicas_divide_the_extra_slot_default(tmp_path: Path) -> None:
    """--dp-size replicas (s44k): the decode extra-slot default is 2 x requests per replica
    x attention-DP rank (pd_disaggregation_hook.py:133-138), read the same from a pasted line
    and a live ServerArgs; --dp-size with --enable-dp-attention is the attention-DP width,
    not replicas (parallel_hook.py:39-62)."""
    model = _model(tmp_path)
    base = ["--max-running-requests", "32", "--disaggregation-mode", "decode"]
    alone = _pasted(model, base, weights_gb=40.0)
    replicas = _pasted(model, [*base, "--dp-size", "2"], weights_gb=40.0)
    explicit = _pasted(model, [*base, "--disaggregation-decode-extra-slots", "32"],
                       weights_gb=40.0)
    assert replicas.config.dp_replicas == 2 and alone.config.dp_replicas == 1
    assert _pools(replicas) == _pools(explicit) != _pools(alone)
    # each replica still plans the same graphs on its own GPUs
    assert replicas.capture_sizes == alone.capture_sizes
    args = types.SimpleNamespace(model_path=model, max_running_requests=32,
                                 disaggregation_mode="decode", dp_size=2)
    live = graphfit.plan(from_sglang(args, environ={}, gpu_memory_gb=80.0, weights_gb=40.0))
    assert _pools(live) == _pools(replicas)
    attention = _pasted(model, [*base, "--tp", "2", "--dp-size", "2",
                                "--enable-dp-attention"], weights_gb=40.0)
    assert attention.config.dp_replicas == 1 and attention.config.attn_dp_size == 2


def test_a_negative_extra_slot_count_is_planned_or_refused(tmp_path: Path) -> None:
    """SGLang takes a negative --disaggregation-decode-extra-slots (s44k): fewer c128 state
    rows than with none; graphfit refuses, in one error, one that leaves the decode request
    pool no free slot (disaggregation/decode.py:200-211)."""
    model = _model(tmp_path)
    base = ["--max-running-requests", "32", "--disaggregation-mode", "decode",
            "--disaggregation-decode-extra-slots"]
    zero, fewer = (_pasted(model, [*base, n], weights_gb=40.0) for n in ("0", "-8"))
    assert _c128_state(fewer) < _c128_state(zero)
    for n in ("-32", "-40"):
        with pytest.raises(ConfigError, match="extra-slots") as info:
            _pasted(model, [*base, n], weights_gb=40.0)
        assert "\n" not in str(info.value) and len(str(info.value)) <= 200
    yaml = tmp_path / "sglang.yaml"
    yaml.write_text("max-running-requests: 32\ndisaggregation-mode: decode\n"
                    "disaggregation-decode-extra-slots: -8\n")
    assert _pools(_pasted(model, ["--config", str(yaml)], weights_gb=40.0)) == _pools(fewer)


def test_graphfit_config_file_reads_the_replicas(tmp_path: Path) -> None:
    """graphfit's own `--config` file: `dp_size` is the replicas there (a file cannot spell
    the deprecated attention-DP width), with the pasted line's pools (s44k)."""
    from tests.helpers import run_cli

    model = _model(tmp_path)
    ours = tmp_path / "graphfit.yaml"
    ours.write_text(f"model_path: {model}\nmax_running_requests: 32\n"
                    "disaggregation_mode: decode\ndp_size: 2\n")
    code, out, err = run_cli(["plan", "--gpu-memory-gb", "80", "--weights-gb", "40",
                              "--config", str(ours)])
    assert code == 0, err
    found = re.search(r"dsv4_kv_pools\s+full\s+(\d+)\s+tokens.*?c128\s+state\s+(\d+)", out,
                      re.S)
    base = ["--max-running-requests", "32", "--disaggregation-mode", "decode"]
    pasted, alone = (_pasted(model, [*base, *dp], weights_gb=40.0)
                     for dp in (["--dp-size", "2"], []))
    assert found is not None and _c128_state(pasted) != _c128_state(alone)
    assert f"full {found.group(1)} tokens" in _pools(pasted)
    assert int(found.group(2)) == _c128_state(pasted)


def test_sm100_sizes_v4_and_says_why_not_for_the_rest(tmp_path: Path) -> None:
    """On a GPU named as SM100 (s44k): a DeepSeek-V4 model's pools are sized (the V4 layout,
    the same figures as on a Hopper of the same memory); since s47k also a V4.1 model with
    its backend given, ratio-1 / 2 layers (the indexer page assumed) and
    SGLANG_DSV4_KV_LAYOUT=auto (the V4.1 layouts); since s48k V4.1's default backend;
    --dsv4-attn-backend trtllm is said, not sized."""
    def plan(model: str, gpu: object, flags: list[str], env: tuple[str, ...] = ()) -> str:
        line = [*env, "python", "-m", "sglang.launch_server", "--model-path", model, *flags]
        config = resolve_values({"gpu_memory_gb": gpu, "weights_gb": 80.0}, environ={},
                                pasted=commandline.read(line)).config()
        return _pools(graphfit.plan(config))

    v4 = _model(tmp_path)
    b200 = plan(v4, "B200", [])
    assert b200.startswith("full ") and "SM100 assumed" not in b200
    assert b200.split(";")[0] == plan(v4, 179.1, []).split(";")[0]
    (tmp_path / "v41").mkdir()
    (tmp_path / "low").mkdir()
    v41 = _model(tmp_path / "v41", model_type="deepseek_v41")
    low = _model(tmp_path / "low", compress_ratios=[0, 4, 128, 2, 1, 4],
                 kv_source_layer_ids=[3, 4])
    # s47k: V4.1's layouts and the indexer page are sized on SM100; s48k: V4.1's default
    # backend too (flashmla_mega over the fp8_e4m3 cache auto becomes)
    assert "SM100: the V41 KV layout" in plan(v41, "B200", [])
    mega = plan(v41, "B200", ["--dsv4-attn-backend", "flashmla_mega"])
    assert mega.startswith("full ") and "SM100: the V41 KV layout" in mega
    assert "SM100: the V4 KV layout" in plan(v41, "B200", ["--dsv4-attn-backend", "flashmla"])
    on_b200 = plan(low, "B200", [])
    assert on_b200.startswith("full ") and "indexer page assumed 128" in on_b200
    assert plan(low, 179.1, []).startswith("full ")
    auto = ("SGLANG_DSV4_KV_LAYOUT=auto",)
    assert "SM100: the V41 KV layout" in plan(v4, "B200", [], auto)
    assert plan(v4, 179.1, [], auto).startswith("full ")  # V4 before SM100
    assert "--dsv4-attn-backend trtllm" in plan(v4, "B200", ["--dsv4-attn-backend", "trtllm"])
    assert plan(v4, "B200", ["--dsv4-attn-backend", "flashmla"]) == b200


def test_switches_that_change_the_pools_are_said(tmp_path: Path) -> None:
    """--enable-hisparse (the c4 pool divided, pool_configurator.py:1150-1158) stays ignored
    for the plan, but DeepSeek-V4's pools are then said, not sized (s44k);
    --enable-encoder-swa-bounded-replay's window (:1200-1247) is sized without a draft and
    said beside a DSPARK draft whose config is not local (s50k; sized beside a local one
    since s51k, `test_replay_beside_a_local_dspark_draft_is_sized`). Since s45k every pair
    of them is SGLang's refusal on any GPU: trtllm with HiSparse (deepseek_v4_hook.py:
    112-114), encoder replay off V4.1 (:276-280), V4.1 with HiSparse or with trtllm and
    encoder replay (:333-353)."""
    model = _model(tmp_path)
    (tmp_path / "v41").mkdir()
    v41 = _model(tmp_path / "v41", model_type="deepseek_v41")
    # HiSparse needs the radix cache off (hisparse_hook.py:109-111, SGLang's check_server_args)
    assert "not restated (HiSparse" in _pools(_pasted(
        model, ["--enable-hisparse", "--disable-radix-cache"], weights_gb=40.0))
    # encoder replay's window is sized since s50k (no SWA pool); beside a DSPARK draft, said
    assert ", SWA 0, " in _pools(
        _pasted(v41, ["--enable-encoder-swa-bounded-replay"], weights_gb=40.0))
    assert "not restated (the encoder-replay SWA request window beside a DSPARK draft" in \
        _pools(_pasted(v41, ["--enable-encoder-swa-bounded-replay", "--speculative-algorithm",
                             "DSPARK", "--speculative-draft-model-path", "org/dspark-draft",
                             "--speculative-num-draft-tokens", "8"],
                       weights_gb=40.0))
    plain = _pools(_pasted(model, [], weights_gb=40.0))
    assert plain.startswith("full ")
    replay, trtllm = "--enable-encoder-swa-bounded-replay", ["--dsv4-attn-backend", "trtllm"]
    for on, flags, why in (
            (model, ["--enable-hisparse", *trtllm], "trtllm does not support enable_hisparse"),
            (model, [replay], "requires DeepSeek-V4.1"),
            (model, ["--enable-hisparse", replay], "requires DeepSeek-V4.1"),
            (v41, ["--enable-hisparse", replay], "does not support HiSparse"),
            (v41, [replay, *trtllm], "does not support TRT-LLM with encoder SWA bounded replay")):
        with pytest.raises(ConfigError, match=re.escape(why)):
            _pasted(on, flags, weights_gb=40.0)
    yaml = tmp_path / "sglang.yaml"
    yaml.write_text("enable-hisparse: false\n")
    assert _pools(_pasted(model, ["--config", str(yaml)], weights_gb=40.0)) == plain


V41_HISPARSE = re.escape("DeepSeek-V4.1 does not support HiSparse yet")


def test_hisparse_is_read_by_every_reader(tmp_path: Path) -> None:
    """--enable-hisparse (s45k) from a pasted line, an SGLang --config file and a live
    ServerArgs: DeepSeek-V4.1 refuses it (deepseek_v4_hook.py:333-353) and so does the decode
    radix cache (pd_disaggregation_hook.py:100-104); false changes nothing."""
    v41 = _model(tmp_path, model_type="deepseek_v41")
    yaml = tmp_path / "sglang.yaml"
    yaml.write_text("enable-hisparse: true\n")
    for flags in (["--enable-hisparse"], ["--config", str(yaml)]):
        with pytest.raises(ConfigError, match=V41_HISPARSE):
            _pasted(v41, flags, weights_gb=40.0)
    args = types.SimpleNamespace(model_path=v41, max_running_requests=32, enable_hisparse=True)
    with pytest.raises(ConfigError, match=V41_HISPARSE):
        graphfit.plan(from_sglang(args, environ={}, gpu_memory_gb=80.0, weights_gb=40.0))
    with pytest.raises(ConfigError, match="incompatible with --enable-hisparse"):
        _pasted(v41, [*FLAGS, "--enable-hisparse"], weights_gb=40.0)
    yaml.write_text("enable-hisparse: false\n")
    assert _pools(_pasted(v41, ["--config", str(yaml)], weights_gb=40.0)) == _pools(
        _pasted(v41, [], weights_gb=40.0))


def test_backend_asserts_need_the_gpu_named(tmp_path: Path) -> None:
    """--dsv4-attn-backend's SM100-only asserts (deepseek_v4_hook.py:92-106; s45k) refuse a
    named pre-SM100 GPU; with no GPU named the pools are said, not sized, as before; the
    same from an SGLang --config file. flashmla_mega on a DeepSeek-V4 (not V4.1) model is
    refused on any GPU."""
    (tmp_path / "v41").mkdir()
    models = {"trtllm": _model(tmp_path),  # flashmla_mega: a V4.1 model (V4's is refused)
              "flashmla_mega": _model(tmp_path / "v41", model_type="deepseek_v41")}
    for name, model in models.items():
        flags = ["--dsv4-attn-backend", name]
        with pytest.raises(ConfigError, match=f"--dsv4-attn-backend {name} requires"):
            _pasted(model, flags, weights_gb=40.0, gpu_memory_gb="H100")
        assert f"--dsv4-attn-backend {name}'s pools" in _pools(
            _pasted(model, flags, weights_gb=40.0))
        yaml = tmp_path / "sglang.yaml"
        yaml.write_text(f"dsv4-attn-backend: {name}\n")
        with pytest.raises(ConfigError, match=f"--dsv4-attn-backend {name} requires"):
            _pasted(model, ["--config", str(yaml)], weights_gb=40.0, gpu_memory_gb="H100")
    with pytest.raises(ConfigError, match=re.escape("flashmla_mega requires DeepSeek-V4.1")):
        _pasted(models["trtllm"], ["--dsv4-attn-backend", "flashmla_mega"], weights_gb=40.0)


def test_kv_cache_dtype_is_read_by_every_reader(tmp_path: Path) -> None:
    """--kv-cache-dtype (s48k) from a pasted line, an SGLang --config file and a live
    ServerArgs: bfloat16 turns a V4.1 model's default backend on SM100 to flashmla (the V4
    layout, deepseek_v4_hook.py:45-60) and trtllm refuses it (:108-111); a name outside
    SGLang's choices is argparse's refusal."""
    v41 = _model(tmp_path, model_type="deepseek_v41")
    b200 = {"weights_gb": 80.0, "gpu_memory_gb": "B200"}
    assert "SM100: the V41 KV layout" in _pools(_pasted(v41, [], **b200))
    yaml = tmp_path / "sglang.yaml"
    yaml.write_text("kv-cache-dtype: bfloat16\n")
    for flags in (["--kv-cache-dtype", "bfloat16"], ["--config", str(yaml)]):
        assert "SM100: the V4 KV layout" in _pools(_pasted(v41, flags, **b200)), flags
        with pytest.raises(ConfigError, match=re.escape(
                "trtllm requires kv_cache_dtype=fp8_e4m3, got bfloat16")):
            _pasted(v41, [*flags, "--dsv4-attn-backend", "trtllm"], **b200)
    args = types.SimpleNamespace(model_path=v41, max_running_requests=32,
                                 kv_cache_dtype="bfloat16")
    live = graphfit.plan(from_sglang(args, environ={}, gpu_memory_gb="B200", weights_gb=80.0))
    assert "SM100: the V4 KV layout" in _pools(live)
    args = types.SimpleNamespace(model_path=v41, max_running_requests=32,
                                 kv_cache_dtype="auto")
    live = graphfit.plan(from_sglang(args, environ={}, gpu_memory_gb="B200", weights_gb=80.0))
    assert "SM100: the V41 KV layout" in _pools(live)
    with pytest.raises(ConfigError, match="invalid choice"):
        _pasted(v41, ["--kv-cache-dtype", "fp8"], **b200)
    from tests.helpers import run_cli  # graphfit's own --config file (an SGLang one)

    ours = tmp_path / "graphfit.yaml"
    for dtype, layout in (("bfloat16", "V4"), ("fp8_e4m3", "V41")):
        ours.write_text(f"model_path: {v41}\nmax_running_requests: 32\n"
                        f"kv_cache_dtype: {dtype}\n")
        code, out, err = run_cli(["plan", "--gpu-memory-gb", "B200", "--weights-gb", "80",
                                  "--config", str(ours)])
        assert code == 0 and f"SM100: the {layout} KV layout" in " ".join(out.split()), err
    # a vLLM file's kv_cache_dtype (vLLM's own names, not SGLang's) stays ignored
    vllm = tmp_path / "vllm.yaml"
    vllm.write_text("engine: vllm\nmax_num_seqs: 32\nkv_cache_dtype: fp8\n")
    code, out, err = run_cli(["plan", "--config", str(vllm)])
    assert code == 0 and "ignored: kv_cache_dtype" in " ".join(err.split()), err


def test_replay_blockers_are_read_by_every_reader(tmp_path: Path) -> None:
    """--enable-mixed-chunk, --enable-lora and --enable-session-radix-cache (s50k) from a
    pasted line, an SGLang --config file, graphfit's own config file and a live ServerArgs:
    each refuses encoder replay on a V4.1 model with SGLang's sentence (deepseek_v4_hook.py:
    323-325); without replay the line plans, the flag noted as not modelled; a vLLM file's
    enable_lora (vLLM's own key) stays ignored."""
    from tests.helpers import run_cli

    v41 = _model(tmp_path, model_type="deepseek_v41")
    replay = "--enable-encoder-swa-bounded-replay"
    yaml = tmp_path / "sglang.yaml"
    ours = tmp_path / "graphfit.yaml"
    for flag, feature in (("enable-mixed-chunk", "mixed prefill/decode"),
                          ("enable-lora", "LoRA"),
                          ("enable-session-radix-cache", "radix sessions")):
        why = f"--enable-encoder-swa-bounded-replay does not support {feature} yet"
        yaml.write_text(f"{flag}: true\n")
        for flags in ([replay, f"--{flag}"], [replay, "--config", str(yaml)]):
            with pytest.raises(ConfigError, match=re.escape(why)):
                _pasted(v41, flags, weights_gb=40.0)
        # LoRA without --lora-paths needs a rank and targets (lora_hook.py:152-155, s65d)
        lora = ["--max-lora-rank", "8", "--lora-target-modules", "all"] if "lora" in flag else []
        plan = _pasted(v41, [f"--{flag}", *lora], weights_gb=40.0)
        assert _pools(plan).startswith("full "), flag
        notes = commandline.read(["sglang", "serve", "--model-path", v41, f"--{flag}"]).notes
        assert any(f"--{flag} ({feature}" in note for note in notes), notes
        args = types.SimpleNamespace(model_path=v41, max_running_requests=32,
                                     enable_encoder_swa_bounded_replay=True,
                                     **{flag.replace("-", "_"): True})
        with pytest.raises(ConfigError, match=re.escape(why)):
            from_sglang(args, environ={}, gpu_memory_gb=80.0, weights_gb=40.0)
        ours.write_text(f"model_path: {v41}\nenable_encoder_swa_bounded_replay: true\n"
                        f"{flag.replace('-', '_')}: true\n")
        code, out, err = run_cli(["plan", "--gpu-memory-gb", "80", "--weights-gb", "40",
                                  "--config", str(ours)])
        assert code == 2 and out == "" and why in err and len(err.splitlines()) == 1, err
    vllm = tmp_path / "vllm.yaml"
    vllm.write_text("engine: vllm\nmax_num_seqs: 32\nenable_lora: true\n")
    code, out, err = run_cli(["plan", "--config", str(vllm)])
    assert code == 0 and "ignored: enable_lora" in " ".join(err.split()), err


def test_replay_window_is_sized_by_every_reader(tmp_path: Path) -> None:
    """--enable-encoder-swa-bounded-replay on a V4.1 model (s50k): a pasted line, an SGLang
    --config file and a live ServerArgs size the same pools, with no paged SWA pool (the
    window is a fixed cost, pool_configurator.py:1211-1247) and another full pool than the
    line without replay; more requests, a smaller full pool. (The figures themselves:
    tests/oracle/test_sglang_dsv4_plan_oracle.py, `REPLAY_WINDOW`.)"""
    v41 = _model(tmp_path, model_type="deepseek_v41")
    flags = ["--enable-encoder-swa-bounded-replay", "--max-running-requests", "32"]
    pasted = _pools(_pasted(v41, flags, weights_gb=40.0))
    yaml = tmp_path / "sglang.yaml"
    yaml.write_text("enable-encoder-swa-bounded-replay: true\nmax-running-requests: 32\n")
    assert _pools(_pasted(v41, ["--config", str(yaml)], weights_gb=40.0)) == pasted
    args = types.SimpleNamespace(model_path=v41, max_running_requests=32,
                                 enable_encoder_swa_bounded_replay=True)
    live = graphfit.plan(from_sglang(args, environ={}, gpu_memory_gb=80.0, weights_gb=40.0))
    assert _pools(live) == pasted and ", SWA 0, " in pasted, pasted

    def full(extra: list[str]) -> int:
        found = re.search(r"full (\d+) tokens", _pools(_pasted(v41, extra, weights_gb=40.0)))
        assert found is not None
        return int(found.group(1))
    plain = full(flags[1:])
    assert full(flags) != plain  # the cap-mode SWA pool gone, the window charged
    assert full([*flags[:1], "--max-running-requests", "512"]) < full(flags)


def test_replay_beside_a_local_dspark_draft_is_sized(tmp_path: Path) -> None:
    """Encoder replay beside a local DSPARK draft (issue 23, s51k): the draft's
    num_hidden_layers is read, the window holds one SWA ring per draft
    layer, so more draft layers leave fewer full tokens, while the target layer ids the
    draft names do not move the pools; the SWA pool stays 0 (no draft layer is paged on
    CUDA, deepseek_v4_memory_pool.py:135-139)."""
    (tmp_path / "v41").mkdir()
    v41 = _model(tmp_path / "v41", model_type="deepseek_v41")

    def draft(name: str, **fields: object) -> str:
        root = tmp_path / name
        root.mkdir()
        (root / "config.json").write_text(json.dumps({
            "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
            "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 129280,
            "max_position_embeddings": 1 << 20, "markov_rank": 1,
            "markov_head_type": "vanilla", "mask_token_id": 0, **fields}))
        return str(root)

    def plan(path: str) -> graphfit.Plan:
        return _pasted(v41, ["--enable-encoder-swa-bounded-replay", "--speculative-algorithm",
                             "DSPARK", "--speculative-draft-model-path", path],
                       weights_gb=40.0)

    one, four = plan(draft("one", num_hidden_layers=1)), plan(draft("four", num_hidden_layers=4))
    ids = plan(draft("ids", num_hidden_layers=1, dspark_target_layer_ids=[0, 1, 2]))
    full = [int(_pools(p).split()[1]) for p in (one, four, ids)]
    assert ", SWA 0, " in _pools(one) and full[1] < full[0] == full[2], full
    assert one.config.dspark_draft_layers == 1 and ids.config.dspark_draft_layers == 1
    assert four.config.dspark_draft_layers == 4
