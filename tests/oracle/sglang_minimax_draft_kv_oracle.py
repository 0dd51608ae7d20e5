"""SGLang 0.5.23's per-token KV price of a MiniMax-M3 target with a DFLASH / DSPARK draft's own
pool added (issue 23 s55d; the oracle side of graphfit.planner.engines.sglang_minimax_kv.
draft_price).

The target's price per pipeline stage is tests/oracle/sglang_minimax_kv_oracle's (SGLang's
`_compute_cell_size` on the resolved line). On the same resolved line and fake device, the
draft's share is SGLang's own: the draft's `ModelConfig` (is_draft_model, model_config.py:
950-975), its layer count from `parse_dflash_draft_config(...).require_num_layers()`
(dflash_utils.py:545-551, as spec_aux_hidden_state.py:219-280 reads it),
`resolve_dflash_draft_cell_size` (mem_cache/draft_kv_budget.py:14-55) at the draft's attention
width `draft_attn_tp_size()` (runtime_context.py:489-503), times attn_dcp_size
(`_dflash_draft_cell_size`, pool_configurator.py:108-115), and the sum SGLang's
`scale_kv_cell_size_per_token_for_dflash` makes (pool_configurator.py:316-338).

Glue (not SGLang logic): the configurator's DFLASH block is restated as those three calls
(its fused-entry branch needs unified memory, off on these lines).
"""

from __future__ import annotations

from typing import Any

from tests.oracle import sglang_minimax_kv_oracle as kv
from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_stubs
from tests.oracle.environ_patch import patched_environ


def cell_sizes(path: str, draft: str, argv: tuple[str, ...], capability: tuple[int, int],
               gpu_mem_gb: float = 80, env: tuple[tuple[str, str], ...] = ()
               ) -> kv.Priced | str:
    """Each pipeline stage's target + draft bytes a token and the resolved page size, or
    SGLang's refusal ("Rejected: ..." / "Type: message"); `env`: the line's environment."""
    with patched_environ(dict(env)):
        r = so.resolve(argv, gpu_mem_gb=gpu_mem_gb, model=path, capability=capability)
        if not isinstance(r, so.Resolved):
            return f"Rejected: {r.text}"
        target = kv._price(r, path, capability)
        if isinstance(target, str):
            return target
        added = _draft(r, draft, capability)
    if isinstance(added, str):
        return added
    if added[1] <= 0:
        return "unresolved: SGLang falls back to layer-count scaling"
    cells, page = target
    return tuple(_sum(cell, added) for cell in cells), page


def _sum(cell: int, added: tuple[int, int]) -> int:
    from sglang.srt.speculative.dflash_utils import scale_kv_cell_size_per_token_for_dflash

    layers, draft_cell = added
    return int(scale_kv_cell_size_per_token_for_dflash(
        target_cell_size_per_token=cell, target_num_layers=1, draft_num_layers=layers,
        draft_cell_size_per_token=draft_cell or None))


def _draft(r: so.Resolved, draft: str, capability: tuple[int, int]) -> tuple[int, int] | str:
    """(draft layers x attn_dcp, the draft's bytes a token x attn_dcp) as SGLang resolves them."""
    with so.published(r), sglang_stubs.fake_cuda(r.gpu_mem_mib, capability=capability):
        from sglang.srt.configs.model_config import ModelConfig
        from sglang.srt.mem_cache.draft_kv_budget import resolve_dflash_draft_cell_size
        from sglang.srt.runtime_context import draft_attn_tp_size, get_parallel
        from sglang.srt.speculative.dflash_utils import parse_dflash_draft_config

        record: Any = r.record
        try:
            config = ModelConfig.from_server_args(record, model_path=draft, is_draft_model=True)
            layers = parse_dflash_draft_config(
                draft_hf_config=config.hf_config).require_num_layers()
            cell = resolve_dflash_draft_cell_size(
                draft_model_config=config, draft_num_layers=layers,
                attn_tp_size=draft_attn_tp_size())
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            return f"{type(exc).__name__}: {exc}"
        dcp = int(get_parallel().attn_dcp_size)
    return layers * dcp, int(cell or 0) * dcp
