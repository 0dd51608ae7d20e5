"""Planted errors in graphfit's DeepSeek-V4 plan wiring (graphfit.planner.engines.
sglang_dsv4_plan, graphfit.inputs.sglang_dsv4), each patched in-process only and undone,
and how many lines of the plan oracle's grid + generated draws each makes differ from
SGLang (tests/oracle/sglang_dsv4_plan_oracle). Unplanted first: 0 must differ.

    PYTHONPATH=. python -m tests.oracle.plant_sglang_dsv4_plan [DRAWS] [SEED]
"""

from __future__ import annotations

import contextlib
import dataclasses
import random
import sys
from collections.abc import Callable, Iterator
from typing import Any
from unittest import mock

from graphfit.inputs import sglang_dsv4
from graphfit.planner.engines import sglang_dsv4_default as default
from graphfit.planner.engines import sglang_dsv4_plan as plan
from graphfit.planner.engines import sglang_dsv4_pool as pool
from tests.oracle import sglang_dsv4_plan_oracle as pl
from tests.oracle import sglang_dsv4_pool_oracle as po
from tests.oracle.test_sglang_dsv4_plan_oracle import (
    DEFAULTS,
    GRID,
    REPLAY_WINDOW,
    SM100,
    SM100_V41,
    STAGES,
)


def _inputs(**forced: Any) -> Any:
    real = plan.resolved_inputs
    return mock.patch.object(plan, "resolved_inputs",
                             lambda **kw: real(**{**kw, **forced}))


@contextlib.contextmanager
def _resolve(fix: Callable[[Any, dict[str, object]], None]) -> Iterator[None]:
    real = plan.resolve

    def planted(config: Any) -> dict[str, object]:
        out = real(config)
        fix(config, out)
        return out
    with mock.patch.object(plan, "resolve", planted):
        yield


def _old_default(config: Any, out: dict[str, object]) -> None:
    if "max_num_seqs" in out:  # graphfit's pre-wiring default, not DeepSeek-V4's 256
        out["max_num_seqs"] = 2048 * config.attn_dp_size


def _slots_per_line(config: Any, out: dict[str, object]) -> None:
    if "disaggregation_decode_extra_slots" in out:  # the line's requests, not per DP rank
        out["disaggregation_decode_extra_slots"] = plan.decode_extra_slots(
            None, config.max_num_seqs, 1)


def _no_v41(data: Any) -> Any:
    shape = REAL_SHAPE(data)
    return None if shape is None else ((*shape[0][:4], 0), shape[1], shape[2])


def _no_replicas(config: Any, out: dict[str, object]) -> None:
    if "disaggregation_decode_extra_slots" in out:  # attention DP only, not the replicas
        out["disaggregation_decode_extra_slots"] = plan.decode_extra_slots(
            None, config.max_num_seqs, config.attn_dp_size)


def _clamped_slots() -> Any:
    real = plan.resolved_inputs

    def planted(**kw: Any) -> Any:
        given = kw.get("disaggregation_decode_extra_slots")
        if given is not None:
            kw["disaggregation_decode_extra_slots"] = max(0, given)
        return real(**kw)
    return mock.patch.object(plan, "resolved_inputs", planted)


def _sm100_unrestated() -> Any:
    real = plan.layout_unmodelled

    def planted(config: Any) -> str | None:
        if (config.gpu_capability or 0) >= 100:
            return "SM100's layouts and indexer pages"  # the pre-s44k answer
        return real(config)
    return mock.patch.object(plan, "layout_unmodelled", planted)


def _sources_not_renumbered(shape: Any, start: int, end: int) -> Any:
    return dataclasses.replace(REAL_STAGE(shape, start, end),
                               kv_source_layer_ids=shape.kv_source_layer_ids)


REAL_SHAPE = sglang_dsv4.shape_of
REAL_STAGE = plan.stage_shape
REAL_RANGES = plan.stage_ranges
REAL_BUDGET = plan.budget_bytes
REAL_CAPPED = plan.capped
REAL_CAP = pool.Dsv4Pool.swa_cap_tokens


