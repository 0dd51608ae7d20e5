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

s54e: NixlEP's dispatcher too (two_batch_overlap.py:1176-1178 -> `NixlEPDispatcher`), which
raises "Normal mode is not supported for Nixl EP yet." in auto / normal mode
(token_dispatcher/nixl.py:481-482), after making its low-latency half in auto mode
(:476-480). That half imports `nixl_ep` for its Buffer and `topk_idx_t` (nixl.py:38-52) and
asks torch.distributed for its group's size (:238): `nixl_glue` reports the package
installed (a Buffer that fails the oracle if used) and answers the size with the line's
expert-parallel width. Its own assert (the dispatch budget <= 1024, :228-233) runs as written.
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


@contextlib.contextmanager
def nixl_glue(world_size: int, parallel: Any = None) -> Iterator[None]:
    """`nixl_ep` reported installed, with `_Unused` as its Buffer and torch's int64 as its
    `topk_idx_t`; nixl.py's `dist.get_world_size` answers `world_size` (the group is the
    MoE layer's a2a group, none in this process). `parallel` (where nothing is published):
    what nixl.py's `get_parallel()` answers; it reads only `max_ep_size` there (nixl.py:240,
    the elastic mask buffer's size, made only with an elastic EP state)."""
    import torch
    from sglang.srt.layers.moe.token_dispatcher import nixl

    module = types.ModuleType("nixl_ep")
    module.Buffer = _Unused()  # type: ignore[attr-defined]
    module.topk_idx_t = torch.int64  # type: ignore[attr-defined]
    saved_dist, saved_parallel = nixl.dist, nixl.get_parallel
    with restoring(sys.modules, ("nixl_ep",)):
        sys.modules["nixl_ep"] = module
        nixl.dist = types.SimpleNamespace(get_world_size=lambda group: world_size)
        if parallel is not None:
            nixl.get_parallel = lambda: parallel
        nixl._load_nixl_ep.cache_clear()
        try:
            yield
        finally:
            nixl.dist, nixl.get_parallel = saved_dist, saved_parallel
            nixl._load_nixl_ep.cache_clear()


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
    (or the line makes no Mooncake / NixlEP dispatcher: another backend, or a dense model,
    which keeps MoeA2ABackend.NONE: scheduler.py:995-1008, read as the oracle's `published`
    does).

    The dispatcher is SGLang's own class, given the arguments create_moe_dispatcher hands it
    (fused_moe_triton/layer.py:197-213) and the resolved --deepep-mode (get_deepep_mode reads
    the published flag, layers/moe/utils.py:626); nothing is published here, so no global
    SGLang state outlives the call."""
    record = r.record
    backend = getattr(record, "moe_a2a_backend", None)
    if backend not in ("mooncake", "nixl") or not so._moe_model(record):
        # s54e: the target makes no such dispatcher; the draft model may (its own backend,
        # built after the target's model: tests.oracle.sglang_draft_build)
        from tests.oracle import sglang_draft_build

        return sglang_draft_build.failure(r)
    import torch

    with sglang_stubs.stubbed(), sglang_stubs.fake_cuda(r.gpu_mem_mib):
        from sglang.srt.layers.moe.token_dispatcher.mooncake import MooncakeEPDispatcher
        from sglang.srt.layers.moe.token_dispatcher.nixl import NixlEPDispatcher
        from sglang.srt.layers.moe.utils import DeepEPMode

        if backend == "mooncake":
            kind, made = MooncakeEPDispatcher, glue()
        else:  # s54e: nothing is published here; nixl.py reads max_ep_size only (:240)
            published = types.SimpleNamespace(max_ep_size=getattr(record, "max_ep_size", None))
            kind, made = NixlEPDispatcher, nixl_glue(int(getattr(record, "ep_size", 1) or 1),
                                                     published)
        try:
            with made:
                kind(group=None, router_topk=2, permute_fusion=True, num_experts=8,
                     num_local_experts=8, hidden_size=64, params_dtype=torch.bfloat16,
                     deepep_mode=DeepEPMode(record.deepep_mode), async_finish=True,
                     return_recv_hook=True)
        except NotImplementedError as exc:
            return f"NotImplementedError: {exc} @ {_site(exc)} (at model build)"
    return None


__all__ = ["failure", "glue", "nixl_glue"]
