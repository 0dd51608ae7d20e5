"""Oracle helpers for pplx's dispatch assert at decode-graph capture (issue 23, s66k;
graphfit.planner.engines.sglang_pplx_capture): SGLang's own `_PplxDispatcherImpl.dispatch_a`
(layers/moe/token_dispatcher/pplx.py:282-295) run on a batch of rows, and SGLang's answer for a
pasted line: its argument pipeline and decode runners (tests.oracle.sglang_moe_a2a_compare),
then that assert on every batch the target runner captures, rows = batch x the runner's
tokens per request (one attention rank per DP group: nothing gathered or scattered)."""

from __future__ import annotations

import functools
import json
import tempfile
import types
from pathlib import Path

from tests.oracle import sglang_stubs
from tests.oracle.paths import require

PPLX_ENV = "SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK"
DEFAULT = 128  # environ.py:1453


def dispatch_asserts(rows: int, budget: int) -> bool:
    """Whether SGLang's pplx dispatch asserts on `rows` under `budget`: True on its
    AssertionError, False once the code went past the assert (the glue has no parallel state
    or AllToAll behind it, so it stops there with another error)."""
    import torch

    sglang_stubs.install(require("sglang"))
    with sglang_stubs.fake_cuda():
        from sglang.srt.layers.moe.token_dispatcher import pplx

        impl = types.SimpleNamespace(_get_all_to_all=lambda: None,
                                     num_max_dispatch_tokens_per_rank=budget)
        topk = types.SimpleNamespace(topk_weights=None, topk_ids=None)
        try:
            pplx._PplxDispatcherImpl.dispatch_a(impl, torch.empty(rows, 8, device="meta"), topk)
        except AssertionError as exc:
            if "exceeds num_max_dispatch_tokens_per_rank" not in str(exc):
                raise
            return True
        except Exception:  # past the assert: the glue ends there
            return False
    return False


def budget_of(line: tuple[str, ...]) -> int:
    """The line's pplx budget (SGLang's default when the line sets none or a value EnvInt
    cannot parse, as the moe_a2a oracle's `not-a-number` line shows SGLang keeping it)."""
    for word in line:
        if word.startswith(f"{PPLX_ENV}="):
            try:
                return int(word.split("=", 1)[1])
            except ValueError:
                return DEFAULT
    return DEFAULT


def sglang(line: tuple[str, ...]) -> tuple[str | None, int | None]:
    """(SGLang's refusal at start-up or runner build, the largest captured target batch whose
    dispatch asserts) for one pplx line; the second is None where every batch passes."""
    from tests.oracle import sglang_moe_a2a_compare as mc

    answer = mc.sglang(line)
    if answer.rejected is not None or answer.runners is None:
        return answer.rejected, None
    target = answer.runners.get("target")
    if target is None:
        return None, None
    budget = budget_of(line)
    over = [bs for bs in target.capture_bs if dispatch_asserts(bs * target.width, budget)]
    return None, (max(over) if over else None)


# the draft runners captured inside the draft's a2a context, as tests.oracle.sglang_oracle.
# runners names them: the EAGLE worker's in capture order (eagle_worker_v2.py:476-600), and
# FROZEN_KV_MTP's draft loop (frozen_kv_mtp_worker_v2.py:222-230; s68m)
DRAFT_RUNNERS = ("draft", "draft_extend", "frozen_drafter")


def draft_backend(line: tuple[str, ...]) -> str:
    """The draft's all-to-all backend by SGLang's own default (layers/moe/utils.py:463-468,
    498-502) from the resolved arguments."""
    from tests.oracle import sglang_moe_a2a_compare as mc
    from tests.oracle import sglang_oracle as so

    resolved = mc.sglang(line).resolved
    assert isinstance(resolved, so.Resolved)
    record = resolved.record
    with sglang_stubs.imports():
        from sglang.srt.layers.moe import utils as moe_utils

        given = record.speculative_moe_a2a_backend
        if given is not None:
            return str(moe_utils.MoeA2ABackend(given).value)
        target = moe_utils.MoeA2ABackend(record.moe_a2a_backend)
        return str(moe_utils._default_speculative_a2a_backend(target).value)


def sglang_draft(line: tuple[str, ...]) -> tuple[str, int] | None:
    """(the first draft runner whose captured batch's dispatch asserts, its largest such
    batch) for a line SGLang starts whose MoE draft (this oracle's Qwen3-MoE MTP draft) uses
    pplx: the draft's capture runs inside `speculative_moe_a2a_backend_context`
    (eagle_worker_v2.py:286-296); None where none asserts (issue 23 s67m)."""
    from tests.oracle import sglang_moe_a2a_compare as mc

    answer = mc.sglang(line)
    if answer.rejected is not None or answer.runners is None or draft_backend(line) != "pplx":
        return None
    budget = budget_of(line)
    for name in DRAFT_RUNNERS:
        runner = answer.runners.get(name)
        if runner is None:
            continue
        over = [bs for bs in runner.capture_bs if dispatch_asserts(bs * runner.width, budget)]
        if over:
            return name, max(over)
    return None


@functools.cache
def unified_draft(moe: bool) -> str:
    """A Gemma 4 unified assistant draft (HF's config class accepts its MoE block, the plain
    assistant's refuses it: configuration_gemma4_assistant.py:88-89), its text config with or
    without `enable_moe_block` (issue 23 s68m)."""
    from tests.oracle.test_sglang_frozen_draft_oracle import TEXT

    text = {**TEXT, **({"enable_moe_block": True, "num_experts": 8, "top_k_experts": 2,
                        "moe_intermediate_size": 64} if moe else {})}
    draft = Path(tempfile.mkdtemp(prefix="graphfit-unified-")) / "draft"
    draft.mkdir()
    (draft / "config.json").write_text(json.dumps(
        {"architectures": ["Gemma4UnifiedAssistantForCausalLM"],
         "model_type": "gemma4_unified_assistant", "torch_dtype": "bfloat16",
         "text_config": text, "backbone_hidden_size": 2048}))
    return str(draft)


def gemma4_draft_is_moe(line: tuple[str, ...]) -> bool:
    """Whether SGLang's own Gemma 4 decoder builds the line's Gemma 4 assistant draft with
    MoE blocks: `Gemma4DecoderLayer._enable_moe_block` (models/gemma4_causal.py:684-685) on
    the text config SGLang's `get_config` reads from the draft path (issue 23 s68m)."""
    from tests.oracle import sglang_moe_a2a_compare as mc
    from tests.oracle import sglang_oracle as so

    resolved = mc.sglang(line).resolved
    assert isinstance(resolved, so.Resolved)
    with sglang_stubs.imports():
        from sglang.srt.models.gemma4_causal import Gemma4DecoderLayer

        config = so._draft_hf_config(resolved)
        return bool(Gemma4DecoderLayer._enable_moe_block(config.text_config))
