"""Kimi-K3 MegaMoE lines with chunked prefill off, whole, against SGLang 0.5.23 (issue 23,
s70l; graphfit.planner.engines.sglang_kimi_megamoe).

SGLang starts every such line (Kimi-K3 is not in MEGA_MOE_NO_FALLBACK_ARCHS,
arg_groups/mega_moe_hook.py:52-75); what can fail is the MoE block's assert that a call's rows
are at most SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK (models/kimi_k3.py:816-824),
on a decode graph's capture or on a prefill batch. SGLang's side of a line:

* `so.resolve` and `so.runners` (its pipeline, its decode runners' capture list, sized by the
  line's own model);
* the rows of the largest prefill batch its own `PrefillAdder` admits on the resolved line
  (tests.oracle.sglang_unchunked_prefill) from the two queues that reach the bound: one prompt
  of `max_req_len` tokens (context_len - 1 from its own ModelConfig, tp_worker.py:567-572, the
  KV pool taken as large enough), and prompts of one page each (the page-ceiled lengths are
  what the input budget is charged, schedule_policy.py:922-938);
* whether its own `KimiK3MoE._forward_mega_experts` takes the larger of those and the largest
  decode capture under the line's budget (run on CPU up to DeepGEMM's buffer, which is
  stubbed, as tests/oracle/test_sglang_kimi_megamoe_oracle.py runs it).

The verdict: "agree" where graphfit plans a line SGLang never asserts on (ladder and buffers
compared too) or refuses one as SGLang does; "other" where graphfit calls it not modelled;
"differ" otherwise (a planned line that asserts, or a refusal of a line that does not).
"""

from __future__ import annotations

import random
import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from types import SimpleNamespace
from typing import Any
from unittest import mock

from tests.oracle import sglang_compare as sc
from tests.oracle import sglang_dcp_oracle as dcp
from tests.oracle import sglang_moe_a2a_compare as mc
from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_stubs
from tests.oracle.environ_patch import sglang_environ
from tests.oracle.sglang_unchunked_prefill import admitted

ENV = "SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK"


class _AtBuffer(Exception):
    """SGLang's call got past its assert to the DeepGEMM buffer."""


def _stop(*_: Any, **__: Any) -> None:
    raise _AtBuffer


@contextmanager
def _deep_gemm() -> Iterator[None]:
    with mock.patch.dict(sys.modules, {"deep_gemm": sys.modules.get("deep_gemm")
                                       or types.ModuleType("deep_gemm")}):
        yield


def mega_passes(rows: int, budget: int) -> bool:
    """Whether SGLang's `KimiK3MoE._forward_mega_experts` takes `rows` rows under `budget`."""
    import torch

    with sglang_stubs.imports():
        from sglang.srt.layers.moe import mega_moe
        from sglang.srt.models import kimi_k3
        from sglang.srt.runtime_context import get_parallel
    block = SimpleNamespace(experts=SimpleNamespace(num_experts=8), _mega_top_k=2,
                            moe_hidden_size=4, _mega_intermediate_size=4)
    with _deep_gemm(), mock.patch.object(mega_moe, "_get_mega_moe_symm_buffer", _stop), \
            mock.patch.object(mega_moe, "_mega_moe_mma_type", lambda experts: None), \
            mock.patch.dict("os.environ", {ENV: str(budget)}), \
            get_parallel().override(moe_ep_group=SimpleNamespace(device_group=None)):
        try:
            kimi_k3.KimiK3MoE._forward_mega_experts(block, torch.empty(rows, 4), None)
        except AssertionError:
            return False
        except _AtBuffer:
            return True
    raise AssertionError("SGLang's call neither asserted nor reached the buffer")


def prefill_rows(r: so.Resolved) -> int:
    """The most rows SGLang's PrefillAdder admits into one batch on `r` (module docstring)."""
    with sglang_stubs.imports():
        from sglang.srt.arg_groups.model_override_base import model_config_of
        from sglang.srt.runtime_context import get_schedule
    with so.published(r):
        context_len = model_config_of(r.record).context_len
        max_prefill, page = get_schedule().max_prefill_tokens, get_schedule().page_size
    return max(sum(admitted(r, [context_len - 1])),
               sum(admitted(r, [page] * (max_prefill // page + 1))))


def draw(rng: random.Random) -> tuple[str, ...]:
    """A Kimi-K3 megamoe line with chunked prefill off."""
    budget = rng.choice((2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144))
    argv = [f"{ENV}={budget}", "--model-path", dcp.model_path(dcp.KIMI),
            "--gpu-memory-gb", rng.choice(("H100", "H200", "B200")),
            "--tp-size", "8", "--ep-size", "8", "--moe-a2a-backend", "megamoe",
            "--chunked-prefill-size", rng.choice(("-1", "0"))]
    if rng.random() < 0.7:
        argv += ["--context-length", str(rng.choice((2048, 4096, 8192, 32768, 65536)))]
    if rng.random() < 0.6:
        argv += ["--max-prefill-tokens", str(rng.choice((1024, 4096, 8192, 40000)))]
    if rng.random() < 0.3:
        argv += ["--dp-size", str(rng.choice((2, 4))), "--enable-dp-attention"]
    if rng.random() < 0.2:
        argv += ["--cuda-graph-max-bs", str(rng.choice((64, 512)))]
    return tuple(argv)


def verdict(argv: tuple[str, ...]) -> tuple[str, str]:
    """("agree" | "differ" | "other", what each side said) for one line (module docstring)."""
    env, gpu, model, flags = mc.parts(argv)
    gib, capability = mc._device(gpu)
    budget = int(env[ENV])
    with sglang_environ(env):
        resolved = so.resolve(flags, gpu_mem_gb=gib, model=model, capability=capability)
        if isinstance(resolved, so.Rejected):
            sg = sc.SglangAnswer(resolved, None)
            asserts = None
        else:
            sg = sc.SglangAnswer(resolved, so.runners(resolved))
            assert sg.runners is not None
            decode = max(sg.runners["target"].capture_bs, default=0)
            rows = max(decode, prefill_rows(resolved))
            asserts = not mega_passes(rows, budget)
    gf = mc.graphfit_cli(argv)
    said = (f"{' '.join(argv[3:])[-150:]} (budget {budget}): SGLang "
            f"{sg.rejected and sg.rejected[:80]}"
            f"{'' if asserts is None else ' (MoE asserts)' if asserts else ' (no assert)'}; "
            f"graphfit {gf.rejected and gf.rejected[:90]}")
    if gf.rejected is not None and "not modelled" in gf.rejected and sg.rejected is None:
        return "other", said
    if sg.rejected is not None or gf.rejected is not None:
        both = (sg.rejected is None) == (gf.rejected is None)
        return ("agree" if both else "differ"), said
    if asserts:
        return "differ", said  # graphfit plans a line whose MoE asserts
    diffs = sc.compare_target_ladder(sg, gf) + sc.compare_buffers(sg, gf)
    return ("agree" if not diffs else "differ"), said + "".join(f"; {d.detail[:120]}"
                                                                for d in diffs)


__all__ = ["ENV", "draw", "mega_passes", "prefill_rows", "verdict"]
