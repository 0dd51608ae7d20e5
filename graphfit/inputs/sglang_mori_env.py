"""MoRI EP's two switches from the line's environment, as SGLang 0.5.23's EnvBool reads them
(environ.py:67-89, 143-150): `SGLANG_MORI_EP_V2` (default true, environ.py:933) and
`SGLANG_MORI_RECV_BOUND` (default false, :939). graphfit.planner.engines.sglang_mori_ep
decides what they change (the MLP gather's DP bookkeeping on mori runners).

Why its own reader, apart from graphfit.inputs.environment's table: EPv2's variable matters
even where its value cannot be parsed (SGLang reads the default, true, and `is_set` is true,
so the a2a hook keeps EPv2, arg_groups/moe_hook.py:783-795), so it is recorded as set, not
dropped as the other EnvBools are (issue 23 s70j).
"""

from __future__ import annotations

from collections.abc import Mapping

from graphfit.inputs.settings import COMMAND_LINE, Setting

ENV_EP_V2 = "SGLANG_MORI_EP_V2"
ENV_RECV_BOUND = "SGLANG_MORI_RECV_BOUND"
ENV_USE_AITER = "SGLANG_USE_AITER"  # EnvBool, off (environ.py:949)
ENV_SDMA = "MORI_ENABLE_SDMA"  # get_bool_env_var: true / 1 only (utils/common.py:1424-1440)
_FALSE = ("false", "0", "no", "n")  # EnvBool.parse (environ.py:143-150), lower-cased
_TRUE = ("true", "1", "yes", "y")


def environment(environ: Mapping[str, str]) -> list[Setting]:
    """SglangOptions.mori_ep_v2 (False for a false spelling, True for any other value, no
    setting when unset) and mori_recv_bound (True for a true spelling, False for any other
    value, which SGLang reads as its default, off)."""
    out: list[Setting] = []
    raw = environ.get(ENV_EP_V2)
    if raw is not None:
        out.append(Setting("mori_ep_v2", raw.lower() not in _FALSE, f"{ENV_EP_V2}={raw}",
                           COMMAND_LINE))
    raw = environ.get(ENV_RECV_BOUND)
    if raw is not None:
        out.append(Setting("mori_recv_bound", raw.lower() in _TRUE, f"{ENV_RECV_BOUND}={raw}",
                           COMMAND_LINE))
    # s70s: the two switches `_mori_epv2_unsupported_reason` reads (moe_hook.py:819-822)
    raw = environ.get(ENV_USE_AITER)
    if raw is not None:
        out.append(Setting("mori_use_aiter", raw.lower() in _TRUE, f"{ENV_USE_AITER}={raw}",
                           COMMAND_LINE))
    raw = environ.get(ENV_SDMA)
    if raw is not None:
        out.append(Setting("mori_sdma", raw.lower() in ("true", "1"), f"{ENV_SDMA}={raw}",
                           COMMAND_LINE))
    return out


__all__ = ["ENV_EP_V2", "ENV_RECV_BOUND", "ENV_SDMA", "ENV_USE_AITER", "environment"]
