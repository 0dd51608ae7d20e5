"""SGLang 0.5.23's vision-encoder (ViT) CUDA graphs, planned as the component `vit`.

`SGLANG_VIT_ENABLE_CUDA_GRAPH=1` (environ.py:1603, default off) makes four vision towers run
their transformer blocks through a lazily captured CUDA graph. None of them pads: a graph is
captured the first time its exact key is seen and replayed for that key only, with persistent
buffers of exactly the key's size. What differs is the key and the buffers:

* `qwen2_5_vl` (Qwen2_5_VisionTransformer, models/qwen2_5_vl.py:424-430, 594-666) and
  `qwen3_vl` (Qwen3VLMoeVisionModel, models/qwen3_vl.py:944-947, 1074-1097, 1134-1163) use
  `ViTCudaGraphRunner` (multimodal/vit_cuda_graph_runner.py). Key: (patch tokens S, the
  attention layout) (:146-159): Qwen2.5 passes ((0, 0, cumulative t*h*w per image...),
  the window boundaries with repeats dropped) (qwen2_5_vl.py:607-611, 651-663); Qwen3 passes
  (cu_seqlens: one h*w sequence per frame, models/utils.py:374-393, None)
  (qwen3_vl.py:1084). Per key (:340-367): `block_input` [S, 1, hidden], `block_ws`
  [S, heads per rank, head_dim] in the tower's dtype, the cu_seqlens tensors (int32) and
  their differences (`_kk`); per graph a view [:S, :D] of one rotary workspace pair
  (:99-138) that grows to max(max_context_len, 2 x previous rows, S) and keeps every older
  pair alive (graphs hold their addresses). D: head_dim for Qwen2.5 (cos/sin of
  cat(emb, emb), qwen2_5_vl.py:635-636 over Qwen2_5_VisionRotaryEmbedding(head_dim // 2),
  :397), head_dim / 2 for Qwen3 (get_rope(rotary_dim=head_dim // 2), qwen3_vl.py:421-427,
  gathered for (h, w) positions, :499-514). max_context_len: the text model's
  max_position_embeddings for Qwen2.5 (qwen2_5_vl.py:751), none for Qwen3 (no attribute,
  vit_cuda_graph_runner.py:70).
* `internvl` (InternVisionEncoder, models/internvl.py:319-334, 354-355) uses
  `InternViTCudaGraphRunner` (multimodal/internvl_vit_cuda_graph_runner.py): key (tiles B,
  tokens per tile S = (image_size / patch_size)^2 + 1) (:63-65, internvl.py:135-136); per
  key `inp` [B, S, hidden], `ws` [B*S, heads per rank, head_dim], `cu` = arange(0, (B+1)*S,
  S) and `cu_kk` (:67-94, 157-166).
* `kimi_k3` (KimiK3VisionTower, models/kimi_k3_vl.py:809-828) uses
  `KimiK3ViTCudaGraphRunner` (multimodal/kimi_k3_vit_cuda_graph_runner.py): key = the
  images' (t, h, w) tuple (:68-70); a key is captured only when its largest image has at
  most SGLANG_KIMI_K3_VIT_CUDA_GRAPH_MAX_SEQLEN patches (6144), on its MIN_HITS-th sighting
  (2) and while fewer than CACHE_CAPACITY (2) graphs exist (:166-191; environ.py:2120-2122);
  everything else runs eagerly. Its graph is the whole tower (patch embedding, blocks,
  merger: `_forward_eager`, kimi_k3_vl.py:837-868), and each captured entry keeps
  (`_CapturedVisionGraph`, runner :28-33, filled at :107-128), for N = the call's patches,
  I = its images, M = its merged tokens (sum of (h / k)(w / k), k the merge kernel):
  `pixel_values` [N, 3, p, p] (`torch.empty_like(pixel_values)`, :110: the Conv2d patch
  embedding's input, kimi_k3_vl.py:298), the `outputs` tpool_patch_merger returns
  (kimi_vl_moonvit.py:590-603: per image [(h/k)(w/k), k*k, hidden], captured in the graph
  pool, here rows M), and the metadata `prepare_forward_metadata` built before the capture
  (:193-198): `rope_freqs_cis` [N, head_dim / 2] complex64, planned as float32 pairs
  [N, head_dim / 2, 2] (the same bytes) (kimi_k3_vl.py:352-367, 625-629;
  head_dim = qkv_hidden_size / heads, :552-554), `position_embeddings` [N, hidden]
  (:780-785, 204-232), `cu_seqlens` [I + 1] and `seq_lens` [I] int32 (:630-633;
  layers/attention/vision.py:167-168). A merge kernel of its own width (merge_kernel_size
  [kh, kw], configs/kimi_k3.py:50) is honoured as SGLang does: M = sum of (h / kh)(w / kw),
  `outputs` rows of kh x kw (kimi_vl_moonvit.py:593-603). With `--mm-attention-backend
  flashinfer_cudnn` (`attention_backend`) the attention metadata is
  `prepare_flashinfer_cudnn_vision_attention_metadata`'s (kimi_k3_vl.py:637-642;
  layers/attention/vision.py:181-215): the images padded up to P = the first of
  BATCH_BUCKETS (8, 16, 32, 64; vision.py:114) >= I, else I rounded up to 8, and the entry
  also keeps `packed_indptrs` [3 (P + 1)] and `sequence_lengths` [P, 1, 1, 1], int32 (the
  padded boundaries x the attention width, three times; the padded lengths). That backend's
  128 MiB workspace (FLASHINFER_WORKSPACE_SIZE_BYTES, vision.py:110: a uint8 tensor
  MoonViT3dEncoder allocates once on a CUDA device and hands to every block's attention,
  kimi_k3_vl.py:531-537, 549-555, 428-433) is read by every captured graph, so it is planned as
  the buffer `attention_workspace` of 128 MiB rows on every key (`WORKLOAD_FREE_BUFFERS`:
  its rows are the same for every key, and SGLang holds it once, not per key: `sglang_bytes`
  counts it once). So is the rope's `freqs_cis` table (`KIMI_ROPE_TABLE`:
  Rope2DPosEmbRepeated's [512, 512, head_dim / 2] complex64 module buffer, registered at the
  first call, eager or captured, and kept, kimi_k3_vl.py:343-353, 545-547), planned as
  `rope_freqs_table`, 512 x 512 rows of [head_dim / 2, 2] float32 on every key (every key's
  `rope_freqs_cis` is gathered from it, runner :193-198). Not planned: the blocks'
  activations, not tensors the entry keeps but the working set of the capture in SGLang's
  global graph memory pool (runner :113-121), shared with the language model's graphs, whose
  size depends on the attention kernel and the fused rope picked on the GPU
  (kimi_k3_vl.py:455-484).
* An attention backend (`attention_backend`: SGLang's `--mm-attention-backend`, which
  overrides the tower's own choice, vision.py:1280-1300) other than triton_attn, fa3 or fa4
  makes the Qwen and InternVL runners raise at their first capture
  (vit_cuda_graph_runner.py:243-250, internvl_vit_cuda_graph_runner.py:103-110, 126-133):
  refused with that reason. Kimi K3 takes any of QKV_BACKEND_IMPL (vision.py:1052-1062;
  anything else: its ValueError, kimi_k3_vl.py:526-530).

The key space is open (any image size), so the plan needs a workload: the image grids
(t, h, w in patches) a deployment sends and the most images (InternVL: tiles) one encoder
call holds. `reachable_keys` enumerates every ordered choice of them, `VitPlan` sizes
graphfit's static buffers for the largest key (one buffer per kind, viewed per key, as
graphfit's runtime allocates) and proves `rows(key) <= capacity` for every buffer and every
reachable key; `sglang_bytes` is what SGLang itself allocates for the same keys (one buffer
set per key), the reference the plan's bytes are reported against.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import pairwise, product

from graphfit.planner.core.dtypes import itemsize
from graphfit.planner.core.errors import ConfigError, excerpt, require_int

# SGLang's multimodal attention backends (QKV_BACKEND_IMPL, layers/attention/vision.py:1052-1062)
ATTENTION_BACKENDS = ("triton_attn", "sdpa", "fa3", "fa4", "flashinfer_cudnn", "ascend_attn",
                      "aiter_attn", "amx_attn", "xpu_attn")
# the ones the Qwen and InternVL runners capture with (vit_cuda_graph_runner.py:243-250)
RUNNER_BACKENDS = ("triton_attn", "fa3", "fa4")
# flashinfer_cudnn's image-count buckets (BATCH_BUCKETS, layers/attention/vision.py:114)
CUDNN_BATCH_BUCKETS = (8, 16, 32, 64)
# flashinfer_cudnn's workspace: FLASHINFER_WORKSPACE_SIZE_BYTES (layers/attention/vision.py:110)
CUDNN_WORKSPACE_BYTES = 128 * 1024 * 1024
# buffers whose rows do not depend on the key: SGLang allocates them once per encoder
# (kimi_k3_vl.py:531-538), so its own bytes count them once however many graphs it holds
# Kimi K3's 2D rope table: `Rope2DPosEmbRepeated(head_dim, 512, 512)` (kimi_k3_vl.py:545-547)
# registers `freqs_cis`, complex64 [512, 512, head_dim / 2], as a module buffer on the tower's
# device at the first encoder call, eager or captured (:343-353; built at :327-341), and keeps
# it for the process: every key's metadata is gathered from it (:625-629) before the capture
# and replay (runner :193-198). One per tower (issue 23, s37v).
KIMI_ROPE_TABLE = (512, 512)
WORKLOAD_FREE_BUFFERS = frozenset({"attention_workspace", "rope_freqs_table"})
ENV_FLAG = "SGLANG_VIT_ENABLE_CUDA_GRAPH"  # environ.py:1603 (EnvBool, default False)
KIMI_DEFAULTS = {"capacity": 2, "min_hits": 2, "max_seqlen": 6144}  # environ.py:2120-2122

# architecture -> the tower family whose runner it builds (each model file's EntryClass)
VIT_ARCHITECTURES = {
    "Qwen2_5_VLForConditionalGeneration": "qwen2_5_vl",  # qwen2_5_vl.py:1004
    "Qwen3VLForConditionalGeneration": "qwen3_vl",  # qwen3_vl.py:1809
    "Qwen3VLMoeForConditionalGeneration": "qwen3_vl",  # qwen3_vl_moe.py:197, 412
    # bailing_mm_v3.py:328; its tower is Qwen3VLMoeVisionModel, data-parallel with
    # --mm-enable-dp-encoder (bailing_mm_v3.py:86, 100-105)
    "BailingMoeV3VLForConditionalGeneration": "qwen3_vl",
    # qwen3_omni_moe.py:732; the thinker's Qwen3OmniMoeVisionEncoder subclasses
    # Qwen3VLMoeVisionModel and keeps its forward (qwen3_omni_moe.py:432-446, 497-502)
    "Qwen3OmniMoeForConditionalGeneration": "qwen3_vl",
    "InternVLChatModel": "internvl",  # internvl.py:812
    # interns1.py:275; its tower is InternVL's InternVisionModel (interns1.py:22, 62)
    "InternS1ForConditionalGeneration": "internvl",
    # kimi_k3.py:3443, 3500, 3876 (its KimiK3VisionTower: kimi_k3_vl.py:809-828)
    "KimiK3ForConditionalGeneration": "kimi_k3",
    # Subclasses of Qwen3VLForConditionalGeneration: each constructor ends in its
    # super().__init__, which builds Qwen3VLMoeVisionModel(config.vision_config,
    # use_data_parallel=--mm-enable-dp-encoder) (qwen3_vl.py:1315-1340), and none replaces
    # self.visual; each vision config class derives from Qwen3VLVisionConfig (its defaults:
    # configs/qwen3_vl.py:8-39), Intern-S1-Pro's is remote code (QWEN3_REMOTE_CONFIG)
    "Qwen3_5ForConditionalGeneration": "qwen3_vl",  # qwen3_5.py:2374, 2387; configs/qwen3_5.py:7
    "Qwen3_5MoeForConditionalGeneration": "qwen3_vl",  # qwen3_5.py:2586, 2601; configs :112
    "InternS1ProForConditionalGeneration": "qwen3_vl",  # interns1pro.py:191, 203-208
    "Cosmos3ForConditionalGeneration": "qwen3_vl",  # cosmos3.py:38, 97; configs/cosmos3.py:17
    "Qwen4ExpForConditionalGeneration": "qwen3_vl",  # qwen4_exp.py:2220, 2240; configs :7
    # interns2_mobius.py:802, 823 (of Qwen3.5); configs/interns2_mobius.py:10
    "InternS2MobiusForConditionalGeneration": "qwen3_vl",
    # interns2preview.py:5 (of Qwen3.5-MoE, no constructor); configs/interns2preview.py:8
    "InternS2PreviewForConditionalGeneration": "qwen3_vl",
}
# the subclasses whose config SGLang parses with a Qwen3VLVisionConfig (a key absent from
# config.json takes that class's default); Intern-S1-Pro's config is remote code: no default
# but its own deepstack_visual_indexes = [] when absent (interns1pro.py:199-201)
QWEN3_REMOTE_CONFIG = frozenset({"InternS1ProForConditionalGeneration"})
QWEN3_CLASS_CONFIG = frozenset({
    "Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration",
    "Cosmos3ForConditionalGeneration", "Qwen4ExpForConditionalGeneration",
    "InternS2MobiusForConditionalGeneration", "InternS2PreviewForConditionalGeneration"})
# plain Qwen3-VL (qwen3_vl.py:1297) and Qwen3-VL-MoE (qwen3_vl_moe.py:197): config.json loads
# with transformers' Qwen3VLConfig / Qwen3VLMoeConfig (no SGLang registry entry), whose vision
# config defaults deepstack_visual_indexes to (8, 16, 24) as SGLang's copy does
# (configs/qwen3_vl.py:21, 478); only deepstack is filled for them (the others keep graphfit's
# reading: spatial_merge_size 2, out_hidden_size unknown)
QWEN3_PLAIN_CONFIG = frozenset({"Qwen3VLForConditionalGeneration",
                                "Qwen3VLMoeForConditionalGeneration"})
# Qwen3VLVisionConfig's defaults for what graphfit reads (configs/qwen3_vl.py:16-21)
QWEN3_VISION_DEFAULTS = {"spatial_merge_size": 2, "out_hidden_size": 3584,
                         "deepstack_visual_indexes": [8, 16, 24]}
# Every vision key graphfit reads, as the Qwen3 tower's config classes default it (issue 23,
# s37v): SGLang's Qwen3VLVisionConfig and Qwen3VLMoeVisionConfig (configs/qwen3_vl.py:10-21,
# 466-478), transformers' Qwen3VLVisionConfig / Qwen3VLMoeVisionConfig /
# Qwen3OmniMoeVisionEncoderConfig (the same values; SGLang's copy of the last:
# configs/qwen3_omni.py:58-71). QWEN3_VISION_DEFAULTS above keeps the keys main filled.
QWEN3_CONFIG_DEFAULTS: dict[str, object] = {"hidden_size": 1152, "num_heads": 16,
                                            "patch_size": 16, **QWEN3_VISION_DEFAULTS}
# architecture -> the defaults its config class gives an absent vision key, and whether an
# absent vision_config is that class built with no arguments:
# * the class-config subclasses and plain Qwen3-VL / -MoE: QWEN3_CONFIG_DEFAULTS;
# * Qwen3-Omni MoE: transformers' Qwen3OmniMoeConfig (SGLang registers none), its thinker's
#   Qwen3OmniMoeVisionEncoderConfig; an absent thinker_config is {} (configs/qwen3_omni.py:
#   560-578, the same in transformers), an absent vision_config the default (:214-217);
# * Bailing MoE V3 VL: SGLang's BailingMoeV3VLConfig sets deepstack_visual_indexes [] when
#   absent, then Qwen3VLMoeVisionConfig (configs/bailing_hybrid.py:254-261).
QWEN3_DEFAULTED: dict[str, dict[str, object]] = {
    **{arch: QWEN3_CONFIG_DEFAULTS for arch in sorted(QWEN3_CLASS_CONFIG | QWEN3_PLAIN_CONFIG)},
    "Qwen3OmniMoeForConditionalGeneration": QWEN3_CONFIG_DEFAULTS,
    "BailingMoeV3VLForConditionalGeneration": {**QWEN3_CONFIG_DEFAULTS,
                                               "deepstack_visual_indexes": []},
}
FAMILIES = ("qwen2_5_vl", "qwen3_vl", "internvl", "kimi_k3")
# Bailing MM v1/v2 (bailing_mm.py:46, 262, 266-269): the tower is the one vision_config names,
# its architectures[0], else its model_type (bailing_mm.py:79-80); any other name is SGLang's
# own ValueError (:92). Built with use_data_parallel = --mm-enable-dp-encoder (:59, 97); the
# Qwen2.5 tower gets no max_context_len (:93-98; Qwen2_5_VisionTransformer's default None,
# qwen2_5_vl.py:366), so its first rotary workspace is S rows, not the text context.
BAILING_MM_ARCHITECTURES = ("BailingMMNativeForConditionalGeneration",
                            "BailingMM2NativeForConditionalGeneration")
BAILING_MM_TOWERS = {  # bailing_mm.py:81-90
    "Qwen3MoeVisionTransformer": "qwen3_vl",
    "Qwen3_VisionTransformer": "qwen3_vl",
    "qwen3_vl_moe": "qwen3_vl",
    "Qwen2_5_VisionTransformer": "qwen2_5_vl",
}
# Bailing MM v2's registered config class (issue 23, s41v): a config.json whose model_type is
# BAILING_MM2_MODEL_TYPE loads with SGLang's BailingMM2Config (registry keyed by model_type,
# utils/hf_transformers/common.py:117-122; reloaded through it, utils/hf_transformers/
# config.py:281-295), whichever of the two Bailing MM classes it names. Its vision_config is
# Qwen3VLMoeVisionConfig(**vision_config), or Qwen3VLMoeVisionConfig() when absent or null
# (configs/bailing_moe_v2.py:150-154): an absent key takes that class's default
# (configs/qwen3_vl.py:461-478), model_type "qwen3_vl_moe" included, so a vision_config naming
# no tower builds Qwen3-VL's (bailing_mm.py:79-87). That class has no window_size nor
# fullatt_block_indexes: the Qwen2.5 tower it may name reads both with no default
# (qwen2_5_vl.py:379-380). A non-null audio_config is refused by the model
# (bailing_mm.py:66-70; the config class first refuses a non-object one,
# configs/bailing_moe_v2.py:140-149).
BAILING_MM2_MODEL_TYPE = "bailingmm_moe_v2_lite"
BAILING_MM2_VISION_DEFAULTS: dict[str, object] = {**QWEN3_CONFIG_DEFAULTS,
                                                  "model_type": "qwen3_vl_moe"}
BAILING_MM2_QWEN2_5_KEYS = ("window_size", "fullatt_block_indexes")
# Architectures whose tower builds a ViT CUDA-graph runner graphfit does not plan, with the
# reason: one that never serves a call (RADIO), or a tower built by a constructor not restated.
# internvl.py:353-357 (the graph path returns a tuple); radio.py:509-511, 564-565, 601-602
# (each RADIO path reads a BaseModelOutput): every call fails once its graph is captured
_RADIO = ("its RADIO encoder returns a tuple under ViT graphs (internvl.py:356-357), RadioModel "
          "wants a BaseModelOutput (radio.py:510, 565)")
# MiniMax-M3-VL's tower (models/minimax_m3_vl.py:115 -> minimax_vl_common.py:755, 773, 430):
# no module of it reads SGLANG_VIT_ENABLE_CUDA_GRAPH or builds a ViT graph runner, and its
# encoder always hands VisionAttention forward_metadata (minimax_vl_common.py:733-751), which
# every backend takes before its graph branch (layers/attention/vision.py:480-487, 552-558)
NO_VIT_GRAPH = ("its CLIP tower (minimax_vl_common.py:430) has no ViT graph runner and always "
                "passes forward_metadata (:733-751): SGLang runs it eager")
REFUSED_ARCHITECTURES = {  # nano_nemotron_vl.py:91 (RadioModel), 494-498 (EntryClass)
    "NemotronH_Nano_VL_V2": _RADIO,
    "NemotronH_Nano_Omni_Reasoning_V3": _RADIO,
    "NemotronH_Omni_Reasoning_V3": _RADIO,
    "MiniMaxM3SparseForConditionalGeneration": NO_VIT_GRAPH,
}
# the most keys a plan enumerates (each ordered choice of images is one key)
MAX_KEYS = 20_000

Grid = tuple[int, int, int]  # (t, h, w) in patches, as SGLang's image_grid_thw holds them
# The key exactly as SGLang's runner files a graph: Qwen (S, (layout, window layout or None));
# InternVL (tiles, tokens per tile); Kimi K3 the images' (t, h, w) tuple
VitKey = tuple[object, ...]


@dataclass(frozen=True)
class VitGeometry:
    """What the runners read of the vision tower: its width, heads, patch and merge sizes.

    `heads_per_rank`: VisionAttention's num_attention_heads_per_partition, the heads divided
    by the attention TP size unless the encoder runs data-parallel (`--mm-enable-dp-encoder`:
    `tp` 1) (layers/attention/vision.py:1123, 1132; qwen2_5_vl.py:717, qwen3_vl.py:1326).
    `window_size` / `fullatt_blocks`: Qwen2.5's windowed attention (vision_config.window_size,
    fullatt_block_indexes; qwen2_5_vl.py:379-380). `max_context_len`: the first rotary
    workspace's rows (Qwen2.5: text max_position_embeddings; None: none).
    `tokens_per_tile`: InternVL's (image_size // patch_size)^2 + 1. `dummy_heads`: InternVL's
    vision_config.num_dummy_heads, padding heads added before the TP split
    (internvl.py:81; vision.py:1132: (num_dummy_heads + num_heads) / TP per rank).
    `qkv_hidden_size`: Kimi K3's attention width (None: hidden_size), whose per-head share is
    its 2D rope's dim (kimi_k3_vl.py:526, 552-554; a multiple of 4, :322); Kimi K3's merge
    kernel is `spatial_merge_size` high and `spatial_merge_width` wide (None: square;
    merge_kernel_size [kh, kw], kimi_k3_vl.py:704; the Qwen towers' merge is one size).
    `attention_backend`: SGLang's --mm-attention-backend (None: not given, the tower's
    platform default, vision.py:1280-1300); see the module docstring for what it changes.
    """

    family: str
    hidden_size: int
    num_heads: int
    patch_size: int = 14
    spatial_merge_size: int = 2
    out_hidden_size: int | None = None
    deepstack: int = 0
    window_size: int | None = None
    fullatt_blocks: tuple[int, ...] = ()
    max_context_len: int | None = None
    tokens_per_tile: int | None = None
    dummy_heads: int = 0
    qkv_hidden_size: int | None = None
    tp: int = 1
    dtype: str = "bfloat16"
    spatial_merge_width: int | None = None
    attention_backend: str | None = None

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise ConfigError(f"vit: family {excerpt(self.family)} is not one of "
                              f"{', '.join(FAMILIES)}")
        for name in ("hidden_size", "num_heads", "patch_size", "spatial_merge_size", "tp"):
            require_int(f"vit: {name}", getattr(self, name), 1)
        require_int("vit: deepstack", self.deepstack, 0)
        require_int("vit: dummy_heads", self.dummy_heads, 0)
        for name in ("out_hidden_size", "window_size", "max_context_len", "tokens_per_tile",
                     "qkv_hidden_size"):
            value = getattr(self, name)
            if value is not None:
                require_int(f"vit: {name}", value, 1)
        if self.spatial_merge_width is not None:
            require_int("vit: spatial_merge_width", self.spatial_merge_width, 1)
            if self.family != "kimi_k3":
                raise ConfigError("vit: spatial_merge_width is Kimi K3's (the Qwen towers' "
                                  "spatial_merge_size is one size)")
        self._check_backend()
        if self.qkv_hidden_size is not None and self.family != "kimi_k3":
            raise ConfigError("vit: qkv_hidden_size is Kimi K3's (other towers' attention is "
                              "hidden_size wide)")
        width = self.qkv_hidden_size or self.hidden_size
        if width % self.num_heads:
            raise ConfigError(f"vit: attention width {width} is not a multiple of "
                              f"num_heads {self.num_heads}")
        if self.family == "kimi_k3" and self.head_dim % 4:
            raise ConfigError(f"vit: Kimi K3's head_dim {self.head_dim} is not a multiple of "
                              f"4 (its 2D rope, kimi_k3_vl.py:322)")
        if (self.num_heads + self.dummy_heads) % self.tp:
            raise ConfigError(f"vit: num_heads {self.num_heads} (+ {self.dummy_heads} dummy) "
                              f"is not a multiple of the TP size {self.tp}")
        if self.family == "qwen2_5_vl" and self.window_size is None:
            raise ConfigError("vit: Qwen2.5-VL needs vision_config.window_size")
        if self.family == "internvl" and self.tokens_per_tile is None:
            raise ConfigError("vit: InternVL needs tokens_per_tile (image_size, patch_size)")
        if self.family == "qwen2_5_vl" and self.window_size is not None and (
                self.window_size // self.spatial_merge_size // self.patch_size < 1):
            raise ConfigError(f"vit: window_size {self.window_size} is smaller than one "
                              f"merged patch")
        itemsize(self.dtype)
        object.__setattr__(self, "fullatt_blocks", tuple(self.fullatt_blocks))

    def _check_backend(self) -> None:
        """Refuse a backend SGLang refuses for this tower, with its reason."""
        backend = self.attention_backend
        if backend is None:
            return
        if backend not in ATTENTION_BACKENDS:
            raise ConfigError(f"vit: attention_backend {excerpt(backend)} is not one of "
                              f"SGLang's ({', '.join(ATTENTION_BACKENDS)}; vision.py:1052)")
        if self.family != "kimi_k3" and backend not in RUNNER_BACKENDS:
            internvl = self.family == "internvl"
            where = ("internvl_vit_cuda_graph_runner.py:103-110" if internvl
                     else "vit_cuda_graph_runner.py:243-250")
            raise ConfigError(f"vit: SGLang's runner raises '{'InternVL ' if internvl else ''}"
                              f"ViT CUDA graph does not support attention backend: {backend}' "
                              f"at its first capture ({where}): use "
                              f"{', '.join(RUNNER_BACKENDS)}")

    @property
    def merge_kernel(self) -> tuple[int, int]:
        """(kh, kw): the merge kernel's height and width in patches."""
        return (self.spatial_merge_size, self.spatial_merge_width or self.spatial_merge_size)

    @property
    def head_dim(self) -> int:
        return (self.qkv_hidden_size or self.hidden_size) // self.num_heads

    @property
    def heads_per_rank(self) -> int:
        return (self.num_heads + self.dummy_heads) // self.tp

    @property
    def rotary_width(self) -> int:
        """The rotary workspace's columns (module docstring)."""
        return self.head_dim if self.family == "qwen2_5_vl" else self.head_dim // 2

    @property
    def merge_unit(self) -> int:
        return self.spatial_merge_size ** 2


