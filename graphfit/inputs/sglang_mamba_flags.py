"""SGLang 0.5.23's value checks of two mamba-cache flags graphfit otherwise does not model:
`handle_mamba_backend` (arg_groups/mamba_hook.py:19-28) runs for every model and refuses a
negative `--mamba-cache-philox-rounds` and a `--mamba-max-states-per-path` that is 0 or below
-1. A value SGLang accepts changes no graph buffer graphfit plans (the Philox rounds of
stochastic rounding, the radix tree's per-path state cap): noted and ignored.

The same hook's checks across flags, and `handle_int8_mamba_checkpoint` (:75-99), run right
after it (arg_groups/pipeline.py:247-252), are restated on a pasted line (`line`, `settle`):

* `--enable-mamba-cache-stochastic-rounding` needs `--mamba-ssm-dtype float16` as given on the
  line (:30-37; nothing earlier in the pipeline sets the field: the ReplaySSM default of
  attention_hook.py:506-516 comes later), a CUDA GPU (:38-43) and, on the default
  `--mamba-backend triton`, an SM100 GPU (:44-52): checked once the GPU is named, noted when
  it is a figure in GiB (its generation unknown);
* `--mamba-backend flashinfer` needs the installed FlashInfer's `flashinfer.mamba` (:54-72):
  a fact of the serving machine, noted, not checked;
* `--enable-int8-mamba-checkpoint` with `--enable-hierarchical-cache`, `--radix-cache-backend`
  or `--enable-lmcache`: refused with SGLang's words (:83-99).

The same checks apply to a graphfit config file (`--config`) that holds these SGLang keys
(`FILE_KEYS`, `file`, `settle_file`): the cross-key refusals as the file is read, the GPU
checks once the GPU is known; so do the linear-attention kernels' checks (the per-mode kernel
keys, an explicit flashkda decode kernel, and the SM100+ checks of graphfit.inputs.
sglang_linear_sm100, issue 23 s44m). None of these flags changes a graph buffer graphfit plans."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from graphfit.inputs.gpus import GPU_CAPABILITY_MAJOR, gpu_name, gpu_sm100
from graphfit.inputs.keys import Handler
from graphfit.inputs.settings import COMMAND_LINE, Resolved, Setting
from graphfit.inputs.values import as_bool, as_str, normalize_key
from graphfit.planner.core.enums import Engine
from graphfit.planner.core.errors import ConfigError, excerpt


def _int(origin: str, value: Any) -> int:
    """The value as argparse's `type=int` reads it (int() of the text; a bool is no int)."""
    if isinstance(value, bool):
        raise ConfigError(f"{origin}: expected an integer, got {excerpt(value)}")
    try:
        return int(value.strip()) if isinstance(value, str) else int(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{origin}: invalid int value: {excerpt(value)}") from None


def philox_rounds(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """`--mamba-cache-philox-rounds` (arg_groups/fields/exec_.py:508-511; mamba_hook.py:
    21-22)."""
    if value is not None and _int(origin, value) < 0:
        raise ConfigError(f"{origin}: --mamba-cache-philox-rounds must be non-negative "
                          f"(SGLang arg_groups/mamba_hook.py:21-22)")
    return ([Setting("engine", Engine.SGLANG, origin, layer)],
            [f"{origin}: stochastic rounding's Philox rounds set no graph shape"])


def max_states_per_path(origin: str, value: Any, layer: int
                        ) -> tuple[list[Setting], list[str]]:
    """`--mamba-max-states-per-path` (arg_groups/fields/exec_.py:497-507; mamba_hook.py:
    24-28)."""
    count = None if value is None else _int(origin, value)
    if count is not None and (count == 0 or count < -1):
        raise ConfigError(f"{origin}: --mamba-max-states-per-path must be -1 (unlimited) or a "
                          f"positive integer, got {count} (SGLang mamba_hook.py:24-28)")
    return ([Setting("engine", Engine.SGLANG, origin, layer)],
            [f"{origin}: the radix tree's per-path state cap sets no graph shape"])


ROUNDING = "--enable-mamba-cache-stochastic-rounding"
HOOK = "SGLang arg_groups/mamba_hook.py"


def line(values: Mapping[str, Any]) -> list[str]:
    """The checks of `handle_mamba_backend` / `handle_int8_mamba_checkpoint` that need no GPU
    (module docstring), in SGLang's order; the notes for what SGLang checks on the machine."""
    notes = []
    if values.get("enable_mamba_cache_stochastic_rounding"):
        dtype = values.get("mamba_ssm_dtype")
        if dtype != "float16":
            raise ConfigError(f"{ROUNDING}: Stochastic rounding for the Mamba SSM cache "
                              f"requires --mamba-ssm-dtype float16, got {dtype!r} "
                              f"({HOOK}:30-37)")
    if values.get("mamba_backend") == "flashinfer":
        notes.append(f"--mamba-backend flashinfer: SGLang refuses it at start-up unless the "
                     f"installed FlashInfer has its mamba module ({HOOK}:54-72); sets no "
                     f"graph shape")
    if values.get("enable_int8_mamba_checkpoint"):
        _int8_checkpoint(values)
    return notes


def attention_flag(values: Mapping[str, Any]) -> list[Setting]:
    """`--attention-backend` as given on a pasted line, for the no_buffer strategy's check
    (mamba_hook.py:161-163). SGLang reads the field itself, before any default fills it
    (model_hook.py:225 / 737 run inside pipeline.py:225, ahead of the backend default at
    :242), and not `--prefill-attention-backend` / `--decode-attention-backend`."""
    base = values.get("attention_backend")
    if not isinstance(base, str) or not base.strip():
        return []
    return [Setting("attention_backend_flag", base.strip().lower(),
                    f"--attention-backend {base} ({HOOK}:161)", COMMAND_LINE)]


def _int8_checkpoint(values: Mapping[str, Any]) -> None:
    """`handle_int8_mamba_checkpoint` (mamba_hook.py:75-99): the host-offload path, a custom
    radix-cache backend and LMCache are not int8-aware."""
    flag = "--enable-int8-mamba-checkpoint"
    if values.get("enable_hierarchical_cache"):
        raise ConfigError(f"{flag}: not supported together with --enable-hierarchical-cache: "
                          f"the host-offload path is not int8-aware ({HOOK}:83-88)")
    backend = values.get("radix_cache_backend")
    if backend is not None:
        raise ConfigError(f"{flag}: only supports the built-in mamba radix cache; "
                          f"--radix-cache-backend={excerpt(backend)} is not int8-aware "
                          f"({HOOK}:89-94)"[:200])
    if values.get("enable_lmcache"):
        raise ConfigError(f"{flag}: not supported together with --enable-lmcache: LMCache "
                          f"is not int8-aware ({HOOK}:95-99)")


def settle(values: Mapping[str, Any], resolved: Resolved, gpu_given: object) -> Resolved:
    """Stochastic rounding's GPU checks (`_rounding`), then the linear-attention kernels'
    SM100+ checks that run after them (pipeline.py:250-253; graphfit.inputs.
    sglang_linear_sm100, issue 23 s44m)."""
    from graphfit.inputs import sglang_linear_sm100

    resolved = _rounding(values, resolved, gpu_given)
    return sglang_linear_sm100.settle(values, resolved, gpu_given)


def _rounding(values: Mapping[str, Any], resolved: Resolved, gpu_given: object) -> Resolved:
    """Stochastic rounding's GPU checks (mamba_hook.py:38-52) once the GPU is known: a named
    GPU that is not CUDA's, or (on the triton backend) not SM100, is refused with SGLang's
    reason; a figure in GiB plans with a note (SGLang refuses it below SM100)."""
    if not values.get("enable_mamba_cache_stochastic_rounding"):
        return resolved
    name = gpu_name(gpu_given)
    if name and name not in GPU_CAPABILITY_MAJOR:
        raise ConfigError(f"{ROUNDING}: Stochastic rounding for the Mamba SSM cache is only "
                          f"supported on NVIDIA CUDA platforms, not {name} ({HOOK}:38-43)")
    if (values.get("mamba_backend") or "triton") != "triton":
        return resolved
    sm100 = resolved.values.get("sm100")
    sm100 = gpu_sm100(gpu_given) if sm100 is None else bool(sm100)
    if sm100 is False:
        raise ConfigError(f"{ROUNDING}: with --mamba-backend triton it requires SM100 with "
                          f"CUDA >= 12.8; on H100/SM90 run with --mamba-backend flashinfer "
                          f"({HOOK}:44-52)")
    if sm100 is None:
        return replace(resolved, notes=(
            *resolved.notes,
            f"{ROUNDING} on --mamba-backend triton: SGLang refuses it below SM100 with CUDA "
            f">= 12.8 ({HOOK}:44-52); name the GPU (--gpu-memory-gb B200) to check"))
    return resolved


# SGLang's choices for --mamba-backend (arg_groups/fields/exec_.py; flags/sglang.json)
MAMBA_BACKENDS = ("triton", "flashinfer")


def _switch(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """A store_true flag of mamba_hook.py's checks, as a config-file key: a boolean, read
    across keys by `file`."""
    as_bool(origin, value)
    return [Setting("engine", Engine.SGLANG, origin, layer)], []


def _backend(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """--mamba-backend as a config-file key: one of SGLang's choices."""
    if as_str(origin, value) not in MAMBA_BACKENDS:
        raise ConfigError(f"{origin}: invalid choice {excerpt(value)} (choose from "
                          f"{', '.join(MAMBA_BACKENDS)})")
    return [Setting("engine", Engine.SGLANG, origin, layer)], []


def _cache_backend(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """--radix-cache-backend as a config-file key (any name; null: the built-in cache)."""
    if value is not None:
        as_str(origin, value)
    return [Setting("engine", Engine.SGLANG, origin, layer)], []


def linear_kernel(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """A per-mode linear-attention kernel (`--linear-attn-decode-backend`, `-prefill-`,
    `-verify-`, fields/exec_.py:549-570) as a config-file key: null (follow
    --linear-attn-backend) or one of SGLang's choices (choices.py:194-203; verify also
    nv_cutedsl), on a pasted line or in a config file (graphfit.inputs.sglang.FILE_KEYS); the
    checks across keys are `file` / `settle_file` and the line's `settle` (issue 23 s44m)."""
    from graphfit.planner.engines.sglang_options import LINEAR_ATTN_BACKENDS

    if value is not None:
        choices = LINEAR_ATTN_BACKENDS + (("nv_cutedsl",) if "verify" in origin else ())
        if as_str(origin, value) not in choices:
            raise ConfigError(f"{origin}: invalid choice {excerpt(value)} (choose from "
                              f"{', '.join(choices)})"[:200])
    return [Setting("engine", Engine.SGLANG, origin, layer)], []


# the config-file keys `file` reads across (a pasted line's flags are read by `line`)
FILE_KEYS: dict[str, Handler] = {
    "enable_mamba_cache_stochastic_rounding": _switch, "mamba_backend": _backend,
    "enable_int8_mamba_checkpoint": _switch, "enable_hierarchical_cache": _switch,
    "enable_hicache": _switch, "radix_cache_backend": _cache_backend,
    "enable_lmcache": _switch}


def file_values(data: Mapping[Any, Any]) -> dict[str, Any]:
    """A config file's keys as SGLang's fields (dashes or underscores; --enable-hicache is
    --enable-hierarchical-cache's other spelling)."""
    values = {normalize_key(k): v for k, v in data.items() if isinstance(k, str)}
    if "enable_hicache" in values:
        values.setdefault("enable_hierarchical_cache", values["enable_hicache"])
    return values


def file(data: Mapping[Any, Any], name: str) -> list[str]:
    """`line`'s checks on a config file's keys (module docstring); a refusal names the
    file."""
    from graphfit.inputs import sglang_unified_linear

    try:
        values = file_values(data)
        sglang_unified_linear.line(values)  # an explicit flashkda decode kernel (s44m)
        return [f"{name}: {note}" for note in line(values)]
    except ConfigError as exc:
        raise _named(name, exc) from None


def settle_file(data: Mapping[Any, Any], name: str, resolved: Resolved,
                gpu_given: object) -> Resolved:
    """`settle`'s GPU checks on a config file's keys once the GPU is known (the file's own
    gpu_memory_gb when no flag gives one)."""
    values = file_values(data)
    try:
        return settle(values, resolved, gpu_given if gpu_given is not None
                      else values.get("gpu_memory_gb"))
    except ConfigError as exc:
        raise _named(name, exc) from None


def _named(name: str, exc: ConfigError) -> ConfigError:
    """The refusal with the file's name in front when the line stays within 200 chars."""
    text = f"{name}: {exc}"
    return ConfigError(text if len(text) <= 200 else str(exc))
