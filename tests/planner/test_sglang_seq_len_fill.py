"""Each SGLang runner's seq_lens fill (graphfit.planner.engines.sglang_seq_len_fill):
properties of the rule and of the plan that carries it. SGLang's own runners decide the same
lines in tests/oracle/test_sglang_seq_len_fill_oracle.py."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit import plan
from graphfit.planner.config import EngineConfig
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines.sglang_seq_len_fill import (
    backend_fill,
    draft_decode_fill,
    draft_extend_fill,
    target_fill,
)

BACKENDS = [None, "aiter", "fa3", "flashinfer", "triton", "trtllm_mha"]
RUNNERS = {"target": target_fill, "drafter": draft_decode_fill,
           "draft_extend": draft_extend_fill}


def _config(steps: int, topk: int, decode: str | None, draft: str | None,
            extend: str | None, *, multi: bool = False) -> EngineConfig:
    drafts = steps + 1 if topk == 1 else steps * topk
    return EngineConfig.from_dict({
        "engine": "sglang", "spec_method": "eagle", "num_speculative_tokens": steps,
        "speculative_eagle_topk": topk, "speculative_num_draft_tokens": drafts,
        "max_num_seqs": 33, "decode_attention_backend": decode,
        "draft_attention_backend": draft, "mtp_draft_backend": extend,
        "multi_layer_eagle": multi})


@given(st.sampled_from(BACKENDS), st.none() | st.integers(1, 64))
def test_only_aiter_follows_the_draft_tokens(backend: str | None, drafts: int | None) -> None:
    """aiter's fill is the verified tokens per request (1 without speculation); every other
    CUDA / ROCm backend, and an unknown one, fills 1."""
    fill = backend_fill(backend, drafts)
    if backend == "aiter" and drafts is not None:
        assert fill == drafts
    else:
        assert fill == 1


@given(st.integers(1, 4), st.sampled_from([1, 2]), st.sampled_from(BACKENDS),
       st.sampled_from(BACKENDS), st.sampled_from(BACKENDS))
def test_each_runner_carries_its_own_backends_fill(steps: int, topk: int, decode: str | None,
                                                   draft: str | None, extend: str | None
                                                   ) -> None:
    """The plan's seq_lens / seq_lens_cpu fills are each runner's backend's (the draft-decode
    runner's is the draft flag's, else the decode one's), and the target's custom_mask holds
    (fill + width) * width entries per request (buffers.py:171-174): never fewer than the
    padded rows' synthetic history needs."""
    config = _config(steps, topk, decode, draft, extend)
    p = plan(config)
    for name, rule in RUNNERS.items():
        if name not in p.components:
            continue
        buffers = {b.name: b for b in p.components[name].buffers}
        for field in ("seq_lens", "seq_lens_cpu"):
            assert buffers[field].fill.value == rule(config)
    if "drafter" in p.components:
        assert draft_decode_fill(config) == backend_fill(draft or decode,
                                                         config.uniform_query_len)
    target = p.components["target"]
    width = config.uniform_query_len
    mask = next(b for b in target.buffers if b.name == "custom_mask")
    per_request = (target_fill(config) + width) * width
    assert mask.spec.demands[0].scale == per_request
    assert mask.capacity % per_request == 0 and mask.capacity >= per_request


@given(st.integers(1, 4), st.sampled_from(BACKENDS))
def test_multi_layer_composite_fill(steps: int, extend: str | None) -> None:
    """The multi-layer composite's fill is the draft-extend backend's, as the single-layer
    draft-extend runner's is."""
    config = _config(steps, 1, None, None, extend, multi=True)
    comp = plan(config).components["mtp_draft_extend"]
    seq = next(b for b in comp.buffers if b.name == "seq_lens")
    assert seq.fill.value == draft_extend_fill(config)


@pytest.mark.parametrize("bad", ["", "ai ter", 3, True, ["aiter"]])
@pytest.mark.parametrize("field", ["decode_attention_backend", "draft_attention_backend"])
def test_bad_backend_names_are_refused(field: str, bad: object) -> None:
    with pytest.raises(ConfigError, match=field):
        EngineConfig.from_dict({"engine": "sglang", field: bad})
