"""vLLM 0.32.0: the release before 0.33.0, stated as what differs from 0.33.0 (the base).

Modelled only where vLLM 0.32.0's own code, run by the oracle on generated configs, answers
differently from the 0.33 model (tests/oracle/test_vllm_release_oracle.py with
GRAPHFIT_ORACLE_VLLM=0.32.0; the measured table: docs/maintainers/vllm-releases.md):

- `max_num_batched_tokens` is refused only at or below the NEW draft slots per request
  (`SpeculativeConfig.max_num_new_slots_for_drafting`, config/speculative.py:1888-1926, checked
  in `VllmConfig._set_max_num_scheduled_tokens`, config/vllm.py:2285-2290): DFlash k, DSpark
  k - 1, draft_model 1, parallel EAGLE3 k - 1, every other method 0 (0.33 refuses at or below
  `num_lookahead_tokens`).
- MRV2's DFlash speculator has no aux-hidden-state staging buffer
  (v1/worker/gpu/spec_decode/dflash/speculator.py: no `_aux_staging`; 0.33 added it).
"""

from __future__ import annotations

from dataclasses import replace

from graphfit.planner.core.enums import SpecMethod
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.vllm.releases.v0_33 import RELEASE as BASE


def new_drafting_slots(config: EngineSettings) -> int:
    """0.32's `max_num_new_slots_for_drafting` (config/speculative.py:1907-1926)."""
    method, k = config.spec_method, config.num_speculative_tokens
    if method is SpecMethod.DFLASH:
        return k  # one bonus query then k mask queries
    if method is SpecMethod.DSPARK:
        return k - 1  # parallel drafting: the existing query is reused
    if method is SpecMethod.DRAFT_MODEL:
        return 1  # the autoregressive draft input keeps one unsliced token
    return 0


RELEASE = replace(
    BASE,
    release="0.32.0",
    previous=BASE.release,
    flag_table="vllm-0.32.0.json",
    reserved_slots=new_drafting_slots,
    dflash_aux_staging=False,
)
