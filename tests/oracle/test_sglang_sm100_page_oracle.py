"""graphfit == SGLang 0.5.23 on chunked prefill against the page size on SM100 when the
backend flags name both phases (issue 23, s68b; graphfit.planner.engines.sglang_server_chunk.
sm100_flagged): with `--attention-backend` named no default backend is picked, so the flags'
page rules decide the page
(`_mla_backend_page_constraints`, fa4's 128, `_page_size_default`; overrides.py:1144-1363),
and `check_server_args` refuses a chunk the page does not divide (validation_hook.py:243-246).
graphfit judged the page only on named GPUs before Blackwell (and SM100's no-flag floor).
Since issue 23 s68j also on SM103, which SGLang takes for SM100, and on SM120, whose default
backend keeps the page and whose fa4 does not make it 128."""

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


# SM103 and SM120 (issue 23, s68j; sglang_server_chunk.SM100_CAPS, sm120_plain):
# (GPU, target, line, SGLang refuses it)
BLACKWELL: list[tuple[str, str, tuple[str, ...], bool]] = [
    # SM103 is SM100 to SGLang: fa4's 128, trtllm_mha's 64, the no-flag floor
    ("GB300", "dense", ("--attention-backend", "fa4", "--chunked-prefill-size", "100"), True),
    ("GB300", "moe", ("--attention-backend", "trtllm_mha", "--chunked-prefill-size", "96"),
     True),
    ("GB300", "dense", ("--chunked-prefill-size", "48"), True),
    ("GB300", "dense", ("--attention-backend", "triton", "--chunked-prefill-size", "100"),
     False),
    # SM120: fa4 keeps the page (its 128 is SM100's), trtllm_mha makes 1 into 64, and the
    # default (flashinfer / triton) keeps a given page
    ("RTX5090", "dense", ("--attention-backend", "fa4", "--chunked-prefill-size", "100"),
     False),
    ("RTX5090", "dense", ("--attention-backend", "trtllm_mha", "--chunked-prefill-size", "48"),
     True),
    ("RTX5090", "moe", ("--decode-attention-backend", "trtllm_mha", "--chunked-prefill-size",
                        "96"), True),
    ("RTX5090", "moe", ("--page-size", "64", "--chunked-prefill-size", "100"), True),
    ("RTX5090", "dense", ("--chunked-prefill-size", "100"), False),
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


def test_sm103_sm120_lines_agree(targets: dict[str, Path]) -> None:
    """SM103 takes SM100's page rules, SM120 the flags' own (issue 23, s68j): fixed lines and
    a small draw (sglang_sm100_page_oracle.draw_blackwell)."""
    rng = random.Random(6823)
    drawn = [(*sp.draw_blackwell(rng), None) for _ in range(10)]
    wrong, refused = [], 0
    for gpu, name, argv, want in [*BLACKWELL, *drawn]:
        said, line = sp.compare(targets[name], argv, gpu)
        refused += "SGLang None" not in line
        if said != "agree" or (want is not None and want == ("SGLang None" in line)):
            wrong.append(f"{said}: {gpu} {name} {line}")
    assert not wrong, "\n".join(wrong)
    assert refused >= 8  # the fixed refusals, and the draw reaches both answers


@pytest.mark.parametrize("plant", ["sm103_as_other", "sm120_unjudged", "sm120_fa4_128"])
def test_planted_blackwell_rules_are_caught(targets: dict[str, Path],
                                            monkeypatch: pytest.MonkeyPatch,
                                            plant: str) -> None:
    """Plants (issue 23, s68j): SM103 not taken as SM100, SM120 left unjudged, and SM100's fa4
    128 applied on SM120; each makes a fixed line differ."""
    if plant == "sm103_as_other":
        monkeypatch.setattr(sglang_server_chunk, "SM100_CAPS", frozenset({100}))
        gpu, name, argv, _ = BLACKWELL[0]
    elif plant == "sm120_unjudged":
        monkeypatch.setattr(sglang_server_chunk, "sm120_plain", lambda config: False)
        gpu, name, argv, _ = BLACKWELL[5]
    else:
        monkeypatch.setattr(sglang_server_chunk, "SM100_CAPS", frozenset({100, 103, 120}))
        monkeypatch.setattr(sglang_server_chunk, "sm120_plain", lambda config: False)
        gpu, name, argv, _ = BLACKWELL[4]
    said, _ = sp.compare(targets[name], argv, gpu)
    assert said == "differ"
