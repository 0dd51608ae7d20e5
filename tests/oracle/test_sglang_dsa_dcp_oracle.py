"""graphfit == SGLang 0.5.23 on a DSA line under `--dcp-size` (issue 23, s69r;
graphfit.planner.engines.sglang_dsa_dcp): the DeepSeek family's `_dsa_dcp_overrides`
(arg_groups/model_overrides/deepseek_v2.py:18-34) refuses HiSparse / HiCache (graphfit.inputs.
sglang_dsa_dcp_hicache), PD disaggregation and an
EAGLE topk other than 1 under `--dcp-size` above 1. Fixed lines and a small draw on the H100
(tests.oracle.sglang_dsa_dcp_oracle), pasted and as graphfit's own config file. Plants: each
refusal off, and the DSA / DCP guards off."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.oracle.paths import require

require("sglang")

from graphfit.planner.engines import sglang_dsa_dcp as dcp  # noqa: E402
from tests.oracle import sglang_dsa_backends_oracle as dbo  # noqa: E402
from tests.oracle import sglang_dsa_dcp_oracle as ddo  # noqa: E402

DCP = ("--dcp-size", "2")
HIS = ("--enable-hisparse", "--disable-radix-cache")
SAYS = {"his": "DSA DCP does not support HiSparse", "pd": "DSA DCP does not support PD",
        "topk": "DSA DCP requires --speculative-eagle-topk 1",
        "not dsa": "--enable-hisparse is only supported for DSA"}
# (name, target, line after --model-path, what SGLang says: a SAYS key or None)
FIXED: list[tuple[str, str, tuple[str, ...], str | None]] = [
    ("hisparse", "v32", (*DCP, *HIS), "his"),
    ("hisparse dcp 1", "v32", ("--dcp-size", "1", *HIS), None),
    ("hicache", "v32", (*DCP, "--enable-hierarchical-cache"), "his"),
    ("hicache glm", "glm", (*DCP, "--enable-hicache"), "his"),
    ("hicache dcp 1", "v32", ("--enable-hierarchical-cache",), None),
    ("hicache not dsa", "mla", (*DCP, "--enable-hierarchical-cache"), None),
    ("hisparse not dsa", "mla", ("--dcp-size", "1", *HIS), "not dsa"),
    ("pd prefill", "v32", (*DCP, "--disaggregation-mode", "prefill"), "pd"),
    ("pd decode glm", "glm", (*DCP, "--disaggregation-mode", "decode"), "pd"),
    ("pd sink", "sink", (*DCP, "--disaggregation-mode", "prefill"), "pd"),
    ("pd dcp 1", "v32", ("--disaggregation-mode", "decode"), None),
    ("pd not dsa", "mla", (*DCP, "--disaggregation-mode", "prefill"), None),
    ("pd nextn", "nextn", (*DCP, "--disaggregation-mode", "prefill"), None),
    ("topk 2", "v32", (*DCP, "--speculative-eagle-topk", "2"), "topk"),
    ("topk 1", "v32", (*DCP, "--speculative-eagle-topk", "1"), None),
    ("topk 2 dcp 1", "glm", ("--speculative-eagle-topk", "2"), None),
    ("dcp alone", "v32", DCP, None),
]
FILE_LINES = ("hisparse", "hicache", "hicache glm", "hicache not dsa", "hisparse not dsa",
              "pd prefill", "pd not dsa", "topk 2", "topk 1")


@pytest.fixture(scope="module")
def targets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return dbo.targets(tmp_path_factory.mktemp("dsa-dcp"))


def _line(name: str) -> tuple[str, tuple[str, ...]]:
    return next((t, a) for n, t, a, _ in FIXED if n == name)


def test_fixed_lines_agree(targets: dict[str, Path]) -> None:
    wrong = []
    for name, target, argv, where in FIXED:
        theirs, _ = dbo.sglang(targets[target], argv, "H100")
        said, line = ddo.compare(targets[target], argv)
        if said != "agree" or (where is None) != (theirs is None) or (
                where is not None and SAYS[where] not in (theirs or "")):
            wrong.append(f"{name}: {said}: {line}")
    assert not wrong, "\n".join(wrong)


def test_config_file_agrees(targets: dict[str, Path]) -> None:
    """graphfit's own config file with the line's flags as keys judges as the pasted line."""
    wrong = [f"{name}: {line}" for name in FILE_LINES
             for said, line in [ddo.compare(targets[_line(name)[0]], _line(name)[1], file=True)]
             if said != "agree"]
    assert not wrong, "\n".join(wrong)


def test_drawn_lines_agree(targets: dict[str, Path]) -> None:
    rng = random.Random(69)
    wrong = [line for said, line in (ddo.compare(targets[n], a, file=rng.random() < 0.4)
                                     for n, a in (ddo.draw(rng) for _ in range(8)))
             if said != "agree"]
    assert not wrong, "\n".join(wrong)


PLANTS = {
    "rule off": ("problem", lambda config: None, "pd prefill"),
    "family guard off": ("FAMILY", frozenset({"DeepseekV3ForCausalLMNextN"}), "pd nextn"),
    "dsa guard off": ("applies", lambda config: config.dcp_size > 1, "pd not dsa"),
}


@pytest.mark.parametrize("plant", sorted(PLANTS))
def test_planted_rule_off_is_caught(targets: dict[str, Path], monkeypatch: pytest.MonkeyPatch,
                                    plant: str) -> None:
    """Plant: the rule off, or its guards widened, makes a fixed line differ."""
    attr, value, name = PLANTS[plant]
    monkeypatch.setattr(dcp, attr, value)
    target, argv = _line(name)
    assert ddo.compare(targets[target], argv)[0] == "differ"


def test_error_lines_are_short() -> None:
    """Each refusal is one line of at most 200 characters ("error: " included)."""
    from types import SimpleNamespace

    base = {"dcp_size": 2, "architecture": "DeepseekV32ForCausalLM", "dsa_checkpoint": True,
            "enable_hisparse": False, "disaggregation_mode": "null",
            "speculative_eagle_topk": None}
    for change in ({"enable_hisparse": True}, {"disaggregation_mode": "prefill"},
                   {"speculative_eagle_topk": 10**9}):
        said = dcp.problem(SimpleNamespace(**{**base, **change}))  # type: ignore[arg-type]
        assert said and len("error: " + said) <= 200 and "\n" not in said
