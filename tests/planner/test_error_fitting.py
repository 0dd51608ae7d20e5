"""graphfit.planner.core.errors.fitted, the one cut shared by the refusals that quote an
engine's words after graphfit's own head (the pasted line's refusal, SGLang's argparse on a
config file's key): the head is kept whole, the line fits MAX_ERROR_CHARS, and what is shown
of the engine's words is their start."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from graphfit.cli.errors import error_line
from graphfit.planner.core.errors import fitted
from graphfit.planner.core.limits import MAX_ERROR_CHARS

# lengths drawn evenly up to twice the line, so that cut and uncut reasons both come up
WORDS = st.integers(0, 2 * MAX_ERROR_CHARS).flatmap(
    lambda n: st.text(alphabet="abcxyz:-_.'[] ", min_size=n, max_size=n)).map(
    lambda t: " ".join(t.split()))


@given(st.text(alphabet="abc: ", min_size=1, max_size=150), WORDS)
@example("x.json: attention_backend: SGLang 0.5.23 refuses it: ", "argument: " + "y" * 300)
@example("h" * 150, "z" * 60)
def test_head_kept_line_fits_reason_is_a_prefix(head: str, reason: str) -> None:
    line = fitted(head, reason)
    assert line.startswith(head)
    assert len(f"error: {line}") <= MAX_ERROR_CHARS
    shown = line[len(head):]
    assert reason.startswith(shown.removesuffix("...")) or shown == reason
    if len(f"error: {head}{reason}") <= MAX_ERROR_CHARS:
        assert shown == reason  # nothing is cut from a line that fits
    else:
        assert shown.endswith("...")
    assert error_line(line) == f"error: {' '.join(line.split())}"  # the CLI's cut never applies