@dataclass(frozen=True)
class VitWorkload:
    """The images one encoder call may hold: `grids` (t, h, w in patches) and at most
    `max_images` of them (InternVL: `max_images` tiles; its grids are not read)."""

    grids: tuple[Grid, ...]
    max_images: int

    def __post_init__(self) -> None:
        require_int("vit: max_images", self.max_images, 1)
        if not isinstance(self.grids, (tuple, list)) or not all(
                isinstance(g, (tuple, list)) for g in self.grids):
            raise ConfigError(f"vit: grids must be (t, h, w) tuples, got "
                              f"{excerpt(self.grids)}")
        grids = tuple(tuple(g) for g in self.grids)
        if not grids:
            raise ConfigError("vit: the workload needs at least one image grid (t, h, w)")
        for g in grids:
            if len(g) != 3:
                raise ConfigError(f"vit: an image grid is (t, h, w), got {excerpt(g)}")
            for name, value in zip("thw", g, strict=True):
                require_int(f"vit: grid {name}", value, 1)
        object.__setattr__(self, "grids", tuple(dict.fromkeys(grids)))


def check_grid(geometry: VitGeometry, grid: Grid) -> None:
    """A Qwen grid's h and w are whole merge blocks (the processor resizes to multiples of
    patch_size * merge_size; the merger reshapes by merge_unit, qwen2_5_vl.py:622-625);
    so is a Kimi K3 grid's (tpool_patch_merger views each image as whole kernels,
    kimi_vl_moonvit.py:594-596)."""
    kh, kw = geometry.merge_kernel
    if geometry.family != "internvl" and (grid[1] % kh or grid[2] % kw):
        size = f"{kh}" if kh == kw else f"{kh}x{kw}"
        raise ConfigError(f"vit: grid {grid}: h and w must be multiples of the spatial merge "
                          f"size {size}")


