"""graphfit == SGLang 0.5.23 on HiCache under DSA DCP in a live ServerArgs not launched yet
(issue 23, s70g; graphfit.inputs.sglang_live_flags; tests.oracle.sglang_live_dsa_hicache_oracle)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from tests.oracle.paths import require

require("sglang")

from graphfit.inputs import sglang_dsa_dcp_hicache as hc  # noqa: E402
from tests.oracle import sglang_dsa_backends_oracle as dbo  # noqa: E402
from tests.oracle import sglang_live_dsa_hicache_oracle as lho  # noqa: E402

# (target name, fields, whether SGLang refuses)
FIXED: list[tuple[str, dict[str, Any], bool]] = [
    ("v32", {"dcp_size": 2, "enable_hierarchical_cache": True}, True),
    ("glm", {"dcp_size": 2, "enable_hierarchical_cache": True}, True),
    ("v32", {"dcp_size": 1, "enable_hierarchical_cache": True}, False),
    ("mla", {"dcp_size": 2, "enable_hierarchical_cache": True}, False),  # not DSA
    ("v32", {"dcp_size": 2}, False),
]


@pytest.fixture(scope="module")
def targets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return dbo.targets(tmp_path_factory.mktemp("live-dsa-hicache"))


def test_fixed_records_agree(targets: dict[str, Path]) -> None:
    wrong = []
    for name, fields, refused in FIXED:
        said, line = lho.compare(targets, name, fields)
        if said != "agree" or ("SGLang None" in line) == refused:
            wrong.append(f"{said}: {line}")
    assert not wrong, "\n".join(wrong)


def test_drawn_records_agree(targets: dict[str, Path]) -> None:
    rng = random.Random(70)
    wrong = []
    for _ in range(3):
        said, line = lho.compare(targets, *lho.draw(rng))
        if said != "agree":
            wrong.append(f"{said}: {line}")
    assert not wrong, "\n".join(wrong)


def test_planted_check_off_is_caught(targets: dict[str, Path],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant: the live HiCache check off (graphfit plans what SGLang's resolution refuses)."""
    monkeypatch.setattr(hc, "check", lambda values: None)
    said, _ = lho.compare(targets, *FIXED[0][:2])
    assert said == "differ"
