"""SGLang's own answer to "one multi-layer EAGLE draft-extend graph per size, or one per step?"
(speculative/multi_layer_eagle_worker_v2.py:417-451), on CPU.

For a resolved line (`sglang_oracle.resolve`), published as the scheduler does:

* each step's draft-extend backend is built by SGLang's own
  `DraftBackendFactory.create_draft_extend_backend` (speculative/draft_utils.py:122-165) on a
  draft runner whose `draft_attention_backend` is SGLang's own
  `resolve_draft_attention_backend` (model_executor/model_runner.py:306-320); only the leaf
  constructors are stubbed: FlashAttention names give a bare `FlashAttentionBackend` on a
  plain KV pool (no translating index, no sliding-window pool: graphfit's assumption), every
  other name a bare subclass of the base `AttentionBackend` (no other backend overrides the
  two capabilities: layers/attention/base_attn_backend.py:153-160). `is_blackwell` and the
  AMX CPU check are off (graphfit's assumption for `hybrid_linear_attn`, draft_utils.py:
  281-286);
* SGLang's own `MultiLayerEagleDraftWorker._capture_cuda_graphs` then decides, with the
  environment as given (SGLANG_ENABLE_SINGLE_CG_DRAFT read by its own EnvBool); only the two
  runner classes are replaced by markers, so nothing is captured.
"""

from __future__ import annotations

import os
import types
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tests.oracle import sglang_oracle as so

ENV = "SGLANG_ENABLE_SINGLE_CG_DRAFT"
_FA_BUILDERS = ("_create_fa_prefill_backend", "_create_fa3_prefill_backend",
                "_create_fa4_prefill_backend", "_create_hybrid_linear_attn_prefill_backend")


@contextmanager
def _environment(value: str | None) -> Iterator[None]:
    saved = os.environ.get(ENV)
    if value is None:
        os.environ.pop(ENV, None)
    else:
        os.environ[ENV] = value
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = saved


def _bare_flash_attention(topk: int) -> Any:
    from sglang.srt.layers.attention.flashattention_backend import FlashAttentionBackend

    backend = FlashAttentionBackend.__new__(FlashAttentionBackend)
    backend.kv_index_translator = types.SimpleNamespace(is_translating=False)
    backend.use_sliding_window_kv_pool = False
    backend.topk = topk
    return backend


def _bare_base() -> Any:
    from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

    stub = type("BaseBackend", (AttentionBackend,), {})
    stub.__abstractmethods__ = frozenset()  # type: ignore[attr-defined]
    return object.__new__(stub)


def _bare_qsa() -> Any:
    from sglang.srt.layers.attention.qwen_sparse_attn_backend import QwenSparseAttnBackend

    return object.__new__(QwenSparseAttnBackend)


def _draft_extend_backend(steps: int, topk: int, qsa_profile: Any = None) -> tuple[str, Any]:
    """(the stamped backend name, the backend) SGLang's factory builds for one step, with the
    model's QSA profile as the worker passes it (multi_layer_eagle_worker_v2.py:392-400)."""
    import sglang.srt.speculative.draft_utils as du
    from sglang.srt.model_executor.model_runner import resolve_draft_attention_backend

    runner = types.SimpleNamespace(
        draft_attention_backend=resolve_draft_attention_backend(
            draft_attention_backend=None, is_draft_worker=True),
        model_config=types.SimpleNamespace(hf_config=object(), hf_text_config=object()))
    factory = du.DraftBackendFactory(runner, topk, steps, qsa_profile=qsa_profile)
    # QwenSparseAttnBackend's constructor needs a GPU runner: a bare instance, stamped by
    # SGLang's own `_stamp_qsa` (draft_utils.py:165-181)
    factory._create_qwen_qsa_draft_extend_backend = (  # type: ignore[method-assign]
        lambda: (factory._stamp_qsa(b := _bare_qsa()), b)[1])
    for name in dir(du.DraftBackendFactory):
        if (name.startswith("_create_") and name.endswith("_prefill_backend")
                and name not in _FA_BUILDERS):
            stamp = name[len("_create_"):-len("_prefill_backend")]
            setattr(factory, name, lambda stamp=stamp: (stamp, _bare_base()))
    factory._create_fa_prefill_backend = (  # type: ignore[method-assign]
        lambda fa_impl_ver=3: (f"fa{fa_impl_ver}", _bare_flash_attention(topk)))
    saved = (du.is_cpu, du.is_blackwell)
    du.is_cpu, du.is_blackwell = (lambda: False), (lambda: False)
    try:
        backend = factory.create_draft_extend_backend()
    finally:
        du.is_cpu, du.is_blackwell = saved
    return str(backend.prefill_attention_backend_str), backend


