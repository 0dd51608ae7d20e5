"""graphfit == SGLang 0.5.23 on the deprecated `enable_dp_attention` in graphfit's config file,
read as a Python caller's ServerArgs (issue 23, s70g; graphfit.inputs.sglang_file_dp_attention;
tests.oracle.sglang_file_dp_attention_oracle)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from tests.oracle.paths import require

require("sglang")

from graphfit.inputs import sglang_file_dp_attention as fda  # noqa: E402
from tests.oracle import sglang_file_dp_attention_oracle as fdo  # noqa: E402
from tests.oracle import sglang_server_args_oracle as sao  # noqa: E402

# (mapping, a word of SGLang's refusal, None where SGLang starts it)
FIXED: list[tuple[dict[str, Any], str | None]] = [
    ({"enable_dp_attention": True, "dp_size": 2}, None),  # attention DP 2 on TP 2
    ({"enable_dp_attention": True, "dp_size": 3}, "AssertionError"),  # 3 does not divide 2
    ({"enable_dp_attention": True, "dp_size": 2, "attn_dp_size": 1}, None),
    ({"enable_dp_attention": True}, None),
    ({"enable_dp_attention": False, "dp_size": 2}, None),  # two replicas
]


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return sao.targets(tmp_path_factory.mktemp("file-dp-attention"))["dense"]


def test_fixed_files_agree(target: Path) -> None:
    wrong = []
    for data, word in FIXED:
        said, line = fdo.compare(target, data)
        if said != "agree" or ("SGLang None" in line) != (word is None) or (
                word is not None and f"SGLang {word}" not in line):
            wrong.append(f"{said}: {line}")
    assert not wrong, "\n".join(wrong)


def test_drawn_files_agree(target: Path) -> None:
    rng = random.Random(72)
    wrong, refused = [], 0
    for _ in range(6):
        said, line = fdo.compare(target, fdo.draw(rng))
        refused += "SGLang None" not in line
        if said != "agree":
            wrong.append(f"{said}: {line}")
    assert not wrong, "\n".join(wrong)
    assert 1 <= refused <= 5  # the draw reaches both answers


def test_planted_width_off_is_caught(target: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant: the file's keys read apart again (the width not applied): graphfit plans two
    replicas where SGLang's record asserts on an attention-DP width of 3."""
    monkeypatch.setattr(fda, "settings", lambda data, name, found: found)
    said, _ = fdo.compare(target, FIXED[1][0])
    assert said == "differ"
