"""SGLang's environment variables that change DSPARK's graph buffers (and DFLASH's
`SGLANG_DFLASH_EAGER_DRAFT_SAMPLER`: no folded sampler, dflash_worker_v2.py:890-891), read
from a pasted line's `VAR=value` prefix (graphfit never reads its own process environment
for an engine).

Each is parsed as SGLang's `envs` parse it: EnvBool (environ.py:143-150: true/1/yes/y,
false/0/no/n, any case; another value warns and keeps the default, environ.py:67-86, so no
setting), EnvStr for SGLANG_RAGGED_VERIFY_MODE (the raw value; DSPARK compares it exactly,
ragged_verify.py:19-27). What each changes: graphfit.planner.engines.sglang_dspark_modes.
Other algorithms read none of them (the planner ignores the options outside DSPARK, and the
DFLASH one outside DFLASH).
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator, Mapping

from graphfit.inputs.settings import COMMAND_LINE, Setting

FOLDED = "SGLANG_DSPARK_FOLDED_PROPOSAL"  # environ.py:555, default on
GREEDY = "SGLANG_DSPARK_USE_GREEDY_DRAFT"  # environ.py:554, default off
MID_FOLD = "SGLANG_OPT_DSV41_DSPARK_MID_FOLD"  # environ.py:1891, default off
POST_FORWARD = "SGLANG_OPT_DSV41_POST_FORWARD_CUDA_GRAPH"  # environ.py:1903, default off
RAGGED = "SGLANG_RAGGED_VERIFY_MODE"  # environ.py:1572, default "static"
DFLASH_EAGER = "SGLANG_DFLASH_EAGER_DRAFT_SAMPLER"  # environ.py:1569, default off (DFLASH)
_TRUE = ("true", "1", "yes", "y")
_FALSE = ("false", "0", "no", "n")


def _bool(environ: Mapping[str, str], name: str) -> bool | None:
    raw = environ.get(name)
    if raw is None:
        return None
    value = raw.lower()
    return True if value in _TRUE else False if value in _FALSE else None


def flag(environ: Mapping[str, str], name: str, default: bool) -> bool:
    """An EnvBool as SGLang reads it: unset or unparsable keeps `default`."""
    value = _bool(environ, name)
    return default if value is None else value


# the pasted line's VAR=value prefix while its flags are read (graphfit.inputs.commandline),
# for the draft readers that decide a refusal on it (sglang_dspark_minimax_tp); empty for a
# config file or a live check, i.e. SGLang's defaults
_LINE_ENVIRON: contextvars.ContextVar[Mapping[str, str] | None] = contextvars.ContextVar(
    "line_environ", default=None)


@contextlib.contextmanager
def line_environment(environ: Mapping[str, str]) -> Iterator[None]:
    """Make the pasted line's environment readable by `line_environ()` inside the block."""
    token = _LINE_ENVIRON.set(dict(environ))
    try:
        yield
    finally:
        _LINE_ENVIRON.reset(token)


def line_environ() -> Mapping[str, str]:
    """The pasted line's environment being read (module-level default: none)."""
    return _LINE_ENVIRON.get() or {}


def dspark_environment(environ: Mapping[str, str]) -> list[Setting]:
    """The settings SGLang's DSPARK environment variables give (none when unset)."""
    out: list[Setting] = []
    folded, greedy = _bool(environ, FOLDED), _bool(environ, GREEDY)
    if folded is False:  # no sampler at all: the greedy switch shapes nothing then
        out.append(Setting("dspark_proposal", "eager", f"{FOLDED}={environ[FOLDED]}",
                           COMMAND_LINE))
    elif greedy:
        out.append(Setting("dspark_proposal", "greedy", f"{GREEDY}={environ[GREEDY]}",
                           COMMAND_LINE))
    mid = _bool(environ, MID_FOLD)
    if mid is not None:
        out.append(Setting("dspark_mid_fold", mid, f"{MID_FOLD}={environ[MID_FOLD]}",
                           COMMAND_LINE))
    post = _bool(environ, POST_FORWARD)
    if post is not None:
        out.append(Setting("dspark_post_forward_graph", post,
                           f"{POST_FORWARD}={environ[POST_FORWARD]}", COMMAND_LINE))
    eager = _bool(environ, DFLASH_EAGER)
    if eager is not None:
        out.append(Setting("dflash_eager_sampler", eager,
                           f"{DFLASH_EAGER}={environ[DFLASH_EAGER]}", COMMAND_LINE))
    if RAGGED in environ:
        out.append(Setting("ragged_verify_mode", environ[RAGGED][:64],
                           f"{RAGGED}={environ[RAGGED][:40]}", COMMAND_LINE))
    return out
