"""graphfit == SGLang 0.5.23 on chunked prefill against the page size on SM100 when the
backend flags name both phases (issue 23, s68b; graphfit.planner.engines.sglang_server_chunk.
sm100_flagged): with `--attention-backend` named no default backend is picked, so the flags'
page rules decide the page
(`_mla_backend_page_constraints`, fa4's 128, `_page_size_default`; overrides.py:1144-1363),
and `check_server_args` refuses a chunk the page does not divide (validation_hook.py:243-246).
graphfit judged the page only on named GPUs before Blackwell (and SM100's no-flag floor)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.oracle.paths import require

require("sglang")

from graphfit.planner.engines import sglang_server_chunk  # noqa: E402
from tests.oracle import sglang_server_args_oracle as sao  # noqa: E402
from tests.oracle import sglang_sm100_page_oracle as sp  # noqa: E402

FIXED: list[tuple[str, tuple[str, ...], bool]] = [
    # (target, line, SGLang refuses it)
    ("dense", ("--attention-backend", "triton", "--page-size", "64",
               "--chunked-prefill-size", "100"), True),
    ("dense", ("--attention-backend", "trtllm_mha", "--chunked-prefill-size", "100"), True),
    ("dense", ("--attention-backend", "fa4", "--chunked-prefill-size", "100"), True),
    ("dense", ("--attention-backend", "triton", "--chunked-prefill-size", "100"), False),
    ("moe", ("--attention-backend", "flashinfer", "--page-size", "32",
             "--chunked-prefill-size", "48"), True),
    # the phases' flags alone leave the base backend to SGLang's SM100 default, whose page
    # rule applies (trtllm_mha: page 1 becomes 64): not judged, graphfit plans it
    ("moe", ("--prefill-attention-backend", "triton", "--decode-attention-backend",
             "flashinfer", "--chunked-prefill-size", "128"), False),
    ("dense", ("--attention-backend", "fa4", "--chunked-prefill-size", "-1"), False),
]


@pytest.fixture(scope="module")
def targets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return sao.targets(tmp_path_factory.mktemp("sm100-page"))


def test_fixed_lines_agree(targets: dict[str, Path]) -> None:
    wrong = []
    for name, argv, refused in FIXED:
        said, line = sp.compare(targets[name], argv)
        if said != "agree" or refused == ("SGLang None" in line):
            wrong.append(f"{said}: {name} {line}")
    assert not wrong, "\n".join(wrong)


def test_drawn_lines_agree(targets: dict[str, Path]) -> None:
    rng = random.Random(68)
    wrong, refused = [], 0
    for _ in range(8):
        name, argv = sp.draw(rng)
        said, line = sp.compare(targets[name], argv)
        refused += "SGLang None" not in line
        if said != "agree":
            wrong.append(f"{said}: {name} {line}")
    assert not wrong, "\n".join(wrong)
    assert 2 <= refused <= 6  # the draw reaches both answers


def test_planted_rule_off_is_caught(targets: dict[str, Path],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant: the SM100 flagged page left unjudged (as before) is caught."""
    monkeypatch.setattr(sglang_server_chunk, "sm100_flagged", lambda config: False)
    name, argv, _ = FIXED[0]
    said, _ = sp.compare(targets[name], argv)
    assert said == "differ"
