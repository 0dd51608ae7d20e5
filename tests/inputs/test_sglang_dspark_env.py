"""graphfit.inputs.sglang_dspark_env: SGLang's DSPARK environment variables parsed as
SGLang's EnvBool / EnvStr parse them (environ.py:67-86, 143-150)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from graphfit.inputs.sglang_dspark_env import (
    DFLASH_EAGER,
    FOLDED,
    GREEDY,
    MID_FOLD,
    POST_FORWARD,
    RAGGED,
    dspark_environment,
)

TRUE = ("true", "1", "yes", "y")
FALSE = ("false", "0", "no", "n")
SPELLED = st.sampled_from([*TRUE, *FALSE, "TRUE", "No", "Y", "", "on", "2", "maybe"])


def _parsed(raw: str | None) -> bool | None:
    """EnvBool: a known spelling in any case, else the default (None here: no setting)."""
    if raw is None:
        return None
    return True if raw.lower() in TRUE else False if raw.lower() in FALSE else None


@given(folded=st.none() | SPELLED, greedy=st.none() | SPELLED, mid=st.none() | SPELLED,
       ragged=st.none() | st.text(max_size=80), eager=st.none() | SPELLED,
       post=st.none() | SPELLED)
def test_dspark_environment_as_sglang_parses_it(folded: str | None, greedy: str | None,
                                                 mid: str | None, ragged: str | None,
                                                 eager: str | None, post: str | None) -> None:
    environ = {k: v for k, v in ((FOLDED, folded), (GREEDY, greedy), (MID_FOLD, mid),
                                 (RAGGED, ragged), (DFLASH_EAGER, eager),
                                 (POST_FORWARD, post)) if v is not None}
    got = {s.field: s.value for s in dspark_environment(environ)}
    want: dict[str, object] = {}
    if _parsed(folded) is False:
        want["dspark_proposal"] = "eager"  # no folded sampler: nothing left to be greedy
    elif _parsed(greedy):
        want["dspark_proposal"] = "greedy"
    if _parsed(mid) is not None:
        want["dspark_mid_fold"] = _parsed(mid)
    if _parsed(post) is not None:  # the epilogue's block_accept_lens (sglang_dspark_epilogue)
        want["dspark_post_forward_graph"] = _parsed(post)
    if _parsed(eager) is not None:
        want["dflash_eager_sampler"] = _parsed(eager)
    if ragged is not None:
        want["ragged_verify_mode"] = ragged[:64]  # EnvStr: the raw value
    assert got == want
    assert all(len(s.origin) <= 80 for s in dspark_environment(environ))
