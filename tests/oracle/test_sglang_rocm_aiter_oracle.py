"""graphfit == SGLang 0.5.23 on ROCm's own AITER all-reduce fusion for GLM-MoE-DSA
(arg_groups/model_hook.py:438-457; graphfit.inputs.sglang_rocm_aiter): on a HIP platform,
without attention DP and on one node, SGLang turns the fusion on, and then refuses attention
CP or `--moe-dp-size` above 1 (parallel_hook.py:166-168, 185-187). SGLang: its own resolution
of a GlmMoeDsaForCausalLM config.json under its ROCm platform override (MI300X,
tests.oracle.sglang_mtp_oracle._platform); graphfit: its CLI on the pasted line with
`--gpu-memory-gb MI300X` (or H100: no ROCm, no fusion)."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_mtp_oracle as mo  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_stubs  # noqa: E402

LINES = (  # (GPU, flags): the rule's every clause, and the lines it leaves alone
    ("MI300X", "--tp-size 4"), ("MI300X", "--tp-size 4 --attn-cp-size 2"),
    ("MI300X", "--tp-size 4 --attn-cp-size 2 --moe-dp-size 2"),
    ("MI300X", "--tp-size 4 --attn-cp-size 2 --attn-dp-size 2"),
    ("MI300X", "--tp-size 4 --attn-cp-size 2 --nnodes 2"),
    ("MI300X", "--tp-size 4 --attn-cp-size 2 --dwdp-size 4"),
    ("H100", "--tp-size 4 --attn-cp-size 2"),
)


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small GLM-MoE-DSA config.json (an MLA config with the DSA indexer's keys)."""
    so.oracle()
    directory = sglang_stubs.write_mla_model_dir(tmp_path_factory.mktemp("glm") / "glm")
    config = json.loads((directory / "config.json").read_text())
    config.update({"architectures": ["GlmMoeDsaForCausalLM"], "model_type": "glm_moe_dsa",
                   "index_topk": 2048, "index_head_dim": 128, "index_n_heads": 32,
                   "n_routed_experts": 64, "num_experts_per_tok": 8})
    (directory / "config.json").write_text(json.dumps(config))
    return directory


def _sglang(gpu: str, flags: str, model: Path) -> str | None:
    with mo._restored_environ(), mo._platform(gpu):
        answer = so.resolve(tuple(flags.split()), model=str(model))
    return answer.text if isinstance(answer, so.Rejected) else None


def _graphfit(gpu: str, flags: str, model: Path) -> str | None:
    from graphfit.cli.application import main

    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            main(["plan", "--gpu-memory-gb", gpu, "--", "sglang", "serve", "--model-path",
                  str(model), *flags.split()])
        except SystemExit as exc:
            if exc.code not in (0, None):
                return [ln for ln in err.getvalue().splitlines() if ln.startswith("error:")][-1]
    return None


def _wrong(model: Path) -> list[str]:
    wrong, refused = [], 0
    for gpu, flags in LINES:
        theirs, ours = _sglang(gpu, flags, model), _graphfit(gpu, flags, model)
        refused += theirs is not None
        if (theirs is None) != (ours is None) or (
                theirs is not None and "Aiter allreduce fusion" in theirs
                and (ours is None or "Aiter allreduce fusion" not in ours)):
            wrong.append(f"{gpu} {flags}: SGLang {theirs and theirs[-100:]}; graphfit {ours}")
    assert refused >= 2, refused
    return wrong


@pytest.mark.parametrize("plant", [False, True])
def test_rocm_glm_moe_dsa_aiter_fusion(plant: bool, model: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Each line starts on both or is refused by both (the fusion's with SGLang's sentence);
    planted: the ROCm switch-on forgotten (graphfit before this lane plans the CP lines)."""
    from graphfit.inputs import sglang_rocm_aiter

    if plant:
        monkeypatch.setattr(sglang_rocm_aiter, "fusion_on", lambda *args: False)
    wrong = _wrong(model)
    assert bool(wrong) is plant, "\n".join(wrong)
