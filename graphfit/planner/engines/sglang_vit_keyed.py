"""SGLang's vision-encoder (ViT) graphs as the keyed component `vit` of the SGLang plan.

graphfit.planner.engines.sglang_vit says which keys a workload reaches and what each key's
graph reads (SGLang's runners never pad: a key's graph reads exactly its own rows). Here
that becomes a `KeyedComponentModel` (graphfit.planner.core.keyed), so the plan's totals,
its document, `check --plan`, `--capacity vit.<buffer>=N` audits and graphfit's runtime
(graphfit.cudagraph.vit) see it like any other component:

* batch: one encoder call, the images' (t, h, w) grids in order (InternVL: one (1, 1, 1)
  per tile), admitted only when every grid is one of the workload's and there are
  1..max_images of them; measured as (images, patch tokens, largest image's patches)
  against the workload's bounds;
* key: SGLang's own (`graph_key`), spelled as text by `key_text` (one text per key);
* rows: per buffer, the first dimension SGLang allocates for that key (`key_buffers`):
  patch tokens for the block input / workspace / rotary views, boundaries for the int32
  cu_seqlens buffers (sequences + 1), tiles for InternVL's input; Kimi K3: patches for its
  pixel, rope and position buffers, merged tokens for its outputs, images (+ 1) for its
  int32 boundaries (flashinfer_cudnn: the padded images' index buffers, sglang_vit, and the
  encoder's 128 MiB workspace, the same rows on every key);
* reference: SGLang allocates a buffer set per key (and grows its rotary workspace through
  every pair; Kimi K3 keeps at most its cache capacity of sets, `VitPlan.held_keys`), so
  each buffer's reference rows are the sum over those keys of what SGLang
  holds for it (flashinfer_cudnn's workspace: once, SGLang allocates one per encoder):
  the component's reference bytes are `VitPlan.sglang_bytes`.

The workload and the tower are the SGLang option `vit` (SglangOptions): `vit_option`
validates and normalizes it, `vit_pairs` writes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from functools import partial
from typing import Any

from graphfit.planner.core.batches import Stream
from graphfit.planner.core.buffers import ZERO, Axis, BufferSpec, Demand
from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.core.keyed import KeyedDispatch
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.base import KeyedComponentModel
from graphfit.planner.engines.sglang_vit import (
    WORKLOAD_FREE_BUFFERS,
    Grid,
    VitGeometry,
    VitKey,
    VitPlan,
    VitWorkload,
    graph_key,
    key_buffers,
    plan_vit,
    workspace_rows,
)

COMPONENT = "vit"
# buffers whose rows count patch tokens (the rest count sequences, boundaries or tiles)
_TOKEN_ROWS = frozenset({"block_ws", "rotary_cos", "rotary_sin",  # Kimi K3: all but 2
                        "pixel_values", "outputs", "rope_freqs_cis", "position_embeddings"})
_SOURCES = {  # where SGLang allocates each (multimodal/vit_cuda_graph_runner.py)
    "qwen": "ViTCudaGraphRunner._create_graph_buffers (vit_cuda_graph_runner.py:340-367)",
    "internvl": "InternViTCudaGraphRunner (internvl_vit_cuda_graph_runner.py:67-94, 157-166)",
    "kimi_k3": "KimiK3ViTCudaGraphRunner._capture / run (kimi_k3_vit_cuda_graph_runner.py:"
               "107-128, 193-198)",
}
_WORKLOAD = ("images", "max_images")
# VitGeometry fields added after plan files with a `vit` option were first written
# (issue 23, s28v): an older file lacks them and was planned at their defaults
_LATER_FIELDS = ("spatial_merge_width", "attention_backend")


def vit_pairs(geometry: VitGeometry, workload: VitWorkload) -> tuple[tuple[str, Any], ...]:
    """The option's canonical form: every VitGeometry field in order, then the workload's
    image grids and max_images (pairs, so a config stays hashable and JSON-ready)."""
    tower = tuple((f.name, getattr(geometry, f.name)) for f in fields(VitGeometry))
    return (*tower, ("images", workload.grids), ("max_images", workload.max_images))


def vit_pairs_completed(value: object) -> object:
    """An option value as a plan file written before some VitGeometry fields existed holds
    it (`spatial_merge_width` and `attention_backend` came later): [name, value] pairs
    naming the tower's fields in the class's order, then the workload, lacking both later
    fields, which its writer planned at their defaults (a square merge; no backend read)
    -- filled in at their places, as JSON writes them. Anything else (not pairs, an unknown
    or repeated name, fields out of order) is returned as it stands, for `vit_option` and
    the document comparison to refuse."""
    order = [f.name for f in fields(VitGeometry)]
    if not isinstance(value, list) or not all(
            isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) for p in value):
        return value
    names = [p[0] for p in value]
    tower = [n for n in names if n not in _WORKLOAD]
    if len(set(names)) != len(names) or tower != [n for n in order if n in tower] \
            or not set(tower) <= set(order) or names[len(tower):] != [
                n for n in names if n in _WORKLOAD]:
        return value
    # both fields came in one change: a writer knew all of them or none
    if any(n in tower for n in _LATER_FIELDS) or any(
            n not in tower for n in order if n not in _LATER_FIELDS):
        return value
    defaults = {f.name: f.default for f in fields(VitGeometry)}
    given = {p[0]: p[1] for p in value if p[0] not in _WORKLOAD}
    completed = [[n, given[n] if n in given else defaults[n]] for n in order]
    return [*completed, *(p for p in value if p[0] in _WORKLOAD)]


def vit_option(value: object) -> tuple[VitGeometry, VitWorkload]:
    """The tower and workload of the option's value (pairs, or a mapping); ConfigError
    naming the option for anything else, an unknown or missing entry, a grid the tower
    refuses or a workload of more image orders than graphfit enumerates."""
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, (tuple, list)) and all(
            isinstance(p, (tuple, list)) and len(p) == 2 and isinstance(p[0], str)
            for p in value):
        items = [(p[0], p[1]) for p in value]
    else:
        raise ConfigError(f"vit: expected [name, value] pairs (the tower and workload), got "
                          f"{excerpt(value)}")
    data = dict(items)
    names = {f.name for f in fields(VitGeometry)}
    unknown = [k for k in data if k not in names and k not in _WORKLOAD]
    if unknown or len(data) != len(items):
        raise ConfigError(f"vit: unknown or repeated entries {excerpt(unknown or items)}")
    if "family" not in data or "images" not in data:
        raise ConfigError("vit: needs at least family, hidden_size, num_heads and images")
    tower = {k: v for k, v in data.items() if k in names}
    if isinstance(tower.get("fullatt_blocks"), list):
        tower["fullatt_blocks"] = tuple(tower["fullatt_blocks"])
    try:
        geometry = VitGeometry(**tower)
        grids = data["images"]
        if not isinstance(grids, (tuple, list)):
            raise ConfigError(f"vit: images must be (t, h, w) grids, got {excerpt(grids)}")
        workload = VitWorkload(tuple(tuple(g) if isinstance(g, (list, tuple)) else g
                                     for g in grids), data.get("max_images", 1))
        for call in ([g] for g in workload.grids):
            graph_key(geometry, call)  # the tower's own grid rule (merge blocks)
        plan_vit_count(geometry, workload)
    except TypeError as exc:
        raise ConfigError(f"vit: {excerpt(str(exc))}") from None
    except ConfigError as exc:
        message = str(exc)
        raise ConfigError(message if message.startswith("vit:") else f"vit: {message}") \
            from None
    return geometry, workload


def plan_vit_count(geometry: VitGeometry, workload: VitWorkload) -> None:
    """ConfigError when the workload reaches more keys than graphfit enumerates."""
    from graphfit.planner.engines.sglang_vit import reachable_keys_count

    reachable_keys_count(geometry, workload)


def key_text(key: VitKey) -> str:
    """A key as text: Qwen "S=<tokens> cu=<layout> win=<window layout>" (win only with
    windows), InternVL "tiles=<B> per_tile=<S>", Kimi K3 the grids "TxHxW+...". One text
    per key: every part of the key is written."""
    first = key[0] if key else None
    if isinstance(first, tuple):  # Kimi K3: the grids themselves
        return "+".join("x".join(str(v) for v in g) for g in key if isinstance(g, tuple))
    if len(key) == 2 and isinstance(key[1], int):
        return f"tiles={key[0]} per_tile={key[1]}"
    tokens, layouts = key
    assert isinstance(layouts, tuple)
    layout, window = layouts
    text = f"S={tokens} cu={','.join(map(str, layout))}"
    return text if window is None else f"{text} win={','.join(map(str, window))}"


def _order(key: VitKey) -> tuple[int, str]:
    return (_first_rows(key), key_text(key))


def _first_rows(key: VitKey) -> int:
    first = key[0]
    if isinstance(first, int):
        return first
    total = 0
    for grid in key:  # Kimi K3: the key is the grids
        assert isinstance(grid, tuple)
        total += int(grid[0]) * int(grid[1]) * int(grid[2])
    return total


def _rows(geometry: VitGeometry, name: str, key: VitKey) -> int:
    """The rows `key`'s graph reads in buffer `name` (0: it reads none of it)."""
    return next((b.rows for b in key_buffers(geometry, key) if b.name == name), 0)


