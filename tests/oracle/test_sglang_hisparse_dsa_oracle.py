"""graphfit == SGLang 0.5.23 on a HiSparse line's DSA backends and KV dtype (issue 23, s69b;
graphfit.planner.engines.sglang_hisparse_dsa): the resolution's hisparse arm (arg_groups/
overrides.py:677-712: CUDA TileLang FP8, triton off ROCm) and `validate_hisparse`'s dtype /
backend checks (hisparse_hook.py:154-165), on fixed lines and a small draw, over four
targets and four GPUs (tests.oracle.sglang_hisparse_dsa_oracle). Plants: each rule off."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.oracle.paths import require

require("sglang")

from graphfit.planner.engines import sglang_hisparse_dsa as dsa  # noqa: E402
from graphfit.planner.engines import sglang_server_hisparse  # noqa: E402
from tests.oracle import sglang_hisparse_dsa_oracle as hdo  # noqa: E402

H = hdo.H
FP8 = ("--kv-cache-dtype", "fp8_e4m3")
DEC = "--dsa-decode-backend"
PRE = "--dsa-prefill-backend"
SAYS = {"decode": "HiSparse supports DSA decode", "prefill": "HiSparse supports DSA prefill",
        "tilelang": "CUDA TileLang FP8 KV", "triton": "The triton DSA backend",
        "dtype": "HiSparse requires one of", "radix": "requires --disable-radix-cache"}
# (name, target, GPU, line after --model-path, what SGLang says: a SAYS key or None)
FIXED: list[tuple[str, str, str, tuple[str, ...], str | None]] = [
    ("plain", "v32", "H100", H, None),
    ("bf16 decode", "v32", "H100", (*H, DEC, "fa3"), "decode"),
    ("bf16 prefill", "v32", "H100", (*H, PRE, "flashmla_kv"), "prefill"),
    ("bf16 named", "v32", "H100", (*H, "--kv-cache-dtype", "bf16", DEC, "flashmla_sparse"), None),
    ("fp8 ok", "v32", "H100", (*H, *FP8, DEC, "flashinfer_sparse_mla"), None),
    ("fp8 prefill", "v32", "H100", (*H, *FP8, PRE, "flashmla_sparse"), "prefill"),
    ("fp8 tilelang", "v32", "H100", (*H, *FP8, DEC, "tilelang"), "tilelang"),
    ("triton cuda", "v32", "H100", (*H, DEC, "triton"), "triton"),
    ("triton rocm", "v32", "MI300X", (*H, DEC, "triton"), None),
    ("rocm list", "v32", "MI300X", (*H, DEC, "flashmla_kv"), "decode"),
    ("radix first", "v32", "H100", (H[0], DEC, "fa3"), "radix"),
    ("arm first", "v32", "H100", (H[0], DEC, "triton"), "triton"),
    ("nextn bf16", "nextn", "H100", (*H, "--kv-cache-dtype", "bf16"), "dtype"),
    ("nextn auto", "nextn", "H100", (*H, DEC, "flashmla_kv"), None),
    ("glm sm120", "glm", "RTX5090", (*H, DEC, "triton"), "decode"),
    ("b200 fp8", "v32", "B200", (*H, DEC, "flashmla_kv"), None),
    ("v4 fp8", "v4", "H100", (*H, DEC, "flashmla_sparse"), "decode"),
    ("v4 rocm", "v4", "MI300X", (*H, DEC, "fa3"), None),
    ("no hisparse", "v32", "H100", (DEC, "fa3"), None),
]


@pytest.fixture(scope="module")
def targets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return hdo.targets(tmp_path_factory.mktemp("hisparse-dsa"))


def _line(name: str) -> tuple[str, str, tuple[str, ...]]:
    return next((t, g, a) for n, t, g, a, _ in FIXED if n == name)


def test_fixed_lines_agree(targets: dict[str, Path]) -> None:
    wrong = hdo.fixed_wrong(hdo, targets, FIXED, SAYS)
    assert not wrong, "\n".join(wrong)


def test_drawn_lines_agree(targets: dict[str, Path]) -> None:
    wrong = hdo.drawn_wrong(hdo, targets, 69, 12)
    assert not wrong, "\n".join(wrong)


PLANTS = {
    "arm off": ("_arm", lambda config, kv: None, "triton cuda"),
    "hook off": ("_hook", lambda config, kv: None, "bf16 decode"),
    "dtype as given": ("dtypes", lambda config: (config.kv_cache_dtype or "auto",),
                       "bf16 prefill"),
    "rocm list as cuda": ("ROCM", dsa.CUDA_ANY, "triton rocm"),
}


@pytest.mark.parametrize("plant", sorted(PLANTS))
def test_planted_rule_off_is_caught(targets: dict[str, Path], monkeypatch: pytest.MonkeyPatch,
                                    plant: str) -> None:
    """Plant: each rule off (or the dtype / platform it reads) makes a fixed line differ."""
    attr, value, name = PLANTS[plant]
    monkeypatch.setattr(dsa, attr, value)
    target, gpu, argv = _line(name)
    assert hdo.compare(targets[target], argv, gpu)[0] != "agree"


def test_planted_backends_unread_is_caught(targets: dict[str, Path],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant: the line's backends not read (graphfit.inputs.sglang_hisparse_class)."""
    from graphfit.inputs import sglang_hisparse_class

    real = sglang_hisparse_class.settings
    monkeypatch.setattr(sglang_hisparse_class, "settings", lambda values: [
        s for s in real(values) if s.field != "dsa_backends"])
    target, gpu, argv = _line("bf16 decode")
    assert hdo.compare(targets[target], argv, gpu)[0] == "differ"


def test_planted_v4_rocm_checked_is_caught(targets: dict[str, Path],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant: DeepSeek-V4 on ROCm meets the checks it skips (hisparse_hook.py:131-148)."""
    monkeypatch.setattr(sglang_server_hisparse, "V4", frozenset())
    target, gpu, argv = _line("v4 rocm")
    assert hdo.compare(targets[target], argv, gpu)[0] == "differ"
