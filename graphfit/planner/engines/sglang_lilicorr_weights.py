"""The weight-sized buffers of SGLang 0.5.23's LiLiCorr DFLASH draft head.

A LiLiCorr draft (`LiLiCorrDraftModel`, models/lilicorr.py:529-575) holds, besides its
parameters and the per-request sampler buffers (graphfit.planner.engines.sglang_dflash.
lilicorr_buffers), tensors whose size follows from the checkpoint's geometry, not from the
batch. They live as long as the draft, so graphfit plans them as fixed-size buffers of the
`dflash_draft` component and counts them in the plan's memory:

* the head's inference buffers, built by `materialize_inference_buffers` (models/lilicorr.py:
  245-281) after the weights load (:571-572) and again when the sampler is folded
  (lilicorr_utils.py:401-402, the second set replacing the first): the attention bias
  [num_heads, S*K, S*K] (:283-297; S = block - 1 active slots: the worker's
  `set_block_size` runs before, dflash_worker_v2.py:523 -> models/lilicorr.py:299-310; K the
  candidate top-k), the fused edge weight [2F, H] and bias [2F] (torch.cat copies, :253-262;
  F = lilicorr_factor_dim), three contiguous column blocks of the factor input projection
  [H, H] each (:264-270: copies, but for H = 1 where a column is already contiguous and
  `.contiguous()` returns the view) and two [1, 1, 1, K] float32 feature columns (:272-281);
  all in the slot embedding's dtype (the model dtype) but those two. They exist whether or
  not the sampler is folded (SGLANG_DFLASH_EAGER_DRAFT_SAMPLER keeps them).
* the token table, only with the folded sampler (`LiLiCorrDraftSampler.__init__`,
  lilicorr_utils.py:271-276): the target's input embedding projected by the head's
  `token_proj` (`build_token_table`, models/lilicorr.py:448-456), [V, H] in the model dtype.
  `token_proj` exists only when the head is narrower or wider than the draft (H != the
  draft's hidden size, :171-180; `lilicorr_hidden_size` 0 means the draft's width,
  lilicorr_utils.py:42-44), and the table is built only when the draft's hidden size is the
  target embedding's width (:453-454). V: the embedding's padded rows, all-gathered under
  TP (lilicorr_utils.py:273-275, asserted to be `org_vocab_size_padded`): the vocabulary
  rounded up to 64 rows, to 64 * TP when that is not a multiple of TP
  (layers/vocab_parallel_embedding.py:48, 57-59, 272-289; LiLiCorr refuses added vocabulary,
  lilicorr_utils.py:108-115).

H is the head's width: `lilicorr_hidden_size`, or the draft's hidden size when 0
(models/lilicorr.py:159). A width the head's attention cannot split into its heads makes
the draft fail to load (models/lilicorr.py:78-82): refused here with SGLang's reason.
"""

from __future__ import annotations

from graphfit.planner.core.buffers import KEEP, Axis, BufferSpec
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings

RUNNER = "dflash_draft"
VOCAB_PADDING = 64  # DEFAULT_VOCAB_PADDING_SIZE, layers/vocab_parallel_embedding.py:48
WHY = "weight-sized, built once before capture; no batch rows"


def _pad(size: int, to: int) -> int:
    """`pad_vocab_size` (layers/vocab_parallel_embedding.py:57-59)."""
    return (size + to - 1) // to * to


def padded_vocab(vocab: int, tp: int) -> int:
    """The target embedding's rows across all ranks (vocab_parallel_embedding.py:272-289)."""
    to = VOCAB_PADDING if _pad(vocab, VOCAB_PADDING) % tp == 0 else VOCAB_PADDING * tp
    return _pad(vocab, to)


def head_width(config: EngineSettings) -> int | None:
    """H, the LiLiCorr head's width (None: no head geometry given)."""
    head = config.dflash_lilicorr_head
    if head is None or config.dflash_lilicorr_top_k is None:
        return None
    return head[0] or (config.draft_hidden_size or config.hidden_size)


def head_buffers(config: EngineSettings, block: int) -> tuple[BufferSpec, ...]:
    """The head's inference buffers (none without a LiLiCorr draft's geometry)."""
    width, head, top_k = head_width(config), config.dflash_lilicorr_head, \
        config.dflash_lilicorr_top_k
    if width is None or head is None or top_k is None:
        return ()
    heads, factor = head[1], head[2]
    if width % heads:
        raise ConfigError(f"dflash_lilicorr_head: SGLang's LiLiCorr draft would not load: "
                          f"LiLiCorr hidden_size={width} must be divisible by "
                          f"num_heads={heads} (models/lilicorr.py:78-82)")
    lattice = (block - 1) * top_k
    src = f"{RUNNER}: models/lilicorr.py:245-297 (LiLiCorr head; {WHY})"
    specs: list[tuple[str, str, int, tuple[int, ...], tuple[int, ...]]] = [
        ("lilicorr_attn_bias", config.dtype, heads, (), (lattice, lattice)),
        ("lilicorr_fused_edge_weight", config.dtype, 2 * factor, (), (width,)),
        ("lilicorr_fused_edge_bias", config.dtype, 2 * factor, (), ())]
    if width > 1:  # each column block a copy (a [1, 1] block is already contiguous)
        specs += [(f"lilicorr_factor_input_{part}", config.dtype, width, (), (width,))
                  for part in ("self", "anchor", "cross")]
    specs += [("lilicorr_rank_frac_col", "float32", top_k, (1, 1, 1), ()),
              ("lilicorr_is_top1_col", "float32", top_k, (1, 1, 1), ())]
    return tuple(BufferSpec(name, dtype, Axis.FIXED, (), rows, KEEP, lead, trailing=trail,
                            source=src) for name, dtype, rows, lead, trail in specs)


def token_table(config: EngineSettings) -> tuple[BufferSpec, ...]:
    """The folded sampler's token table, where SGLang builds one."""
    width = head_width(config)
    draft = config.draft_hidden_size or config.hidden_size
    if width is None or width == draft or draft != config.hidden_size:
        return ()
    return (BufferSpec("sampler_token_table", config.dtype, Axis.FIXED, (),
                       padded_vocab(config.vocab_size, config.tp_size), KEEP,
                       trailing=(width,),
                       source=f"{RUNNER}: lilicorr_utils.py:271-276, models/lilicorr.py:448-456 "
                              f"(the target embedding through token_proj; {WHY})"),)
