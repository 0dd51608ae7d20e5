"""The one model-build step of SGLang 0.5.23 that the resolution-only oracles need: the
Mooncake EP dispatcher every FusedMoE layer makes (issue 23, s46e).

Why: `--moe-a2a-backend mooncake` with `--deepep-mode auto` (the default) or `normal`
resolves, but every MoE layer's constructor then makes its a2a dispatcher
(layers/moe/fused_moe_triton/layer.py:595 -> `create_moe_dispatcher`, :190-213 ->
batch_overlap/two_batch_overlap.py:1159-1170 -> `MooncakeEPDispatcher`), whose constructor
raises NotImplementedError in a mode that enables normal dispatch
(layers/moe/token_dispatcher/mooncake.py:343-344; utils.py:272-273). An oracle that stopped
at resolution counted those lines as started. `failure(r)` runs SGLang's own dispatcher
constructor with the resolved record's backend and mode and returns what it raises.

Glue: the dispatcher's constructor imports `mooncake.mooncake_ep_buffer.Buffer` only to see
that the package is installed (mooncake.py:138-145; the buffer is made on the first
dispatch): a stand-in module whose Buffer fails the oracle itself if used.
"""

from __future__ import annotations

import contextlib
import sys
import types
from collections.abc import Iterator
from typing import Any

from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_stubs
from tests.oracle.environ_patch import restoring


class _Unused:
    """Mooncake's `Buffer` stand-in: any use at model build fails the oracle."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"oracle glue: mooncake Buffer.{name} used at model build")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("oracle glue: mooncake Buffer used at model build")


@contextlib.contextmanager
def glue() -> Iterator[None]:
    """`mooncake.mooncake_ep_buffer` reported installed, with `_Unused` as its Buffer."""
    names = ("mooncake", "mooncake.mooncake_ep_buffer")
    package = types.ModuleType("mooncake")
    buffer = types.ModuleType("mooncake.mooncake_ep_buffer")
    buffer.Buffer = _Unused()  # type: ignore[attr-defined]
    package.mooncake_ep_buffer = buffer  # type: ignore[attr-defined]
    with restoring(sys.modules, names):
        sys.modules.update(zip(names, (package, buffer), strict=True))
        yield


def _site(exc: BaseException) -> str:
    """The innermost frame under sglang/srt/ the exception passed through."""
    import traceback

    site = "?"
    for frame in traceback.extract_tb(exc.__traceback__):
        if "/sglang/srt/" in frame.filename:
            site = f"{frame.filename.split('/sglang/srt/', 1)[1]}:{frame.lineno}"
    return site


def failure(r: so.Resolved) -> str | None:
    """What SGLang's MoE-layer dispatcher raises for the resolved line, None where it builds
    (or the line makes no Mooncake dispatcher: another backend, or a dense model, which keeps
    MoeA2ABackend.NONE: scheduler.py:995-1008, read as the oracle's `published` does).

    The dispatcher is SGLang's own class, given the arguments create_moe_dispatcher hands it
    (fused_moe_triton/layer.py:197-213) and the resolved --deepep-mode (get_deepep_mode reads
    the published flag, layers/moe/utils.py:626); nothing is published here, so no global
    SGLang state outlives the call."""
    record = r.record
    if getattr(record, "moe_a2a_backend", None) != "mooncake" or not so._moe_model(record):
        return None
    import torch

    with sglang_stubs.stubbed(), sglang_stubs.fake_cuda(r.gpu_mem_mib):
        from sglang.srt.layers.moe.token_dispatcher.mooncake import MooncakeEPDispatcher
        from sglang.srt.layers.moe.utils import DeepEPMode

        try:
            with glue():
                MooncakeEPDispatcher(
                    group=None, router_topk=2, permute_fusion=True, num_experts=8,
                    num_local_experts=8, hidden_size=64, params_dtype=torch.bfloat16,
                    deepep_mode=DeepEPMode(record.deepep_mode), async_finish=True,
                    return_recv_hook=True)
        except NotImplementedError as exc:
            return f"NotImplementedError: {exc} @ {_site(exc)} (at model build)"
    return None


__all__ = ["failure", "glue"]
