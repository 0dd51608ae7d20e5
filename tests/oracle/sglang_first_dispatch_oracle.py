"""Oracle helpers for NixlEP / Mooncake budgets of 0 and below (issue 23, s60k): SGLang's own
buffer maker run on a budget (`first_buffer`), and the budget each dispatcher SGLang's model
build made read (`recording`). Used by tests/oracle/test_sglang_first_dispatch_oracle.py and
tests/oracle/measure_sglang_first_dispatch.py; graphfit's rule is
graphfit.planner.engines.sglang_first_dispatch."""

from __future__ import annotations

import contextlib
import types
from collections.abc import Iterator

from tests.oracle import sglang_stubs

HIDDEN, EXPERTS, EP = 64, 8, 2  # what the buffer's maker is handed besides the budget
# the buffer makers' `num_max_dispatch_tokens_per_rank != -1`
ASSERT_SITES = ("layers/moe/token_dispatcher/mooncake.py:112",
                "layers/moe/token_dispatcher/nixl.py:153")


@contextlib.contextmanager
def _resources(module: types.ModuleType) -> Iterator[None]:
    """Glue: the module's `get_resources()` answers a fresh process-wide buffers dict."""
    saved = module.get_resources  # type: ignore[attr-defined]
    fresh = types.SimpleNamespace(buffers={})
    module.get_resources = lambda: fresh  # type: ignore[attr-defined]
    try:
        yield
    finally:
        module.get_resources = saved  # type: ignore[attr-defined]


def first_buffer(backend: str, tokens: int) -> str:
    """What SGLang's buffer maker does with the budget `tokens` in low_latency mode:
    "assert" (its own bare assert), "package" (it reached the package's Buffer: the glue's
    stand-in), or the exception's text."""
    from tests.oracle import sglang_mooncake_build as mb

    with sglang_stubs.fake_cuda():
        from sglang.srt.layers.moe.token_dispatcher import mooncake, nixl
        from sglang.srt.layers.moe.utils import DeepEPMode

        group = types.SimpleNamespace(size=lambda: EP)
        try:
            if backend == "mooncake":
                with mb.glue(), _resources(mooncake):
                    mooncake.EPBuffer.get_ep_buffer(group, HIDDEN, 2, DeepEPMode.LOW_LATENCY,
                                                    tokens, EXPERTS)
            else:
                parallel = types.SimpleNamespace(max_ep_size=None)
                with mb.nixl_glue(EP, parallel), _resources(nixl):
                    nixl.dist = types.SimpleNamespace(  # nixl_glue restores it
                        get_world_size=lambda group: EP, get_rank=lambda group: 0)
                    nixl.NixlEPBuffer.get_nixl_buffer(group, HIDDEN, DeepEPMode.LOW_LATENCY,
                                                      tokens, EXPERTS, EXPERTS // EP)
        except AssertionError as exc:
            if "glue" in str(exc):
                return "package"
            site = mb._site(exc)
            return "assert" if not str(exc) and site in ASSERT_SITES else f"{exc!r} @ {site}"
    return "built"  # not reached: the stand-in fails when used


@contextlib.contextmanager
def recording() -> Iterator[list[tuple[str, int]]]:
    """(backend, budget) of each low-latency NixlEP / Mooncake dispatcher half SGLang builds
    in the block, in build order: the budget its own constructor read (mooncake.py:157-162,
    nixl.py:228-233)."""
    made: list[tuple[str, int]] = []
    with sglang_stubs.imports():
        from sglang.srt.layers.moe.token_dispatcher import mooncake, nixl
    classes = ((mooncake._MooncakeEPDispatcherImpl, "mooncake"),
               (nixl._NixlEPDispatcherImplBase, "nixl"))
    saved = [(cls, cls.__init__) for cls, _ in classes]

    def wrap(init, backend):  # type: ignore[no-untyped-def]
        def __init__(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            init(self, *args, **kwargs)
            made.append((backend, self.num_max_dispatch_tokens_per_rank))
        return __init__

    for cls, backend in classes:
        cls.__init__ = wrap(cls.__init__, backend)  # type: ignore[method-assign]
    try:
        yield made
    finally:
        for cls, init in saved:
            cls.__init__ = init  # type: ignore[method-assign]


__all__ = ["ASSERT_SITES", "EP", "EXPERTS", "HIDDEN", "first_buffer", "recording"]
