"""The vision tower SGLang's ViT CUDA graphs run, read from a local model's config.json
(graphfit.planner.engines.sglang_vit.VitGeometry), and the workload text `--images`.

The keys read are the ones each tower's constructor reads (cited per field):
* Qwen2.5-VL (qwen2_5_vl.py:366-397, 751): vision_config hidden_size, num_heads,
  patch_size, spatial_merge_size, window_size, fullatt_block_indexes, out_hidden_size; the
  text model's max_position_embeddings (`self.config.max_position_embeddings`: the top level,
  else text_config);
* Qwen3-VL (qwen3_vl.py:378-398, 417-421): vision_config hidden_size, num_heads, patch_size,
  spatial_merge_size, out_hidden_size, deepstack_visual_indexes;
* InternVL (internvl.py:113-136, 523-525) and Intern-S1 (its InternVisionModel,
  interns1.py:40-62): force_image_size or vision_config.image_size, vision_config.patch_size
  (tokens per tile (image_size // patch_size)^2 + 1), hidden_size, num_attention_heads. Their
  dummy heads are NOT read from config.json: the model's constructor overwrites
  vision_config.num_dummy_heads with the heads rounded up to a multiple of the attention TP
  size (`update_vit_attn_dummy_heads_config`, layers/attention/vision_utils.py:8-23, called at
  internvl.py:522 and interns1.py:39), whether or not the encoder then runs data-parallel;
  only InternVL's tower runs data-parallel with --mm-enable-dp-encoder (internvl.py:520,
  542-545), Intern-S1's is built without it (interns1.py:62: heads always split);
* the Qwen3-VL subclasses (Qwen3.5 / Qwen3.5-MoE, Intern-S1-Pro, Intern-S2 Mobius / Preview,
  Cosmos3, Qwen4-Exp: VIT_ARCHITECTURES): Qwen3-VL's keys and tower; a key absent from
  config.json (or the whole vision_config) takes its config class's default
  (QWEN3_DEFAULTED: hidden_size 1152, num_heads 16, patch_size 16, spatial_merge_size 2,
  out_hidden_size 3584, deepstack (8, 16, 24)), as for plain Qwen3-VL / Qwen3-VL-MoE
  (transformers' classes), except for Intern-S1-Pro, whose remote-code config has none
  (every key the tower reads with no default required, `_remote_keys`; deepstack [] as its
  constructor sets, interns1pro.py:199-201);
* Qwen3-Omni MoE (qwen3_omni_moe.py:432-502, 551-552, 732): Qwen3-VL's keys under
  thinker_config (its vision encoder subclasses Qwen3VLMoeVisionModel, built without
  use_data_parallel: heads always split), defaulted by Qwen3OmniMoeVisionEncoderConfig;
* Bailing MoE V3 VL: the same defaults but deepstack [] (configs/bailing_hybrid.py:254-261);
* Bailing MM v1/v2 (bailing_mm.py:46-98, 262-269): the tower vision_config names
  (architectures[0], else model_type; `bailing_mm_family`), with that family's keys above;
  Qwen2.5's max_context_len is None there (not passed, :93-98); dtype from llm_config;
  data-parallel with --mm-enable-dp-encoder (:59, 97); a config.json of model_type
  "bailingmm_moe_v2_lite" loads with SGLang's BailingMM2Config (`bailing_mm2_config`): absent
  vision keys take Qwen3VLMoeVisionConfig's defaults (no tower named: Qwen3-VL's), a Qwen2.5
  tower must write window_size and fullatt_block_indexes, and an audio_config is refused;
* Nemotron Nano VL (RADIO tower, nano_nemotron_vl.py:91, 494-498): refused
  (REFUSED_ARCHITECTURES: its runner's output never reaches the model);
* Kimi K3 (kimi_k3.py:3500, kimi_k3_vl.py:700-714, 552-554, 723-724): vision_config is
  SGLang's KimiK3VisionConfig (configs/kimi_k3.py:8-77, built at :98-103), so a key absent
  from config.json takes that class's default (KIMI_VISION_DEFAULTS) and hidden_size /
  num_attention_heads are overwritten by the vt_ ones (:74-77): vt_hidden_size,
  vt_num_attention_heads, qkv_hidden_size (null: hidden_size, kimi_k3_vl.py:526),
  patch_size, merge_kernel_size [kh, kw] (kimi_k3_vl.py:704; a kernel wider than it is high
  is merged as SGLang does, kimi_vl_moonvit.py:593-603).
`--mm-attention-backend` (read_geometry's `attention_backend`) is the line's, as given.
The dtype is the model's torch_dtype (text_config first), bfloat16 when absent.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from graphfit.inputs.model_config import local_config
from graphfit.inputs.reading import load_json
from graphfit.planner import ConfigError, VitGeometry, VitWorkload, excerpt
from graphfit.planner.engines.sglang_vit import (
    BAILING_MM2_MODEL_TYPE,
    BAILING_MM2_QWEN2_5_KEYS,
    BAILING_MM2_VISION_DEFAULTS,
    BAILING_MM_ARCHITECTURES,
    BAILING_MM_TOWERS,
    ENV_FLAG,
    QWEN3_DEFAULTED,
    QWEN3_REMOTE_CONFIG,
    REFUSED_ARCHITECTURES,
    VIT_ARCHITECTURES,
)

# towers SGLANG_VIT_ENABLE_CUDA_GRAPH leaves eager (the refusal's reason says why)
EAGER_TOWERS = frozenset({"MiniMaxM3SparseForConditionalGeneration"})
# architectures whose tower config sits one level down
NESTED = {"Qwen3OmniMoeForConditionalGeneration": "thinker_config"}
_DTYPES = {"bfloat16": "bfloat16", "float16": "float16", "half": "float16",
           "float32": "float32", "float": "float32"}


def _positive(where: str, data: dict[str, Any], *keys: str) -> int | None:
    for key in keys:
        if key in data and data[key] is not None:
            value = data[key]
            if isinstance(value, list) and value and all(isinstance(v, int) for v in value):
                value = value[0]  # InternVL's image_size / patch_size may be [h, w]
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{where}: {key}: expected a positive integer, got "
                                  f"{excerpt(value)}")
            return value
    return None


def _required(where: str, data: dict[str, Any], *keys: str) -> int:
    value = _positive(where, data, *keys)
    if value is None:
        raise ConfigError(f"{where}: {' / '.join(keys)} missing (the ViT graphs' size)")
    return value


def read_geometry(model: str | Path, *, tp: int = 1, dp_encoder: bool = False,
                  attention_backend: str | None = None) -> VitGeometry:
    """The vision tower of the model directory (or config.json) `model` on attention-TP `tp`
    (`--mm-enable-dp-encoder`: `dp_encoder`, the heads unsplit where the tower honours it;
    `--mm-attention-backend`: `attention_backend`); ConfigError when its architecture has no
    ViT CUDA graph in SGLang 0.5.23, or SGLang's runner refuses the backend."""
    if isinstance(tp, bool) or not isinstance(tp, int) or tp < 1:
        raise ConfigError(f"vit: tp must be an integer >= 1, got {excerpt(tp)}")
    path = Path(model).expanduser()
    if path.is_dir():
        path = path / "config.json"
    where = str(path)
    if not path.is_file():
        raise ConfigError(f"{where}: no such model config")
    data = load_json(path, "model config")
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a JSON object")
    archs = data.get("architectures")
    arch = archs[0] if isinstance(archs, list) and archs and isinstance(archs[0], str) else None
    if arch in REFUSED_ARCHITECTURES:
        # no path: the reason's citations must survive the one-line error's length limit
        raise ConfigError(f"{arch}: not planned: {REFUSED_ARCHITECTURES[arch]}")
    bailing_mm2 = (arch in BAILING_MM_ARCHITECTURES
                   and data.get("model_type") == BAILING_MM2_MODEL_TYPE)
    if bailing_mm2:
        data = bailing_mm2_config(where, data)
    family = (bailing_mm_family(where, data) if arch in BAILING_MM_ARCHITECTURES
              else VIT_ARCHITECTURES.get(arch or ""))
    if family is None:
        raise ConfigError(f"{where}: architecture {excerpt(arch)} has no ViT CUDA graph in "
                          f"SGLang 0.5.23 (those that do: "
                          f"{', '.join(sorted((*VIT_ARCHITECTURES, *BAILING_MM_ARCHITECTURES)))})")
    if arch in NESTED:  # Qwen3-Omni: the tower is the thinker's (qwen3_omni_moe.py:551-552)
        data = _or_default(arch, data.get(NESTED[arch]))
        if not isinstance(data, dict):
            raise ConfigError(f"{where}: {NESTED[arch]}: expected an object")
        where = f"{where}: {NESTED[arch]}"
    vision = _or_default(arch, data.get("vision_config"))
    if not isinstance(vision, dict):
        raise ConfigError(f"{where}: vision_config: expected an object")
    text_key = "llm_config" if arch in BAILING_MM_ARCHITECTURES else "text_config"
    text = data.get(text_key) if isinstance(data.get(text_key), dict) else {}
    vw = f"{where}: vision_config"
    if arch in QWEN3_DEFAULTED:  # the vision config class fills every absent key
        vision = {**QWEN3_DEFAULTED[arch], **vision}
    if arch in QWEN3_REMOTE_CONFIG:  # remote code: no default but deepstack (interns1pro.py:200)
        vision = {"deepstack_visual_indexes": [], **vision}
        _remote_keys(vw, vision)
    if family == "kimi_k3":
        vision = {**KIMI_VISION_DEFAULTS, **vision}
        hidden = _required(vw, vision, "vt_hidden_size")
        heads = _required(vw, vision, "vt_num_attention_heads")
    else:
        hidden = _required(vw, vision, "hidden_size")
        heads = _required(vw, vision, "num_heads", "num_attention_heads")
    raw_dtype = (text or {}).get("torch_dtype") or data.get("torch_dtype") or "bfloat16"
    dtype = _DTYPES.get(str(raw_dtype))
    if dtype is None:
        raise ConfigError(f"{where}: torch_dtype {excerpt(raw_dtype)} is not one graphfit "
                          f"sizes ViT buffers in")
    kwargs: dict[str, Any] = {"tp": tp, "dtype": dtype, "attention_backend": attention_backend}
    if family == "kimi_k3":
        kwargs["patch_size"] = _required(vw, vision, "patch_size")
        kwargs["qkv_hidden_size"] = _positive(vw, vision, "qkv_hidden_size")
        kh, kw = _kimi_merge(vw, vision.get("merge_kernel_size"))
        kwargs["spatial_merge_size"] = kh
        kwargs["spatial_merge_width"] = kw if kw != kh else None
    if family in ("qwen2_5_vl", "qwen3_vl"):
        kwargs["patch_size"] = _required(vw, vision, "patch_size")
        kwargs["spatial_merge_size"] = _positive(vw, vision, "spatial_merge_size") or 2
        kwargs["out_hidden_size"] = _positive(vw, vision, "out_hidden_size")
    if family == "qwen2_5_vl":
        kwargs["window_size"] = _required(vw, vision, "window_size")
        if bailing_mm2:  # Qwen3VLMoeVisionConfig has neither key (qwen2_5_vl.py:379-380)
            for key in BAILING_MM2_QWEN2_5_KEYS:
                if key not in vision:
                    raise ConfigError(f"{vw}: {key} missing (read with no default by SGLang's "
                                      f"Qwen2.5 tower, qwen2_5_vl.py:379-380; BailingMM2Config "
                                      f"gives none)")
        kwargs["fullatt_blocks"] = tuple(vision.get("fullatt_block_indexes") or ())
    if family == "qwen2_5_vl" and arch not in BAILING_MM_ARCHITECTURES:
        # Bailing MM builds the tower without max_context_len (bailing_mm.py:93-98)
        kwargs["max_context_len"] = (_positive(where, data, "max_position_embeddings")
                                     or _positive(f"{where}: text_config", text or {},
                                                  "max_position_embeddings"))
    if family == "qwen3_vl":
        kwargs["deepstack"] = len(vision.get("deepstack_visual_indexes") or ())
    if family == "internvl":
        image = (_positive(where, data, "force_image_size")
                 or _required(vw, vision, "image_size"))
        patch = _required(vw, vision, "patch_size")
        kwargs["patch_size"] = patch
        kwargs["tokens_per_tile"] = (image // patch) ** 2 + 1
        # update_vit_attn_dummy_heads_config (vision_utils.py:19-23): from the attention TP
        # size, whatever config.json says and whether or not the encoder runs data-parallel
        kwargs["dummy_heads"] = -(-heads // tp) * tp - heads
        if dp_encoder and arch != "InternVLChatModel":  # interns1.py:62: no use_data_parallel
            dp_encoder = False
    if arch in NESTED:  # its Qwen3OmniMoeVisionEncoder is built without use_data_parallel
        dp_encoder = False  # (qwen3_omni_moe.py:441-446, 497-502; qwen3_vl.py:374 default)
    if dp_encoder:  # use_data_parallel: VisionAttention's tp_size 1 (vision.py:1123)
        kwargs["tp"] = 1
    return VitGeometry(family, hidden, heads, **kwargs)


def _or_default(arch: str | None, value: Any) -> Any:
    """A sub-config absent (or null) in config.json: {} where the architecture's config
    class builds its default one from no arguments (QWEN3_DEFAULTED), else as written."""
    return {} if value is None and arch in QWEN3_DEFAULTED else value


# keys Qwen3-VL's tower reads with no default that size no graph (qwen3_vl.py:380, 387, 455;
# its patch embedding's in_channels, :189), and those read once per block (:446, 448)
QWEN3_UNSIZED_KEYS = ("num_position_embeddings", "temporal_patch_size", "in_channels", "depth")
QWEN3_BLOCK_KEYS = ("intermediate_size", "hidden_act")


def _remote_keys(where: str, vision: dict[str, Any]) -> None:
    """A remote-code (Intern-S1-Pro) vision config: each key Qwen3-VL's tower constructor
    reads unconditionally must be written, or SGLang's constructor fails with an
    AttributeError; graphfit refuses with one line naming the first absent key. Read at
    qwen3_vl.py:385 (spatial_merge_size), 395 and 459 (out_hidden_size: the merger's width,
    read even with disable_merger_proj), the unsized keys, and the per-block keys when depth
    is not 0."""
    _required(where, vision, "spatial_merge_size")
    _required(where, vision, "out_hidden_size")
    keys = list(QWEN3_UNSIZED_KEYS)
    if vision.get("depth") != 0:
        keys += QWEN3_BLOCK_KEYS
    for key in keys:
        if vision.get(key) is None:
            raise ConfigError(f"{where}: {key} missing (read with no default by SGLang's "
                              f"Qwen3-VL tower, qwen3_vl.py:380-455; remote-code config)")


# KimiK3VisionConfig's defaults for what graphfit reads (configs/kimi_k3.py:11, 17-20, 27)
KIMI_VISION_DEFAULTS: dict[str, Any] = {
    "patch_size": 14, "vt_num_attention_heads": 12, "vt_hidden_size": 1024,
    "merge_kernel_size": [2, 2], "qkv_hidden_size": 1536}


def _kimi_merge(where: str, value: object) -> tuple[int, int]:
    """Kimi K3's merge_kernel_size (kh, kw); ConfigError unless two integers >= 1."""
    if (not isinstance(value, (list, tuple)) or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1
                       for v in value)):
        raise ConfigError(f"{where}: merge_kernel_size: expected [kh, kw] (positive "
                          f"integers), got {excerpt(value)}")
    return int(value[0]), int(value[1])


def bailing_mm2_config(where: str, data: dict[str, Any]) -> dict[str, Any]:
    """A Bailing MM config.json of model_type "bailingmm_moe_v2_lite" as SGLang's
    BailingMM2Config loads it (graphfit.planner.engines.sglang_vit.BAILING_MM2_MODEL_TYPE):
    vision_config's absent keys (or an absent / null vision_config) take
    Qwen3VLMoeVisionConfig's defaults; ConfigError for a non-null audio_config, which SGLang
    refuses (bailing_mm.py:66-70; a non-object one already in the config class,
    configs/bailing_moe_v2.py:140-149)."""
    audio = data.get("audio_config")
    if audio is not None:
        raise ConfigError(f"{where}: audio_config: Audio is not supported by the Bailing SGLang "
                          f"port; use an image/video-only checkpoint (bailing_mm.py:66-70)")
    vision = data.get("vision_config")
    if vision is None:
        vision = {}
    if not isinstance(vision, dict):
        return data  # refused below as not an object (SGLang keeps it, then reads model_type)
    return {**data, "vision_config": {**BAILING_MM2_VISION_DEFAULTS, **vision}}


def bailing_mm_family(where: str, data: dict[str, Any]) -> str:
    """The tower family Bailing MM v1/v2 builds: vision_config's architectures[0], else its
    model_type (bailing_mm.py:79-92); ConfigError for what SGLang itself refuses, and for a
    config.json naming neither (SGLang then reads the model_type of the vision config class
    transformers builds, which graphfit cannot know from the file)."""
    vision = data.get("vision_config")
    if not isinstance(vision, dict):
        raise ConfigError(f"{where}: vision_config: expected an object (Bailing MM's tower "
                          f"is the one it names)")
    archs = vision.get("architectures")
    name = archs[0] if isinstance(archs, list) and archs else vision.get("model_type")
    if name is None:
        raise ConfigError(f"{where}: vision_config names no architectures / model_type: the "
                          f"tower is then the transformers class's (bailing_mm.py:80)")
    family = BAILING_MM_TOWERS.get(name) if isinstance(name, str) else None
    if family is None:
        raise ConfigError(f"{where}: vision_config names {excerpt(name)}: not a tower Bailing "
                          f"MM builds (bailing_mm.py:81-92)")
    return family


ENV_TRUE = frozenset({"true", "1", "yes", "y"})  # EnvBool.parse, lower-cased: environ.py:143-150


def environment_notes(environ: Mapping[str, str], model: str | None) -> list[str]:
    """A pasted SGLang line that turns the ViT graphs on (`SGLANG_VIT_ENABLE_CUDA_GRAPH`,
    an EnvBool: environ.py:1603) gets a note pointing at `--vit-images` (graphfit plan) and
    `graphfit vit`: without a workload of image sizes the plan cannot size them."""
    raw = environ.get(ENV_FLAG)
    if raw is None or raw.lower() not in ENV_TRUE:
        return []
    data = local_config(model) if model else None
    names = data.get("architectures") if data else None
    arch = names[0] if isinstance(names, list) and names else None
    if arch in EAGER_TOWERS:  # a tower the flag leaves eager: no graph to plan
        return [f"{ENV_FLAG}={raw}: {arch}: {REFUSED_ARCHITECTURES[arch]}; no ViT graph "
                f"to plan"]
    return [f"{ENV_FLAG}={raw}: SGLang captures vision-encoder graphs per image shape: "
            f"--vit-images TxHxW,... plans them here as `vit` (or graphfit vit "
            f"{model or 'MODEL_DIR'} --images TxHxW,...)"]


_GRID = re.compile(r"^(\d+)x(\d+)x(\d+)$")


def parse_images(text: str, max_images: int) -> VitWorkload:
    """`--images 1x32x32,2x16x24` (t x h x w in patches, comma-separated) and
    `--max-images N` as a workload; ConfigError naming the first bad entry."""
    grids = []
    for part in (p.strip() for p in str(text).split(",")):
        m = _GRID.match(part)
        if not m:
            raise ConfigError(f"--images: {excerpt(part)} is not TxHxW in patches "
                              f"(e.g. 1x32x32)")
        t, h, w = (int(g) for g in m.groups())
        grids.append((t, h, w))
    return VitWorkload(tuple(grids), max_images)


__all__ = ["bailing_mm2_config", "bailing_mm_family", "environment_notes", "parse_images",
           "read_geometry"]