def qwen3_layout(grids: Sequence[Grid]) -> tuple[int, ...]:
    """cu_seqlens of Qwen3-VL: one sequence of h*w per frame (models/utils.py:388-391)."""
    cu = [0]
    for t, h, w in grids:
        for _ in range(t):
            cu.append(cu[-1] + h * w)
    return tuple(cu)


def qwen2_5_full_layout(grids: Sequence[Grid]) -> tuple[int, ...]:
    """Qwen2.5-VL's full-attention layout: (0, 0, cumulative t*h*w per image...)
    (qwen2_5_vl.py:643-657; one sequence per image, the leading zero doubled)."""
    cu = [0, 0]
    for t, h, w in grids:
        cu.append(cu[-1] + t * h * w)
    return tuple(cu)


def qwen2_5_window_layout(geometry: VitGeometry, grids: Sequence[Grid]) -> tuple[int, ...]:
    """Qwen2.5-VL's window boundaries with consecutive repeats dropped (get_window_index,
    qwen2_5_vl.py:432-474, and the filter at :607-611): per frame, windows of W x W merged
    patches row by row (W = window_size // merge // patch), the grid padded up to the next
    multiple of W -- a whole empty row / column of windows when it divides (pad = W - n % W)."""
    assert geometry.window_size is not None
    m = geometry.spatial_merge_size
    W = geometry.window_size // m // geometry.patch_size
    cu = [0]
    for t, h, w in grids:
        lh, lw = h // m, w // m
        nh, nw = (lh + W - lh % W) // W, (lw + W - lw % W) // W
        for _ in range(t):
            for i in range(nh):
                for j in range(nw):
                    rows = max(0, min(W, lh - i * W))
                    cols = max(0, min(W, lw - j * W))
                    cu.append(cu[-1] + rows * cols * geometry.merge_unit)
    return tuple(v for i, v in enumerate(cu) if i == 0 or v != cu[i - 1])


