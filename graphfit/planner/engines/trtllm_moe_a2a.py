"""TensorRT-LLM's one-sided MoE all-to-all workspace, sized as the engine sizes it (issue 23, s51t).

With expert parallelism over NVLink (the one-sided method), each process allocates one
all-to-all workspace (the first `MoeAlltoAll` allocates it as MNNVL fabric memory, later ones
assert the same size: tensorrt_llm/_torch/distributed/moe_alltoall.py@97317b1d7b:180-198). It
is not memory of PyTorch's caching allocator, nor a CUDA graph's input buffer, so graphfit
shows it in the plan's engine inputs without counting it in any capacity, as it shows SGLang's
DCP all-to-all workspace (graphfit.planner.engines.sglang_dcp.shown).

Its bytes per rank are the auxiliary part, then the payload regions
(`calculate_required_workspace_size`,
tensorrt_llm/_torch/distributed/moe_alltoall.py@97317b1d7b:54-88):

- auxiliary part (`calculateOffsets`,
  cpp/tensorrt_llm/thop/moeAlltoAllOp.cpp@af87f05030:45-103):
  flag value and local token counter (4 bytes each), send and receive counters (4 x ep_size
  each); then, each starting on a 128-byte boundary: dispatch completion flags and combine
  completion flags (4 x ep_size each), top-k target ranks and top-k send indices
  (max_num_tokens x kMaxTopK x 4 each, kMaxTopK = 22:
  cpp/tensorrt_llm/kernels/communicationKernels/moeAlltoAllKernels.h@97317b1d7b:29), the EPLB
  gathered statistics (ep_size x EPLB experts x 4, none without EPLB); the payload starts on
  the next 128-byte boundary, and that offset is the auxiliary size;
- then ep_size x max_num_tokens rows of hidden x itemsize (dispatch), top_k x 4 (expert ids),
  top_k x 4 (scales), any extra payload bytes, hidden x itemsize (combine), the running total
  padded to 128 bytes after each;
- `TRTLLM_MOE_A2A_WORKSPACE_MB` replaces the whole size with MiB x 2**20
  (tensorrt_llm/_torch/distributed/moe_alltoall.py@97317b1d7b:143-151).

The model's hidden size, top-k and dtype come from its checkpoint, which graphfit's TensorRT-LLM
path does not read for a decoder, so the plan gives the exact auxiliary bytes (they depend only
on ep_size and max_num_tokens) and the payload bytes per (hidden x itemsize, top_k).
"""

from __future__ import annotations

from dataclasses import dataclass

from graphfit.planner.core.errors import ConfigError

CACHELINE = 128  # CACHELINE_ALIGNMENT, alignOffset (the op file's lines 36-43, module doc)
MAX_TOP_K = 22  # kMaxTopK (the kernels header's line 29, module doc)
INT32 = 4
MIB = 1024 * 1024


def _align(offset: int) -> int:
    """Round up to the next cache line, as `alignOffset` and `pad_up(..., 128)` do."""
    return -(-offset // CACHELINE) * CACHELINE


def _positive(name: str, value: int, minimum: int = 1) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigError(f"moe all-to-all {name}: expected an integer >= {minimum}, "
                          f"got {value!r}")


@dataclass(frozen=True)
class A2aWorkspace:
    """One process's one-sided all-to-all workspace: why each part is there is the module doc.

    `eplb_experts` is None without EPLB (the engine passes None, which the op reads as 0);
    `env_mb` is `TRTLLM_MOE_A2A_WORKSPACE_MB` when set.
    """

    ep_size: int
    max_num_tokens: int
    eplb_experts: int | None = None
    env_mb: int | None = None

    def __post_init__(self) -> None:
        _positive("ep_size", self.ep_size)
        _positive("max_num_tokens", self.max_num_tokens)
        if self.eplb_experts is not None:
            _positive("eplb_experts", self.eplb_experts)
        if self.env_mb is not None:
            _positive("TRTLLM_MOE_A2A_WORKSPACE_MB", self.env_mb)

    @property
    def aux_bytes(self) -> int:
        """Where the payload starts: the counters, flags, top-k routing and EPLB statistics."""
        ep, eplb = self.ep_size, self.eplb_experts or 0
        offset = INT32 + INT32 + 2 * ep * INT32  # flag, token counter, send/recv counters
        for size in (ep * INT32, ep * INT32,  # dispatch / combine completion flags
                     self.max_num_tokens * MAX_TOP_K * INT32,  # top-k target ranks
                     self.max_num_tokens * MAX_TOP_K * INT32,  # top-k send indices
                     ep * eplb * INT32):  # EPLB gathered statistics
            offset = _align(offset) + size
        return _align(offset)

    def payload_bytes(self, hidden_bytes: int, top_k: int, extra_bytes: int = 0) -> int:
        """The regions after the auxiliary part, for a token of `hidden_bytes` (hidden x
        itemsize) and `top_k` experts; each region ends on a cache line."""
        _positive("hidden bytes", hidden_bytes)
        _positive("top_k", top_k)
        _positive("extra payload bytes", extra_bytes, 0)
        rows = self.ep_size * self.max_num_tokens
        total = self.aux_bytes
        for per_token in (hidden_bytes, top_k * INT32, top_k * INT32, extra_bytes,
                          hidden_bytes):
            total = _align(total + rows * per_token)
        return total - self.aux_bytes

    def size_per_rank(self, hidden_bytes: int, top_k: int, extra_bytes: int = 0) -> int:
        """Bytes the process allocates: the environment's MiB when set, else aux + payload."""
        if self.env_mb is not None:
            return self.env_mb * MIB
        return self.aux_bytes + self.payload_bytes(hidden_bytes, top_k, extra_bytes)

    def describe(self) -> str:
        """The plan's line: exact auxiliary bytes, the payload as a formula of the model's
        sizes (not read), and that no capacity counts it."""
        rows = self.ep_size * self.max_num_tokens
        return (f"one-sided (NVLink) method only: {self.aux_bytes} bytes "
                f"({self.aux_bytes / MIB:.1f} MiB) aux + {rows} rows "
                f"(ep_size x max_num_tokens) x (2 x hidden x itemsize + 8 x top_k), each "
                f"region 128-byte aligned, once per process (MNNVL memory, not counted); "
                f"TRTLLM_MOE_A2A_WORKSPACE_MB replaces it")


__all__ = ["A2aWorkspace", "CACHELINE", "MAX_TOP_K"]