def _admit(geometry: VitGeometry, workload: VitWorkload, call: object) -> tuple[Grid, ...]:
    """An encoder call of the workload: 1..max_images of its grids (InternVL: tiles)."""
    if not isinstance(call, (tuple, list)) or not all(
            isinstance(g, (tuple, list)) and len(g) == 3 for g in call):
        raise ConfigError(f"vit: a call is a list of (t, h, w) grids, got {excerpt(call)}")
    grids = tuple((int(g[0]), int(g[1]), int(g[2])) for g in call)
    if not 1 <= len(grids) <= workload.max_images:
        raise ConfigError(f"vit: a call holds 1..{workload.max_images} images, got "
                          f"{len(grids)}")
    allowed = {(1, 1, 1)} if geometry.family == "internvl" else set(workload.grids)
    stray = [g for g in grids if g not in allowed]
    if stray:
        raise ConfigError(f"vit: grid {stray[0]} is not one of the workload's")
    return grids


def _measure(geometry: VitGeometry, call: Sequence[Grid]) -> tuple[int, int, int]:
    """(images, patch tokens, largest image's patches); InternVL counts tiles of
    tokens_per_tile."""
    if geometry.family == "internvl":
        assert geometry.tokens_per_tile is not None
        return (len(call), len(call) * geometry.tokens_per_tile, geometry.tokens_per_tile)
    sizes = [t * h * w for t, h, w in call]
    return (len(call), sum(sizes), max(sizes))


