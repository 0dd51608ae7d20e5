"""`--disable-attn-tp-gather` without the oracle (issue 23, s68l; SGLang's own answers:
tests/oracle/test_sglang_attn_tp_gather_oracle.py): `require_attn_tp_gather()` is False
whatever the backend (utils/common.py:4142-4143), so a live all-to-all backend without
attention DP no longer aligns the target's, the drafts' or the prefill runner's batches to the
attention-TP width; attention DP still gathers the MLP input. The flag comes from a pasted
line, graphfit's own config file and live ServerArgs alike."""

from __future__ import annotations

import json
import types
from pathlib import Path

import pytest

from graphfit import EngineConfig
from graphfit.planner.engines import sglang
from graphfit.planner.engines import sglang_moe_a2a as a2a
from graphfit.planner.engines.sglang_native import fields_from_sglang
from graphfit.planner.engines.sglang_prefill import _alignment
from graphfit.planner.engines.sglang_prefill_plan import prefill_inputs
from tests.helpers import run_cli
from tests.planner.test_sglang_lora_runner import MOE


def _config(**options: object) -> EngineConfig:
    return EngineConfig.from_dict({"engine": "sglang", "max_num_seqs": 32,
                                   "architecture": "Qwen3MoeForCausalLM",
                                   "options": {"moe_a2a_backend": "deepep", "tp_size": 4,
                                               **options}})


@pytest.mark.parametrize(("options", "gathered", "align"), [
    ({}, True, 4),
    ({"disable_attn_tp_gather": True}, False, 1),
    # attention DP over half the group: the MLP gather stays (utils/common.py:4079-4092)
    ({"disable_attn_tp_gather": True, "attn_dp_size": 2}, True, 2),
    ({"disable_attn_tp_gather": True, "two_batch_overlap": True}, False, 2),
])
def test_alignment(options: dict[str, object], gathered: bool, align: int) -> None:
    config = _config(**options)
    assert sglang.gathered_buffer(config) is gathered
    assert sglang.batch_alignment(config) == align
    assert _alignment(prefill_inputs(config)) == align  # the prefill runner's the same
    # the draft runners' view reads the server's flag too
    drafts = a2a.for_drafts(_config(speculative_moe_a2a_backend="mooncake", **options))
    assert a2a.attn_tp_gather(drafts) is not options.get("disable_attn_tp_gather", False)


def test_gathers_attention_reads_the_flag_first() -> None:
    assert a2a.gathers_attention("deepep", 4, 1)
    assert not a2a.gathers_attention("deepep", 4, 1, disabled=True)
    assert not a2a.gathers_attention("none", 4, 1)


def _options(tmp_path: Path, *args: str) -> dict[str, object]:
    model = tmp_path / "moe"
    model.mkdir(exist_ok=True)
    (model / "config.json").write_text(json.dumps(MOE))
    code, out, err = run_cli(["plan", "--json", "--gpu-memory-gb", "H100", "--weights-gb",
                              "10", *args])
    assert code == 0, err
    return dict(json.loads(out)["config"]["options"])


def test_pasted_line_and_config_file_read_it(tmp_path: Path) -> None:
    flags = ("--moe-a2a-backend", "deepep", "--tp-size", "4")
    model = str(tmp_path / "moe")
    pasted = _options(tmp_path, "--", "sglang", "serve", "--model-path", model, *flags,
                      "--disable-attn-tp-gather")
    ours = tmp_path / "graphfit.yaml"
    ours.write_text(f"model_path: {model}\nmoe_a2a_backend: deepep\ntp_size: 4\n"
                    f"disable_attn_tp_gather: true\n")
    filed = _options(tmp_path, "--config", str(ours))
    assert pasted["disable_attn_tp_gather"] is filed["disable_attn_tp_gather"] is True
    plain = _options(tmp_path, "--", "sglang", "serve", "--model-path", model, *flags)
    assert plain.get("disable_attn_tp_gather", False) is False


def test_live_server_args_give_the_flag() -> None:
    on = fields_from_sglang(types.SimpleNamespace(disable_attn_tp_gather=True, tp_size=4))
    off = fields_from_sglang(types.SimpleNamespace(disable_attn_tp_gather=False, tp_size=4))
    assert on.get("disable_attn_tp_gather") is True and "disable_attn_tp_gather" not in off
