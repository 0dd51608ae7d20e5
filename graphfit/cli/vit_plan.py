"""SGLang's vision-encoder (ViT) CUDA graphs inside `graphfit plan`: `--vit-images` (and
`--vit-max-images`) with a pasted `sglang.launch_server` line plans them as the component
`vit` beside the decode / prefill graphs, with its proof and bytes.

The tower is read from the pasted line's `--model-path` (graphfit.inputs.sglang_vit), its
heads split over the config's TP size (VisionAttention's per-partition heads,
layers/attention/vision.py:1123, 1132), unsplit with `--mm-enable-dp-encoder`; keys,
buffers and sizing come from graphfit.planner.engines.sglang_vit, the proof from
graphfit.planner.engines.sglang_vit_proof. The tower and workload become the config's
SGLang option `vit`, so the component is the plan's keyed component `vit`
(graphfit.planner.engines.sglang_vit_keyed): in its totals, its document, `check --plan` and
`--capacity vit.<buffer>=N`. What this module adds is the report of its proof (each
capacity tight: one row less, a call of the workload goes short), in text and as the `vit`
object of `plan --json`, derived from the plan's config alone so `check --plan` regenerates
it exactly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from graphfit.cli.output import user
from graphfit.planner.config import EngineConfig
from graphfit.planner.core.enums import Engine
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines.sglang_vit import ENV_FLAG, VitPlan, plan_vit
from graphfit.planner.engines.sglang_vit_keyed import vit_option, vit_pairs
from graphfit.planner.engines.sglang_vit_proof import VitProof, prove_vit
from graphfit.planner.plan import Plan

if TYPE_CHECKING:  # `plan --json` never imports rich
    from rich.console import Console

def _names(component: Any) -> set[str]:
    """The buffer names of a plan document's component object (empty if it has none)."""
    buffers = component.get("buffers") if isinstance(component, dict) else None
    return {b["name"] for b in buffers if isinstance(b, dict) and isinstance(b.get("name"), str)} \
        if isinstance(buffers, list) else set()


def stale_prefill_hint(given: Any, expected: dict[str, Any]) -> str | None:
    """Why a plan file's SGLang `prefill` component differs, when graphfit itself added to it:
    the prefill runner's mamba tracking inputs (runner_utils/buffers.py:309-321, switched on
    at prefill_cuda_graph_runner.py:705-708), planned since issue 23 (s50m), are missing from
    a file written before (None otherwise: the difference is named as it is)."""
    want = _names(expected.get("components", {}).get("prefill"))
    have = _names(given.get("components", {}).get("prefill")) if isinstance(given, dict) \
        and isinstance(given.get("components"), dict) else set()
    tracked = {"mamba_track_indices", "mamba_track_mask"}  # the planner's own names
    if tracked <= want and not tracked & have:
        return ("written before graphfit planned SGLang's prefill mamba tracking inputs "
                "(runner_utils/buffers.py:309-321): plan again")
    return None


def stale_plan_hint(difference: str) -> str | None:
    """Why a plan file's `vit` component differs, when the difference is one graphfit made
    itself: Kimi K3's flashinfer_cudnn workspace (FLASHINFER_WORKSPACE_SIZE_BYTES,
    layers/attention/vision.py:110; kimi_k3_vl.py:531-537), planned since issue 23 (s32v),
    is missing from a file written before; so is Kimi K3's rope freqs_cis table
    (kimi_k3_vl.py:350-353), planned since s37v (None otherwise)."""
    if not difference.startswith("keyed_components.vit."):
        return None
    if difference.endswith("attention_workspace: missing"):
        return ("written before graphfit planned the ViT's 128 MiB flashinfer_cudnn workspace "
                "(vision.py:110): plan again")
    if difference.endswith("rope_freqs_table: missing"):
        return ("written before graphfit planned Kimi K3's ViT rope freqs_cis table "
                "(kimi_k3_vl.py:350-353): plan again")
    return None


VitImagesOpt = Annotated[str | None, typer.Option(
    "--vit-images", help="SGLang: also plan the vision-encoder (ViT) CUDA graphs for these "
    "image grids, TxHxW in patches, comma-separated; the tower is the pasted line's "
    "--model-path.")]
VitMaxImagesOpt = Annotated[int, typer.Option(
    "--vit-max-images", help="With --vit-images: most images (InternVL: tiles) in one "
                             "encoder call.")]