def mtp_graphs(r: so.Resolved, env: str | None) -> tuple[int, str]:
    """(graphs per capture size, the draft-extend backend name) SGLang decides for `r`."""
    with so.published(r), _environment(env):
        import sglang.srt.speculative.multi_layer_eagle_worker_v2 as worker
        from sglang.srt.layers.attention.qsa.config import parse_qsa_profile
        from sglang.srt.runtime_context import get_spec

        steps = int(get_spec().speculative_num_steps)
        topk = int(get_spec().speculative_eagle_topk or 1)
        model_config = getattr(r.record, "_model_config", None)  # resolve's own ModelConfig
        qsa = parse_qsa_profile(getattr(model_config, "hf_config", None))
        built = [_draft_extend_backend(steps, topk, qsa) for _ in range(steps)]
        fake = types.SimpleNamespace(
            draft_runner_list=[types.SimpleNamespace(attn_backend=b) for _, b in built],
            device="cuda", gpu_id=0, _specialized_graph_memory_usage={},
            _specialized_graph_time_usage={})
        names = ("_is_cpu", "_is_npu", "check_cuda_graph_backend", "get_available_gpu_memory",
                 "OneGraphMultiLayerEagleMultiStepDraftExtendCudaGraphRunner",
                 "MultiLayerEagleMultiStepDraftExtendCudaGraphRunner")
        saved = {n: getattr(worker, n) for n in names}
        try:
            worker._is_cpu = worker._is_npu = False
            worker.check_cuda_graph_backend = lambda *a, **k: False
            worker.get_available_gpu_memory = lambda *a, **k: 0.0
            worker.OneGraphMultiLayerEagleMultiStepDraftExtendCudaGraphRunner = (
                lambda w: "one")
            worker.MultiLayerEagleMultiStepDraftExtendCudaGraphRunner = lambda w: "per-step"
            worker.MultiLayerEagleDraftWorker._capture_cuda_graphs(fake)
        finally:
            for n, v in saved.items():
                setattr(worker, n, v)
    per_size = 1 if fake.cuda_graph_runner_for_draft_extend == "one" else steps
    return per_size, built[0][0]


# GPU name (graphfit.inputs.gpus) -> the CUDA capability the fake device reports for it
CAPABILITIES: dict[str, tuple[int, int]] = {
    "A100": (8, 0), "L40S": (8, 9), "H100": (9, 0), "B200": (10, 0), "RTX5090": (12, 0),
}


def model_dirs(root: Any) -> dict[str, str]:
    """Model shapes for lines without a backend, as config.json directories under `root`: a
    Llama (MHA), a Llama with learned attention sinks (SGLang avoids flashinfer), a Llama whose
    V rows are narrower than K (`has_asymmetric_kv`), a Qwen3-MoE, a DeepSeek-V3 (MLA, its own
    SM100 override), a Gemma-3 (sliding window without SGLang's hybrid pool), an Olmo2 (its
    own override, restated) and a Qwen3-VL (its own override, not restated)."""
    import json
    from pathlib import Path

    from tests.oracle import sglang_stubs as ss

    base = Path(root)
    out = {"llama": ss.write_model_dir(base / "llama"),
           "moe": ss.write_moe_model_dir(base / "moe"),
           "mla": ss.write_mla_model_dir(base / "mla")}
    for name, extra in (("sinks", {"learnable_sink": True}), ("asym", {"v_head_dim": 64})):
        path = ss.write_model_dir(base / name)
        data = json.loads((path / "config.json").read_text())
        (path / "config.json").write_text(json.dumps({**data, **extra}))
        out[name] = path
    gemma = base / "gemma3"
    gemma.mkdir(parents=True, exist_ok=True)
    (gemma / "config.json").write_text(json.dumps({
        "architectures": ["Gemma3ForCausalLM"], "model_type": "gemma3_text",
        "hidden_size": 1152, "intermediate_size": 6912, "num_attention_heads": 4,
        "num_key_value_heads": 1, "head_dim": 256, "num_hidden_layers": 6,
        "vocab_size": 262144, "max_position_embeddings": 32768, "sliding_window": 512,
        "rms_norm_eps": 1e-6, "rope_theta": 1000000.0, "torch_dtype": "bfloat16",
        "hidden_activation": "gelu_pytorch_tanh", "query_pre_attn_scalar": 256}))
    out["gemma3"] = gemma
    olmo = ss.write_model_dir(base / "olmo2", architecture="Olmo2ForCausalLM")
    data = json.loads((olmo / "config.json").read_text())
    (olmo / "config.json").write_text(json.dumps({**data, "model_type": "olmo2"}))
    out["olmo2"] = olmo
    out["vl"] = ss.write_qwen3_vl_model_dir(base / "vl")  # its override: not restated
    return {k: str(v) for k, v in out.items()}


