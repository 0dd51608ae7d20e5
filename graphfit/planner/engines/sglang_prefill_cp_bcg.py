"""Prefill context parallelism's own breakable prefill graphs (SGLang 0.5.23, issue 23 s54g).

With `--enable-prefill-cp`, SGLang's prefill runner captures CP-local breakable graphs when
`supports_prefill_cp_bcg` holds (layers/cp/bcg/__init__.py:42-64): prefill CP on, pp 1,
attention CP width equal to TP, and the (strategy, prefill attention backend) pair one of
(zigzag, trtllm_mha) and (interleave, dsa) (:21-26). Then:

* resolution turns the prefill backend to breakable unless the backend was given
  (`apply_prefill_cp_cuda_graph_default`, cuda_graph_hook.py:104-134); without that support
  an attention CP width above 1 turns prefill graphs off (cuda_graph_hook.py:203-211);
* the runner keeps only the token buckets >= the strategy's minimum (zigzag 2 x cp, its
  `min_capture_tokens`, bcg/zigzag_bcg.py:8-10; interleave cp, bcg/bcg.py:122-124), and
  refuses a line with none (`filter_prefill_cp_bcg_capture_num_tokens`, bcg/bcg.py:48-66;
  called at prefill_cuda_graph_runner.py:609-618);
* it allocates `PrefillCPBCGInput`'s two fixed-address CP-local inputs, `input_embeds`
  (max_num_tokens x hidden size, the model dtype) and `positions` (max_num_tokens, int64)
  (bcg/bcg.py:90-109, called at prefill_cuda_graph_runner.py:620), max_num_tokens being
  the runner's largest unfiltered bucket (:371);
* with an attention CP width of 1 no strategy is bound (layers/cp/base.py:283-285), so
  `PrefillCPBCGInput.create` asks for the NONE strategy's input type and raises
  (bcg/__init__.py:29-39): the server does not start.

graphfit plans the zigzag / trtllm_mha pair. The interleave / DSA pair captures CP's graphs
only where `InterleaveCPBCGInput.supports` holds (a Glm5Next target, dp_size 1, ep_size 1,
CP width above 1: bcg/interleave_bcg.py:86-94); elsewhere it captures none (issue 23 s60p),
and where it holds it is refused as not modelled (its `input_ids_global` /
`moe_local_token_count` inputs, :68-80, are not sized).

Which captured bucket a live batch replays (issue 23 s60r) is `replay_bucket`: the runner
replays only a batch CP shards (`is_cp_active`, layers/cp/utils.py:121-135; zigzag's
`can_apply`, zigzag.py:109-119: at least 2 x cp tokens, every request at least 2 x cp), then
`select_replay_bucket_for_batch` (bcg/bcg.py:137-176, called at
prefill_cuda_graph_runner.py:1478-1491 and :1850-1865) takes the smallest captured bucket
from n up to 2n whose CP-local rows hold the batch's (`required_local_tokens`: the largest
rank's zigzag share rounded up to 2 x cp, zigzag_bcg.py:13-25, bcg.py:126-133,
padding.py:23-29). A bucket's local rows are those its capture batch took (`prepare`,
bcg/bcg.py:228-231): the bucket split into requests of at most the context length
(`capture_prepare`, prefill_cuda_graph_runner.py:1520-1536), sharded the same way
(`prepare_cp_forward`'s `pad_logical_token_to_physical`, utils.py:148-167). The plan's
token-keyed dispatch holds the one-request answer: a prefill of fewer than 2 x cp tokens runs
eagerly (`floor`); a batch of several requests may replay a larger bucket than its token
count's, which the buffers (the largest bucket's rows) always hold.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings

ZIGZAG, INTERLEAVE = "zigzag", "interleave"
# PREFILL_CP_BCG_SUPPORTED_COMBINATIONS (layers/cp/bcg/__init__.py:21-26)
SUPPORTED = frozenset({(ZIGZAG, "trtllm_mha"), (INTERLEAVE, "dsa")})
# the two PrefillCPBCGInput tensors (bcg/bcg.py:85-86), named apart from the runner's own
INPUT_EMBEDS, POSITIONS = "cp_bcg_input_embeds", "cp_bcg_positions"
NOT_MODELLED = "is not modelled"


@dataclass(frozen=True)
class CpBcgInputs:
    """What `supports_prefill_cp_bcg` reads: the strategy (None: prefill CP off), the widths
    and the resolved prefill attention backend (None: graphfit does not know it)."""

    strategy: str | None
    tp_size: int
    attn_cp_size: int
    pp_size: int
    prefill_attention_backend: str | None
    # what `InterleaveCPBCGInput.supports` reads (bcg/interleave_bcg.py:86-94; issue 23 s60p)
    architecture: str | None = None
    ep_size: int = 1
    dp_replicas: int = 1

    def __post_init__(self) -> None:
        if self.strategy not in (None, ZIGZAG, INTERLEAVE):
            raise ConfigError(f"prefill_cp_strategy: expected zigzag or interleave, got "
                              f"{self.strategy!r}")
        for name in ("tp_size", "attn_cp_size", "pp_size"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name}: must be a positive integer, got {value!r}")


def supported(inp: CpBcgInputs) -> bool:
    """`supports_prefill_cp_bcg` (bcg/__init__.py:42-64) for the zigzag pair; the
    interleave / DSA pair and an unknown prefill backend are refused as not modelled."""
    if inp.strategy is None or inp.pp_size != 1 or inp.attn_cp_size != inp.tp_size:
        return False
    if inp.prefill_attention_backend is None:
        raise ConfigError(f"--enable-prefill-cp: {NOT_MODELLED} (graphfit does not know the "
                          "prefill attention backend that decides CP's breakable prefill "
                          "graphs, layers/cp/bcg/__init__.py:53-64)")
    pair = (inp.strategy, inp.prefill_attention_backend)
    if pair not in SUPPORTED:
        return False
    if inp.strategy == INTERLEAVE:
        if not interleave_supports(inp):
            return False  # no CP graphs: SGLang turns prefill graphs off (issue 23 s60p)
        raise ConfigError(f"--enable-prefill-cp: {NOT_MODELLED} (interleave CP's breakable "
                          "prefill graphs on Glm5Next, layers/cp/bcg/interleave_bcg.py)")
    if inp.attn_cp_size == 1:
        raise ConfigError("--enable-prefill-cp: SGLang's prefill runner fails to start: "
                          "Unsupported CP BCG strategy: 0 (attention CP width 1 binds no "
                          "strategy, NONE = 0; layers/cp/bcg/__init__.py:29-39, base.py:"
                          "283-285)")
    return True


GLM5_NEXT = "Glm5NextForConditionalGeneration"
QWEN4_EXP = "Qwen4ExpForConditionalGeneration"


def interleave_supports(inp: CpBcgInputs) -> bool:
    """`InterleaveCPBCGInput.supports` (bcg/interleave_bcg.py:86-94): dp_size 1, ep_size 1, an
    attention CP width above 1 and a Glm5Next target (issue 23 s60p)."""
    return (inp.dp_replicas == 1 and inp.ep_size == 1 and inp.attn_cp_size > 1
            and inp.architecture == GLM5_NEXT)


# SGLang's sentence up to its reason ("the SM90/SM120 fmha_v2 prefill path does not implement
# CP shard masking."), which graphfit words shorter to keep the line within 200 characters
TRTLLM_MHA_CP = ("Prefill context parallelism with the TRTLLM MHA prefill backend requires SM100 "
                 "(trtllm-gen context kernel)")


def check_trtllm_mha(prefill_attention_backend: str | None, attn_cp_size: int,
                     sm100: bool | None) -> None:
    """SGLang's attention hook refuses the trtllm_mha prefill backend with an attention CP
    width above 1 off SM100 (attention_hook.py:228-237), with SGLang's sentence (its reason
    worded shorter); "not modelled" where the GPU is a figure in GiB (its generation
    unknown)."""
    if prefill_attention_backend != "trtllm_mha" or attn_cp_size <= 1 or sm100 is True:
        return
    if sm100 is None:
        raise ConfigError(f"--enable-prefill-cp: {NOT_MODELLED} (trtllm_mha prefill with "
                          "attention CP needs SM100, attention_hook.py:228-237: name the GPU)")
    raise ConfigError(f"{TRTLLM_MHA_CP}: SM90/SM120's fmha_v2 has no CP shard masking (SGLang "
                      "refuses, attention_hook.py:228-237)")


def min_capture_tokens(strategy: str, cp_size: int) -> int:
    """The strategy input's `min_capture_tokens` (zigzag_bcg.py:8-10; bcg.py:122-124)."""
    return cp_size * 2 if strategy == ZIGZAG else cp_size


