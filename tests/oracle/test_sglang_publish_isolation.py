"""`sglang_oracle.published` leaves the process as it found it (issue 23, s60x).

SGLang's `publish` (runtime_context.py:1489) installs a process-wide record: config bags, the
parallel config, stamped ranks (runtime_context.py:1567-1568: `attn_dcp_rank=0` when DCP is
off) and flags (`initialize_moe_config`, layers/moe/utils.py:479-514). Before s60x nothing
took it back, so an oracle that relies on nothing being published (the ViT towers' head split
stops at the first `get_mm()`, tests/oracle/sglang_vit_oracle.py `vision_attention_heads`)
failed when run after any test that published a record in the same process.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_stubs

MOE_LINE = ("--tp", "2", "--attn-dp-size", "2", "--enable-two-batch-overlap")


def _state() -> dict[str, Any]:
    """What publish writes, read back: the record, the parallel config, the stamped ranks, the
    role and the MoE flags' leaves."""
    so.oracle()  # SGLang's sources on the path
    with sglang_stubs.imports():
        from sglang.srt import runtime_context as rc

    context = rc.get_context()
    moe = rc.get_flags().moe
    return {"record": context._server_args, "bags": context._config_bags,
            "role": context._publish_role, "parallel": rc.get_parallel()._config,
            "stamp": dict(rc.get_parallel()._stamp),
            "overrides": dict(rc.get_parallel()._overrides),
            "moe": {name: getattr(moe, name) for name in type(moe).__struct_fields__}}


def test_published_puts_the_process_back() -> None:
    """Inside the block SGLang reads the record; after it, every field publish wrote is what
    it was on entry, nested blocks included (the inner one gives the outer record back)."""
    outer, inner = so.resolve(()), so.resolve(MOE_LINE)
    before = _state()
    from sglang.srt import runtime_context as rc

    with so.published(outer):
        assert rc.get_server_args() is outer.record
        during = _state()
        with so.published(inner):
            assert rc.get_server_args() is inner.record
            assert rc.get_parallel().tp_size == 2
        assert _state() == during
        assert rc.get_server_args() is outer.record
    assert _state() == before


def test_put_back_when_the_block_raises() -> None:
    """An oracle that raises inside the block (a refusal SGLang raises) leaves nothing."""
    before = _state()
    with pytest.raises(RuntimeError, match="inside"), so.published(so.resolve(MOE_LINE)):
        raise RuntimeError("inside")
    assert _state() == before


def test_vit_head_split_after_a_published_record() -> None:
    """The reported order: a published MoE line, then SGLang's VisionAttention head split,
    which stops at the unpublished multimodal config as on a fresh process."""
    from tests.oracle import sglang_vit_oracle as vo

    with so.published(so.resolve(MOE_LINE)):
        pass
    with vo.cpu_graphs():
        heads = vo.vision_attention_heads(hidden=1024, heads=16, dummy=0, tp=2,
                                          data_parallel=False)
    assert heads == (8, 64)
