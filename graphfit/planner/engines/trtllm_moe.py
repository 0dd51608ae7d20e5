"""TensorRT-LLM's MoE parallel sizes as its mapping derives and checks them (issue 23, s47t).

The LLM API hands `moe_tensor_parallel_size`, `moe_expert_parallel_size` and
`moe_cluster_parallel_size` (each None when not given, which the mapping reads as -1) to
`MappingBase.__init__` (tensorrt_llm/mapping.py@b35ac1b643:42-58). None of the three changes
a graph or a buffer graphfit plans (the MoE weights and their all-to-all are not planned), but
the mapping refuses some combinations before the engine runs, and graphfit must refuse them
too rather than plan a line TensorRT-LLM does not start:

- a missing cluster size is 1 (61-62); the MoE world is tp_size for ULYSSES context
  parallelism (the default, also without a cp_config) and tp_size x cp_size otherwise (64-66);
- neither tp nor ep given: moe_tp = world // cluster, moe_ep = 1 (68-70); only ep given:
  moe_tp = world // (ep x cluster) (72-73); only tp given: moe_ep = world // (tp x cluster)
  (75-76); integer division, so a size that does not divide the world is caught next;
- moe_tp x moe_ep x cluster != world raises ValueError (104-109);
- moe_ep != 1 with cp_size > 1 and a cp_type other than HELIX raises NotImplementedError
  (118-120); the message formats the `CpType` (an IntEnum) as its number;
- cluster > 1 asserts moe_ep == 1 (122-123).
"""

from __future__ import annotations

from dataclasses import dataclass

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.trtllm_options import CP_TYPES


@dataclass(frozen=True)
class MoeSizes:
    """The mapping's moe_tp_size, moe_ep_size and moe_cluster_size after its derivation."""

    tp: int
    ep: int
    cluster: int

    def __post_init__(self) -> None:
        for name in ("tp", "ep", "cluster"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ConfigError(f"MoeSizes.{name}: expected an integer >= 0, got {value!r}")


def cp_type_name(config: EngineSettings) -> str:
    """The mapping's cp_type, lower-cased: ulysses when the line gives none (64-65)."""
    return config.cp_type or "ulysses"


def moe_world_size(config: EngineSettings) -> int:
    """tp_size under ULYSSES (or no context parallelism), else tp_size x cp_size (66)."""
    if cp_type_name(config) == "ulysses":
        return config.tensor_parallel_size
    return config.tensor_parallel_size * config.context_parallel_size


def derived_sizes(config: EngineSettings) -> MoeSizes:
    """The three sizes as the mapping fills in the missing ones (61-76), unchecked."""
    cluster = config.moe_cluster_parallel_size or 1
    world = moe_world_size(config)
    tp, ep = config.moe_tensor_parallel_size, config.moe_expert_parallel_size
    if tp is None and ep is None:
        return MoeSizes(world // cluster, 1, cluster)
    if tp is None:
        assert ep is not None
        return MoeSizes(world // (ep * cluster), ep, cluster)
    if ep is None:
        return MoeSizes(tp, world // (tp * cluster), cluster)
    return MoeSizes(tp, ep, cluster)


def check_moe_mapping(config: EngineSettings) -> MoeSizes:
    """The derived sizes, or one error line with the mapping's reason, checked in the
    mapping's order (product 104-109, context parallelism 118-120, cluster 122-123)."""
    sizes = derived_sizes(config)
    world = moe_world_size(config)
    product = sizes.tp * sizes.ep * sizes.cluster
    if product != world:
        raise ConfigError(f"moe sizes: moe_tp_size * moe_ep_size * moe_cluster_size must "
                          f"equal to moe_world_size, but got {product} != {world} "
                          f"(TensorRT-LLM's mapping refuses it)")
    cp = config.context_parallel_size
    kind = cp_type_name(config)
    if sizes.ep != 1 and cp > 1 and kind != "helix":
        raise ConfigError(f"context_parallel_size: {cp} ({kind}) with moe_ep_size {sizes.ep}: "
                          f"CP {CP_TYPES.index(kind)} doesn't support MoE tp/ep yet "
                          f"(TensorRT-LLM refuses it too); plan with 1")
    if sizes.cluster > 1 and sizes.ep != 1:
        raise ConfigError(f"moe_cluster_parallel_size: {sizes.cluster} needs moe_ep_size 1, "
                          f"got {sizes.ep} (TensorRT-LLM's mapping asserts moe_ep_size == 1)")
    return sizes


__all__ = ["MoeSizes", "check_moe_mapping", "derived_sizes", "moe_world_size"]
