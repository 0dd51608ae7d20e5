"""graphfit as a vLLM plugin: audit the live runner's buffers before vLLM captures its graphs.

Switched on per process by the environment, off by default:

    GRAPHFIT_VLLM=check vllm serve ...   # refuse to start when a buffer would go short
    GRAPHFIT_VLLM=warn  vllm serve ...   # one log line, and start anyway

How it gets in (vLLM 0.33.0, file:line): installing graphfit registers the entry point
`graphfit = graphfit.integrations.vllm:register` in the `vllm.general_plugins` group
(vllm/plugins/__init__.py:18, loaded by `load_general_plugins` at :77 in every process: the
engine core, v1/engine/core.py:133-135, and each worker, v1/worker/worker_base.py:287-289).
`register` wraps `Worker.compile_or_warm_up_model` (v1/worker/gpu_worker.py:933). By then
the worker's `initialize_from_config` (:866-907) has run the runner's `initialize_kv_cache`,
which resolved the attention backends' cudagraph support and, with it, the cudagraph mode and
capture sizes (V1: gpu_model_runner.py:6760-6815; MRV2: v1/worker/gpu/model_runner.py:756),
and the runner's `__init__` allocated its persistent buffers and its drafter
(gpu_model_runner.py:598-662); the graphs are captured after the check, at gpu_worker.py:994.
vLLM 0.34.0 keeps the same points: the plugin group (vllm/plugins/__init__.py:18, 77),
`initialize_from_config` (v1/worker/gpu_worker.py:887), `compile_or_warm_up_model` (:1017)
and `capture_model()` inside it (:1103).

The check reads the live runner: its `vllm_config` (the mode and sizes vLLM resolved:
`EngineConfig.from_vllm`), and every tensor of the runner and its drafter (V1 `drafter`,
MRV2 `speculator` and their `input_buffers`) that graphfit models, with its rows, shape and
dtype. It plans that config and verifies the live rows against every batch vLLM's own code
runs (`Plan.verify` with capacities: the engine's rows). It then names the first buffer and
batch that would go short, or logs one SAFE line with the number of checks.

Nothing of vLLM is imported at graphfit's import time: only `register` imports vLLM, and
vLLM calls it.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from graphfit.planner.config import EngineConfig
from graphfit.planner.core.errors import ConfigError, GraphfitError
from graphfit.planner.core.verify import Verification
from graphfit.planner.plan import Plan, plan

ENV = "GRAPHFIT_VLLM"
MODES = ("check", "warn")
logger = logging.getLogger("graphfit.integrations.vllm")

# vLLM attribute -> graphfit buffer name where they differ (V1 proposers keep a few buffers
# under private names: v1/spec_decode/dflash.py:24-87); None: a host tensor, not a buffer
_ATTR_NAMES: Mapping[str, str | None] = {
    "_slot_mapping_buffer": "slot_mapping_buffer",
    "_context_positions_buffer": "context_positions",
    "_context_slot_mapping_buffer": "context_slot_mapping",
    "_aux_staging": "aux_staging", "_anchor_idx": "anchor_idx", "_step_cols": "step_cols",
    "draft_is_prefilling": None,  # MRV2 speculator.py:168, a host tensor
}


class UnsafeBuffersError(GraphfitError):
    """GRAPHFIT_VLLM=check: a live buffer would go short on a batch vLLM runs."""


@dataclass(frozen=True)
class LiveBuffer:
    """One tensor of the running engine: where it lives, its shape and dtype."""

    key: str  # "component.buffer", graphfit's name
    attr: str  # where vLLM keeps it, e.g. "drafter._slot_mapping_buffer"
    shape: tuple[int, ...]
    dtype: str


@dataclass(frozen=True)
class Check:
    """The verdict on a live runner."""

    vllm_version: str
    modelled_version: str  # the release graphfit planned (the config's engine_version)
    plan: Plan
    buffers: Mapping[str, LiveBuffer]  # the live buffers graphfit checked, by key
    verification: Verification

    @property
    def ok(self) -> bool:
        return self.verification.ok

    @property
    def checks(self) -> int:
        return self.verification.checked

    def line(self) -> str:
        """The one log line: SAFE with the check count, or the first short buffer."""
        version = f"vLLM {self.vllm_version}"
        if self.vllm_version != self.modelled_version:
            version += f" (planned as {self.modelled_version})"
        if self.ok:
            return (f"graphfit: SAFE: {len(self.buffers)} live buffers x every reachable "
                    f"batch, {self.checks} checks ({version})")
        first = self.verification.ranges()[0] if self.verification.ranges() else None
        if first is None:  # a fill violation only
            fill = self.verification.fill_ranges[0]
            return f"graphfit: UNSAFE: {fill.describe()} ({version})"
        live = self.buffers.get(first.key)
        where = f" [vLLM {live.attr}: {list(live.shape)} {live.dtype}]" if live else ""
        return f"graphfit: UNSAFE: {first.describe()}{where} ({version})"


def _tensor_like(value: Any) -> Any:
    """The device tensor of a torch tensor or of vLLM's CpuGpuBuffer (its `.gpu`)."""
    shape = getattr(value, "shape", None)
    if shape is not None and hasattr(value, "dtype") and hasattr(value, "dim"):
        return value
    gpu = getattr(value, "gpu", None)
    if gpu is not None and hasattr(gpu, "shape") and hasattr(gpu, "dtype"):
        return gpu
    return None


