"""The classes that build SGLang 0.5.23's Qwen MoE blocks on config.json's top-level
`num_experts` and so meet the blocks' own checks (issue 23, s70c), beside the two Qwen
classes of `sglang_qwen_moe_experts.BLOCKS`:

* Qwen3-Next (`Qwen3NextForCausalLM`): every decoder layer, linear- and full-attention
  alike, builds `Qwen2MoeSparseMoeBlock` (models/qwen3_next.py:543-549, :701-706), which
  compares the full TP size with `num_experts` (qwen2_moe.py:273-277) and then sizes its
  `FusedMoE` with `num_experts` + redundant experts (+ a fused shared expert, which is a
  global slot: its shared-expert fusion is dropped under per-rank-slot backends at EP above 1,
  qwen2_moe.py:290-302), so the routed experts split over EP as Qwen2-MoE's
  (layers/moe/fused_moe_triton/layer.py:414).

Why a module of its own: the Qwen rule module is shared with another lane; it reads this
table where it reads its own. Not here: Qwen3-VL-MoE and Qwen3.5 (their MoE fields live in
a nested text config), Qwen4-Exp and Mellum (per-layer MLP types), left for later.
"""

from __future__ import annotations

# architecture -> (whether its block reads the MoE-TP size, not the TP size; its site), the
# shape of sglang_qwen_moe_experts.BLOCKS
REUSERS: dict[str, tuple[bool, str]] = {
    "Qwen3NextForCausalLM": (False, "models/qwen2_moe.py:273-277"),
}

__all__ = ["REUSERS"]
