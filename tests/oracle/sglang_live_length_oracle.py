"""The live path's context length (issue 23 s47l) against SGLang's ModelConfig.context_len
(configs/model_config.py:1291-1329) on the lines tests/oracle/sglang_context_length_oracle.py
generates: SGLang's own `prepare_server_args` builds the ServerArgs from the line, graphfit
reads them with graphfit.integrations.sglang.from_sglang (the server's environment given as
`environ`) and its `max_model_len` must be SGLang's length, or both refuse (a
--context-length above the derived one without SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN).
Shared by tests/oracle/test_sglang_live_length_oracle.py and
tests/oracle/measure_sglang_live_length.py."""

from __future__ import annotations

import contextlib
import io

from tests.oracle import sglang_context_length_oracle as t
from tests.oracle import sglang_oracle as so


def live_length(model: str, argv: tuple[str, ...], env: dict[str, str]) -> int | str:
    """graphfit's max_model_len on the live path for SGLang's ServerArgs of the line, or its
    error (or SGLang's argparse refusal, which leaves no ServerArgs)."""
    from graphfit import ConfigError
    from graphfit.integrations import sglang as gs
    from tests.oracle import sglang_stubs

    o = so.oracle()
    with t.environment(env), sglang_stubs.fake_cuda(80 * so.MIB_PER_GB):
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                record = o.server_args.prepare_server_args(["--model-path", model, *argv])
        except SystemExit:
            return "argparse"
        try:
            config = gs.from_sglang(record, environ=env, gpu_memory_gb=80, max_num_seqs=48)
        except ConfigError as exc:
            return str(exc)
    return int(config.max_model_len)


def verdict(model: str, argv: tuple[str, ...], env: dict[str, str]) -> str:
    """"agree" / "refused" (both) / "asked" (a class default graphfit does not know: the
    pasted line asks for --context-length; the live path keeps its default) / "differ"."""
    sg, live = t.sglang_length(model, argv, env), live_length(model, argv, env)
    if isinstance(sg, str) and isinstance(live, str):
        return "refused"
    if sg == live:
        return "agree"
    if isinstance(sg, int) and t.graphfit_asks(model, argv, env):
        return "asked"
    return f"differ: SGLang {str(sg)[:100]}, live {str(live)[:100]}"


def draft_verdict(model: str, draft: str, argv: tuple[str, ...], env: dict[str, str]) -> str:
    """A line with a local draft (t.draft_case): "agree" where the live path plans the
    target's length and SGLang's draft worker builds the draft's ModelConfig, "refused"
    where both refuse (a draft shorter than the target, configs/model_config.py:1295-1316),
    "asked" for a draft class default graphfit does not know, else "differ"."""
    sg, live = t.sglang_draft_length(model, draft, argv, env), live_length(model, argv, env)
    if isinstance(sg, str) and isinstance(live, str):
        return "refused"
    if isinstance(sg, int) and isinstance(live, int) and sg == live:
        return "agree"
    if isinstance(sg, int) and (t.graphfit_asks(model, argv, env)
                                or t.draft_asked(model, argv, env)):
        return "asked"
    return f"differ: SGLang {str(sg)[:100]}, live {str(live)[:100]}"
