"""A MiniMax-M3 TARGET model at attention TP > 1, against SGLang's own model class
(tests/oracle/sglang_minimax_target_oracle.py builds it on the meta device under the line's
published layout): graphfit refuses a pasted line with SGLang's reason exactly where SGLang's
constructor raises (the per_layer QK norm at attention TP > 1, minimax_m3.py:858-865; an
unknown qk_norm_type, :909), and plans it where SGLang builds the model.

Generated: MiniMax-M3 configs (qk_norm_type absent / per_layer / per_head / multi_head / an
unknown name, KV heads, gemma norm, top level or nested in the VL wrapper's text_config) x
(TP, attention DP) layouts whose attention TP is 1, 2 or 4.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_compare as sc  # noqa: E402
from tests.oracle import sglang_minimax_target_oracle as mo  # noqa: E402

# (tp, attention DP): attention TP 1 (1/1, 2/2, 4/4), 2 (2/1, 4/2), 4 (4/1)
LAYOUTS = ((1, 1), (2, 1), (4, 1), (2, 2), (4, 2), (4, 4))
FIELDS: dict[str, tuple[Any, ...]] = {
    "qk_norm_type": (None, "per_layer", "per_head", "multi_head", "rms"),
    "num_key_value_heads": (4, 8, 2),
    "use_gemma_norm": (False, True),
}


def graphfit_line(path: str, tp: int, attn_dp: int) -> tuple[int, str]:
    """graphfit's reading of the pasted launch line: (exit code, last error line or "")."""
    from graphfit.cli.options import PASTED

    token = PASTED.set(("python", "-m", "sglang.launch_server", "--model-path", path,
                        "--tp-size", str(tp), "--attn-dp-size", str(attn_dp)))
    try:  # `graphfit plan --gpu-memory-gb 80 -- python -m sglang.launch_server ...`
        code, _, output = sc.run_graphfit(["plan", "--gpu-memory-gb", "80"])
    finally:
        PASTED.reset(token)
    errors = [ln for ln in output.splitlines() if ln.startswith("error:")]
    return code, (errors[-1] if errors else "")


def _compare(fields: dict[str, Any], nested: bool, tp: int, attn_dp: int) -> None:
    path = mo.target_dir(fields, nested)
    theirs = mo.build(path, tp, attn_dp)
    code, said = graphfit_line(path, tp, attn_dp)
    case = (fields, nested, tp, attn_dp, theirs, code, said)
    if theirs is None:  # SGLang builds it: graphfit plans the line
        assert code == 0, case
        return
    assert code == 2 and "SGLang cannot build" in said, case
    # the same exception as SGLang's, at the same site
    kind = theirs.split(":", 1)[0]
    assert f"({kind}, models/minimax_m3.py:" in said, case
    assert len(said) <= 200, case


@settings(max_examples=24, deadline=None)
@given(st.sampled_from(LAYOUTS), st.booleans(),
       st.fixed_dictionaries({k: st.sampled_from(v) for k, v in FIELDS.items()}))
def test_minimax_target_matches_sglang(layout: tuple[int, int], nested: bool,
                                       fields: dict[str, Any]) -> None:
    """graphfit refuses exactly the generated lines SGLang's own model class cannot build,
    with SGLang's exception and site; it plans the others."""
    _compare(fields, nested, *layout)


def test_per_layer_default_under_attention_dp() -> None:
    """The default per_layer norm (no qk_norm_type key) starts at TP 2 with attention DP 2
    (attention TP 1) and fails at TP 4 with attention DP 2 (attention TP 2), in SGLang and in
    graphfit alike; a per_head model starts at TP 4."""
    for tp, attn_dp in ((2, 2), (4, 2), (2, 1)):
        _compare({}, False, tp, attn_dp)
        _compare({}, True, tp, attn_dp)
    _compare({"qk_norm_type": "per_head"}, False, 4, 1)
    assert mo.build(mo.target_dir({}, False), 2, 2) is None
    assert "num_heads" in str(mo.build(mo.target_dir({}, False), 4, 2))