def graph_key(geometry: VitGeometry, grids: Sequence[Grid]) -> VitKey:
    """The key SGLang's runner files the call under (module docstring); InternVL: `grids`
    are its tiles (one each)."""
    if geometry.family == "internvl":
        assert geometry.tokens_per_tile is not None
        return (len(grids), geometry.tokens_per_tile)
    for g in grids:
        check_grid(geometry, g)
    if geometry.family == "kimi_k3":
        return tuple((int(t), int(h), int(w)) for t, h, w in grids)
    tokens = sum(t * h * w for t, h, w in grids)
    if geometry.family == "qwen3_vl":
        return (tokens, (qwen3_layout(grids), None))
    return (tokens, (qwen2_5_full_layout(grids), qwen2_5_window_layout(geometry, grids)))


def reachable_calls(workload: VitWorkload) -> Iterator[tuple[Grid, ...]]:
    """Every ordered choice of 1..max_images grids of the workload (an encoder call
    concatenates its images in request order)."""
    for k in range(1, workload.max_images + 1):
        yield from product(workload.grids, repeat=k)


def reachable_keys(geometry: VitGeometry, workload: VitWorkload) -> tuple[VitKey, ...]:
    """The distinct keys of every reachable call, in first-seen order; ConfigError above
    MAX_KEYS (SGLang would capture as many graphs: narrow the workload)."""
    reachable_keys_count(geometry, workload)
    return tuple(key_calls(geometry, workload))