def _rule(geometry: VitGeometry, call: Sequence[Grid]) -> VitKey:
    return graph_key(geometry, call)


def _reference_rows(result: VitPlan, name: str) -> int:
    """What SGLang holds for buffer `name` over the keys it keeps at once
    (`VitPlan.held_keys`: every key; Kimi K3 its `max_graphs` largest): one buffer per key
    (the rotary pair: every workspace it grows through, keys in first-seen order)."""
    if name.startswith("rotary_"):
        return sum(workspace_rows(result.geometry, (_first_rows(k) for k in result.keys)))
    if name in WORKLOAD_FREE_BUFFERS:  # one per encoder, however many graphs
        return result.capacity(name)
    return sum(_rows(result.geometry, name, k) for k in result.held_keys)


def vit_component(geometry: VitGeometry, workload: VitWorkload) -> KeyedComponentModel:
    """The `vit` keyed component of `workload` on `geometry`'s tower (module docstring);
    Kimi K3's buffers are what each captured graph's entry keeps (sglang_vit docstring)."""
    result = plan_vit(geometry, workload)
    names = [b.name for b in result.buffers]
    source = _SOURCES.get(geometry.family, _SOURCES["qwen"])
    specs = []
    for b in result.buffers:
        tokens = b.name in _TOKEN_ROWS or (b.name == "block_input"
                                           and geometry.family != "internvl")
        axis = Axis.TOKENS if tokens else Axis.REQUESTS
        stream = Stream.GRAPH_TOKENS if tokens else Stream.TARGET_REQUESTS
        specs.append(BufferSpec(b.name, b.dtype, axis, (Demand(stream),),
                                _reference_rows(result, b.name), ZERO,
                                trailing=b.row_shape, source=source))
    dispatch = KeyedDispatch(
        partial(_rule, geometry), frozenset(result.keys),
        partial(_first_rows),
        {n: partial(_rows, geometry, n) for n in names},
        text=key_text, key_json=key_text,
        batch_json=lambda call: [list(g) for g in call],
        order=_order, admit=partial(_admit, geometry, workload))
    measured = [_measure(geometry, c) for c in result.calls]
    bounds = tuple(max((m[i] for m in measured), default=0) for i in range(3))
    g = geometry
    summary = (f"SGLang {g.family} vision encoder (SGLANG_VIT_ENABLE_CUDA_GRAPH=1): hidden "
               f"{g.hidden_size}, {g.heads_per_rank} heads per rank, {g.dtype}; one graph per "
               f"image layout, never padded; at most {result.max_graphs} graphs")
    return KeyedComponentModel(
        COMPONENT, dispatch, bounds, tuple(specs), dict(zip(result.keys, result.calls,
                                                            strict=True)),
        (("image_patches", tuple(sorted({t * h * w for t, h, w in workload.grids}))),
         ("max_images", (workload.max_images,))),
        measure=partial(_measure, geometry),
        bound_names=("images", "tokens", "largest_image"),
        key_names=("tokens", "layout"), summary=summary)


def vit_plan_of(config: EngineSettings) -> VitPlan | None:
    """The `VitPlan` behind a config's `vit` keyed component (None when it plans none): what
    graphfit's runtime reads for each key's boundary values and call-to-key rule."""
    value = getattr(config, "vit", None)
    return None if value is None else plan_vit(*vit_option(value))


__all__ = ["COMPONENT", "key_text", "vit_component", "vit_option", "vit_pairs",
           "vit_pairs_completed", "vit_plan_of"]
