"""graphfit == SGLang 0.5.23 on the start-up checks of `check_server_args` graphfit restates
after LoRA (issue 23, s66b; graphfit.planner.engines.sglang_server_checks):
`--enable-two-batch-overlap` with the a2a backend resolved to none and attention DP off is
refused, whether the line names none, ascend_tp or no backend; deepep, mooncake, Waterfill's
forced deepep or attention DP let it start; megamoe's own refusal comes first.
`--enable-mixed-chunk` with NGRAM or EAGLE starts (its assert never fires). SGLang: its
resolution, then its own `check_server_args` (tests.oracle.sglang_server_checks_oracle);
graphfit: its CLI."""

from __future__ import annotations

import random
import types
from pathlib import Path
from typing import Any, cast

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.planner.engines import sglang_server_checks  # noqa: E402
from tests.oracle import sglang_server_checks_oracle as sco  # noqa: E402
from tests.oracle import sglang_stubs  # noqa: E402
from tests.oracle import test_sglang_deepep_class_oracle as dc  # noqa: E402

TBO, MIXED = sco.TBO, sco.MIXED
NGRAM, EAGLE = sco.SPECS
FIXED: list[tuple[str, tuple[str, ...], str | None]] = [
    # (target, line after --model-path, the lines of SGLang's check that refuses it)
    ("moe", ("--tp-size", "2", TBO), "756-772"),  # the brief's Qwen3-MoE line
    ("moe", ("--tp-size", "1", "--moe-a2a-backend", "ascend_tp", TBO), "756-772"),  # none
    ("dense", ("--tp-size", "2", TBO), "756-772"),
    ("moe", ("--tp-size", "2", "--moe-a2a-backend", "deepep", TBO), None),
    ("moe", ("--tp-size", "2", "--enable-waterfill", TBO), None),  # deepep, forced
    ("moe", ("--tp-size", "2", "--attn-dp-size", "2", TBO), None),
    # the mixed-chunk assert (validation_hook.py:224-238) never fires: the speculative hook
    # turns mixed chunk off first (speculative_hook.py:1305-1308 for NGRAM)
    ("dense", ("--tp-size", "1", *NGRAM, MIXED), None),
    ("dense", ("--tp-size", "2", *NGRAM, MIXED, TBO), "756-772"),
    ("dense", ("--tp-size", "1", *EAGLE, MIXED), None),
]


@pytest.fixture(scope="module")
def targets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return sco.targets(tmp_path_factory.mktemp("tbo-check"))


def test_fixed_lines_agree(targets: dict[str, Path]) -> None:
    wrong = []
    for name, argv, where in FIXED:
        theirs, at_check = sco.sglang(targets[name], argv)
        code, said = dc.graphfit(targets[name], argv, True)
        # not vacuous: each refusal is SGLang's check_server_args, the check graphfit names
        if (sco.verdict(theirs, at_check, code, said) != "agree"
                or at_check != (where is not None)
                or (where is not None and f"validation_hook.py:{where})" not in said)):
            wrong.append(f"{name} {argv}: SGLang {theirs}; graphfit {code} {said}")
    assert not wrong, "\n".join(wrong)


def test_attention_dp_is_sglangs_predicate(targets: dict[str, Path]) -> None:
    """graphfit's attn_dp_enabled is SGLang's own `attn_dp_enabled_of` (runtime_context.py:
    191-199) on every (attention DP width, elastic-EP join mode): a scale joiner counts."""
    with sglang_stubs.imports():
        from sglang.srt.runtime_context import attn_dp_enabled_of
    for dp in (1, 2, 4):
        for join in (None, "scale", "recover"):
            cfg = types.SimpleNamespace(attn_dp_size=dp, ep_join_mode=join)
            assert sglang_server_checks.attn_dp_enabled(cast(Any, cfg)) == \
                attn_dp_enabled_of(cfg), (dp, join)


def test_drawn_lines_agree(targets: dict[str, Path]) -> None:
    rng = random.Random(66)
    wrong = []
    for _ in range(4):
        name, argv = sco.draw(rng)
        said, line = sco.compare(targets[name], argv)
        if said != "agree":
            wrong.append(f"{said}: {name} {line}")
    assert not wrong, "\n".join(wrong)


def test_planted_rule_off_is_caught(targets: dict[str, Path],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A plant: the rule off (graphfit plans what SGLang refuses) is caught."""
    monkeypatch.setattr(sglang_server_checks, "problem", lambda config, changes=None: None)
    said, _ = sco.compare(targets["moe"], FIXED[0][1])
    assert said == "differ"