def reachable_keys_count(geometry: VitGeometry, workload: VitWorkload) -> int:
    """The calls to enumerate; ConfigError above MAX_KEYS."""
    count: int = sum(len(workload.grids) ** k for k in range(1, workload.max_images + 1))
    if geometry.family == "internvl":
        count = workload.max_images
    if count > MAX_KEYS:
        raise ConfigError(f"vit: the workload has {count} image orders (> {MAX_KEYS}); each "
                          f"is a graph SGLang captures: fewer grids or images per call")
    return count


def key_calls(geometry: VitGeometry, workload: VitWorkload
              ) -> dict[VitKey, tuple[Grid, ...]]:
    """Each reachable key with the first call that reaches it (a probe for rehearsals)."""
    if geometry.family == "internvl":
        return {graph_key(geometry, [(1, 1, 1)] * b): ((1, 1, 1),) * b
                for b in range(1, workload.max_images + 1)}
    keys: dict[VitKey, tuple[Grid, ...]] = {}
    for call in reachable_calls(workload):
        keys.setdefault(graph_key(geometry, call), call)
    return keys


def key_fill(geometry: VitGeometry, key: VitKey) -> dict[str, tuple[int, ...]]:
    """The values of `key`'s int32 buffers (sequence boundaries and their differences), as
    SGLang fills them once per key (vit_cuda_graph_runner.py:355-367,
    internvl_vit_cuda_graph_runner.py:67-69, 161-163)."""
    if geometry.family == "kimi_k3":
        return {}
    if geometry.family == "internvl":
        b, s = key
        assert isinstance(b, int) and isinstance(s, int)
        layout: tuple[int, ...] = tuple(range(0, (b + 1) * s, s))
        window = None
    else:
        _, layout, window = _qwen_parts(key)
    out = {"cu_seqlens": layout,
           "cu_seqlens_kk": tuple(b - a for a, b in pairwise(layout))}
    if window is not None and geometry.fullatt_blocks:
        out["cu_window_seqlens"] = window
        out["cu_window_seqlens_kk"] = tuple(b - a for a, b in pairwise(window))
    return out


