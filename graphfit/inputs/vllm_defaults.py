"""vLLM's own defaults for max_num_seqs and max_num_batched_tokens when a line leaves them open,
per release.

vLLM settles both in `EngineArgs._set_default_max_num_seqs_and_batched_tokens_args`
(engine/arg_utils.py:3151-3240 in 0.33) from `get_batch_defaults` (:2940-3039), in this order:

1. the GPU tier, for `vllm serve` (UsageContext.OPENAI_API_SERVER) on CUDA: >= 160 GiB gives
   (1024 sequences, 16384 tokens); >= 70 GiB and not an A100 (nor a GB10, 0.33 on) gives
   (1024, 8192); anything else (256, 2048). With DeepEP-low-latency / NIXL expert parallel
   and data parallel (`use_batched_dp_moe`, config/parallel.py:796-804) the token default is
   256 instead (SchedulerConfig.DEFAULT_MAX_NUM_BATCHED_TOKENS_FOR_BATCHED_DP).
2. `--performance-mode throughput` doubles each default not given (:3182-3187).
3. the token default only: raised to max_model_len without chunked prefill (:3194-3199), then
   capped at max_num_seqs x max_model_len (:3218-3225).
4. the sequence default only: lowered to max_num_batched_tokens (:3232-3234), so
   `--max-num-batched-tokens 512` alone gives 512 sequences, not a refusal.

The same logic holds in 0.34.0 (arg_utils.py:2977-3076 and 3188-3277, identical text) and in
0.32.0 (2894-2985 and 3097-3189) except that 0.32 has no GB10 exception (:2933). Pure Python:
the CLI passes what it knows about the GPU (its GiB and, when named, its name).
"""

from __future__ import annotations

from dataclasses import dataclass

from graphfit.planner.core.errors import ConfigError

GIB_LARGE = 160  # device_memory >= 160 * GiB_bytes
GIB_HOPPER = 70  # device_memory >= 70 * GiB_bytes and "a100" not in the name
BATCHED_DP_TOKENS = 256  # config/scheduler.py:42


@dataclass(frozen=True)
class Release:
    """One release's `get_batch_defaults` for `vllm serve` on CUDA, and where it is."""

    version: str
    large: tuple[int, int]   # (max_num_seqs, max_num_batched_tokens), >= 160 GiB
    hopper: tuple[int, int]  # >= 70 GiB, not an A100 (nor a GB10 where gb10_small)
    small: tuple[int, int]   # every other GPU
    gb10_small: bool         # GB10 (cc 12.1) stays on the small tier
    source: str              # file:line of the two functions
    lowered_at: str          # file:line where a defaulted max_num_seqs is capped at the budget

    def __post_init__(self) -> None:
        for pair in (self.large, self.hopper, self.small):
            if len(pair) != 2 or min(pair) < 1:  # pragma: no cover - a table typo
                raise ValueError(f"vLLM {self.version}: bad default pair {pair}")


RELEASES: dict[str, Release] = {
    "0.32.0": Release("0.32.0", (1024, 16384), (1024, 8192), (256, 2048), False,
                      "engine/arg_utils.py:2894-2985, 3097-3189", "arg_utils.py:3178-3180"),
    "0.33.0": Release("0.33.0", (1024, 16384), (1024, 8192), (256, 2048), True,
                      "engine/arg_utils.py:2940-3039, 3151-3240", "arg_utils.py:3232-3234"),
    "0.34.0": Release("0.34.0", (1024, 16384), (1024, 8192), (256, 2048), True,
                      "engine/arg_utils.py:2977-3076, 3188-3277", "arg_utils.py:3269-3271"),
}
DEFAULT_GPU_GIB = 80.0  # an "80 GB" Hopper-class GPU when the user says nothing


def release(version: str) -> Release:
    """The table row for `version` (a ConfigError naming the known ones otherwise)."""
    row = RELEASES.get(version)
    if row is None:
        raise ConfigError(f"vLLM {version}: batch defaults not modelled (known: "
                          f"{', '.join(RELEASES)})")
    return row


@dataclass(frozen=True)
class GpuFacts:
    """What vLLM's get_batch_defaults asks the platform: total memory and the name."""

    gib: float
    name: str = ""

    def __post_init__(self) -> None:
        if not self.gib > 0:
            raise ConfigError(f"gpu_memory_gb: must be > 0 GiB, got {self.gib!r}")


@dataclass(frozen=True)
class LineFacts:
    """What the line (and the model) say that the defaults depend on; None = not given."""

    max_num_seqs: int | None
    max_num_batched_tokens: int | None
    max_model_len: int
    chunked_prefill: bool = True       # generative decoder models default to True
    throughput: bool = False           # --performance-mode throughput
    batched_dp_moe: bool = False       # ParallelConfig.use_batched_dp_moe


@dataclass(frozen=True)
class Settled:
    """The two values vLLM ends with, and which of them were its defaults."""

    max_num_seqs: int
    max_num_batched_tokens: int
    defaulted: tuple[str, ...]
    tier: str


def tier(row: Release, gpu: GpuFacts) -> tuple[tuple[int, int], str]:
    """(defaults, a short reason) for `gpu` under `row`."""
    name = gpu.name.lower()
    if gpu.gib >= GIB_LARGE:
        return row.large, f"{gpu.gib:g} GiB >= {GIB_LARGE}"
    is_gb10 = row.gb10_small and name == "gb10"
    if gpu.gib >= GIB_HOPPER and "a100" not in name and not is_gb10:
        return row.hopper, f"{gpu.gib:g} GiB >= {GIB_HOPPER}, not an A100"
    why = "an A100" if "a100" in name else ("a GB10" if is_gb10 else f"{gpu.gib:g} GiB")
    return row.small, why


def settle(row: Release, gpu: GpuFacts, line: LineFacts) -> Settled:
    """vLLM's `_set_default_max_num_seqs_and_batched_tokens_args` (module docstring)."""
    (seqs_default, tokens_default), why = tier(row, gpu)
    if line.batched_dp_moe:
        tokens_default = BATCHED_DP_TOKENS
    tokens = line.max_num_batched_tokens
    seqs = line.max_num_seqs
    factor = 2 if line.throughput else 1
    settled_seqs = seqs if seqs is not None else seqs_default * factor
    if tokens is None:
        settled_tokens = tokens_default * factor
        if not line.chunked_prefill:
            settled_tokens = max(line.max_model_len, settled_tokens)
        settled_tokens = min(settled_seqs * line.max_model_len, settled_tokens)
    else:
        settled_tokens = tokens
    if seqs is None:
        settled_seqs = min(settled_seqs, settled_tokens)
    defaulted = tuple(name for name, given in (("max_num_seqs", seqs),
                                               ("max_num_batched_tokens", tokens))
                      if given is None)
    return Settled(settled_seqs, settled_tokens, defaulted, why)
