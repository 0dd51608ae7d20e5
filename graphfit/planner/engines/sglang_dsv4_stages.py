"""DeepSeek-V4's KV pools under pipeline parallelism (`--pp-size` > 1), as SGLang 0.5.23 sizes
them: each stage's own slice of the layers, then the smallest stage's token count on every
stage.

Why a module of its own: the configurator (graphfit.planner.engines.sglang_dsv4_pool) sizes
one stage; this one says which layers a stage holds and how the stages agree.

* **A stage's layers.** `DSV4PoolConfigurator` takes the stage's range
  `[layer_info.start_layer, end_layer)` (pool_configurator.py:1116-1118): the compress ratios
  of those layers, the owners of each ratio's storage among them (`collect_sources_by_ratio`
  over the stage, deepseek_v4_memory_pool.py:94-115, called at :1127-1129) and the stage's
  layer count as the speculative inflation's layers (`num_layers_total`, :1167). The range is
  `get_pp_indices` (distributed/utils.py:110-150): SGLANG_PP_LAYER_PARTITION's counts when set
  (graphfit.planner.engines.sglang_pp_partition), else an even split with the last stages one
  layer more (graphfit.planner.engines.sglang_mamba_memory.pp_stage).
* **The stages agree.** Each stage sizes its pools from its own budget; `_apply_token_
  constraints` takes the `--max-total-tokens` cap and then the minimum over the PP ranks
  (all_reduce MIN, kv_cache_configurator.py:3096-3115), and `config_from_budget` re-derives the
  pools of every stage whose own count is larger from that count (:3211-3226,
  `calculate_pool_sizes_from_max_tokens`). The request pool is then resolved from the agreed
  count (`resolve_max_num_reqs`, :3119-3133), the same on every stage; the compress-state
  pools differ where a stage owns no ratio-4 or ratio-128 layer.
* **The budget.** SGLang measures each stage's free memory after that stage's weights
  (kv_cache_configurator.py:2990-3060). graphfit has one `--weights-gb` per rank and charges
  it to every stage: given the heaviest stage's weights (the first and last stages also hold
  the embedding / LM head) every stage's budget is at most its real one, so the agreed
  count is at most SGLang's; the plan line says so.
"""

from __future__ import annotations

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines.sglang_dsv4_pool import Dsv4Shape
from graphfit.planner.engines.sglang_mamba_memory import pp_stage
from graphfit.planner.engines.sglang_pp_partition import parse_partition


def stage_ranges(layers: int, pp_size: int,
                 partition_text: str | None) -> tuple[tuple[int, int], ...]:
    """Each stage's `[start, end)` layers (`get_pp_indices`, module docstring)."""
    partition = parse_partition(partition_text, pp_size, layers)
    return tuple(pp_stage(layers, rank, pp_size, partition) for rank in range(pp_size))


def stage_shape(shape: Dsv4Shape, start: int, end: int) -> Dsv4Shape:
    """The shape the configurator sees on the stage of layers `[start, end)`: those layers'
    compress ratios, and the kv_source layers among them renumbered from the stage's first
    (`Dsv4Shape.owners` then counts the stage's owners, as `collect_sources_by_ratio` does
    over the stage range)."""
    if end <= start:  # no byte scales with the stage's full pool
        raise ConfigError(f"a pipeline stage of no layer (layers [{start}, {end})): SGLang's "
                          f"DeepSeek-V4 configurator divides by its zero bytes per token "
                          f"(ZeroDivisionError, pool_configurator.py:1668)")
    return Dsv4Shape(shape.qk_nope_head_dim, shape.qk_rope_head_dim, shape.index_head_dim,
                     shape.compress_ratios[start:end],
                     tuple(i - start for i in shape.kv_source_layer_ids if start <= i < end),
                     shape.window_size, shape.context_len)


__all__ = ["stage_ranges", "stage_shape"]