def filter_capture(captured: tuple[int, ...], strategy: str, cp_size: int) -> tuple[int, ...]:
    """`filter_prefill_cp_bcg_capture_num_tokens` (bcg/bcg.py:48-66), with its refusal."""
    least = min_capture_tokens(strategy, cp_size)
    kept = tuple(size for size in captured if size >= least)
    if not kept:
        raise ConfigError(f"Prefill CP breakable CUDA graph requires at least one token bucket "
                          f">= {least}, but got {list(captured)}. (SGLang's prefill runner "
                          f"refuses, layers/cp/bcg/bcg.py:60-65)")
    return kept


def zigzag_local_rows(cp_size: int, extend_seq_lens: tuple[int, ...]) -> int:
    """The CP-local rows zigzag shards a batch of these request lengths into: the largest
    rank's share (each request cut into 2 x cp blocks, rank r taking blocks r and 2cp-1-r,
    zigzag_bcg.py:13-25, zigzag.py:151-168) rounded up to 2 x cp (`get_cp_padding_align_size`,
    padding.py:23-29; `required_local_tokens`, bcg.py:126-133)."""
    segments = cp_size * 2
    share = [0] * cp_size
    for length in extend_seq_lens:
        base, rest = divmod(length, segments)
        for rank in range(cp_size):
            share[rank] += base * 2 + (rank < rest) + (segments - 1 - rank < rest)
    return -(-max(share) // segments) * segments


def capture_seq_lens(bucket: int, context_length: int | None) -> tuple[int, ...]:
    """The requests a bucket's capture batch holds: the fewest of at most the context length
    (`capture_prepare`, prefill_cuda_graph_runner.py:1520-1536; None: one request)."""
    step = context_length or bucket
    return tuple(min(step, bucket - start) for start in range(0, bucket, step))


def cp_active(cp_size: int, extend_seq_lens: tuple[int, ...]) -> bool:
    """Zigzag's `can_apply` for an extend batch (zigzag.py:109-119): the batch and each of its
    requests at least 2 x cp tokens."""
    least = cp_size * 2
    return cp_size > 1 and sum(extend_seq_lens) >= least and all(
        n >= least for n in extend_seq_lens)


def check_capture(captured: tuple[int, ...], strategy: str, cp_size: int,
                  context_length: int | None) -> None:
    """Refuse a zigzag line whose capture fails in SGLang (issue 23 s62p): the runner captures
    its buckets largest first (prefill_cuda_graph_runner.py:1715-1736), each as the fewest
    requests of at most the model's context length (`capture_prepare`, :1520-1536; CP's graphs
    ignore max_context_size, :613-616), and `PrefillCPBCGInput.prepare` (bcg/bcg.py:190, at
    :1755-1760) asserts `is_cp_active` (layers/cp/utils.py:150): a capture request under
    2 x cp tokens fails it with a bare AssertionError, and the server does not start."""
    if strategy != ZIGZAG:
        return
    for bucket in reversed(captured):
        lens = capture_seq_lens(bucket, context_length)
        if not cp_active(cp_size, lens):
            raise ConfigError(
                f"--enable-prefill-cp: SGLang's prefill graph capture fails (AssertionError, "
                f"layers/cp/utils.py:150): bucket {bucket} at context length {context_length} "
                f"ends in a {lens[-1]}-token request, under 2 x cp = {2 * cp_size}")


def floor(cp_size: int) -> int:
    """The fewest tokens a one-request prefill needs to replay CP's graphs (`cp_active`)."""
    return cp_size * 2


def replay_bucket(captured: tuple[int, ...], cp_size: int, context_length: int | None,
                  extend_seq_lens: tuple[int, ...], padding_factor: int = 2) -> int | None:
    """The captured bucket SGLang's prefill runner replays a zigzag CP batch of these request
    lengths at, or None (eager): `can_run_graph`'s CP gate and token checks, then
    `select_replay_bucket_for_batch` (module docstring)."""
    num_tokens = sum(extend_seq_lens)
    if not captured or not extend_seq_lens or not cp_active(cp_size, extend_seq_lens):
        return None
    if num_tokens > captured[-1]:  # can_replay_locally (prefill_cuda_graph_runner.py:1413)
        return None
    padded = min(b for b in captured if b >= num_tokens)  # _pad_to_bucket
    if padded > num_tokens * padding_factor:  # :1418-1421
        return None
    needed = zigzag_local_rows(cp_size, extend_seq_lens)
    for bucket in captured:  # select_replay_bucket (bcg.py:137-157)
        if bucket < num_tokens:
            continue
        if bucket > num_tokens * padding_factor:
            break
        if needed <= zigzag_local_rows(cp_size, capture_seq_lens(bucket, context_length)):
            return bucket
    return None


def strategy_of(config: EngineSettings) -> str | None:
    """The prefill-CP strategy when SGLang captures CP's own breakable prefill graphs for
    `config`, else None: the attention hook's trtllm_mha check first, then `supported`. The
    prefill component reads it; the memory hook's reserve reads `hook_strategy`. None on
    Qwen4-Exp under CP-TP group sharing, whose prefill graphs the sharing hook turns off
    (graphfit.planner.engines.sglang_prefill.sharing_prefill_off; issue 23 s63p)."""
    if config.prefill_cp_strategy is not None:
        check_trtllm_mha(config.prefill_attention_backend, config.attn_cp_size, config.sm100)
    if config.cp_tp_group_sharing and config.architecture == QWEN4_EXP:
        return None
    inp = CpBcgInputs(config.prefill_cp_strategy, config.tp_size, config.attn_cp_size,
                      config.pp_size, config.prefill_attention_backend, config.architecture,
                      config.ep_size, config.dp_replicas)
    return inp.strategy if supported(inp) else None


def hook_strategy(config: EngineSettings) -> str | None:
    """`strategy_of` as SGLang's CP-graph check sees the line before the memory hook
    (cuda_graph_hook.py:203-211 at pipeline.py:191): with the backend the flags name
    (SglangOptions.prefill_cp_hook_backend), the default backend being declared later
    (`_attention_backend_default`, attention_hook.py:120, run at pipeline.py:242). The
    memory hook's prefill-graph reserve (memory_hook.py:380-386) reads it
    (graphfit.planner.engines.sglang_reserve)."""
    inp = CpBcgInputs(config.prefill_cp_strategy, config.tp_size, config.attn_cp_size,
                      config.pp_size, config.prefill_cp_hook_backend, config.architecture,
                      config.ep_size, config.dp_replicas)
    if inp.strategy is None or inp.prefill_attention_backend is None:
        return None
    try:
        return inp.strategy if supported(inp) else None
    except ConfigError:  # interleave / dsa, TP 1: refused by the prefill component itself
        return None