def _off(real: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """`real` as if encoder replay were off (the target's paged SWA kept)."""
    return lambda self: real(dataclasses.replace(
        self, line=dataclasses.replace(self.line, encoder_replay=False)))


def _window(*, extra_slot: int = 1, scratch_slots: bool = True, pad: int = 16,
            per_line: bool = False, heads: int = 3) -> Any:
    """`request_window_bytes` with one term of SGLang's (pool_configurator.py:1211-1239)
    changed."""
    def window(self: Any) -> int:
        line = self.line
        if not line.encoder_replay:
            return 0
        requests = line.max_running_requests if per_line else line.requests_per_worker
        slots = requests + extra_slot
        page, kv = line.page_size, self.kv_bytes + pad
        capacity = -(-self.shape.window_size // page) * page
        scratch = max(line.chunked_prefill_size, slots * 128 if scratch_slots else 0) \
            + slots * 128 + page
        return ((slots * capacity + page) * self.layers * kv + 4 * scratch * kv
                + slots * heads * 16 * self.shape.head_dim * 8)
    return mock.patch.object(pool.Dsv4Pool, "request_window_bytes", window)


PLANTS: dict[str, Any] = {
    "no DeepSeek-V4 default of 256 requests (2048 per DP group)": lambda: _resolve(
        _old_default),
    "decode extra slots from the line's requests, not per DP rank": lambda: _resolve(
        _slots_per_line),
    "model_type deepseek_v41 not read (V4.1 in ratio mode)": lambda: mock.patch.object(
        sglang_dsv4, "shape_of", _no_v41),
    "the budget without the fraction's slack": lambda: mock.patch.object(
        plan, "budget_bytes", lambda w, f, p: REAL_BUDGET(w, 0.999, p)),
    "--disaggregation-decode-enable-radix-cache ignored": lambda: _inputs(
        decode_radix_cache=False),
    "--swa-prefix-tails ignored": lambda: _inputs(swa_prefix_tails=None),
    "--swa-full-tokens-ratio ignored": lambda: _inputs(swa_full_tokens_ratio=None),
    "SGLANG_DSV4_COMPRESS_STATE_DTYPE ignored": lambda: _inputs(state_dtype="float32"),
    "--max-total-tokens ignored": lambda: mock.patch.object(
        plan, "capped", lambda pool, sized, cap: sized),
    "the capped full pool not page aligned": lambda: mock.patch.object(
        plan, "capped", lambda pool, sized, cap: dataclasses.replace(
            REAL_CAPPED(pool, sized, cap), full_tokens=cap)),
    "a negative --disaggregation-decode-extra-slots taken as 0": _clamped_slots,
    "a decode request pool with no free slot not refused": lambda: mock.patch.object(
        plan, "check_slots", lambda pool, sized: None),
    "--dp-size replicas ignored by the decode extra slots": lambda: _resolve(_no_replicas),
    "SM100 left unrestated": _sm100_unrestated,
    # pipeline stages (s47k)
    "each stage sized over all the layers": lambda: mock.patch.object(
        plan, "stage_shape", lambda shape, start, end: shape),
    "the stages' counts not agreed (each its own)": lambda: mock.patch.object(
        plan, "agreed_tokens", lambda sized, cap: 10**15 if cap is None else cap),
    "a stage's kv_source layers not renumbered": lambda: mock.patch.object(
        plan, "stage_shape", _sources_not_renumbered),
    "SGLANG_PP_LAYER_PARTITION ignored (even split)": lambda: mock.patch.object(
        plan, "stage_ranges", lambda layers, pp, text: REAL_RANGES(layers, pp, None)),
    # DeepSeek-V4.1 on SM100 (s47k)
    "the V4 layout on SM100 whatever the backend": lambda: mock.patch.object(
        plan, "kv_layout", lambda config: ("v4", pool.INDEX_PAGE)),
    "V4.1's ratio-1 / 2 caches fp8, not fp4": lambda: mock.patch.object(
        pool, "compressed_layout", lambda main, ratio: main),
    "V4.1's page stride unit taken as V4's (576)": lambda: mock.patch.dict(
        pool.LAYOUT_BYTES, {"v41": (528, 576)}),
    # V4.1's default backend on SM100 (issue 23, s48k)
    "V4.1's default backend always flashmla_mega": lambda: mock.patch.object(
        plan, "default_backend", lambda config: "flashmla_mega"),
    "V4.1's default backend always flashmla": lambda: mock.patch.object(
        plan, "default_backend", lambda config: "flashmla"),
    "--kv-cache-dtype ignored (always fp8_e4m3)": lambda: mock.patch.object(
        default, "kv_dtype", lambda config: "fp8_e4m3"),
    "attention TP ignored by the default": lambda: mock.patch.object(
        default, "attention_tp", lambda config: False),
    # the encoder-replay request window (issue 23, s50k)
    "encoder replay not passed to the pools": lambda: _inputs(encoder_replay=False),
    "the replay window's bytes left out": lambda: mock.patch.object(
        pool.Dsv4Pool, "request_window_bytes", lambda self: 0),
    "the target's SWA pool kept (cap) under replay": lambda: mock.patch.object(
        pool.Dsv4Pool, "swa_cap_tokens", _off(REAL_CAP)),
    # (the SWA slot's price under replay is multiplied by a zero cap and a zero ratio
    # only, on both sides: pricing it is not observable, so it is not planted)
    "the window's slots without the + 1": lambda: _window(extra_slot=0),
    "the window's slots per line, not per attention-DP rank": lambda: _window(per_line=True),
    "the scratch rows from the chunk alone": lambda: _window(scratch_slots=False),
    "the window's slot without its 16 bytes": lambda: _window(pad=0),
    "the per-slot index rows 2 x 16, not 3 x 16": lambda: _window(heads=2),
}


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 11)
    cases = [*GRID, *SM100, *STAGES, *SM100_V41, *DEFAULTS, *REPLAY_WINDOW,
             *(po.generate_gpu(rng) for _ in range(count)),
             *(pl.with_cap(po.generate_gpu(rng), rng) for _ in range(count)),
             *(pl.with_stages(po.generate_gpu(rng), rng) for _ in range(count)),
             *(pl.on_b200_v41(po.generate_gpu(rng), rng) for _ in range(count)),
             *(pl.with_replay(po.generate_gpu(rng), rng) for _ in range(count))]
    differ = sum(pl.compare(c) is not None for c in cases)
    print(f"{len(cases)} lines (grid {len(GRID)} + SM100 grid {len(SM100)} + stages grid "
          f"{len(STAGES)} + V4.1 SM100 grid {len(SM100_V41)} + V4.1 default grid "
          f"{len(DEFAULTS)} + replay grid {len(REPLAY_WINDOW)} + {count} drawn + {count} "
          f"drawn with --max-total-tokens + {count} drawn on pipeline stages + {count} V4.1 "
          f"on a B200 + {count} V4.1 with encoder replay): unplanted {differ} differ")
    for name, plant in PLANTS.items():
        with plant():
            caught = sum(pl.compare(c) is not None for c in cases)
        print(f"  planted {name}: {caught} differ -> {'caught' if caught else 'MISSED'}")


if __name__ == "__main__":
    main()
