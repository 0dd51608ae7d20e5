"""vLLM releases graphfit models, each a small module stating what changed from its
predecessor.

A release is a frozen `Release`: behaviour switches the engine model reads (whether the V1
runner exists, whether capture sizes are split, ...), each set by the module of the release that
changed it with the file:line of the change. `v0_33` is the base (the release graphfit first
modelled, described in full by the model's modules); every other release is
`dataclasses.replace(previous, ...)` in its own module. Adding a release is a new module and
its data (its flag table, its oracle pin) without editing another release's module:
docs/maintainers/vllm-releases.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from graphfit.planner.core.enums import SpecMethod
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.vllm.buffers import lookahead
from graphfit.planner.engines.vllm.enums import Runner


@dataclass(frozen=True)
class Release:
    """One vLLM release's behaviour, as switches over the 0.33 model.

    `release`: the version string ("0.34.0"); `previous`: the release it is a delta of.
    `v1_runner`: the V1 GPU model runner exists (`VLLM_USE_V2_MODEL_RUNNER=0` works).
    `runner_fallbacks`: methods the V2 runner lacks, which make an unset
    `VLLM_USE_V2_MODEL_RUNNER` pick V1.
    `split_sizes`: prefill graphs keyed by tokens and decode graphs by requests (0.34).
    `draft_decode_graphs`: EAGLE/MTP/draft_model with k >= 2 capture one-token draft-decode
    graphs up to max_num_seqs requests (0.34).
    `custom_class`: `--speculative-config '{"method": "custom_class"}'` accepted.
    `flag_table`: the JSON flag table snapshotted from this release's own parser
    (graphfit/inputs/flags/).
    `reserved_slots`: the draft slots per request vLLM refuses `max_num_batched_tokens` at or
    below (0.33: `num_lookahead_tokens`, config/vllm.py:2369-2376).
    `dflash_aux_staging`: MRV2's DFlash speculator stages the target's aux hidden states for
    its FULL graph (0.33: v1/worker/gpu/spec_decode/dflash/speculator.py:96-108).
    `profiles_graph_memory`: start-up reserves graph memory measured by a profiling capture,
    FULL graphs extrapolated from the largest two (0.34: v1/worker/gpu/cudagraph_utils.py:
    989-1096, 1098-1107).
    """

    release: str
    previous: str | None
    v1_runner: bool
    runner_fallbacks: tuple[SpecMethod, ...]
    split_sizes: bool
    draft_decode_graphs: bool
    custom_class: bool
    flag_table: str
    reserved_slots: Callable[[EngineSettings], int] = lookahead
    dflash_aux_staging: bool = True
    profiles_graph_memory: bool = False

    def __post_init__(self) -> None:
        parts = self.release.split(".")
        if len(parts) != 3 or not all(p.isdigit() for p in parts):
            raise ValueError(f"release: {self.release!r} is not MAJOR.MINOR.PATCH")
        if not self.v1_runner and self.runner_fallbacks:
            raise ValueError("runner_fallbacks: a release without the V1 runner has none")

    @property
    def name(self) -> str:
        return f"vLLM {self.release}"

    @property
    def key(self) -> tuple[int, ...]:
        """Sortable version."""
        return tuple(int(p) for p in self.release.split("."))

    def default_runner(self, method: SpecMethod) -> Runner:
        """The runner an unset `VLLM_USE_V2_MODEL_RUNNER` picks."""
        return Runner.V1 if method in self.runner_fallbacks else Runner.V2
