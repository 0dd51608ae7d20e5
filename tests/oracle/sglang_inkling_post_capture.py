"""Inkling under --enable-unified-memory with SGLANG_ENABLE_POST_CAPTURE_KV_SIZING: SGLang's
side and graphfit's for one line, and the grid both tests and the measure draw from.

SGLang's side is its launcher's order (launch_server.py:29: `resolve_once` right after
`prepare_server_args`, nothing published): the resolved prefill backend and static fraction,
or its failure -- the exception type and the deepest SGLang frame (traceback.extract_tb),
e.g. "ValueError runtime_context.py:1069 <- runtime_context.py:1319 <-
configs/inkling.py:234". graphfit's: the pasted line (with the variable as
its environment prefix) planned, or its refusal's message."""

from __future__ import annotations

import contextlib
import random
import traceback
from collections.abc import Iterator
from typing import Any

from tests.oracle import sglang_mamba_memory_oracle as mm
from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_post_capture_oracle as pc
from tests.oracle import sglang_stubs
from tests.oracle import sglang_unified_backends_oracle as ub

Side = tuple[str, float] | str  # (prefill backend, fraction) or the failure / refusal
MODELS = {"inkling": mm.INKLING, "defaults": mm.INKLING_DEFAULTS, "mtp": mm.INKLING_MTP}
UNIFIED = ("--enable-unified-memory",)


@contextlib.contextmanager
def unpublished() -> Iterator[None]:
    """No config namespace published, as in the launcher's process when it resolves
    (launch_server.py:29): an earlier oracle call's `publish` (sglang_oracle.published) is
    set aside (`RuntimeContext._config_bags`, runtime_context.py:984, 1065-1069) and put
    back after."""
    from sglang.srt import runtime_context

    context = runtime_context._CONTEXT
    saved = context._config_bags
    context._config_bags = None
    try:
        yield
    finally:
        context._config_bags = saved


def sglang_side(argv: tuple[str, ...], model: str, gpu: str, value: str | None) -> Side:
    gb, capability = ub.GPUS[gpu]
    o = so.oracle()
    with (pc.environment(value), unpublished(),
          sglang_stubs.fake_cuda(so._gpu_mib(gb), capability=capability)):
        try:
            record = o.server_args.prepare_server_args(
                ["--model-path", mm.model_dir(MODELS[model]), *argv])
            record.resolve_once()
        except SystemExit:
            return "argparse"
        except Exception as exc:  # SGLang's own failure: where it raised
            frames = [f for f in traceback.extract_tb(exc.__traceback__)
                      if "sglang/srt/" in f.filename]
            where = " <- ".join(f"{f.filename.split('srt/')[-1]}:{f.lineno}"
                                for f in reversed(frames[-3:]))
            return f"{type(exc).__name__} {where}"
        from sglang.srt.arg_groups.overrides import resolving_view

        cfg = resolving_view(record)
        return ub._value(cfg.cuda_graph_config.prefill.backend), float(cfg.mem_fraction_static)


def graphfit_side(argv: tuple[str, ...], model: str, gpu: str, value: str | None) -> Side:
    from graphfit import ConfigError
    from graphfit.cli.options import resolve_values
    from graphfit.inputs import commandline
    from graphfit.planner.engines.sglang_prefill_plan import prefill_graphs

    prefix = [] if value is None else [f"{pc.ENV}={value}"]
    line = [*prefix, "python", "-m", "sglang.launch_server", "--model-path",
            mm.model_dir(MODELS[model]), *argv]
    try:
        config = resolve_values({"gpu_memory_gb": gpu}, environ={},
                                pasted=commandline.read(line)).config()
        fraction = config.mem_fraction_static
        return prefill_graphs(config).backend, -1.0 if fraction is None else fraction
    except ConfigError as exc:
        return str(exc)


def verdict(theirs: Side, ours: Side) -> str:
    """'both fail', 'agree', 'graphfit: not modelled' or a disagreement's words."""
    if isinstance(theirs, str):
        return "both fail" if isinstance(ours, str) else f"SGLang {theirs}, graphfit plans"
    if isinstance(ours, str):
        return "graphfit: not modelled" if "not modelled" in ours else f"graphfit: {ours}"
    if theirs[0] != ours[0]:
        return f"prefill: SGLang {theirs[0]}, graphfit {ours[0]}"
    off = pc.disagreement(theirs[1], None if ours[1] < 0 else ours[1])
    return "agree" if off is None else off


def draw(rng: random.Random, models: tuple[str, ...] = tuple(MODELS)
         ) -> tuple[tuple[str, ...], str, str, str | None]:
    """One line: a model, a GPU, the variable 1 / 0 / unset, unified memory mostly on, a
    fraction sometimes given, sometimes a PD prefill role, a declining flag, a backend."""
    argv: list[str] = ["--max-running-requests", str(rng.choice((16, 48, 200)))]
    if rng.random() < 0.8:
        argv += UNIFIED
    if rng.random() < 0.25:
        argv += ["--mem-fraction-static", rng.choice(("0.7", "0.85"))]
    extra = rng.choice(("", "", "pd", "saver", "fa3", "triton", "tp2", "mamba_cap"))
    if extra == "pd":
        argv += ["--disaggregation-mode", "prefill", "--disaggregation-transfer-backend",
                 "mooncake"]
    elif extra == "saver":
        argv.append("--enable-memory-saver")
    elif extra in ("fa3", "triton"):
        argv += ["--attention-backend", extra]
    elif extra == "tp2":
        argv += ["--tp", "2"]
    elif extra == "mamba_cap":
        argv += ["--max-mamba-cache-size", "64"]
    value = rng.choice(("1", "1", "0", None))
    return tuple(argv), rng.choice(models), rng.choice(tuple(ub.GPUS)), value


def outcome(line: tuple[tuple[str, ...], str, str, str | None]) -> tuple[str, Any, Any]:
    theirs, ours = sglang_side(*line), graphfit_side(*line)
    return verdict(theirs, ours), theirs, ours
