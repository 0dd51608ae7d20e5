"""Inkling's short-conv state, as SGLang 0.5.23 prices it (configs/inkling.py:217-256).

Inkling is not a Mamba-2 state: `InklingModelConfig.mamba2_cache_params` lists six conv
states a layer -- two (K - 1, full-attention KV width), two (K - 1, sliding-window KV
width), two (K - 1, stream width) -- and an empty temporal (SSM) state, all bfloat16
whatever SGLANG_MAMBA_CONV_DTYPE / --mamba-ssm-dtype say (:253), over every layer
(`conv_layer_ids`, :198-200). A KV width is max(1, kv_heads // attention-TP) x head_dim
(:225-231: a head count below the TP width is replicated, not split); the stream width is
hidden_size, or hidden_size / attention-TP under --enable-scattered-sconv (:234-240, which
asserts the division). `BaseLinearStateParams.mamba_cache_per_req` (mamba_utils.py:115-125)
sums them, so the memory solve (graphfit.planner.engines.sglang_mamba_memory) takes these
bytes in place of `MambaStateShape.bytes_per_request`.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphfit.planner.core.errors import ConfigError

INKLING_ARCHS = frozenset({"InklingForConditionalGeneration",
                           "InklingForConditionalGenerationMTP"})
# SglangOptions.inkling_conv_state's fields, in order
INKLING_FIELDS = ("layers", "conv_kernel", "kv_heads", "head_dim", "swa_kv_heads",
                  "swa_head_dim", "hidden_size")
BF16_BYTES = 2  # InklingStateDType(conv=bfloat16, temporal=bfloat16) (inkling.py:253)
# the Inkling override's --mamba-full-memory-ratio when none is given
# (arg_groups/model_overrides/inkling.py:43-44)
INKLING_FULL_MEMORY_RATIO = 0.1


@dataclass(frozen=True)
class InklingConvState:
    """The text config's values the conv states read (module docstring)."""

    layers: int
    conv_kernel: int
    kv_heads: int
    head_dim: int
    swa_kv_heads: int
    swa_head_dim: int
    hidden_size: int

    def __post_init__(self) -> None:
        for name in INKLING_FIELDS:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"inkling_conv_state: {name} must be a positive integer, "
                                  f"got {value!r}")
        if self.conv_kernel < 2:
            raise ConfigError(f"inkling_conv_state: conv_kernel must be >= 2, got "
                              f"{self.conv_kernel}")

    @classmethod
    def of(cls, values: tuple[int, ...]) -> InklingConvState:
        """From SglangOptions.inkling_conv_state (INKLING_FIELDS' order)."""
        if len(values) != len(INKLING_FIELDS):
            raise ConfigError(f"inkling_conv_state: expected {len(INKLING_FIELDS)} integers "
                              f"({', '.join(INKLING_FIELDS)}), got {len(values)}")
        return cls(*values)

    def conv_widths(self, tp: int, scattered: bool) -> tuple[int, ...]:
        """The six conv states' widths on one rank of attention-TP width `tp`
        (inkling.py:225-250)."""
        full = max(1, self.kv_heads // tp) * self.head_dim
        local = max(1, self.swa_kv_heads // tp) * self.swa_head_dim
        stream = self.hidden_size
        if scattered:
            if self.hidden_size % tp:
                raise ConfigError(f"--enable-scattered-sconv: hidden_size {self.hidden_size} "
                                  f"not divisible by attn tp {tp} (SGLang configs/inkling.py:"
                                  f"237-239 asserts it)")
            stream = self.hidden_size // tp
        return (full, full, local, local, stream, stream)

    def bytes_per_request(self, tp: int, scattered: bool = False) -> int:
        """`mamba_cache_per_req` (mamba_utils.py:115-125): (K - 1) x the widths, bfloat16,
        every layer; the temporal state (0, 0, 0) adds nothing."""
        if isinstance(tp, bool) or not isinstance(tp, int) or tp < 1:
            raise ConfigError(f"tp: must be a positive integer, got {tp!r}")
        return self.bytes_per_layer(tp, scattered) * self.layers

    def bytes_per_layer(self, tp: int, scattered: bool = False) -> int:
        """One layer's six conv states for one slot: (K - 1) x the widths, bfloat16 -- what a
        one-layer pool (an MTP draft head's, graphfit.planner.engines.sglang_mamba_mtp_draft)
        holds a slot."""
        if isinstance(tp, bool) or not isinstance(tp, int) or tp < 1:
            raise ConfigError(f"tp: must be a positive integer, got {tp!r}")
        return (self.conv_kernel - 1) * sum(self.conv_widths(tp, scattered)) * BF16_BYTES


__all__ = ["INKLING_ARCHS", "INKLING_FIELDS", "INKLING_FULL_MEMORY_RATIO", "InklingConvState"]