def vit_config(config: EngineConfig, images: str | None, max_images: int,
               words: tuple[str, ...] | None) -> tuple[EngineConfig, list[str]]:
    """`config` with the SGLang option `vit` for `--vit-images` (unchanged without it) and
    notes about the pasted line; ConfigError without a pasted SGLang line naming a model
    directory."""
    if images is None:
        if max_images != 1:
            raise ConfigError("--vit-max-images: give --vit-images too (the image grids)")
        return config, []
    from graphfit.cli.options import read_pasted
    from graphfit.inputs.sglang_vit import ENV_TRUE, parse_images, read_geometry

    if config.engine is not Engine.SGLANG:
        raise ConfigError(f"--vit-images: SGLang's ViT graphs; this config is "
                          f"{config.engine.value}'s")
    pasted = read_pasted(words, {"engine_version": config.engine_version})
    if pasted is None or not pasted.model:
        raise ConfigError("--vit-images: paste the SGLang line with its --model-path (the "
                          "vision tower is read from its config.json)")
    workload = parse_images(images, max_images)
    # the heads split over the attention TP size (vision.py:1123; runtime_context.py:73-76);
    # --mm-enable-dp-encoder: the tower runs whole on each rank (use_data_parallel,
    # qwen2_5_vl.py:717, internvl.py:520), its heads unsplit
    attn_tp = max(1, config.tp_size // config.attn_dp_size // config.attn_cp_size)
    backend = pasted.values.get("mm_attention_backend")
    geometry = read_geometry(pasted.model, tp=attn_tp,
                             dp_encoder=bool(pasted.values.get("mm_enable_dp_encoder")),
                             attention_backend=backend if isinstance(backend, str) else None)
    notes: list[str] = []
    raw = pasted.environ.get(ENV_FLAG)
    if raw is None or raw.lower() not in ENV_TRUE:
        notes.append(f"the pasted line does not set {ENV_FLAG}=1: SGLang captures these "
                     f"graphs only with it (environ.py:1603)")
    return config.replace(vit=vit_pairs(geometry, workload)), notes


def vit_component(result: Plan) -> tuple[VitPlan, VitProof] | None:
    """The `vit` plan and its proof of a plan whose config has the SGLang option `vit`
    (None otherwise)."""
    value = result.config.vit if result.config.engine is Engine.SGLANG else None
    if value is None:
        return None
    vit = plan_vit(*vit_option(value))
    return vit, prove_vit(vit)


def vit_sizes(result: VitPlan) -> dict[str, Any]:
    """The buffers and bytes of a `vit` plan, as `graphfit vit --json` and `plan --json`'s
    `vit` object write them."""
    return {"buffers": [{"name": b.name, "rows": b.rows, "row_shape": list(b.row_shape),
                         "dtype": b.dtype, "bytes": b.bytes} for b in result.buffers],
            "bytes": result.total_bytes, "sglang_bytes": result.sglang_bytes}


def vit_document(result: VitPlan, proof: VitProof) -> dict[str, Any]:
    """The `vit` object of `plan --json` (present only with --vit-images)."""
    return {
        "family": result.geometry.family,
        "heads_per_rank": result.geometry.heads_per_rank,
        "dtype": result.geometry.dtype,
        "images": [list(g) for g in result.workload.grids],
        "max_images": result.workload.max_images,
        "keys": len(result.keys), "max_graphs": result.max_graphs,
        **vit_sizes(result),
        "proof": {"checks": proof.checks, "violations": len(proof.violations),
                  "ok": proof.ok,
                  "one_row_less": [{"buffer": t.buffer, "capacity": t.rows - 1,
                                    "rows": t.violation.rows,
                                    "call": [list(g) for g in t.call]}
                                   for t in proof.tight]},
        **({"notes": list(result.notes)} if result.notes else {}),
    }


def vit_lines(result: VitPlan, prefix: str, *, grouped: bool) -> list[str]:
    """The buffer rows, byte totals and notes of a `vit` plan, as `graphfit vit` (no prefix,
    plain row counts) and `plan` (prefix "vit.", rows grouped by thousands) print them."""
    lines = [f"  {prefix}{b.name}: {f'{b.rows:,}' if grouped else b.rows} rows x "
             f"{list(b.row_shape)} {b.dtype} ({b.bytes:,} B)" for b in result.buffers]
    ratio = (f"{result.total_bytes / result.sglang_bytes:.3f}" if result.sglang_bytes
             else "n/a")
    label = f"{prefix.rstrip('.')} static" if prefix else "static"
    lines.append(f"  {label} buffers {result.total_bytes:,} B; SGLang's per-key buffers for "
                 f"the same keys {result.sglang_bytes:,} B (ratio {ratio})")
    return lines + [f"  note: {user(note)}" for note in result.notes]


def print_vit(out: Console, result: VitPlan, proof: VitProof, notes: list[str]) -> None:
    """The `vit` component's lines of `plan`'s text report."""
    g = result.geometry
    out.print(f"[bold]vit[/bold]: SGLang {g.family} vision tower (hidden {g.hidden_size}, "
              f"{g.heads_per_rank} heads per rank, {g.dtype}), {ENV_FLAG}=1: "
              f"{len(result.keys):,} reachable keys, at most {result.max_graphs:,} graphs")
    for line in vit_lines(result, "vit.", grouped=True):
        out.print(line)
    for note in notes:
        out.print(f"  note: {user(note)}")
    if proof.ok:
        out.print(f"PROVEN SAFE (vit): every buffer of all {proof.keys:,} reachable keys "
                  f"within capacity ({proof.checks:,} checks, no padding); one row less, "
                  f"each of the {len(proof.tight)} buffers goes short")
    else:
        first = proof.violations[0] if proof.violations else None
        what = (f"{first.buffer} {first.rows} > {first.capacity}" if first is not None
                else "a capacity is not tight")
        out.print(f"UNSAFE (vit): {len(proof.violations)} buffer rows over capacity ({what})")


__all__ = ["VitImagesOpt", "VitMaxImagesOpt", "print_vit", "vit_component", "vit_config",
           "vit_document", "vit_lines", "vit_sizes"]
