"""graphfit == SGLang 0.5.23 on a DSA line's backends without HiSparse (issue 23, s69m;
graphfit.planner.engines.sglang_dsa_backends): the resolution's `_check_dsa_backend_constraints`
(arg_groups/overrides.py:550-582, 714-738: triton off ROCm, CUDA TileLang FP8's mix, DCP and
SM89) and the learnable-sink arm (:642-656), on fixed lines and a small draw over five
targets and five GPUs (tests.oracle.sglang_dsa_backends_oracle), pasted and as graphfit's own
config file. Plants: each rule off, or what it reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.oracle.paths import require

require("sglang")

from graphfit.planner.engines import sglang_dsa_backends as dsa  # noqa: E402
from tests.oracle import sglang_dsa_backends_oracle as dbo  # noqa: E402
from tests.oracle import sglang_hisparse_dsa_oracle as hdo  # noqa: E402

FP8 = ("--kv-cache-dtype", "fp8_e4m3")
DEC = "--dsa-decode-backend"
PRE = "--dsa-prefill-backend"
BOTH = (PRE, "tilelang", DEC, "tilelang")
SAYS = {"triton": "The triton DSA backend", "mix": "requires both DSA backends to be tilelang",
        "dcp": "does not support --dcp-size", "sm89": "requires SM89 or newer",
        "sinks": "uses learnable attention sinks and requires",
        "sink kv": "Learnable DSA attention sinks require a bfloat16"}
# (name, target, GPU, line after --model-path, what SGLang says: a SAYS key or None)
FIXED: list[tuple[str, str, str, tuple[str, ...], str | None]] = [
    ("triton cuda", "v32", "H100", (DEC, "triton"), "triton"),
    ("triton prefill b200", "v32", "B200", (PRE, "triton"), "triton"),
    ("triton rocm", "v32", "MI300X", (DEC, "triton"), None),
    ("triton rocm both", "v32", "MI300X", (PRE, "triton", DEC, "triton"), None),
    ("fp8 mix", "v32", "H100", (*FP8, DEC, "tilelang"), "mix"),
    ("fp8 mix b200", "v32", "B200", (*FP8, PRE, "tilelang"), "mix"),
    ("fp8 tilelang", "v32", "H100", (*FP8, *BOTH), None),
    ("fp8 tilelang sm80", "v32", "A100", (*FP8, *BOTH), "sm89"),
    ("fp8 tilelang dcp", "v32", "H100", (*FP8, *BOTH, "--dcp-size", "2"), "dcp"),
    ("bf16 tilelang", "v32", "H100", (DEC, "tilelang"), None),
    ("not dsa", "mla", "H100", (DEC, "triton"), None),
    ("nextn target", "nextn", "H100", (DEC, "triton"), None),
    ("glm sm120 fp8", "glm", "RTX5090", (*FP8, DEC, "triton"), None),
    ("glm h100", "glm", "H100", (DEC, "triton"), "triton"),
    ("b200 auto mix", "v32", "B200", (DEC, "tilelang"), "mix"),  # no sinks: fp8_e4m3
    ("sink named", "sink", "H100", (DEC, "fa3"), "sinks"),
    ("sink rocm", "sink", "MI300X", (DEC, "triton"), "sinks"),
    ("sink dcp", "sink", "H100", ("--dcp-size", "2"), "sinks"),  # DCP's trtllm
    ("sink fp8", "sink", "H100", FP8, "sink kv"),
    ("sink sparse", "sink", "B200", (PRE, "flashmla_sparse", DEC, "flashmla_sparse"), None),
    ("sink hisparse", "sink", "H100", ("--enable-hisparse", "--disable-radix-cache",
                                       DEC, "flashmla_kv"), "sinks"),
]


@pytest.fixture(scope="module")
def targets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return dbo.targets(tmp_path_factory.mktemp("dsa-backends"))


def _line(name: str) -> tuple[str, str, tuple[str, ...]]:
    return next((t, g, a) for n, t, g, a, _ in FIXED if n == name)


def test_fixed_lines_agree(targets: dict[str, Path]) -> None:
    wrong = hdo.fixed_wrong(dbo, targets, FIXED, SAYS)
    assert not wrong, "\n".join(wrong)


def test_drawn_lines_agree(targets: dict[str, Path]) -> None:
    wrong = hdo.drawn_wrong(dbo, targets, 69, 8)
    assert not wrong, "\n".join(wrong)


PLANTS = {
    "constraint off": ("_refusal", lambda config, kv: None, "triton cuda"),
    "dtype read as bfloat16": ("dtypes", lambda config: ("bfloat16",), "fp8 mix"),
    "sm89 off": ("SM89", 0, "fp8 tilelang sm80"),
    "glm skip off": ("GLM", "", "glm sm120 fp8"),
    "sink arm off": ("sinks", lambda config: None, "sink named"),
}


@pytest.mark.parametrize("plant", sorted(PLANTS))
def test_planted_rule_off_is_caught(targets: dict[str, Path], monkeypatch: pytest.MonkeyPatch,
                                    plant: str) -> None:
    """Plant: each rule off (or what it reads) makes a fixed line differ."""
    attr, value, name = PLANTS[plant]
    monkeypatch.setattr(dsa, attr, value)
    target, gpu, argv = _line(name)
    assert dbo.compare(targets[target], argv, gpu)[0] == "differ"


def test_planted_backends_unread_is_caught(targets: dict[str, Path],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant: a line without HiSparse has its backends unread (graphfit.inputs.
    sglang_hisparse_class before s69m)."""
    from graphfit.inputs import sglang_hisparse_class

    real = sglang_hisparse_class.settings
    monkeypatch.setattr(sglang_hisparse_class, "settings", lambda values: real(values) if
                        values.get("enable_hisparse") is True else [])
    target, gpu, argv = _line("triton cuda")
    assert dbo.compare(targets[target], argv, gpu)[0] == "differ"


FILE_LINES = ("triton cuda", "fp8 mix", "fp8 tilelang", "fp8 tilelang sm80", "glm sm120 fp8",
              "not dsa", "sink named", "sink dcp", "sink fp8")


def test_config_file_agrees(targets: dict[str, Path]) -> None:
    """graphfit's own config file with the line's flags as keys judges as the pasted line
    (graphfit.inputs.sglang_dsa_backends_file)."""
    wrong = [f"{name}: {line}" for name in FILE_LINES
             for said, line in [dbo.compare(targets[_line(name)[0]], _line(name)[2],
                                            _line(name)[1], file=True)] if said != "agree"]
    assert not wrong, "\n".join(wrong)


def test_planted_file_unread_is_caught(targets: dict[str, Path],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant: the config file's backend keys unread (before s69m: "unknown, ignored")."""
    from graphfit.inputs import sglang_dsa_backends_file

    monkeypatch.setattr(sglang_dsa_backends_file, "settings", lambda keys, name: [])
    target, gpu, argv = _line("triton cuda")
    assert dbo.compare(targets[target], argv, gpu, file=True)[0] == "differ"


def test_file_value_refused_in_one_line() -> None:
    """A value outside the flags' choices in a file SGLang's parser did not check: one
    short ConfigError line."""
    from graphfit.inputs.sglang_dsa_backends_file import settings
    from graphfit.planner.core.errors import ConfigError

    with pytest.raises(ConfigError) as info:
        settings({"dsa_decode_backend": "x" * 500}, "c.yaml")
    said = str(info.value)
    assert said.startswith("c.yaml: dsa_decode_backend:") and len(said) <= 200
    assert "\n" not in said
