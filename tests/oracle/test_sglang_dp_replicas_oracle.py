"""graphfit == SGLang 0.5.23 on data-parallel replicas beside attention DP
(arg_groups/parallel_hook.py:287-292) on a pasted line, graphfit's config file and a live
record (issue 23, s70o; graphfit.planner.engines.sglang_dp_replicas;
tests.oracle.sglang_dp_replicas_oracle)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from tests.oracle.paths import require

require("sglang")

from graphfit.inputs import sglang as sglang_args  # noqa: E402
from graphfit.inputs.settings import Setting  # noqa: E402
from graphfit.planner.engines import sglang_dp_replicas, sglang_dwdp  # noqa: E402
from tests.oracle import sglang_dp_replicas_oracle as dro  # noqa: E402
from tests.oracle import sglang_server_args_oracle as sao  # noqa: E402

# (form, values, whether SGLang refuses with the replicas sentence; None: it starts the line)
FIXED: list[tuple[str, dict[str, Any], bool | None]] = [
    ("line", {"tp_size": 2, "dp_size": 2, "attn_dp_size": 2}, True),
    ("line", {"tp_size": 4, "dp_size": 2, "attn_dp_size": 4}, True),
    ("line", {"tp_size": 3, "dp_size": 2, "attn_dp_size": 2}, True),  # before the TP assert
    ("line", {"tp_size": 2, "dp_size": 3, "attn_dp_size": 2, "enable_dp_attention": True},
     True),
    ("line", {"tp_size": 2, "dp_size": 2, "enable_dp_attention": True}, None),  # width 2
    ("line", {"tp_size": 2, "dp_size": 2}, None),
    # the deprecated width replaces an explicit 1 too (parallel_hook.py:50-57)
    ("line", {"tp_size": 4, "dp_size": 2, "attn_dp_size": 1, "enable_dp_attention": True},
     None),
    ("line", {"tp_size": 2, "attn_dp_size": 2}, None),
    ("file", {"dp_size": 2, "attn_dp_size": 2}, True),
    ("file", {"enable_dp_attention": True, "dp_size": 2, "attn_dp_size": 2}, True),
    ("file", {"dp_size": 2}, None),
    ("live", {"dp_size": 2, "attn_dp_size": 2}, True),
    ("live", {"attn_dp_size": 2}, None),
]


@pytest.fixture(scope="module")
def targets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return sao.targets(tmp_path_factory.mktemp("dp-replicas"))


def _wrong(targets: dict[str, Path], cases: list[tuple[str, dict[str, Any], bool | None]]
           ) -> list[str]:
    wrong = []
    for form, data, refused in cases:
        said, line = dro.compare(targets, form, data)
        if said != "agree" or ("SGLang None" in line) != (refused is None) or (
                refused and dro.WORDS[:30] not in line.split("; graphfit")[0]):
            wrong.append(f"{said}: {line}")
    return wrong


def test_fixed_cases_agree(targets: dict[str, Path]) -> None:
    wrong = _wrong(targets, FIXED)
    assert not wrong, "\n".join(wrong)


def test_drawn_cases_agree(targets: dict[str, Path]) -> None:
    rng = random.Random(70)
    wrong, refused, forms = [], 0, set()
    for _ in range(8):
        form, data = dro.draw(rng)
        forms.add(form)
        said, line = dro.compare(targets, form, data)
        refused += "SGLang None" not in line
        if said != "agree":
            wrong.append(f"{said}: {line}")
    assert not wrong, "\n".join(wrong)
    assert 1 <= refused <= 7 and len(forms) >= 2  # the draw reaches both answers


def test_dwdp_folds_replicas(targets: dict[str, Path]) -> None:
    """DWDP declares dp_size 1 before the check (parallel_hook.py:466-470): SGLang starts
    `--dwdp-size 2 --dp-size 2 --attn-dp-size 2` on TP 2, and so does graphfit."""
    argv = ("--tp-size", "2", "--dwdp-size", "2", "--dp-size", "2", "--attn-dp-size", "2")
    said, line = sao.compare(targets["moe"], argv)
    assert said == "agree" and "SGLang None" in line and "graphfit 0" in line, line


def test_planted_check_off_is_caught(targets: dict[str, Path],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant: the planner's check dropped: the line, file and live forms are planned where
    SGLang refuses (the prefill-CP route's own call is not on these lines)."""
    monkeypatch.setattr(sglang_dp_replicas, "check", lambda config: None)
    for form, data, _ in (FIXED[0], FIXED[8], FIXED[11]):
        said, line = dro.compare(targets, form, data)
        assert said == "differ", line


def test_planted_dwdp_keeps_replicas_is_caught(targets: dict[str, Path],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant: DWDP's rewrite without `dp_replicas` 1: graphfit refuses what SGLang starts."""
    real = sglang_dwdp.rewrite

    def kept(config: Any) -> dict[str, object]:
        return {k: v for k, v in real(config).items() if k != "dp_replicas"}

    monkeypatch.setattr(sglang_dwdp, "rewrite", kept)
    argv = ("--tp-size", "2", "--dwdp-size", "2", "--dp-size", "2", "--attn-dp-size", "2")
    said, _ = sao.compare(targets["moe"], argv)
    assert said == "differ"


def test_planted_width_below_the_line_is_caught(targets: dict[str, Path],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant: the deprecated width at the line's own priority again: `--attn-dp-size 1`
    beside it is refused as a conflict where SGLang starts the line."""
    real = sglang_args.deprecated_dp_attention

    def level(values: Any) -> list[Setting]:
        return [Setting(s.field, s.value, s.origin, s.layer) for s in real(values)]

    monkeypatch.setattr(sglang_args, "deprecated_dp_attention", level)
    said, _ = dro.compare(targets, *FIXED[6][:2])
    assert said == "differ"
