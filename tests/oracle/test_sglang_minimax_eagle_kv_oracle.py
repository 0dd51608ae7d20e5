"""graphfit's MiniMax-M3 sparse KV price on an EAGLE-family line (EAGLE, EAGLE3, NEXTN,
STANDALONE) against SGLang 0.5.23's own `DefaultPoolConfigurator.__init__`, whose target cell
size takes the draft's share: int(cell x draft layers / the stage's layers), times the
hisparse ratio under --enable-hisparse (pool_configurator.py:258-313), the draft layer count
from SGLang's `resolve_spec_aux_hidden_state_config` (spec_aux_hidden_state.py:121-176) on
the draft's ModelConfig (tests/oracle/sglang_minimax_kv_oracle `cell_sizes(init=True)`;
issue 23 s63m). graphfit: graphfit.inputs.sglang_minimax_kv.eagle_shape and
graphfit.planner.engines.sglang_minimax_kv.eagle_share.
`python -m tests.oracle.measure_sglang_minimax_eagle_kv` draws more lines.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_draft_shape as ds  # noqa: E402
from tests.oracle import sglang_minimax_kv_oracle as kv  # noqa: E402
from tests.oracle import test_sglang_minimax_kv_oracle as t  # noqa: E402

STEPS = ("--speculative-num-steps", "3", "--speculative-eagle-topk", "1",
         "--speculative-num-draft-tokens", "4")
VOCAB = 1024  # the MiniMax oracle target's (a STANDALONE draft shares it)


def spec(algorithm: str, draft: str | None = None) -> tuple[str, ...]:
    path = () if draft is None else ("--speculative-draft-model-path", draft)
    return ("--speculative-algorithm", algorithm, *path, *STEPS)


def drafts() -> dict[str, str]:
    return {"eagle3": ds.draft("LlamaForCausalLMEagle3", num_hidden_layers=1),
            "eagle2": ds.draft("LlamaForCausalLMEagle", num_hidden_layers=2),
            "nextn1": ds.draft("LlamaForCausalLMEagle", num_hidden_layers=2,
                               num_nextn_predict_layers=1),
            "llama2": ds.draft("LlamaForCausalLM", num_hidden_layers=2, vocab_size=VOCAB),
            "qwen3": ds.draft("Qwen3ForCausalLM", num_hidden_layers=3),
            "other": ds.draft("MistralForCausalLM", num_hidden_layers=2)}


def cases() -> dict[str, dict[str, Any]]:
    d = drafts()
    pathless = t.case([0, 1, 1], more=spec("NEXTN"))
    return {
        "eagle3-H100": t.case([0, 1, 1], more=spec("EAGLE3", d["eagle3"])),
        "eagle-2-layers-hisparse": t.case([0, 1, 1], more=(*spec("EAGLE", d["eagle2"]),
                                                           *t.HISPARSE)),
        # PP with speculation starts only EAGLE on a prefill server (validation_hook.py:
        # 132-138, 161-164; issue 23 s67b: EAGLE3 under PP is refused on both sides)
        "eagle-pp2": t.case([0, 1, 1], pp=2, more=(*spec("EAGLE", d["eagle2"]),
                                                   "--disaggregation-mode", "prefill")),
        "nextn-field-wins": t.case([0, 1, 1], more=spec("EAGLE", d["nextn1"])),
        "standalone": t.case([0, 1, 1], more=spec("STANDALONE", d["llama2"])),
        "hisparse3-tp2": t.case([0, 1, 1, 1], [0, 0, 1, 0], tp=(2, 1), more=(
            *spec("EAGLE3", d["qwen3"]), *t.HISPARSE, "--hisparse-config",
            '{"host_to_device_ratio": 3}')),
        # int(cell x 1 / 3) x 3 is not the cell: the floor before the hisparse scale
        "eagle3-hisparse3-floor": t.case([0, 1, 1], more=(
            *spec("EAGLE3", d["eagle3"]), *t.HISPARSE, "--hisparse-config",
            '{"host_to_device_ratio": 3}')),
        "B200-fp8-vl": t.case([1, 0], [1, 0], head_dim=64, nested=True, gpu="B200",
                              more=(*spec("EAGLE3", d["eagle3"]), "--kv-cache-dtype",
                                    "fp8_e4m3")),
        # path-less: the target's num_nextn_predict_layers; none -> nothing added
        "nextn-pathless-none": pathless,
        "nextn-pathless-target-1": {**pathless, "fields": {**pathless["fields"],
                                                           "num_nextn_predict_layers": 1}},
    }


def sglang_init(c: dict[str, Any]) -> kv.Priced | str:
    return kv.cell_sizes(t.path_of(c), t.argv_of(c), t.CAPABILITY[c["gpu"]], c["env"],
                         init=True)


@pytest.fixture(scope="module")
def lines() -> dict[str, dict[str, Any]]:
    return cases()


NAMES = list(cases())


@pytest.mark.parametrize("name", NAMES)
def test_eagle_share_equals_sglang(lines: dict[str, dict[str, Any]], name: str) -> None:
    c = lines[name]
    theirs, ours = sglang_init(c), t.graphfit_prices(c)
    assert not isinstance(theirs, str), theirs
    assert theirs == ours, (theirs, ours)


def test_share_binds_plan_line_and_unread_draft() -> None:
    """SGLang's own figures: the draft's share is there (the EAGLE line costs more than the
    target alone, not vacuous); the plan's line states it; a draft architecture graphfit does
    not restate is shown unpriced, never the target-only figure."""
    from graphfit.planner.engines.sglang_minimax_kv import sparse_kv_line

    d = drafts()
    c = t.case([0, 1, 1], more=spec("EAGLE3", d["eagle3"]))
    theirs, alone = sglang_init(c), t.sglang_prices(c)
    assert not isinstance(theirs, str) and not isinstance(alone, str)
    assert theirs[0][0] > alone[0][0]
    got = t.planned_prices(c)
    assert not isinstance(got, str), got
    shown = sparse_kv_line(got[0])
    assert shown is not None and f"{theirs[0][0]} B a token" in shown[1]
    assert f"the EAGLE draft's KV {theirs[0][0] - alone[0][0]}" in shown[1]
    other = t.case([0, 1, 1], more=spec("EAGLE", d["other"]))
    assert not isinstance(sglang_init(other), str)
    assert str(t.graphfit_prices(other)).startswith("not priced")


def test_plants_are_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """graphfit with the share planted without the hisparse scale, over the whole model's
    layers instead of the stage's, or with the draft's num_nextn_predict_layers unread
    differs from SGLang on a fixed line."""
    from graphfit.inputs import sglang_minimax_kv as reader
    from graphfit.planner.engines import sglang_minimax_kv as price

    lines = cases()
    share, real = price.eagle_share, reader.eagle_shape

    def unread_nextn(values: Any, target: Any) -> tuple[int, ...]:
        got = real(values, target)
        return (got[0], 2) if got else ()  # the draft's num_hidden_layers (2), not nextn

    plants = {
        "eagle-2-layers-hisparse": ("eagle_share", lambda p, d, n, s: share(p, d, n, 1)),
        "eagle-pp2": ("eagle_share", lambda p, d, n, s: share(p, d, 3, s)),
        "nextn-field-wins": ("eagle_shape", unread_nextn),
    }
    for name, (what, planted) in plants.items():
        theirs = sglang_init(lines[name])
        monkeypatch.setattr(reader if what == "eagle_shape" else price, what, planted)
        assert t.graphfit_prices(lines[name]) != theirs, name
        monkeypatch.undo()