def _tensors(obj: Any, prefix: str) -> dict[str, tuple[str, Any]]:
    """graphfit name -> (vLLM attribute path, tensor) for an object's device tensors."""
    out: dict[str, tuple[str, Any]] = {}
    if obj is None:
        return out
    for attr, value in vars(obj).items():
        tensor = _tensor_like(value)
        if tensor is None or tensor.dim() == 0:
            continue
        name = _ATTR_NAMES.get(attr, attr)
        if name is not None:
            out[name] = (f"{prefix}{attr}", tensor)
    inputs = getattr(obj, "input_buffers", None)  # MRV2's InputBuffers
    if inputs is not None and hasattr(inputs, "__dict__"):
        for attr, value in vars(inputs).items():
            tensor = _tensor_like(value)
            if tensor is not None and tensor.dim() > 0:
                out[attr] = (f"{prefix}input_buffers.{attr}", tensor)
    return out


def _fewest_rows(groups: list[tuple[str, Any]], dim: int = 0) -> tuple[str, Any] | None:
    """The KV-cache group whose tensor has the fewest rows: the one that goes short first."""
    live = [(attr, t) for attr, t in groups if t is not None and t.dim() > dim]
    return min(live, key=lambda hit: int(hit[1].shape[dim])) if live else None


def _kv_tensors(runner: Any) -> dict[str, tuple[str, Any]]:
    """The target's block table and slot mapping, read where vLLM keeps them per KV-cache
    group; only present once the worker's `initialize_kv_cache` has run (MRV2) or the
    runner's InputBatch exists (V1).

    MRV2 (0.34: v1/worker/gpu/model_runner.py:753-765 builds `BlockTables`; the forward
    reads `input_block_tables[g]` [max_num_reqs, width] and row g of `slot_mappings`
    [groups, max_num_batched_tokens], block_table.py:85-95). V1 (0.33:
    v1/worker/gpu_input_batch.py:183 builds a `MultiGroupBlockTable`, whose `BlockTable`s
    hold `block_table` and `slot_mapping` as CpuGpuBuffers, v1/worker/block_table.py:80-86).
    With several groups, the one with the fewest rows is the one checked.
    """
    out: dict[str, tuple[str, Any]] = {}
    tables = getattr(runner, "block_tables", None)
    if tables is not None and hasattr(tables, "slot_mappings"):  # MRV2
        prefix = "model_runner.block_tables."
        inputs = list(getattr(tables, "input_block_tables", []))
        block = _fewest_rows([(f"{prefix}input_block_tables[{g}]", _tensor_like(t))
                              for g, t in enumerate(inputs)])
        slots = _tensor_like(tables.slot_mappings)
        slot = _fewest_rows([(f"{prefix}slot_mappings[{g}]", slots[g])
                             for g in range(int(slots.shape[0]))]) if slots is not None \
            and slots.dim() == 2 else None
    else:  # V1
        multi = getattr(getattr(runner, "input_batch", None), "block_table", None)
        groups = list(getattr(multi, "block_tables", []) or [])
        prefix = "model_runner.input_batch.block_table.block_tables"
        block = _fewest_rows([(f"{prefix}[{g}].block_table",
                               _tensor_like(getattr(t, "block_table", None)))
                              for g, t in enumerate(groups)])
        slot = _fewest_rows([(f"{prefix}[{g}].slot_mapping",
                              _tensor_like(getattr(t, "slot_mapping", None)))
                             for g, t in enumerate(groups)])
    if block is not None:
        out["block_table"] = block
    if slot is not None:
        out["slot_mapping"] = slot
    return out


def live_buffers(runner: Any, p: Plan) -> dict[str, LiveBuffer]:
    """The runner's and drafter's tensors that are buffers of `p`, keyed "component.name"."""
    drafter = getattr(runner, "drafter", None) or getattr(runner, "speculator", None)
    found = {"target": {**_kv_tensors(runner), **_tensors(runner, "model_runner.")},
             "drafter": _tensors(drafter, "drafter." if getattr(runner, "drafter", None)
                                 else "speculator.")}
    out: dict[str, LiveBuffer] = {}
    for component, tensors in found.items():
        comp = p.components.get(component)
        if comp is None:
            continue
        for buf in comp.buffers:
            hit = tensors.get(buf.name)
            if hit is None:
                continue
            attr, tensor = hit
            out[buf.key] = LiveBuffer(buf.key, attr, tuple(int(s) for s in tensor.shape),
                                      str(tensor.dtype).removeprefix("torch."))
    return out


