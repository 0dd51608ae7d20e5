"""The vision tower SGLang 0.5.23's MiniMax-M3-VL wrapper builds before its text model, and
the checks that make it raise at start-up, restated in SGLang's order with SGLang's exception
and site (paths under sglang/srt/). graphfit.inputs.sglang_minimax_target runs them after the
loader's fusion check and before the text layers, `--encoder-only` included (the wrapper
builds the tower first, models/minimax_m3_vl.py:100-124, and returns before the text model
only after it, :127-135).

- `config.vision_config`: absent raises AttributeError (:100), null fails `vision_config is
  required` (:101); a dict goes to SGLang's own `CLIPVisionConfig.from_dict`
  (minimax_vl_common.py:40-64), a dataclass WITHOUT defaults: each of its 14 keys must be in
  config.json (`rope_theta` may come from `rope_parameters`), else TypeError (:64). (The
  wrapper's config class never coerces the dict into transformers' CLIP config, whose
  defaults would fill them: see s39n's note in docs/engines/sglang-coverage.md.)
- `MiniMaxVLVisionTransformer` (:430-499): `img_token_compression_config.get(...)` (:446,
  AttributeError on a non-dict); each `CLIPEncoderLayer` (:279-330) builds `VisionAttention`,
  which divides the width by the heads and the heads over the tower's TP size
  (layers/attention/vision.py:1129-1134 -> distributed/utils.py:70), then `fc1` splits
  `intermediate_size` over it (layers/linear.py:483) and only gelu passes (:327); then the
  tower asserts rope position embeddings, `rope_mode` 3d and a `rope_theta` (:477-482).
- the projector and patch merger split `projector_hidden_size` (the wrapper config's, else
  the text hidden size) over the tower's TP size (:113-120, 171-178 -> linear.py:483). Their
  own `projector_hidden_act == "gelu"` assertions (:121, 179) never fire: the tower's
  `CLIPVisionConfig` has no such field, so `getattr` always answers gelu (:783, 798).

The tower's TP size is the attention TP size, 1 with `--mm-enable-dp-encoder` (:291, 101).
Where that size is between 1 and the full TP size and attention DP is off (attention CP
narrowing attention TP), each layer that shards over attention TP but all-reduces over TP
is refused by `reject_attn_tp_shard_with_tp_reduce` (layers/dp_attention.py:536-572, raised
at :567): the first `CLIPEncoderLayer` (minimax_vl_common.py:296) before its attention's
head split, or, in a tower without layers, the projector (:105) before its width split. A
tower the worker never forwards (a PD decode server, a language-only or language-model-only
one, dp_attention.py:516-533) is not refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphfit.planner.core.errors import excerpt

# CLIPVisionConfig's fields (minimax_vl_common.py:40-54), in declaration order
TOWER_KEYS = ("hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
              "num_channels", "image_size", "patch_size", "hidden_act", "layer_norm_eps",
              "img_token_compression_config", "position_embedding_type", "rope_mode",
              "rope_theta", "vision_segment_max_frames")
_DIVIDES = "distributed/utils.py:70"


@dataclass(frozen=True)
class TowerLayout:
    """The sizes the tower's constructors read: its shard size (attention TP, 1 with
    --mm-enable-dp-encoder), the full TP size, whether attention DP is on, and whether this
    worker forwards the tower (`multimodal_encoder_runs_here`, dp_attention.py:516-533)."""

    shard: int
    tp: int
    dp_attention: bool = False
    runs_here: bool = True

    def __post_init__(self) -> None:
        if self.shard < 1 or self.tp < 1:
            raise ValueError("tower sizes must be at least 1")


def _tp_reduce(layer: str, layout: TowerLayout) -> str | None:
    """`reject_attn_tp_shard_with_tp_reduce` (layers/dp_attention.py:536-572) for a layer
    that reduces over attention TP only with attention DP (SGLang's remedy, dropping
    --attn-cp-size or --mm-enable-dp-encoder, does not fit graphfit's 200-character line)."""
    if layout.dp_attention or not 1 < layout.shard < layout.tp or not layout.runs_here:
        return None
    return (f"{layer} shards over attention TP {layout.shard}, all-reduces over TP "
            f"{layout.tp} (ValueError, layers/dp_attention.py:536-572)")


def _split(what: str, value: Any, size: int, site: str) -> str | None:
    if isinstance(value, int) and size > 0 and value % size:
        return f"{what} {value} is not divisible by {size} (AssertionError, {site}, {_DIVIDES})"
    return None


def tower_problem(data: Mapping[str, Any], text: Mapping[str, Any], tower_tp: int,
                  layout: TowerLayout | None = None) -> str | None:
    """Why SGLang cannot build the VL wrapper's vision tower from this config.json (module
    docstring), as one line; None when it builds. `layout` (default: the tower's TP is the
    full TP) feeds the TP-reduce refusal."""
    layout = layout or TowerLayout(max(tower_tp, 1), max(tower_tp, 1))
    if "vision_config" not in data:
        return ("the config has no 'vision_config' (AttributeError, "
                "models/minimax_m3_vl.py:100)")
    vision = data["vision_config"]
    if vision is None:
        return "vision_config is required (AssertionError, models/minimax_m3_vl.py:101)"
    if not isinstance(vision, dict):
        return None  # not a shape these rules read
    keys = {k for k in TOWER_KEYS if k in vision}
    rope = vision.get("rope_parameters")
    if ("rope_theta" not in keys and isinstance(rope, dict)
            and rope.get("rope_theta") is not None):
        keys.add("rope_theta")  # from_dict's fallback (minimax_vl_common.py:59-63)
    missing = [k for k in TOWER_KEYS if k not in keys]
    if missing:
        return (f"CLIPVisionConfig needs {len(missing)} more vision_config key(s), e.g. "
                f"{missing[0]!r} (TypeError, models/minimax_vl_common.py:64)")
    if not isinstance(vision["img_token_compression_config"], dict):
        return ("img_token_compression_config is not a dict (AttributeError, "
                "models/minimax_vl_common.py:446)")
    width, heads = vision["hidden_size"], vision["num_attention_heads"]
    layers = isinstance(vision["num_hidden_layers"], int) and vision["num_hidden_layers"] > 0
    if layers:
        said = (_tp_reduce("CLIPEncoderLayer", layout)
                or _split("vision hidden_size", width, heads if isinstance(heads, int) else 0,
                       "layers/attention/vision.py:1129-1131")
                or _split("vision heads", heads, tower_tp,
                          "layers/attention/vision.py:1132-1134")
                or _split("vision intermediate_size", vision["intermediate_size"], tower_tp,
                          "models/minimax_vl_common.py:319, layers/linear.py:483"))
        if said:
            return said
        if vision["hidden_act"] != "gelu":
            return (f"Only gelu activation is supported, got {excerpt(vision['hidden_act'], 20)}"
                    f" (AssertionError, models/minimax_vl_common.py:327-328)")
    if vision["position_embedding_type"] != "rope":
        return ("Only rope position embedding is supported (AssertionError, "
                "models/minimax_vl_common.py:477-478)")
    if vision["rope_mode"] != "3d":
        return "Only 3D RoPE is supported (AssertionError, models/minimax_vl_common.py:480)"
    theta = vision.get("rope_theta", rope.get("rope_theta") if isinstance(rope, dict) else None)
    if theta is None:
        return "rope_theta must be set (AssertionError, models/minimax_vl_common.py:482)"
    mid = data.get("projector_hidden_size")
    mid = text.get("hidden_size") if mid is None else mid
    return ((None if layers else _tp_reduce("MiniMaxVLMultiModalProjector", layout))
            or _split("projector width", mid, tower_tp,
                      "models/minimax_vl_common.py:113, layers/linear.py:483"))


__all__ = ["TOWER_KEYS", "TowerLayout", "tower_problem"]