# ROCm, driven on CPU through SGLang's own scoped platform override
# (`override_platform`, runtime_context.py:1908-1946): every fact the argument pipeline and
# the model overrides read through `get_platform()` says AMD; probes called directly from
# `utils.common` (cached) still see the fake CUDA device, so only what goes through
# `get_platform()` is compared
ROCM_FACTS: dict[str, bool] = {
    "is_hip": True, "is_cuda": False, "is_sm90": False, "is_sm100": False,
    "is_sm100_or_sm110": False, "is_sm110": False, "is_sm120": False, "is_blackwell": False,
    "is_hopper_with_cuda_12_3": False}
PLATFORMS: dict[str, dict[str, bool]] = {"MI300X": ROCM_FACTS}


@contextmanager
def _platform(gpu: str) -> Iterator[None]:
    if gpu not in PLATFORMS:
        yield
        return
    from sglang.srt.runtime_context import override_platform

    with override_platform(**PLATFORMS[gpu]):
        yield


@contextmanager
def _restored_environ() -> Iterator[None]:
    """Some model overrides write the process environment (Qwen3-VL's large-Hopper defaults
    set SGLANG_VLM_CACHE_SIZE_MB, qwen3_vl.py:92-95; MiniMax-M3 its ROCm switches,
    minimax_m3.py:129-130): restored after each line so no line sees another's."""
    saved = dict(os.environ)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def default_case(argv: tuple[str, ...], gpu: str, model: str, env: str | None
                 ) -> tuple[int, str, str | None] | str:
    """SGLang's (graphs per size, draft-extend backend, resolved base backend) for a line
    with the model `model` on the fake `gpu` (an NVIDIA capability of CAPABILITIES, or a
    ROCm GPU of PLATFORMS), or its refusal's text."""
    from graphfit.inputs.gpus import GPU_MEMORY_GB

    so.oracle()
    with _restored_environ(), _platform(gpu):
        r = so.resolve(argv, gpu_mem_gb=GPU_MEMORY_GB[gpu], model=model,
                       capability=CAPABILITIES.get(gpu, (9, 4)))
        if not isinstance(r, so.Resolved):
            return r.text
        try:
            per_size, backend = mtp_graphs(r, env)
        except ValueError as exc:  # the draft-extend factory refuses the backend
            return str(exc)
    return per_size, backend, r.attention_backend