def _rows(live: LiveBuffer, p: Plan) -> int:
    component, name = live.key.split(".", 1)
    buf = next(b for b in p.components[component].buffers if b.name == name)
    dim = 0 if buf.axis.value == "fixed" else buf.axis_dim
    return live.shape[dim] if dim < len(live.shape) else 0


def modelled_version() -> str:
    """The vLLM version graphfit's engine model follows (e.g. "0.33.0")."""
    from graphfit.planner.core.enums import Engine
    from graphfit.planner.engines.registry import engine_model

    found = re.search(r"\d+(?:\.\d+)+", str(engine_model(Engine.VLLM).version))
    return found.group(0) if found else ""


def check_runner(runner: Any, *, vllm_version: str = "", **overrides: Any) -> Check:
    """Plan the live runner's resolved config and verify its live buffers' rows.

    `overrides` are EngineConfig fields that win over what is read. The attention support
    level is pinned to ALWAYS unless given: the mode in `vllm_config` is already the one
    vLLM resolved from the real level (a re-resolution at ALWAYS keeps it), so graphfit
    checks what this engine runs, not every level it could have had.
    """
    vllm_config = getattr(runner, "vllm_config", None)
    if vllm_config is None:
        raise ConfigError("vllm: the model runner has no vllm_config")
    overrides.setdefault("attention_cudagraph_support", "ALWAYS")
    release = _modelled_release(vllm_version)
    if release is not None:
        # plan the release vLLM reports (from_vllm also reads the imported vllm.__version__;
        # the version handed in is the one the worker's vLLM reported)
        overrides.setdefault("engine_version", release)
    if "runner" not in overrides:
        # the runner in hand says which it is (V1 keeps its proposer in `drafter`, MRV2 in
        # `speculator`): vllm_config.use_v2_model_runner re-reads the environment, which a
        # process that built the runner itself need not still hold
        if getattr(runner, "speculator", None) is not None:
            overrides["runner"] = "v2"
        elif getattr(runner, "drafter", None) is not None:
            overrides["runner"] = "v1"
    if "max_num_seqs" not in overrides:
        reqs = getattr(runner, "max_num_reqs", None)
        if isinstance(reqs, int) and getattr(
                getattr(vllm_config, "scheduler_config", None), "max_num_seqs", None) is None:
            overrides["max_num_seqs"] = reqs
    config = EngineConfig.from_vllm(vllm_config, **overrides)
    p = plan(config)
    live = live_buffers(runner, p)
    verification = p.verify({key: _rows(buf, p) for key, buf in live.items()})
    planned = str(config.engine_version)
    return Check(vllm_version or planned, planned, p, live, verification)


def _modelled_release(vllm_version: str) -> str | None:
    """`vllm_version` without a local build suffix ("0.34.0+cu129" -> "0.34.0") when
    graphfit models that release; None otherwise (then the default release is planned and
    the log line says so)."""
    from graphfit.planner.engines.registry import versions

    bare = vllm_version.split("+")[0].strip()
    return bare if bare in versions("vllm") else None


def mode_from_env(environ: Mapping[str, str] | None = None) -> str | None:
    """"check", "warn" or None (off: unset, empty, "0" or "off"); ConfigError otherwise."""
    value = (os.environ if environ is None else environ).get(ENV, "").strip().lower()
    if value in ("", "0", "off"):
        return None
    if value not in MODES:
        raise ConfigError(f"{ENV}: {value!r} is not one of check, warn, off")
    return value


def run_check(runner: Any, mode: str, *, vllm_version: str = "",
              log: Callable[[str], object] | None = None) -> Check:
    """The worker-side step: check, log one line, and raise in check mode when unsafe."""
    result = check_runner(runner, vllm_version=vllm_version)
    emit = log or (logger.info if result.ok else logger.warning)
    emit(result.line())
    if not result.ok and mode == "check":
        raise UnsafeBuffersError(result.line() + f" ({ENV}=check refuses to start)")
    return result


def wrap_worker(worker_cls: Any, mode: str, vllm_version: str) -> bool:
    """Run the check before `worker_cls.compile_or_warm_up_model`; False if already done."""
    original = worker_cls.compile_or_warm_up_model
    if getattr(original, "__graphfit__", False):
        return False

    def compile_or_warm_up_model(self: Any, *args: Any, **kwargs: Any) -> Any:
        run_check(self.model_runner, mode, vllm_version=vllm_version)
        return original(self, *args, **kwargs)

    compile_or_warm_up_model.__graphfit__ = True  # type: ignore[attr-defined]
    compile_or_warm_up_model.__wrapped__ = original  # type: ignore[attr-defined]
    worker_cls.compile_or_warm_up_model = compile_or_warm_up_model
    return True


def register() -> None:
    """The `vllm.general_plugins` entry point: off unless GRAPHFIT_VLLM is check or warn."""
    mode = mode_from_env()
    if mode is None:
        return
    import vllm
    from vllm.v1.worker.gpu_worker import Worker

    wrap_worker(Worker, mode, str(getattr(vllm, "__version__", "")))
