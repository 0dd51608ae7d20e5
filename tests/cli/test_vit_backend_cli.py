"""`--mm-attention-backend` under SGLang's ViT graphs (graphfit/planner/engines/sglang_vit.py):
Kimi K3 with flashinfer_cudnn plans its two padded index buffers, in `graphfit vit` and in
`plan --vit-images` from the pasted line; a backend the Qwen / InternVL runners refuse at
capture is one error line (exit 2). The oracle: tests/oracle/test_sglang_vit_backend_oracle.py,
tests/oracle/test_sglang_vit_kimi_oracle.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import ROOT, run_cli

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
EXAMPLE = ROOT / "examples" / "models" / "Qwen2.5-VL-7B-Instruct"


def _kimi(tmp_path: Path) -> Path:
    model = tmp_path / "k3"
    model.mkdir()
    (model / "config.json").write_text(json.dumps({
        "architectures": ["KimiK3ForConditionalGeneration"],
        "vision_config": {"vt_hidden_size": 64, "vt_num_attention_heads": 4,
                          "qkv_hidden_size": 64, "merge_kernel_size": [2, 2]}}))
    return model


def _buffers(out: str) -> dict[str, dict[str, object]]:
    return {b["name"]: b for b in json.loads(out)["buffers"]}


def test_kimi_flashinfer_cudnn_adds_its_padded_index_buffers(tmp_path: Path) -> None:
    model = _kimi(tmp_path)
    argv = ["vit", str(model), "--images", "1x4x4,1x8x4", "--max-images", "9", "--json"]
    code, out, err = run_cli(argv)
    assert code == 0, err
    assert not {"packed_indptrs", "sequence_lengths"} & set(_buffers(out))
    code, out, err = run_cli([*argv, "--mm-attention-backend", "flashinfer_cudnn"])
    assert code == 0, err
    buffers = _buffers(out)
    # 9 images pad to the second bucket (16): 3 x 17 boundaries, 16 lengths
    assert buffers["packed_indptrs"]["rows"] == 51
    assert (buffers["sequence_lengths"]["rows"], buffers["sequence_lengths"]["row_shape"]) == (
        16, [1, 1, 1])


def test_the_pasted_lines_backend_reaches_the_plan(tmp_path: Path) -> None:
    line = ["SGLANG_VIT_ENABLE_CUDA_GRAPH=1", "python", "-m", "sglang.launch_server",
            "--model-path", str(_kimi(tmp_path)), "--max-running-requests", "4",
            "--mm-attention-backend", "flashinfer_cudnn"]
    code, out, err = run_cli(["plan", "--json", "--vit-images", "1x4x4", "--", *line])
    assert code == 0, err
    names = {b["name"] for b in json.loads(out)["keyed_components"]["vit"]["buffers"]}
    assert {"packed_indptrs", "sequence_lengths", "attention_workspace"} <= names
    # the flag is read (the vit component's), not listed as ignored
    assert "ignored: --mm-attention-backend" not in err


@pytest.mark.parametrize("backend", ["sdpa", "flashinfer_cudnn"])
def test_a_backend_the_qwen_runner_refuses_is_one_error_line(backend: str) -> None:
    code, _out, err = run_cli(["vit", str(EXAMPLE), "--images", "1x8x8",
                               "--mm-attention-backend", backend])
    assert code == 2
    assert f"does not support attention backend: {backend}" in err
    assert len(err.strip().splitlines()) == 1 and len(err.strip()) <= 200


def test_an_unknown_backend_is_one_error_line() -> None:
    code, _out, err = run_cli(["vit", str(EXAMPLE), "--images", "1x8x8",
                               "--mm-attention-backend", "nope"])
    assert code == 2 and "attention_backend" in err and len(err.strip().splitlines()) == 1
