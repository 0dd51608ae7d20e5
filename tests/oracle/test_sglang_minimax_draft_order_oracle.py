"""A MiniMax M3.1 DSPARK draft that does not build at TP 2 (the per_layer QK norm at attention
TP > 1, models/minimax_m3.py:858-865) on a MiniMax-M3 NVFP4 target (issue 23 s54m): SGLang's
override hook refuses at argument resolution for its GPU-bound reasons first
(arg_groups/model_overrides/minimax_m3.py:68-119); the draft is built only after the target's
worker (managers/scheduler.py:1130-1133). Each case is judged by
tests/oracle/measure_sglang_minimax_nvfp4_hook.verdict (SGLang's own resolution and price on
the fake device against graphfit's plan of the same pasted line); the generated count is
`python -m tests.oracle.measure_sglang_minimax_nvfp4_hook 150 1 spec`.
"""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import measure_sglang_minimax_nvfp4_hook as m  # noqa: E402


def _dspark(*extra: str) -> tuple[str, ...]:
    """A DSPARK line with the oracle's MiniMax draft (builds at TP 1 only); VAR=value words
    in `extra` are the line's environment."""
    from tests.oracle import sglang_dspark_compare as kc

    env = tuple(word for word in extra if "=" in word and not word.startswith("-"))
    rest = tuple(word for word in extra if word not in env)
    return (*env, "--speculative-algorithm", "DSPARK", *rest, kc.DRAFT,
            kc.minimax_dir(m.LAYERS))


# each hook rule that binds on the GPU or the environment, at TP 2 (:68-69 Blackwell, :70-73
# the environment, :74-75 PP, :92-93 the page, :109-111 the a2a backend on Blackwell), then
# the megamoe budget of the rest of argument resolution
HOOK_FIRST: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("H100", _dspark()),
    ("B200", _dspark("SGLANG_RAGGED_VERIFY_MODE=compact")),
    ("B200", _dspark("--pp-size", "2")),
    ("B200", _dspark("--page-size", "64")),
    ("B200", _dspark("--moe-a2a-backend", "deepep")),
    # SGLang's megamoe token budget (argument resolution, pipeline.py:320-324): B200's
    # default 16384-token chunk over the 8192 a rank may take, with the hook's megamoe
    ("B200", _dspark()),
)


@pytest.mark.parametrize(("gpu", "flags"), HOOK_FIRST)
def test_hook_refusal_before_the_draft_build(gpu: str, flags: tuple[str, ...]) -> None:
    outcome, detail = m.verdict(m.target(True), gpu, 2, flags)
    assert outcome == "agree", detail


def test_draft_build_refused_where_the_hook_accepts() -> None:
    """SGLang resolves and prices the B200 line at TP 2; its draft worker then fails to
    build the draft (tests/oracle/test_sglang_dspark_minimax_oracle judges that reason):
    graphfit still refuses, with the draft's reason, once the hook's checks pass."""
    outcome, detail = m.verdict(m.target(True), "B200", 2,
                                _dspark("--chunked-prefill-size", "4096"))
    assert outcome == "build", detail
    assert "DSPARK draft fails to build" in detail and "minimax_m3.py:858-865" in detail
