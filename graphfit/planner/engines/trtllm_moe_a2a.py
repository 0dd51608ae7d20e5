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

`MnnvlMemory` rounds the size up to the driver's recommended allocation granularity before it
creates the memory (tensorrt_llm/_mnnvl_utils.py@021fb1ee74:196-213, a later copy than the
pinned MoeAlltoAll's); the granularity is queried at run time, so the plan gives the size asked
for and says it is rounded.

The model's hidden size, top-k and dtype come from its checkpoint: with a local config.json
(`moe_a2a_token`, read by graphfit.inputs.trtllm_a2a) the plan gives the exact bytes per
process; without one, the exact auxiliary bytes (they depend only on ep_size and
max_num_tokens) and the payload as a formula of (hidden x itemsize, top_k). The environment's
`TRTLLM_MOE_A2A_WORKSPACE_MB` (`moe_a2a_workspace_mb`) is shown as the engine reads it: a
non-empty value goes through int(), so a value int() refuses makes the one-sided method's
constructor raise, and the plan says so instead of giving a size (`shown`).

`TRTLLM_FORCE_ALLTOALL_METHOD` (`moe_a2a_force_method`, issue 23, s60t) is read by
`select_alltoall_method_type` after its three NotEnabled tests (no attention DP, MoE TP, no
MNNVL) and before it picks NVLinkOneSided
(tensorrt_llm/_torch/modules/fused_moe/fused_moe_cutlass.py@97317b1d7b:254-263): a set value
(`is not None`, so an empty one too) is looked up by member name, `AlltoallMethodType[value]`
(`METHODS`, the five names the pinned file itself uses; a stored interface.py copy, whose
commit the index does not give, defines exactly these five). An unknown name raises KeyError,
DeepEP and DeepEPLowLatency raise NotImplementedError (:256-262), and any other member is the
method: NotEnabled builds no all-to-all (`enable_alltoall` is false), NVLinkTwoSided the
two-sided `MnnvlMoe` workspaces (:154-159, not sized here), NVLinkOneSided this workspace
(`forced`).

That selection is CutlassFusedMoE's own, made only when it is built with its communication
(`without_comm` false: :142-143, "ConfigurableMoE will handle it" otherwise). `create_moe`
wraps a CUTLASS backend in `ConfigurableMoE` unless `ENABLE_CONFIGURABLE_MOE` is set to
something other than "1" (`os.environ.get("ENABLE_CONFIGURABLE_MOE", "1") == "1"`,
tensorrt_llm/_torch/modules/fused_moe/create_moe.py@01f8de52fe:385-390, a stored copy later
than the pinned CutlassFusedMoE), and ConfigurableMoE picks the communication itself (its
CommunicationFactory, which reads TRTLLM_FORCE_COMM_METHOD instead: `forced_comm`). So
TRTLLM_FORCE_ALLTOALL_METHOD is applied only on the legacy route (`legacy`,
`moe_configurable`); on the default route the line says the variable is not read there.

`moe_config` (s60t). Its backend picks the MoE class (`get_moe_cls`,
tensorrt_llm/_torch/modules/fused_moe/create_moe.py@01f8de52fe:25-85); `create_moe` puts
the DEEPGEMM, TRTLLM, CUTEDSL, CUTLASS and DENSEGEMM classes in ConfigurableMoE
(tensorrt_llm/_torch/modules/fused_moe/create_moe.py@01f8de52fe:385-390; TRTLLM, CUTEDSL and
DENSEGEMM may first fall back to CutlassFusedMoE, which is wrapped too). ConfigurableMoE's
CommunicationFactory (`create_strategy`, a stored 2026 copy:
tensorrt_llm/_torch/modules/fused_moe/communication/communication_factory.py@03c36d6222:81-192)
builds no all-to-all without attention DP or at dp_size 1 (:137-138), allgather /
reduce-scatter under MoE TP (:142-143), the TRTLLM_FORCE_COMM_METHOD method when that is set
(:146-165; `forced_comm`), and else tries NVLinkOneSided first (:170-192) with the model's
max_num_tokens (:131), its torch_dtype (:129) and the EPLB count when a load balancer is
configured (:171). So for these backends the line is the same as for CUTLASS; another backend
(VANILLA, TRITON, WIDEEP, ...) or, without ConfigurableMoE, a backend other than CUTLASS is
"not modelled" in the line. `load_balancer` given adds the EPLB statistics, ep_size x
num_experts x 4 bytes, to the auxiliary part (CutlassFusedMoE passes num_experts when its
layer has a load balancer,
tensorrt_llm/_torch/modules/fused_moe/fused_moe_cutlass.py@97317b1d7b:173-183; the factory
when one is configured). num_experts is what the model class passes to `create_moe` (s61t):
config.json's num_local_experts for MixtralForCausalLM
(tensorrt_llm/_torch/models/modeling_mixtral.py@b35ac1b643:35), num_experts for
Qwen3MoeForCausalLM (tensorrt_llm/_torch/models/modeling_qwen3_moe.py@a678b91aaf:93),
n_routed_experts for DeepseekV3ForCausalLM (s62t,
tensorrt_llm/_torch/models/modeling_deepseekv3.py@000561df0b:619), num_experts for
Qwen2MoeForCausalLM (s62t, tensorrt_llm/_torch/models/modeling_qwen_moe.py@6a5351c32c:39),
each
passed on as `num_experts` (tensorrt_llm/_torch/models/modeling_mixtral.py@b35ac1b643:48-57,
tensorrt_llm/_torch/models/modeling_qwen3_moe.py@a678b91aaf:110-120,
tensorrt_llm/_torch/models/modeling_deepseekv3.py@000561df0b:658-669 then :451-468,
tensorrt_llm/_torch/models/modeling_qwen_moe.py@6a5351c32c:52-61); for
those the line
gives exact bytes with the statistics (`eplb_experts`), for other architectures the addition
stays a formula.

`moe_config.backend` AUTO (issue 23, s64t). `ModelConfig.from_pretrained` takes the requested
backend with a default of AUTO, the checkpoint's first architecture and its quant config, and
sets the model's moe_backend to `resolve_moe_backend` of them
(tensorrt_llm/_torch/model_config.py@008e0af898:1250-1315). That resolution
(:448-486) keeps any other name, and gives AUTO: TRTLLM for the Kimi-K3 architectures
(:65-68); TRTLLM for DeepSeek-V4 (:62) on SM 100-119; for a W4A16_NVFP4 quant config
CUTEDSL on SM 120-121 and MARLIN on SM 90-99; for GptOssForCausalLM TRTLLM on SM 100-119,
TRITON on SM 90-99 and CUTLASS elsewhere; TRTLLM for FP8_BLOCK_SCALES where `is_sm_100f()`;
else CUTLASS (`auto_resolve`). graphfit reads the checkpoint (graphfit.inputs.trtllm_a2a.
auto_checkpoint) but not the GPU, so it takes every backend AUTO may resolve to
(`auto_backends`): where each is one whose workspace is restated here (the wrapped backends
on the default route, CUTLASS only on the legacy one), the line is that workspace and names
them; else it says what AUTO resolves to and gives no bytes. An unset backend is TensorRT-LLM's
AUTO too; without a local checkpoint the line still assumes CUTLASS for it, and keeps an
explicit AUTO not modelled.

The GPU (issue 23, s64g). The resolution reads the SM version as `get_sm_version()` gives it
(the device's compute capability major * 10 + minor, :448-486), and `is_sm_100f()`, which
is true on SM 100 and 103 only (tensorrt_llm/_utils.py, a stored copy whose commit the index
does not give; not counted). A line that names its GPU (TrtllmOptions.sm_version, graphfit.
inputs.trtllm_gpu) resolves AUTO for that SM alone (`auto_backends`), so a GPT-OSS line on an
H100 is TRITON (not sized) and on a B200 TRTLLM (sized on the default route).

The class a backend builds on the legacy route (issue 23, s67t). `create_moe` takes the class
from `get_moe_cls` (tensorrt_llm/_torch/modules/fused_moe/create_moe.py@01f8de52fe:25-85, the
pinned copy's phase 2; the newest stored copies, whose `resolve_moe_impl` asks each class's
`can_implement`, cannot be pinned at one commit: the coverage doc's s67t section). There
TRTLLM builds TRTLLMGenFusedMoE only for a quant config with FP8 block scales, NVFP4,
W4A16 MXFP4 or one of the W4A8 modes, CUTEDSL builds CuteDslFusedMoE only for FP8 block scales
or NVFP4, DENSEGEMM builds DenseGEMMFusedMoE only for NVFP4 on its SM versions, and each
otherwise builds CutlassFusedMoE (:65-79, :36-46, :49-64). `create_moe` then wraps the class
in ConfigurableMoE when ENABLE_CONFIGURABLE_MOE is "1" or the class is CuteDslFusedMoE
(:385-408), and otherwise builds it bare (:428-447), so a bare CutlassFusedMoE selects its own
all-to-all. graphfit follows this where the checkpoint's quantization tells the class
(`legacy_class`): a quant config that sets no algorithm ("none") gives CutlassFusedMoE for the
three backends; FP8_BLOCK_SCALES ("fp8_block") gives TRTLLMGenFusedMoE (bare, selecting and
sizing as CutlassFusedMoE does, but raising on SM 120 and later: graphfit.planner.engines.
trtllm_moe_trtllm_gen, s69h),
CuteDslFusedMoE (wrapped, so ConfigurableMoE's factory selects: TRTLLM_FORCE_COMM_METHOD is
read) or CutlassFusedMoE (DENSEGEMM). Another algorithm ("other", "w4a16_nvfp4", "unknown")
stays not modelled, the line saying why (trtllm_moe_cls.UNREAD, s68k), and so does
DeepSeek-V4, whose routed experts take a per-layer quant config (`override_quant_config`)
graphfit does not read.

A float32 checkpoint (s67t). The workspace is sized with its four-byte tokens (s66t), but
CutlassFusedMoE's kernels do not run float32: `FusedMoeRunner`'s constructor builds a runner
for half / half, bfloat16 / bfloat16 and bfloat16 / fp8 unquantized activation / weight
pairs, and for the quantized modes, and otherwise raises "Could not construct fused moe op
with the requested input combination"
(cpp/tensorrt_llm/thop/moeOp.cpp@fbbc05dd14:123-230, the pairs at :137-153, the raise at
:224-230; an older stored copy had a float / float runner). CutlassFusedMoE allocates the
workspace when it is built
(tensorrt_llm/_torch/modules/fused_moe/fused_moe_cutlass.py@97317b1d7b:160-184), before its
first run, so the line keeps the bytes and says that the
engine then fails (`_float32`). Since s68t the line names the class it builds and what that
class does with float32 tokens, where that was read (graphfit.planner.engines.
trtllm_moe_float32: TRTLLMGenFusedMoE asserts bfloat16), and says "not read" otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.trtllm_moe import MoeSizes
from graphfit.planner.engines.trtllm_moe_cls import (
    CUTE_DSL,
    CUTLASS,
    DENSE_GEMM,
    DENSE_GEMM_SMS,
    FALLBACK_BACKENDS,
    TRTLLM_GEN,
    WIDE_EP_NOTE,
    moe_class,
    unread_reason,
)
from graphfit.planner.engines.trtllm_moe_factory_fallback import clause as factory_clause
from graphfit.planner.engines.trtllm_moe_float32 import FLOAT32_ITEMSIZE
from graphfit.planner.engines.trtllm_moe_float32 import note as float32_note
from graphfit.planner.engines.trtllm_moe_trtllm_gen import BAR as TRTLLM_GEN_BAR
from graphfit.planner.engines.trtllm_moe_trtllm_gen import RAISES as TRTLLM_GEN_RAISES
from graphfit.planner.engines.trtllm_moe_trtllm_gen import note as trtllm_gen_note
from graphfit.planner.engines.trtllm_moe_trtllm_gen import raises as trtllm_gen_raises
from graphfit.planner.engines.trtllm_moe_wide_ep import line as wide_ep_line

CACHELINE = 128  # CACHELINE_ALIGNMENT, alignOffset (the op file's lines 36-43, module doc)
MAX_TOP_K = 22  # kMaxTopK (the kernels header's line 29, module doc)
INT32 = 4
MIB = 1024 * 1024
ENV_FORCE = "TRTLLM_FORCE_ALLTOALL_METHOD"
# the backends create_moe builds inside ConfigurableMoE (module doc)
CONFIGURABLE_BACKENDS = ("DEEPGEMM", "TRTLLM", "CUTEDSL", "CUTLASS", "DENSEGEMM")
ENV_FORCE_COMM = "TRTLLM_FORCE_COMM_METHOD"
# the names CommunicationFactory._create_forced_method knows, upper-cased (`forced_comm`)
COMM_METHODS = ("NVLINK_TWO_SIDED", "NVLINK_ONE_SIDED", "DEEPEP", "DEEPEPLOWLATENCY", "NCCL_EP",
                "ALLGATHER")
# AlltoallMethodType's members, by the names select_alltoall_method_type looks up (module doc)
METHODS = ("NotEnabled", "NVLinkOneSided", "NVLinkTwoSided", "DeepEP", "DeepEPLowLatency")
AUTO = "AUTO"
# resolve_moe_backend's architecture sets and the one it names (module doc)
KIMI_K3 = frozenset({"KimiK3ForConditionalGeneration", "KimiLinearForCausalLM"})
DEEPSEEK_V4 = frozenset({"DeepseekV4ForCausalLM"})
GPT_OSS = "GptOssForCausalLM"
# one SM version of each range its rules tell apart: below 90, 90-99, 100-119, 120-121, later
AUTO_SMS = (80, 90, 100, 120, 130)
# the SM versions where `is_sm_100f()` is true (module doc)
SM_100F = (100, 103)
# the classes `get_moe_cls` builds on the legacy route that graphfit sizes (module doc, s67t)
CUTLASS_CLASS = CUTLASS
CUTE_DSL_CLASS = CUTE_DSL
# DEEPGEMM's class (create_moe.py:47-48, graphfit.planner.engines.trtllm_moe_float32)
DEEP_GEMM = "DeepGemmFusedMoE"


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

    def describe(self, token: tuple[int, int, int] | None = None,
                 unforced: str = "TRTLLM_FORCE_ALLTOALL_METHOD is unset") -> str:
        """The plan's line: exact auxiliary bytes; the payload exact when `token` (the
        checkpoint's hidden_size, top_k, itemsize) is known, else a formula; and that no
        capacity counts it. `unforced` names the variable that would force another method."""
        rows = self.ep_size * self.max_num_tokens
        head = (f"one-sided (NVLink) method, where MNNVL is supported and "
                f"{unforced}: {self.aux_bytes} bytes "
                f"({self.aux_bytes / MIB:.1f} MiB) aux + {rows} rows "
                f"(ep_size x max_num_tokens)")
        tail = ("once per process (MNNVL memory, rounded up to the driver's allocation "
                "granularity at run time, not counted); TRTLLM_MOE_A2A_WORKSPACE_MB replaces it")
        if token is None:
            return (f"{head} x (2 x hidden x itemsize + 8 x top_k), each region 128-byte "
                    f"aligned, {tail}")
        hidden, top_k, itemsize = token
        payload = self.payload_bytes(hidden * itemsize, top_k)
        total = self.aux_bytes + payload
        return (f"{head} x (2 x {hidden} x {itemsize} + 8 x {top_k}) = {payload} bytes "
                f"payload, {total} bytes ({total / MIB:.1f} MiB) in all (hidden_size, "
                f"top_k, itemsize from the checkpoint), {tail}")


def one_sided(config: EngineSettings, sizes: MoeSizes) -> bool:
    """Whether the MoE module builds the one-sided method on this line: CutlassFusedMoE's
    `select_alltoall_method_type` gives NotEnabled when the mapping's dp_size is 1 (dp_size
    is tp_size under attention DP, else 1: tensorrt_llm/mapping.py@b35ac1b643:221-223) or its
    moe_tp_size is not 1, and NVLinkOneSided otherwise, on hardware with MNNVL and unless
    TRTLLM_FORCE_ALLTOALL_METHOD names another method
    (tensorrt_llm/_torch/modules/fused_moe/fused_moe_cutlass.py@97317b1d7b:242-269; the
    line names the two conditions graphfit cannot see)."""
    adp_ranks = config.tensor_parallel_size if config.enable_attention_dp else 1
    return adp_ranks != 1 and sizes.tp == 1


def env_megabytes(raw: str) -> int | None:
    """The MiB a non-empty `TRTLLM_MOE_A2A_WORKSPACE_MB` gives: TensorRT-LLM applies Python's
    int() to it (tensorrt_llm/_torch/distributed/moe_alltoall.py@97317b1d7b:143-146), so
    graphfit does the same; None where int() raises."""
    try:
        return int(raw)
    except ValueError:
        return None


def forced(raw: str) -> str | None:
    """What `TRTLLM_FORCE_ALLTOALL_METHOD=raw` makes the MoE module build where the method is
    selected at all (module doc): None for the one-sided method, else the plan's words for
    the other outcome (no all-to-all, the two-sided workspaces, or the error raised)."""
    given = f"{ENV_FORCE}={raw!r}"
    if raw not in METHODS:  # AlltoallMethodType[raw]: a member-name lookup
        return (f"{given} is not an AlltoallMethodType name ({', '.join(METHODS)}): "
                f"KeyError when the MoE module selects its all-to-all method")
    if raw in ("DeepEP", "DeepEPLowLatency"):
        return (f"{given}: NotImplementedError when the MoE module selects its all-to-all "
                f"method (DeepEP and DeepEPLowLatency are not supported for CutlassFusedMoE)")
    if raw == "NotEnabled":
        return f"{given}: no all-to-all is built, so no workspace"
    if raw == "NVLinkTwoSided":
        return (f"{given}: the two-sided method's MnnvlMoe workspaces instead "
                f"(not sized by graphfit)")
    return None


def forced_comm(raw: str) -> str | None:
    """What `TRTLLM_FORCE_COMM_METHOD=raw` makes ConfigurableMoE's CommunicationFactory build
    where it selects at all (after no attention DP and MoE TP: communication_factory.py
    :137-146, module doc): `_create_forced_method` upper-cases the name (:325), refuses a
    name other than NVLINK_ONE_SIDED and ALLGATHER when num_experts is not a multiple of the
    EP size (:327-334; num_experts is not read), and builds the named strategy (:336-418) or
    raises ValueError for an unknown one (:419-420). None for NVLINK_ONE_SIDED (the
    one-sided workspace), else the plan's words."""
    given = f"{ENV_FORCE_COMM}={raw!r}"
    method = raw.upper()
    if method not in COMM_METHODS:
        return (f"{given}: ValueError (unknown communication method {method!r}) when the MoE "
                f"module builds its communication")
    if method == "NVLINK_ONE_SIDED":
        return None
    if method == "NVLINK_TWO_SIDED":
        return (f"{given}: the two-sided method's workspaces instead (not sized by graphfit; "
                f"ValueError unless num_experts is a multiple of the EP size)")
    unless = "" if method == "ALLGATHER" else (
        "; ValueError unless num_experts is a multiple of the EP size")
    return f"{given}: the {method} strategy, no one-sided workspace{unless}"


def legacy(configurable_raw: str | None) -> bool:
    """Whether `ENABLE_CONFIGURABLE_MOE` (None: unset) leaves a CUTLASS backend to select its
    own all-to-all: set to anything but "1" (module doc)."""
    return configurable_raw is not None and configurable_raw != "1"


def legacy_class(backend: str, checkpoint: tuple[str, str] | None,
                 sm_version: int | None = None) -> str | None:
    """The class `get_moe_cls` builds for `backend` on the legacy route (module doc, s67t;
    the quantized algorithms and the GPU: graphfit.planner.engines.trtllm_moe_cls, s68t):
    CUTLASS_CLASS (bare, its own all-to-all), CUTE_DSL_CLASS (wrapped in ConfigurableMoE even
    there), DENSE_GEMM (bare, no all-to-all) or TRTLLM_GEN (bare, selecting as
    CUTLASS_CLASS does: graphfit.planner.engines.trtllm_moe_trtllm_gen, s69h); None for another
    class or an unread one. `checkpoint` is `moe_auto_checkpoint` (architecture,
    quantization), `sm_version` the named GPU's."""
    if backend == "CUTLASS":
        return CUTLASS_CLASS
    if backend not in FALLBACK_BACKENDS or checkpoint is None or checkpoint[0] in DEEPSEEK_V4:
        return None
    return moe_class(backend, checkpoint[1], sm_version)


def _wrapped_on_legacy(backend: str | None, configurable_raw: str | None,
                       checkpoint: tuple[str, str] | None,
                       sm_version: int | None = None) -> bool:
    """Whether `create_moe` wraps the backend's class in ConfigurableMoE although
    ENABLE_CONFIGURABLE_MOE is not "1" (CuteDslFusedMoE, module doc)."""
    return (legacy(configurable_raw) and backend is not None
            and legacy_class(backend, checkpoint, sm_version) == CUTE_DSL_CLASS)


def _backend_note(backend: str | None, configurable_raw: str | None,
                  checkpoint: tuple[str, str] | None = None,
                  sm_version: int | None = None) -> str | None:
    """Why the line cannot size the workspace of a `moe_config` backend (module doc), or None
    where it can (unset: CUTLASS assumed). On the legacy route the class `get_moe_cls` builds
    for the checkpoint decides (`legacy_class`, s67t): DenseGEMMFusedMoE builds none, and
    TRTLLMGenFusedMoE selects as CutlassFusedMoE does but raises on SM 120 and later, on
    either route (graphfit.planner.engines.trtllm_moe_trtllm_gen, s69h)."""
    if backend is None or backend == "CUTLASS":
        return None
    if backend == "WIDEEP":  # bare on both routes (trtllm_moe_cls, s68t)
        return WIDE_EP_NOTE
    if legacy(configurable_raw):
        cls = legacy_class(backend, checkpoint, sm_version)
        without = (f"moe_config backend {backend} without ConfigurableMoE "
                   f"(ENABLE_CONFIGURABLE_MOE={configurable_raw!r})")
        if cls == TRTLLM_GEN and trtllm_gen_raises(sm_version):  # s69h
            return f"{without}: get_moe_cls builds {TRTLLM_GEN}; {trtllm_gen_note(sm_version)}"
        if cls in (CUTLASS_CLASS, CUTE_DSL_CLASS, TRTLLM_GEN):
            return None
        if cls == DENSE_GEMM:
            return (f"{without} over an NVFP4 checkpoint on SM {sm_version}: get_moe_cls "
                    f"builds {DENSE_GEMM}, built bare, whose all-to-all method is "
                    f"NotEnabled: no one-sided workspace is built")
        if backend == "DENSEGEMM" and checkpoint is not None and checkpoint[1] == "nvfp4" \
                and checkpoint[0] not in DEEPSEEK_V4:
            return (f"{without} over an NVFP4 checkpoint: get_moe_cls builds {DENSE_GEMM} "
                    f"(no all-to-all) on SM {' / '.join(map(str, DENSE_GEMM_SMS))} and "
                    f"{CUTLASS_CLASS} (this workspace) elsewhere; the GPU is not named, so "
                    f"which is not modelled")
        reason = (None if checkpoint is None or checkpoint[0] in DEEPSEEK_V4
                  or backend not in FALLBACK_BACKENDS else unread_reason(checkpoint[1]))
        if reason is not None:  # why the class is not read (trtllm_moe_cls, s68k)
            return (f"{without}: which class get_moe_cls builds is not read ({reason}), "
                    f"so its all-to-all is not modelled")
        return f"{without}: its MoE class's own all-to-all selection is not modelled"
    if _wrapped_raises(backend, checkpoint, sm_version):  # s69h
        return (f"moe_config backend {backend} (ConfigurableMoE): get_moe_cls builds "
                f"{TRTLLM_GEN}; {trtllm_gen_note(sm_version)}")
    if backend in CONFIGURABLE_BACKENDS:
        return None
    return (f"moe_config backend {backend}: which all-to-all its MoE class builds is not "
            f"modelled (the workspace is sized for {', '.join(CONFIGURABLE_BACKENDS)}, "
            f"built inside ConfigurableMoE)")


def _wrapped_raises(backend: str, checkpoint: tuple[str, str] | None,
                    sm_version: int | None) -> bool:
    """Whether the class ConfigurableMoE wraps for `backend` is TRTLLMGenFusedMoE on a named
    GPU where its constructor raises (graphfit.planner.engines.trtllm_moe_trtllm_gen, s69h)."""
    return (backend in FALLBACK_BACKENDS and checkpoint is not None
            and checkpoint[0] not in DEEPSEEK_V4 and trtllm_gen_raises(sm_version)
            and moe_class(backend, checkpoint[1], sm_version) == TRTLLM_GEN)


def _with_eplb(text: str, aux: int) -> str:
    """The line with the EPLB statistics named as an addition to the auxiliary bytes."""
    old = f"{aux} bytes ({aux / MIB:.1f} MiB) aux"
    return text.replace(old, f"{old} + ep_size x num_experts x 4 bytes of EPLB statistics "
                             f"(moe_config.load_balancer; 128-byte aligned, num_experts not "
                             f"read)")


def _eplb_exact(text: str, aux: int, experts: int) -> str:
    """The line with the EPLB statistics, ep_size x `experts` x 4 bytes, counted in the
    auxiliary bytes (s61t)."""
    old = f"{aux} bytes ({aux / MIB:.1f} MiB) aux"
    return text.replace(old, f"{old} (with the EPLB statistics of moe_config.load_balancer "
                             f"for the checkpoint's {experts} experts)")


def _shown(ep_size: int, max_num_tokens: int, token: tuple[int, int, int] | None = None,
           env_raw: str | None = None, force_raw: str | None = None,
           configurable_raw: str | None = None, backend: str | None = None,
           eplb: bool = False, comm_raw: str | None = None,
           eplb_experts: int | None = None,
           checkpoint: tuple[str, str] | None = None, sm_version: int | None = None,
           wide_ep_env: tuple[str | None, str | None] = (None, None),
           dtype: str | None = None) -> str:
    """The plan's `moe_a2a_workspace` line: `A2aWorkspace.describe` with, when the
    checkpoint's (hidden_size, top_k, itemsize) are known, the exact payload and total, and
    the environment's override as the engine reads it. `force_raw`, a set
    TRTLLM_FORCE_ALLTOALL_METHOD, replaces it where it names another outcome (`forced`) on
    the legacy route (`configurable_raw`, ENABLE_CONFIGURABLE_MOE: `legacy`); on the default
    route the line says the variable is not read. `backend` and `eplb` are moe_config's
    (`_backend_note`, `_with_eplb`); `comm_raw`, a set TRTLLM_FORCE_COMM_METHOD, is read on
    the default route only (`forced_comm`). `eplb_experts`, the checkpoint's expert count
    (s61t), makes the EPLB statistics exact bytes of the auxiliary part (`_eplb_exact`).
    `checkpoint` (`moe_auto_checkpoint`, s67t) tells the class the legacy route builds
    (`legacy_class`): a bare one selects its own all-to-all, CuteDslFusedMoE is wrapped.
    `wide_ep_env` (TRTLLM_MOE_DISABLE_ALLTOALLV, TRTLLM_CAN_USE_DEEP_EP as written, s69o)
    finishes a WIDEEP line's selection (trtllm_moe_wide_ep), with the checkpoint's `dtype`
    name (`moe_a2a_dtype`, s70f)."""
    if backend == "WIDEEP":  # its own selection on this line (trtllm_moe_wide_ep, s69h)
        top_k = None if token is None else token[1]
        return (f"where attention DP spans ranks and MoE TP is 1: "
                f"{wide_ep_line(force_raw, ep_size, top_k, *wide_ep_env, dtype)}")
    note = _backend_note(backend, configurable_raw, checkpoint, sm_version)
    if note is not None:
        return f"where attention DP spans ranks and MoE TP is 1: {note}"
    wrapped = _wrapped_on_legacy(backend, configurable_raw, checkpoint, sm_version)
    bare = legacy(configurable_raw) and not wrapped
    if comm_raw is not None and not bare:
        other = forced_comm(comm_raw)
        if other is not None:
            return f"where attention DP spans ranks and MoE TP is 1 (ConfigurableMoE): {other}"
    exact = eplb and eplb_experts is not None
    space = A2aWorkspace(ep_size, max_num_tokens, eplb_experts if exact else None)
    unforced = (f"{ENV_FORCE} is unset" if bare else
                f"{ENV_FORCE_COMM} is unset (ConfigurableMoE)")
    if comm_raw is not None and not bare:
        unforced = f"{ENV_FORCE_COMM}={comm_raw!r} (ConfigurableMoE)"
    text = space.describe(None if eplb and not exact else token, unforced)
    if exact:
        text = _eplb_exact(text, space.aux_bytes, eplb_experts or 0)
    elif eplb:
        text = _with_eplb(text, space.aux_bytes)
    if force_raw is not None and bare:
        other = forced(force_raw)
        if other is not None:
            return f"where MNNVL is supported: {other}"
        text = text.replace(f" and {ENV_FORCE} is unset", f" and {ENV_FORCE}=NVLinkOneSided")
    elif force_raw is not None and wrapped:
        text = (f"{text}; {ENV_FORCE}={force_raw!r} is not read: create_moe wraps "
                f"CuteDslFusedMoE in ConfigurableMoE even with ENABLE_CONFIGURABLE_MOE="
                f"{configurable_raw!r}, which selects the all-to-all itself ({ENV_FORCE_COMM})")
    elif force_raw is not None:
        text = (f"{text}; {ENV_FORCE}={force_raw!r} is not read: ConfigurableMoE (the "
                f"default, ENABLE_CONFIGURABLE_MOE unset or 1) builds the CUTLASS backend "
                f"without its communication and selects the all-to-all itself "
                f"({ENV_FORCE_COMM})")
    if comm_raw is not None and bare:
        text = (f"{text}; {ENV_FORCE_COMM}={comm_raw!r} is not read: without ConfigurableMoE "
                f"the MoE class selects its own all-to-all")
    if env_raw is None:
        return text
    text = text.removesuffix("; TRTLLM_MOE_A2A_WORKSPACE_MB replaces it")
    value = env_megabytes(env_raw)
    given = f"TRTLLM_MOE_A2A_WORKSPACE_MB={env_raw!r}"
    if value is None:
        return (f"{text}; {given} is not an integer: int() raises ValueError when the "
                f"one-sided method is built")
    if value < 1:
        return f"{text}; {given} asks for {value * MIB} bytes: not modelled"
    return (f"{text}; {given} replaces it: {value * MIB} bytes ({float(value):.1f} MiB) "
            f"per process (TensorRT-LLM warns that the computed size is conservatively "
            f"large)")


def auto_resolve(architecture: str, quant_algo: str | None, sm: int, sm_100f: bool) -> str:
    """The backend `resolve_moe_backend` gives AUTO for `architecture`, a quant config whose
    algorithm is `quant_algo` (None: unquantized), on an SM `sm` GPU where `is_sm_100f()`
    is `sm_100f` (module doc)."""
    if architecture in KIMI_K3:
        return "TRTLLM"
    if architecture in DEEPSEEK_V4 and 100 <= sm < 120:
        return "TRTLLM"
    if quant_algo == "W4A16_NVFP4" and sm in (120, 121):
        return "CUTEDSL"
    if quant_algo == "W4A16_NVFP4" and 90 <= sm < 100:
        return "MARLIN"
    if architecture == GPT_OSS:
        return "TRTLLM" if 100 <= sm < 120 else "TRITON" if 90 <= sm < 100 else "CUTLASS"
    if quant_algo == "FP8_BLOCK_SCALES" and sm_100f:
        return "TRTLLM"
    return "CUTLASS"


def auto_backends(architecture: str, quant: str, sm_version: int | None = None
                  ) -> tuple[str, ...]:
    """The backends AUTO may resolve to for a checkpoint (`moe_auto_checkpoint`): on the
    named GPU's SM version (`sm_version`, with `is_sm_100f()` true on SM_100F only, s64g),
    else over the SM versions its rules tell apart and both `is_sm_100f` values on SM 100
    and later; an "unknown" quantization may be either algorithm the rules test (module
    doc)."""
    found = {backend for backend, _ in auto_pairs(architecture, quant, sm_version)}
    return tuple(sorted(found))


# the quantization family of each algorithm AUTO's rules test (graphfit.inputs.trtllm_a2a)
_ALGO_FAMILY = {None: "none", "FP8_BLOCK_SCALES": "fp8_block", "W4A16_NVFP4": "w4a16_nvfp4"}


def auto_pairs(architecture: str, quant: str, sm_version: int | None = None
               ) -> set[tuple[str, str]]:
    """(backend, quantization) pairs AUTO may resolve to, as `auto_backends` draws them: an
    "unknown" quantization is each algorithm the rules test, paired with the backend it
    resolves to, so that the class `get_moe_cls` builds for that backend is read for that
    algorithm (s69h); a known one stays itself."""
    algos = {"fp8_block": ("FP8_BLOCK_SCALES",), "w4a16_nvfp4": ("W4A16_NVFP4",),
             "unknown": (None, "FP8_BLOCK_SCALES", "W4A16_NVFP4")}.get(quant, (None,))
    gpus = ([(sm_version, sm_version in SM_100F)] if sm_version is not None else
            [(sm, sm_100f) for sm in AUTO_SMS
             for sm_100f in ((False, True) if sm >= 100 else (False,))])
    return {(auto_resolve(architecture, algo, sm, sm_100f),
             _ALGO_FAMILY[algo] if quant == "unknown" else quant)
            for algo in algos for sm, sm_100f in gpus}


def _legacy_pair_classes(checkpoint: tuple[str, str], sm_version: int | None
                         ) -> dict[str, set[str | None]]:
    """For each backend AUTO may resolve to, the classes `get_moe_cls` builds for it over the
    algorithms it resolves to that backend for (`auto_pairs`, s69h)."""
    arch = checkpoint[0]
    found: dict[str, set[str | None]] = {}
    for backend, quant in auto_pairs(arch, checkpoint[1], sm_version):
        found.setdefault(backend, set()).add(legacy_class(backend, (arch, quant), sm_version))
    return found


def _bare_sized(cls: str | None, sm_version: int | None) -> bool:
    """Whether a bare class of the legacy route builds the restated workspace: CutlassFusedMoE,
    and TRTLLMGenFusedMoE where its constructor does not raise (s69h)."""
    return cls == CUTLASS_CLASS or (cls == TRTLLM_GEN and not trtllm_gen_raises(sm_version))


def _fallback_classes(fallback: list[str], checkpoint: tuple[str, str],
                      sm_version: int | None) -> str:
    """The clause naming the bare class each non-CUTLASS backend of a sized legacy AUTO line
    builds (s67t; TRTLLMGenFusedMoE: s69h)."""
    pairs = _legacy_pair_classes(checkpoint, sm_version)
    gen = [name for name in fallback if pairs.get(name) == {TRTLLM_GEN}]
    rest = [name for name in fallback if name not in gen]
    parts = [] if not rest else [
        f"{' and '.join(rest)} without ConfigurableMoE: get_moe_cls builds CutlassFusedMoE, "
        f"the quant config setting no mode it serves"]
    if gen:
        parts.append(f"{' and '.join(gen)} without ConfigurableMoE: get_moe_cls builds "
                     f"{TRTLLM_GEN}, which selects and sizes as CutlassFusedMoE does")
    return "; ".join(parts)


def _auto(checkpoint: tuple[str, str], given: bool, configurable_raw: str | None,
          sm_version: int | None = None) -> tuple[bool, str]:
    """(whether every backend AUTO may resolve to is sized here, the clause naming them)."""
    arch, quant = checkpoint
    backends = auto_backends(arch, quant, sm_version)
    what = "moe_config backend AUTO" if given else (
        "moe_config backend not given (TensorRT-LLM resolves AUTO)")
    quantized = ("" if quant == "none" else ", another algorithm's quantization"
                 if quant == "other" else ", a quantization setting none of get_moe_cls's "
                 "modes" if quant == "modeless" else f", {quant.replace('_', ' ')} quantization")
    model = (f"{arch}" if arch else "a checkpoint naming no architecture") + quantized + (
        "" if sm_version is None else f", on SM {sm_version}")
    if legacy(configurable_raw):  # the class get_moe_cls builds (s67t; TRTLLMGen: s69h)
        sized = all(_bare_sized(cls, sm_version)
                    for classes in _legacy_pair_classes(checkpoint, sm_version).values()
                    for cls in classes)
    else:
        sized = all(_backend_note(backend, configurable_raw, checkpoint, sm_version) is None
                    for backend in backends)
    fallback = [backend for backend in backends if backend != "CUTLASS"]
    tail = ("" if not (sized and fallback and legacy(configurable_raw)) else
            f" ({_fallback_classes(fallback, checkpoint, sm_version)})")
    if not sized and legacy(configurable_raw):  # name the class that is not sized (s68t)
        other = sorted({str(legacy_class(backend, checkpoint, sm_version))
                        for backend in backends} - {CUTLASS_CLASS, "None"})
        tail = f" (get_moe_cls builds {' or '.join(other)})" if other else tail
        reason = None if arch in DEEPSEEK_V4 else unread_reason(quant)
        if not other and reason is not None and set(fallback) & set(FALLBACK_BACKENDS):
            tail = f" (which class get_moe_cls builds is not read: {reason})"  # s68k
    if len(backends) == 1:
        return sized, f"{what} resolves to {backends[0]} for {model}{tail}"
    by = "the GPU (not read)" if sm_version is None else "the quantization (not read)"
    return sized, f"{what} resolves to {' or '.join(backends)} for {model}, by {by}{tail}"


def shown(ep_size: int, max_num_tokens: int, token: tuple[int, int, int] | None = None,
          env_raw: str | None = None, force_raw: str | None = None,
          configurable_raw: str | None = None, backend: str | None = None,
          eplb: bool = False, comm_raw: str | None = None,
          eplb_experts: int | None = None,
          auto_checkpoint: tuple[str, str] | None = None,
          sm_version: int | None = None,
          wide_ep_env: tuple[str | None, str | None] = (None, None),
          dtype: str | None = None) -> str:
    """`_shown`, with `moe_config.backend` AUTO, or not given (TensorRT-LLM's default
    AUTO), resolved as `resolve_moe_backend` does when the checkpoint was read
    (`auto_checkpoint`, s64t): the workspace where every backend it may resolve to builds
    the restated one, else the line says which it resolves to and that it is not
    modelled. A named GPU's `sm_version` (s64g) resolves it for that GPU alone. Without the
    checkpoint, AUTO is not modelled and no backend is CUTLASS. On the legacy route the
    checkpoint also tells the class a named backend builds (`legacy_class`, s67t).
    `wide_ep_env`: WideEPMoE's two switches (`_shown`, s69o); `dtype` the checkpoint's
    dtype name (s70f)."""
    fallback = _factory(ep_size, backend, configurable_raw, comm_raw, eplb_experts,
                        auto_checkpoint, sm_version, wide_ep_env[1], dtype)
    if backend not in (None, AUTO) or auto_checkpoint is None:
        text = _shown(ep_size, max_num_tokens, token, env_raw, force_raw, configurable_raw,
                      backend, eplb, comm_raw, eplb_experts, auto_checkpoint, sm_version,
                      wide_ep_env, dtype)
        return fallback(_float32(_trtllm_gen(text, backend, configurable_raw,
                                             auto_checkpoint, sm_version), token, backend,
                                 configurable_raw, auto_checkpoint, sm_version))
    sized, clause = _auto(auto_checkpoint, backend is not None, configurable_raw, sm_version)
    if not sized:
        if trtllm_gen_raises(sm_version) and _classes(
                backend, configurable_raw, auto_checkpoint, sm_version) == {TRTLLM_GEN}:
            named = "" if legacy(configurable_raw) else f"get_moe_cls builds {TRTLLM_GEN}, and "
            return (f"where attention DP spans ranks and MoE TP is 1: {clause}; {named}on SM "
                    f"{sm_version} {TRTLLM_GEN_RAISES}")  # s69h: the clause names it on legacy
        route = "without ConfigurableMoE" if legacy(configurable_raw) else "ConfigurableMoE"
        which = ("it builds" if len(auto_backends(*auto_checkpoint, sm_version)) == 1
                 else "each builds")
        return (f"where attention DP spans ranks and MoE TP is 1: {clause}; which all-to-all "
                f"{which} ({route}) is not modelled for all of them")
    text = _shown(ep_size, max_num_tokens, token, env_raw, force_raw, configurable_raw,
                  None, eplb, comm_raw, eplb_experts)
    text = _trtllm_gen(f"{text}; {clause}", backend, configurable_raw, auto_checkpoint,
                       sm_version)
    return fallback(_float32(text, token, backend, configurable_raw, auto_checkpoint,
                             sm_version))


def _factory(ep_size: int, backend: str | None, configurable_raw: str | None,
             comm_raw: str | None, experts: int | None, checkpoint: tuple[str, str] | None,
             sm_version: int | None, deep_ep_raw: str | None, dtype: str | None
             ) -> Callable[[str], str]:
    """What `shown` appends to a line that gives bytes where ConfigurableMoE's factory
    selects unforced: its fallback after NVLinkOneSided (graphfit.planner.engines.
    trtllm_moe_factory_fallback, s70f); a bare class selecting its own all-to-all, a forced
    TRTLLM_FORCE_COMM_METHOD or WIDEEP get nothing."""
    wrapped = not legacy(configurable_raw) or _wrapped_on_legacy(
        backend, configurable_raw, checkpoint, sm_version)
    if backend == "WIDEEP" or comm_raw is not None or not wrapped:
        return lambda text: text
    tail = factory_clause(ep_size, experts, deep_ep_raw, dtype)
    return lambda text: f"{text}; {tail}" if _sized(text) else text


def _trtllm_gen(text: str, backend: str | None, configurable_raw: str | None,
                checkpoint: tuple[str, str] | None, sm_version: int | None) -> str:
    """The line, with TRTLLMGenFusedMoE's SM bar named where the line gives bytes, may
    build it and names no GPU (graphfit.planner.engines.trtllm_moe_trtllm_gen, s69h)."""
    if sm_version is not None or not _sized(text):
        return text
    classes = _classes(backend, configurable_raw, checkpoint, sm_version)
    if legacy(configurable_raw) and backend in (None, AUTO) and checkpoint is not None:
        classes = set().union(*_legacy_pair_classes(checkpoint, sm_version).values())
    if TRTLLM_GEN not in classes:
        return text
    if legacy(configurable_raw):  # AUTO's clause already names the selection (_auto)
        return f"{text}; {TRTLLM_GEN_BAR if backend in (None, AUTO) else trtllm_gen_note(None)}"
    return (f"{text}; {TRTLLM_GEN} (get_moe_cls's class for this quant config, built inside "
            f"ConfigurableMoE) raises NotImplementedError in its constructor on SM 120 and "
            f"later (the GPU is not named)")


def _sized(text: str) -> bool:
    """Whether the line gives the workspace's bytes or formula (not only a reason)."""
    return " aux" in text and "bytes" in text


def _classes(backend: str | None, configurable_raw: str | None,
             checkpoint: tuple[str, str] | None, sm_version: int | None) -> set[str | None]:
    """The MoE classes the line may build (None: not known): each backend AUTO may resolve
    to, through `get_moe_cls` (`legacy_class` without ConfigurableMoE, the class it wraps
    otherwise; DEEPGEMM is DeepGemmFusedMoE), s68t."""
    if backend in (None, AUTO):
        backends = list(auto_backends(*checkpoint, sm_version)) if checkpoint else ["CUTLASS"]
    else:
        backends = [backend]
    found: set[str | None] = set()
    for name in backends:
        if legacy(configurable_raw):
            found.add(legacy_class(name, checkpoint, sm_version))
        elif name == "DEEPGEMM":
            found.add(DEEP_GEMM)
        elif name == "CUTLASS":
            found.add(CUTLASS_CLASS)
        elif checkpoint is None or checkpoint[0] in DEEPSEEK_V4:
            found.add(None)
        else:
            found.add(moe_class(name, checkpoint[1], sm_version))
    return found


def _float32(text: str, token: tuple[int, int, int] | None, backend: str | None = None,
             configurable_raw: str | None = None, checkpoint: tuple[str, str] | None = None,
             sm_version: int | None = None) -> str:
    """The line, with what a float32 checkpoint then meets named where it gives bytes
    (module doc, s67t; the class the line builds: graphfit.planner.engines.
    trtllm_moe_float32, s68t)."""
    if token is None or token[2] != FLOAT32_ITEMSIZE or " in all " not in text:
        return text
    classes = _classes(backend, configurable_raw, checkpoint, sm_version)
    quant = checkpoint[1] if checkpoint is not None else None
    return f"{text}; but the checkpoint is float32: {float32_note(classes, quant)}"


__all__ = ["AUTO", "AUTO_SMS", "CACHELINE", "COMM_METHODS", "CONFIGURABLE_BACKENDS",
           "CUTE_DSL_CLASS", "CUTLASS_CLASS", "DEEPSEEK_V4", "ENV_FORCE", "ENV_FORCE_COMM",
           "FALLBACK_BACKENDS", "GPT_OSS", "KIMI_K3", "MAX_TOP_K", "METHODS", "SM_100F",
           "A2aWorkspace", "auto_backends", "auto_resolve", "env_megabytes", "forced",
           "forced_comm", "legacy", "legacy_class", "one_sided", "shown"]
