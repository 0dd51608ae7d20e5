"""`--moe-dense-tp-size` on MoE all-to-all lines (issue 23, s69c): SGLang 0.5.23's own
resolution and runners against graphfit's plan of the same pasted line, every aspect
tests.oracle.sglang_moe_a2a_compare compares (acceptance, the target's ladder and padding,
its buffers, prefill graphs, mem_fraction_static, the EAGLE draft runners).

SGLang accepts the value None, 1 or `--tp-size` (arg_groups/validation_hook.py:207-211);
a set value makes `require_attn_tp_gather()` read as a live backend does
(utils/common.py:4147-4156) and, under attention DP with the DP LM head and a backend
outside none / flashinfer / megamoe, decides `require_mlp_tp_gather()` (:4090-4130). So the
lines drawn are the a2a oracle's own draw (`sglang_moe_a2a_compare.draw`) with the value
appended (1, the TP size, or one SGLang refuses), and the DP LM head on some attention-DP
lines.
"""

from __future__ import annotations

from typing import Any

from tests.oracle import sglang_moe_a2a_compare as mc

FLAG = "--moe-dense-tp-size"
LM_HEAD = "--enable-dp-lm-head"


def tp_size(argv: tuple[str, ...]) -> int:
    """The line's --tp-size (1 when not given)."""
    return int(argv[argv.index("--tp-size") + 1]) if "--tp-size" in argv else 1


def draw(rng: Any) -> tuple[str, ...]:
    """The a2a oracle's line with a dense TP size appended; the DP LM head on half the
    attention-DP lines."""
    argv = mc.draw(rng)
    tp = tp_size(argv)
    value = rng.choice((1, 1, tp, tp, 2, 3))
    head = (LM_HEAD,) if "--attn-dp-size" in argv and rng.random() < 0.5 else ()
    return (*argv, *head, FLAG, str(value))


def global_rows(sg: Any, gf: Any) -> list[str]:
    """The fixed-axis `global_num_tokens_gpu` entries the a2a oracle's buffer comparison
    leaves out (runner_utils/buffers.py:212-217: one per attention-DP rank when the runner
    gathers the MLP input, else one), on SGLang's target runner and every other runner whose
    graphfit component plans them; one line per runner that differs."""
    from tests.oracle import sglang_compare as sc

    if sg.rejected is not None or gf.rejected is not None or sg.runners is None:
        return []
    out = []
    for name, run in sg.runners.items():
        theirs = run.buffers.get("global_num_tokens_gpu")
        component = gf.plan.components.get(sc.GF_COMPONENT.get(name, name))
        if theirs is None or component is None:
            continue
        ours = next((b.capacity for b in component.buffers
                     if b.name == "global_num_tokens_gpu"), None)
        # EAGLE's draft runners' entries are compared too since s69p (graphfit planned none,
        # s69c's Left; tests.oracle.sglang_eagle_tokens compares both names both ways)
        if ours != int(theirs.shape[0]):
            out.append(f"{name}.global_num_tokens_gpu: SGLang {int(theirs.shape[0])}, "
                       f"graphfit {ours}")
    return out


def verdict(argv: tuple[str, ...]) -> tuple[str, str]:
    """("agree" | "differ" | "other", the line and what differs): "other" where graphfit
    refuses as not modelled a line SGLang starts (a backend graphfit does not model, or the
    flag itself before s69c). The a2a oracle's aspects, then `global_rows`."""
    return mc.verdict_with(argv, global_rows)


__all__ = ["FLAG", "LM_HEAD", "draw", "global_rows", "tp_size", "verdict"]
