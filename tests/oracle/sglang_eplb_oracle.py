"""SGLang 0.5.23's own EPLB start-up checks on one line: `_a2a_ep_size`
(arg_groups/overrides.py:1611-1620) then `handle_eplb_and_dispatch`
(arg_groups/parallel_hook.py:750-791), and on request `handle_elastic_ep` (:519-745; a
join mode without an elastic backend stops there), on a plain namespace of server arguments.

Only these are stubbed: `resolving_view` / `resolved_view` return the namespace itself and
`declare_resolution` writes its fields onto it (SGLang's views read the declared values
back, which is what an attribute write gives); the post-process's ep_size is written the
same way. Everything the two functions decide is SGLang's code.
"""

from __future__ import annotations

import types
from typing import Any

from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_stubs
from tests.oracle.sglang_model_quant_oracle import _patched


def check(*, enable_eplb: bool, init_expert_location: str, ep_size: int, tp_size: int,
          moe_a2a_backend: str, ep_join_mode: str | None,
          ep_dispatch_algorithm: str | None, elastic: bool = False) -> str | None:
    """None where SGLang starts, else its refusal (an AssertionError without a message reads
    "AssertionError"); `elastic`: run `handle_elastic_ep` after (elastic EP's own flags at
    their defaults)."""
    so.oracle()
    with sglang_stubs.stubbed(), sglang_stubs.fake_cuda(80 * 1024, capability=(10, 0)):
        from sglang.srt.arg_groups import overrides, parallel_hook

        args = types.SimpleNamespace(
            enable_eplb=enable_eplb, init_expert_location=init_expert_location,
            ep_size=ep_size, tp_size=tp_size, moe_a2a_backend=moe_a2a_backend,
            ep_join_mode=ep_join_mode, ep_dispatch_algorithm=ep_dispatch_algorithm,
            expert_distribution_recorder_mode=None,
            # handle_elastic_ep's inputs at their defaults (the line draws none of them)
            elastic_ep_backend=None, eplb_algorithm="auto", pp_size=1, node_rank=0,
            ep_join_rank_offset=0, max_ep_size=None, elastic_ep_initial_size=None)

        def declare(server_args: Any, _source: str, **fields: Any) -> None:
            for key, value in fields.items():
                setattr(server_args, key, value)

        for key, value in overrides._a2a_ep_size(args).items():
            setattr(args, key, value)
        try:
            with _patched((parallel_hook, "resolving_view", lambda a: a),
                          (parallel_hook, "resolved_view", lambda a: a),
                          (parallel_hook, "declare_resolution", declare)):
                parallel_hook.handle_eplb_and_dispatch(args)
                if elastic:  # after it (resolution_hooks.py:76-79)
                    parallel_hook.handle_elastic_ep(args)
        except (ValueError, AssertionError) as exc:
            return str(exc) or type(exc).__name__
        return None


__all__ = ["check"]