# architectures whose model override names an attention backend
# (graphfit.planner.engines.sglang_arch_overrides): each as a Llama-shaped config.json under
# its own architecture name, plus the keys its override (or SGLang's config loading) reads
OVERRIDE_EXTRA: dict[str, dict[str, Any]] = {
    "GptOssForCausalLM": {}, "Gemma4ForCausalLM": {}, "DiffusionGemmaForBlockDiffusion": {},
    "FalconH1ForCausalLM": {}, "JetNemotronForCausalLM": {}, "Llama4ForCausalLM": {},
    "Lfm2ForCausalLM": {}, "NemotronHForCausalLM": {}, "Qwen3NextForCausalLM": {},
    "Qwen3_5ForConditionalGeneration": {}, "MossVLForConditionalGeneration": {},
    "MiniCPMV4_6ForConditionalGeneration": {}, "EmbeddingGemma2Model": {},
    "MiniMaxM3SparseForCausalLM": {}, "MiniCPMForCausalLM": {},
    "Qwen4ExpForConditionalGeneration": {}, "Qwen3VLMoeForConditionalGeneration": {},
    "IQuestQ1ForCausalLM": {}, "BeamForCausalLM": {"layer_types": ["full_attention"] * 32},
}
# (directory name, architecture, extra keys): configs SGLang loads with its own config class
OVERRIDE_SHAPES: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("granite_mamba", "GraniteMoeHybridForCausalLM",
     {"model_type": "granitemoehybrid", "layer_types": ["mamba", "attention"] * 16,
      "mamba_n_heads": 128, "mamba_d_head": 64}),
    ("granite_attn", "GraniteMoeHybridForCausalLM",
     {"model_type": "granitemoehybrid", "layer_types": ["attention"] * 32,
      "mamba_n_heads": 128, "mamba_d_head": 64}),
    ("minicpm_sparse", "MiniCPMSALAForCausalLM",
     {"model_type": "minicpm_sala", "sparse_config": {"kernel_size": 32}}),
    ("minicpm_dense", "MiniCPMSALAForCausalLM", {"model_type": "minicpm_sala"}),
    ("MiMoV2ForCausalLM", "MiMoV2ForCausalLM",
     {"hybrid_layer_pattern": [0, 1] * 16, "sliding_window": 512}),
    # a compressed QSA indexer (layers/attention/qsa/config.py:9-15, 47-75: block topk 512)
    ("qwen4_exp_qsa", "Qwen4ExpForConditionalGeneration",
     {"indexer_n_heads": 8, "indexer_kv_heads": 1, "indexer_head_dim": 128,
      "indexer_budget": 2048, "indexer_compress_ratio": 4}),
    # SGLang's own InklingModelConfig (configs/inkling.py:17-) over the Llama shape
    ("InklingForConditionalGeneration", "InklingForConditionalGeneration",
     {"model_type": "inkling_model"}),
)
# MLA-shaped (DeepSeek-V3 config.json) under another architecture name
MLA_OVERRIDE_SHAPES = ("KimiK3ForConditionalGeneration",)


def write_deepseek_v4_dir(directory: Any) -> str:
    """A DeepSeek-V4 config.json: the literal defaults of SGLang's own `DeepSeekV4Config`
    dataclass (configs/deepseek_v4.py:47-, read off its source: importing sglang.srt.configs
    pulls multimodal packages the CPU oracle lacks) with 4 layers and the sliding window
    its loader reads."""
    import ast
    import json
    from pathlib import Path

    from tests.oracle.paths import source_root

    tree = ast.parse((source_root("sglang") / "sglang/srt/configs/deepseek_v4.py").read_text())
    cls = next(n for n in ast.walk(tree)
               if isinstance(n, ast.ClassDef) and n.name == "DeepSeekV4Config")
    data: dict[str, Any] = {}
    for node in cls.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and (
                isinstance(node.value, ast.Constant)):
            data[node.target.id] = node.value.value
    data.update(architectures=["DeepseekV4ForCausalLM"], model_type="deepseek_v4",
                num_hidden_layers=4, compress_ratios=[0, 4, 128, 4, 0],
                torch_dtype="bfloat16", sliding_window=128)
    path = Path(directory)
    path.mkdir(parents=True, exist_ok=True)
    (path / "config.json").write_text(json.dumps(data))
    return str(path)


def override_model_dirs(root: Any) -> dict[str, str]:
    """One config.json directory per OVERRIDE_EXTRA architecture under `root`."""
    import json
    from pathlib import Path

    from tests.oracle import sglang_stubs as ss

    out = {}
    shapes = [(arch, arch, extra) for arch, extra in OVERRIDE_EXTRA.items()]
    for name, arch, extra in (*shapes, *OVERRIDE_SHAPES):
        path = ss.write_model_dir(Path(root) / name, architecture=arch)
        data = json.loads((path / "config.json").read_text())
        (path / "config.json").write_text(json.dumps({**data, **extra}))
        out[name] = str(path)
    for arch in MLA_OVERRIDE_SHAPES:
        path = ss.write_mla_model_dir(Path(root) / arch)
        data = json.loads((path / "config.json").read_text())
        (path / "config.json").write_text(json.dumps({**data, "architectures": [arch]}))
        out[arch] = str(path)
    from pathlib import Path

    out["DeepseekV4ForCausalLM"] = write_deepseek_v4_dir(Path(root) / "DeepseekV4ForCausalLM")
    return out
