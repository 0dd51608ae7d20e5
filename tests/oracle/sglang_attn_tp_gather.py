"""`--disable-attn-tp-gather` on MoE all-to-all lines (issue 23, s68l): SGLang 0.5.23's own
resolution and runners against graphfit's plan of the same pasted line, every aspect
tests.oracle.sglang_moe_a2a_compare compares (acceptance, the target's ladder and padding,
its buffers, prefill graphs, mem_fraction_static, the EAGLE draft runners).

The flag makes `require_attn_tp_gather()` False before the backend is read
(utils/common.py:4142-4143), so the lines drawn are the a2a oracle's own draw
(`sglang_moe_a2a_compare.draw`) with the flag appended: every backend, TP / attention DP,
two-batch overlap, decode / prefill graph flags and EAGLE drafts under their own backend.
"""

from __future__ import annotations

from typing import Any

from tests.oracle import sglang_moe_a2a_compare as mc

FLAG = "--disable-attn-tp-gather"


def draw(rng: Any) -> tuple[str, ...]:
    """The a2a oracle's line with the flag appended."""
    return (*mc.draw(rng), FLAG)


def verdict(argv: tuple[str, ...]) -> tuple[str, str]:
    """("agree" | "differ" | "other", the line and what differs): "other" where graphfit
    refuses as not modelled a line SGLang starts (a backend graphfit does not model, or the
    flag itself before s68l); "SGLang None" in the text where SGLang starts the line."""
    diffs = mc.compare(argv)
    sg, gf = mc.sglang(argv), mc.graphfit_cli(argv)
    text = " ".join(w for w in argv if not w.startswith("/"))
    said = f"{text} :: SGLang {sg.rejected and str(sg.rejected)[:80]}"
    found = [d for ds in diffs.values() for d in ds]
    if not found:
        return "agree", said
    if sg.rejected is None and gf.rejected is not None and "not modelled" in gf.rejected:
        return "other", f"{said} / graphfit {gf.rejected[:120]}"
    return "differ", f"{said} / {found[0].detail[:200]}"


__all__ = ["FLAG", "draw", "verdict"]
