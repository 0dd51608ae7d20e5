"""Measure graphfit's MiniMax-M3 sparse KV price on EAGLE-family lines against SGLang's own
`DefaultPoolConfigurator.__init__` (the draft's share, pool_configurator.py:258-313; issue 23
s63m): `python -m tests.oracle.measure_sglang_minimax_eagle_kv [COUNT] [SEED] [BEFORE]`
(default 40 draws, seed 63). A draw is the KV oracle's `draw` (test_sglang_minimax_kv_oracle)
with an EAGLE / EAGLE3 / NEXTN / STANDALONE spec: a local draft of 1-3 layers (Llama EAGLE /
EAGLE3, a Llama or Qwen3 causal LM; a `num_nextn_predict_layers` on some) or, for NEXTN,
none (the target's own num_nextn_predict_layers, sometimes set). It prints SGLang's refusals,
each difference and the counts; BEFORE (e.g. /work/main) counts the lines whose plan by that
tree states SGLang's per-token figure on every stage, printed first."""

from __future__ import annotations

import random
import sys
from typing import Any

from tests.oracle import sglang_draft_shape as ds
from tests.oracle import test_sglang_minimax_kv_oracle as t
from tests.oracle.measure_sglang_minimax_kv import _states_totals, measure
from tests.oracle.test_sglang_minimax_eagle_kv_oracle import VOCAB, sglang_init, spec

ARCHS = {"EAGLE": ("LlamaForCausalLMEagle",), "EAGLE3": ("LlamaForCausalLMEagle3",),
         "NEXTN": ("LlamaForCausalLMEagle", None), "STANDALONE": ("LlamaForCausalLM",
                                                                 "Qwen3ForCausalLM")}


def draw(rng: random.Random) -> dict[str, Any]:
    """One line: the KV oracle's draw with an EAGLE-family spec."""
    c = t.draw(rng)
    algorithm = rng.choice(list(ARCHS))
    arch = rng.choice(ARCHS[algorithm])
    fields = dict(c["fields"])
    if arch is None:
        if rng.random() < 0.5:
            fields["num_nextn_predict_layers"] = rng.choice((1, 2))
        return {**c, "fields": fields, "more": tuple(c["more"]) + spec(algorithm)}
    extra: dict[str, Any] = {"num_hidden_layers": rng.randint(1, 3), "vocab_size": VOCAB}
    if rng.random() < 0.3:
        extra["num_nextn_predict_layers"] = 1
    draft = ds.draft(arch, **extra)
    return {**c, "fields": fields, "more": tuple(c["more"]) + spec(algorithm, draft)}


def verdict(c: dict[str, Any]) -> tuple[str, Any, Any]:
    """("agree" | "differ" | "sglang refuses", SGLang's, graphfit's)."""
    theirs, ours = sglang_init(c), t.graphfit_prices(c)
    if isinstance(theirs, str):
        return ("sglang refuses", theirs, ours)
    return ("agree" if theirs == ours else "differ", theirs, ours)


def main(count: int = 40, seed: int = 63, root: str | None = None) -> None:
    measure(draw, verdict, lambda c: (t.argv_of(c), c["gpu"], c["fields"]), count, seed, root,
            states=_states_totals, ours_width=160)


if __name__ == "__main__":
    args = sys.argv[1:]
    main(int(args[0]) if args else 40, int(args[1]) if len(args) > 1 else 63,
         args[2] if len(args) > 2 else None)
