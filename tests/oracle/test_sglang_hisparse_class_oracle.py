"""graphfit == SGLang 0.5.23 on `--enable-hisparse`'s model-class assert (issue 23, s68b;
arg_groups/hisparse_hook.py:100-107, graphfit.inputs.sglang_hisparse_class,
graphfit.planner.engines.sglang_server_hisparse): a dense Llama, a Qwen3-MoE and a plain
DeepSeek-V3 (no `index_topk`) are refused, a DSA checkpoint (DeepSeek-V3 with `index_topk`,
GLM-5's class) passes it and meets the checks after it (radix cache, mixed chunk). SGLang: its
resolution then its whole `check_server_args`; graphfit: its CLI
(tests.oracle.sglang_server_args_oracle.compare)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.oracle.paths import require

require("sglang")

from graphfit.planner.engines import sglang_server_hisparse  # noqa: E402
from tests.oracle import sglang_lora_runner_oracle as lro  # noqa: E402
from tests.oracle import sglang_server_args_oracle as sao  # noqa: E402
from tests.oracle import sglang_stubs  # noqa: E402

H = ("--enable-hisparse", "--disable-radix-cache")
# (target, line after --model-path, where SGLang refuses: "class", "radix", "mixed", or None)
FIXED: list[tuple[str, tuple[str, ...], str | None]] = [
    ("dense", H, "class"),
    ("moe", H, "class"),
    ("v3", H, "class"),  # DeepseekV3ForCausalLM without index_topk: plain MLA
    ("dense", ("--enable-hisparse",), "class"),  # the class assert comes first
    ("v32", H, None),  # DeepseekV3ForCausalLM with index_topk: DSA
    ("v32", ("--enable-hisparse",), "radix"),
    ("v32", (*H, "--enable-mixed-chunk"), "mixed"),
    ("dense", ("--enable-hisparse", "--enable-pdmux"), "pdmux"),  # PD multiplexing first
]
SAID = {"class": "only supported for DSA", "radix": "requires --disable-radix-cache",
        "mixed": "--enable-mixed-chunk", "pdmux": "PD-Multiplexing"}


@pytest.fixture(scope="module")
def targets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("hisparse-class")
    out = dict(sao.targets(root))
    out["v3"] = sglang_stubs.write_mla_model_dir(root / "v3")
    v32 = root / "v32"
    shutil.copytree(out["v3"], v32)
    data = json.loads((v32 / "config.json").read_text())
    data |= {"index_topk": 2048, "index_head_dim": 128, "index_n_heads": 64}
    (v32 / "config.json").write_text(json.dumps(data))
    out["v32"] = v32
    return out


def test_fixed_lines_agree(targets: dict[str, Path]) -> None:
    wrong = []
    for name, argv, where in FIXED:
        theirs, _ = lro.sglang(targets[name], argv, {})
        said, line = sao.compare(targets[name], argv, {})
        expected = None if where is None else SAID[where]
        if said != "agree" or (expected is None) != (theirs is None) or (
                expected is not None and expected not in line):
            wrong.append(f"{said}: {name} {line}")
    assert not wrong, "\n".join(wrong)


def test_planted_class_rule_off_is_caught(targets: dict[str, Path],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant: every model taken as served (graphfit plans what SGLang refuses) is caught."""
    monkeypatch.setattr(sglang_server_hisparse, "served", lambda config: True)
    said, _ = sao.compare(targets["dense"], H, {})
    assert said == "differ"


def test_planted_index_topk_ignored_is_caught(targets: dict[str, Path],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant: a DeepSeek-V3 taken as DSA by its architecture alone is caught."""
    from graphfit.inputs import sglang_hisparse_class

    monkeypatch.setattr(sglang_hisparse_class, "dsa_checkpoint", lambda data: True)
    said, _ = sao.compare(targets["v3"], H, {})
    assert said == "differ"