@dataclass(frozen=True)
class VitBuffer:
    """One persistent tensor a key's graph reads: `rows` along its first axis, `row_shape`
    after it, `dtype`. Static input (`input`), attention workspace (`ws`), int32 sequence
    boundaries, rotary cos/sin."""

    name: str
    rows: int
    row_shape: tuple[int, ...]
    dtype: str

    @property
    def row_bytes(self) -> int:
        n = itemsize(self.dtype)
        for d in self.row_shape:
            n *= d
        return n

    @property
    def bytes(self) -> int:
        return self.rows * self.row_bytes


def key_buffers(geometry: VitGeometry, key: VitKey) -> tuple[VitBuffer, ...]:
    """The buffers SGLang allocates (or keeps) for `key`'s graph, with their exact rows."""
    g, dt = geometry, geometry.dtype
    ws_row = (g.heads_per_rank, g.head_dim)
    if g.family == "internvl":
        b, s = key[0], key[1]
        assert isinstance(b, int) and isinstance(s, int)
        return (VitBuffer("block_input", b, (s, g.hidden_size), dt),  # inp [B, S, H]
                VitBuffer("block_ws", b * s, ws_row, dt),
                VitBuffer("cu_seqlens", b + 1, (), "int32"),
                VitBuffer("cu_seqlens_kk", b, (), "int32"))
    if g.family == "kimi_k3":  # module docstring: what a captured entry keeps
        grids = _kimi_grids(key)
        patches = sum(t * h * w for t, h, w in grids)
        kh, kw = g.merge_kernel
        merged = sum((h // kh) * (w // kw) for _, h, w in grids)
        kimi = (VitBuffer("pixel_values", patches, (3, g.patch_size, g.patch_size), dt),
                VitBuffer("outputs", merged, (kh * kw, g.hidden_size), dt),
                # complex64 as its float32 (real, imag) pairs (torch.view_as_real)
                VitBuffer("rope_freqs_cis", patches, (g.head_dim // 2, 2), "float32"),
                VitBuffer("position_embeddings", patches, (g.hidden_size,), dt),
                VitBuffer("cu_seqlens", len(grids) + 1, (), "int32"),
                VitBuffer("seq_lens", len(grids), (), "int32"),
                # the rope table the metadata is gathered from (KIMI_ROPE_TABLE), one row
                # per (y, x) position
                VitBuffer("rope_freqs_table", KIMI_ROPE_TABLE[0] * KIMI_ROPE_TABLE[1],
                          (g.head_dim // 2, 2), "float32"))
        if g.attention_backend != "flashinfer_cudnn":
            return kimi
        padded = cudnn_padded_images(len(grids))
        return (*kimi, VitBuffer("packed_indptrs", 3 * (padded + 1), (), "int32"),
                VitBuffer("sequence_lengths", padded, (1, 1, 1), "int32"),
                # the encoder's one workspace every block's attention writes through
                VitBuffer("attention_workspace", CUDNN_WORKSPACE_BYTES, (), "uint8"))
    tokens, layout, window = _qwen_parts(key)
    out: list[VitBuffer] = [
        VitBuffer("block_input", tokens, (1, g.hidden_size), dt),
        VitBuffer("block_ws", tokens, ws_row, dt),
        VitBuffer("cu_seqlens", len(layout), (), "int32"),
        VitBuffer("cu_seqlens_kk", len(layout) - 1, (), "int32"),
    ]
    if window is not None and g.fullatt_blocks:
        out += [VitBuffer("cu_window_seqlens", len(window), (), "int32"),
                VitBuffer("cu_window_seqlens_kk", len(window) - 1, (), "int32")]
    out += [VitBuffer("rotary_cos", tokens, (g.rotary_width,), dt),
            VitBuffer("rotary_sin", tokens, (g.rotary_width,), dt)]
    return tuple(out)


def cudnn_padded_images(images: int) -> int:
    """flashinfer_cudnn's padded image count: the first bucket >= `images`, else `images`
    rounded up to the first bucket (vision.py:190-193)."""
    first = CUDNN_BATCH_BUCKETS[0]
    return next((b for b in CUDNN_BATCH_BUCKETS if b >= images), -(-images // first) * first)


def workspace_rows(geometry: VitGeometry, tokens_in_order: Iterable[int]) -> tuple[int, ...]:
    """SGLang's rotary workspace allocations (rows of each cos/sin pair, oldest first) for
    graphs captured in this order (`_get_sin_cos_ws`, vit_cuda_graph_runner.py:107-131):
    a key of more rows than the current pair allocates max(max_context_len, 2 x rows, S)."""
    rows: list[int] = []
    for s in tokens_in_order:
        if not rows or rows[-1] < s:
            rows.append(max(geometry.max_context_len or 0, 2 * rows[-1] if rows else 0, s))
    return tuple(rows)


def kimi_outcomes(calls: Sequence[tuple[Grid, ...]], *, capacity: int, min_hits: int,
                  max_seqlen: int | None) -> tuple[str, ...]:
    """What Kimi K3's runner does with each call in turn: "replay", "capture" (captures
    then replays), or "eager" (kimi_k3_vit_cuda_graph_runner.py:340-405: too long, seen
    fewer than min_hits times, or the cache full; the sightings table keeps the last
    8 x capacity keys, :260-266)."""
    for name, value in (("capacity", capacity), ("min_hits", min_hits)):
        require_int(f"vit: kimi {name}", value, 1)
    if max_seqlen is not None:
        require_int("vit: kimi max_seqlen", max_seqlen, 1)
    graphs: set[tuple[Grid, ...]] = set()
    seen: dict[tuple[Grid, ...], int] = {}  # insertion order = recency
    out: list[str] = []
    for call in calls:
        key = tuple(tuple(g) for g in call)
        if key in graphs:
            out.append("replay")
            continue
        if max_seqlen is not None and max(t * h * w for t, h, w in key) > max_seqlen:
            out.append("eager")
            continue
        count = seen.pop(key, 0) + 1  # type: ignore[arg-type]
        seen[key] = count  # type: ignore[index]
        if len(seen) > max(capacity * 8, capacity):
            del seen[next(iter(seen))]
        if count < min_hits or len(graphs) >= capacity:
            out.append("eager")
            continue
        graphs.add(key)  # type: ignore[arg-type]
        out.append("capture")
    return tuple(out)


@dataclass(frozen=True)
class VitViolation:
    key: VitKey
    buffer: str
    rows: int
    capacity: int


@dataclass(frozen=True)
class VitPlan:
    """graphfit's plan of the `vit` component: one static buffer per kind sized for the
    largest reachable key (`capacities`), each key's graph reading a [:rows] view of it.

    `keys`: every reachable key SGLang captures (Kimi K3: those it may capture; at most
    `max_graphs` at once). `sglang_bytes`: SGLang's own allocation for the same keys
    (a buffer set per key plus every rotary workspace it grows through, keys in
    first-seen order); `total_bytes`: graphfit's static buffers.
    """

    geometry: VitGeometry
    workload: VitWorkload
    keys: tuple[VitKey, ...]
    calls: tuple[tuple[Grid, ...], ...]  # a call reaching each key (same order)
    capacities: tuple[tuple[str, int], ...]
    buffers: tuple[VitBuffer, ...]
    max_graphs: int
    sglang_bytes: int
    notes: tuple[str, ...] = field(default=())

    @property
    def total_bytes(self) -> int:
        return sum(b.bytes for b in self.buffers)

    @property
    def held_keys(self) -> tuple[VitKey, ...]:
        """The keys whose buffer sets SGLang holds at once at its worst: every key, but for
        Kimi K3 only `max_graphs` of them (its cache never evicts, runner :182-191): the
        ones of the most bytes (`sglang_bytes` counts these)."""
        if self.max_graphs >= len(self.keys):
            return self.keys
        size = {k: sum(b.bytes for b in key_buffers(self.geometry, k)) for k in self.keys}
        ranked = sorted(range(len(self.keys)), key=lambda i: -size[self.keys[i]])
        return tuple(self.keys[i] for i in sorted(ranked[:self.max_graphs]))

    def capacity(self, name: str) -> int:
        return dict(self.capacities)[name]

    def key_of(self, grids: Sequence[Grid]) -> VitKey:
        """The key SGLang files a call of these images under (`graph_key`)."""
        return graph_key(self.geometry, grids)

    def key_buffers(self, key: VitKey) -> tuple[VitBuffer, ...]:
        """What `key`'s graph reads, with its rows (`key_buffers`)."""
        return key_buffers(self.geometry, key)

    def key_fill(self, key: VitKey) -> dict[str, tuple[int, ...]]:
        """`key`'s int32 boundary values (`key_fill`)."""
        return key_fill(self.geometry, key)

    def verify(self, capacities: Mapping[str, int] | None = None
               ) -> tuple[VitViolation, ...]:
        """padded rows <= capacity for every buffer of every reachable key (the runners do
        not pad: a key's padded rows are its own rows, pad(S) == S). `capacities`: rows to
        audit instead of the plan's (an allocation made elsewhere); ConfigError for a name
        the plan has no buffer of or a count below 0."""
        caps = dict(self.capacities)
        for name, rows in (capacities or {}).items():
            if name not in caps:
                raise ConfigError(f"vit: no buffer {excerpt(name)} (buffers: "
                                  f"{', '.join(caps)})")
            require_int(f"vit: capacity {name}", rows, 0)
            caps[name] = rows
        return tuple(VitViolation(k, b.name, b.rows, caps.get(b.name, 0))
                     for k in self.keys for b in key_buffers(self.geometry, k)
                     if b.rows > caps.get(b.name, 0))


# Kimi K3's blocks' activations (issue 23, s41v): the tensors the tower allocates and frees
# inside its capture (qkv, rope, attention, MLP; kimi_k3_vl.py:446-484), in the process-wide
# graph pool every runner shares (runner :113-114, model_executor/runner_utils/pool.py:
# 109-115). No entry keeps them and no replay input is written into them, so graphfit's
# runtime needs no static buffer for them; what they cost is pool memory: the capture's
# reserved growth after reusing the blocks earlier captures freed into the same pool, which
# SGLang itself only measures on the GPU (`reserved_delta_mib`, runner :108-109, 135-149).
KIMI_ACTIVATIONS_NOTE = (
    "not counted: the tower blocks' activations, freed inside the capture into SGLang's "
    "shared graph pool (pool.py:109-115): pool memory, not a buffer; SGLang logs it per "
    "capture as reserved_delta_mib (kimi_k3_vit_cuda_graph_runner.py:135-149)")


def plan_vit(geometry: VitGeometry, workload: VitWorkload, *,
             kimi: dict[str, int | None] | None = None) -> VitPlan:
    """The `vit` component's plan for `workload` (module docstring)."""
    reachable_keys_count(geometry, workload)
    reach = key_calls(geometry, workload)
    keys = tuple(reach)
    notes: list[str] = []
    max_graphs = len(keys)
    if geometry.family == "kimi_k3":
        k = {**KIMI_DEFAULTS, **(kimi or {})}
        limit = k["max_seqlen"]
        keys = tuple(key for key in keys
                     if limit is None or max(_kimi_sizes(key)) <= limit)
        cap = k["capacity"]
        assert cap is not None
        max_graphs = min(len(keys), cap)
        notes.append(f"Kimi K3 keeps at most {cap} graphs (SGLANG_KIMI_K3_VIT_CUDA_GRAPH_"
                     f"CACHE_CAPACITY), captured at a key's call number {k['min_hits']} "
                     f"(MIN_HITS); the rest of the {len(keys)} capturable keys run eagerly")
        notes.append(KIMI_ACTIVATIONS_NOTE)
    caps: dict[str, int] = {}
    shapes: dict[str, VitBuffer] = {}
    for key in keys:
        for b in key_buffers(geometry, key):
            caps[b.name] = max(caps.get(b.name, 0), b.rows)
            shapes.setdefault(b.name, b)
    buffers = tuple(VitBuffer(n, caps[n], b.row_shape, b.dtype) for n, b in shapes.items())
    plan = VitPlan(geometry, workload, keys, tuple(reach[k] for k in keys),
                   tuple(caps.items()), buffers, max_graphs, 0, tuple(notes))
    per_key_bytes = sum(b.bytes for k in plan.held_keys for b in key_buffers(geometry, k)
                        if not b.name.startswith("rotary_")
                        and b.name not in WORKLOAD_FREE_BUFFERS)
    once = sum(b.bytes for b in buffers if b.name in WORKLOAD_FREE_BUFFERS)
    rotary = 0
    if geometry.family in ("qwen2_5_vl", "qwen3_vl"):
        width_bytes = geometry.rotary_width * itemsize(geometry.dtype)
        rotary = 2 * width_bytes * sum(workspace_rows(geometry, (_tokens(k) for k in keys)))
    return replace(plan, sglang_bytes=per_key_bytes + rotary + once)



def _tokens(key: VitKey) -> int:
    value = key[0]
    assert isinstance(value, int)
    return value


def _qwen_parts(key: VitKey) -> tuple[int, tuple[int, ...], tuple[int, ...] | None]:
    """(S, layout, window layout or None) of a Qwen key (S, (layout, window))."""
    tokens, layouts = key
    assert isinstance(tokens, int) and isinstance(layouts, tuple)
    layout, window = layouts
    assert isinstance(layout, tuple) and (window is None or isinstance(window, tuple))
    return tokens, layout, window


def _kimi_grids(key: VitKey) -> tuple[Grid, ...]:
    """A Kimi K3 key's images (the key is their (t, h, w) tuple)."""
    grids = []
    for grid in key:
        assert isinstance(grid, tuple)
        t, h, w = grid
        grids.append((int(t), int(h), int(w)))
    return tuple(grids)


def _kimi_sizes(key: VitKey) -> list[int]:
    return [t * h * w for t, h, w in _kimi_grids(key)]


__all__ = ["ATTENTION_BACKENDS", "BAILING_MM2_MODEL_TYPE", "BAILING_MM2_QWEN2_5_KEYS",
           "BAILING_MM2_VISION_DEFAULTS", "BAILING_MM_ARCHITECTURES", "BAILING_MM_TOWERS",
           "CUDNN_BATCH_BUCKETS", "CUDNN_WORKSPACE_BYTES", "ENV_FLAG", "FAMILIES",
           "KIMI_ACTIVATIONS_NOTE", "KIMI_ROPE_TABLE",
           "RUNNER_BACKENDS",
           "cudnn_padded_images",
           "KIMI_DEFAULTS", "QWEN3_CLASS_CONFIG", "QWEN3_PLAIN_CONFIG", "QWEN3_REMOTE_CONFIG",
           "QWEN3_VISION_DEFAULTS", "QWEN3_CONFIG_DEFAULTS", "QWEN3_DEFAULTED",
           "NO_VIT_GRAPH", "REFUSED_ARCHITECTURES", "VIT_ARCHITECTURES", "VitBuffer",
           "VitGeometry", "VitPlan", "VitViolation", "VitWorkload", "graph_key",
           "key_buffers", "key_calls", "key_fill", "kimi_outcomes", "plan_vit",
           "qwen2_5_full_layout", "qwen2_5_window_layout", "qwen3_layout", "reachable_calls",
           "reachable_keys", "WORKLOAD_FREE_BUFFERS", "workspace_rows"]
