"""Multi-layer EAGLE's draft backend for a line naming none (graphfit.inputs.
sglang_draft_default): GPU names, model shapes, and when the upper bound stays."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphfit.inputs import sglang_draft_default as dd
from graphfit.inputs.gpus import GPU_MEMORY_GB
from graphfit.planner.engines.sglang_attn_default import GPU_KINDS

LINE = {"speculative_algorithm": "EAGLE", "speculative_eagle_topk": 1}


def _model(tmp_path: Path, **config: object) -> str:
    data = {"architectures": ["LlamaForCausalLM"], "hidden_size": 4096,
            "num_attention_heads": 32, "num_key_value_heads": 8, **config}
    (tmp_path / "config.json").write_text(json.dumps(data))
    return str(tmp_path)


@pytest.mark.parametrize("name", sorted(GPU_MEMORY_GB))
def test_every_named_gpu_has_a_generation(name: str) -> None:
    assert dd.gpu_kind(name) in GPU_KINDS
    assert dd.gpu_kind(GPU_MEMORY_GB[name]) is None  # a figure says no generation


def test_gpu_and_model_decide(tmp_path: Path) -> None:
    line = {**LINE, "model_path": _model(tmp_path)}
    assert dd.default_draft_backend(line, "H100")[0] == "fa3"
    assert dd.default_draft_backend(line, "A100")[0] == "flashinfer"
    assert dd.default_draft_backend(line, "B200")[0] == "trtllm_mha"
    name, why = dd.default_draft_backend(line, 80)
    assert name is None and "GPU" in why


def test_unknown_inputs_keep_the_bound(tmp_path: Path) -> None:
    assert dd.default_draft_backend({**LINE, "model_path": "org/hub-id"}, "H100")[0] is None
    hybrid = {**LINE, "model_path": _model(tmp_path, layer_types=["linear_attention",
                                                                  "full_attention"])}
    name, why = dd.default_draft_backend(hybrid, "H100")
    assert name is None and "KV pool" in why
    assert dd.default_draft_backend(hybrid, "A100")[0] == "flashinfer"  # per step anyway
    kimi = {**LINE, "model_path": _model(tmp_path, architectures=["KimiLinearForCausalLM"],
                                          model_type="kimi_linear")}
    assert dd.default_draft_backend(kimi, "H100")[0] is None
    mla_shaped = {**LINE, "model_path": _model(tmp_path, architectures=["SarvamMLAForCausalLM"],
                                                kv_lora_rank=512)}
    assert dd.default_draft_backend(mla_shaped, "B200")[0] is None
    own = {**LINE, "model_path": _model(tmp_path, architectures=["GptOssForCausalLM"])}
    assert dd.default_draft_backend(own, "H100")[0] is None


FLAGS = ["plan", "--json", "--engine", "sglang", "--max-running-requests", "33",
         "--speculative-algorithm", "EAGLE", "--speculative-num-steps", "3",
         "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4",
         "--enable-multi-layer-eagle"]


def _per_size(argv: list[str]) -> int:
    from tests.helpers import run_cli

    code, out, err = run_cli(argv)
    assert code == 0, err
    comp = json.loads(out)["components"]["mtp_draft_extend"]
    return int(comp.get("graphs_per_size", 1))


def test_flag_line_takes_the_backend_or_sglangs_default(tmp_path: Path) -> None:
    """graphfit's own flags: `--mtp-draft-backend` names the backend; else SGLang's default
    for `--gpu-memory-gb NAME` and `--model-path DIR`; else the per-step bound."""
    from tests.helpers import run_cli

    assert _per_size([*FLAGS, "--mtp-draft-backend", "fa3"]) == 1
    assert _per_size([*FLAGS, "--mtp-draft-backend", "triton"]) == 3
    model = _model(tmp_path)
    assert _per_size([*FLAGS, "--model-path", model, "--gpu-memory-gb", "H100"]) == 1
    assert _per_size([*FLAGS, "--model-path", model, "--gpu-memory-gb", "L40S"]) == 3
    assert _per_size([*FLAGS, "--model-path", model, "--gpu-memory-gb", "80"]) == 3
    assert _per_size([*FLAGS, "--model-path", model, "--gpu-memory-gb", "H100",
                      "--mtp-draft-backend", "flashinfer"]) == 3  # the flag wins
    for bad in ("FA3!", "torch_native"):
        code, _, err = run_cli([*FLAGS, "--mtp-draft-backend", bad])
        assert code == 2 and err.startswith("error:") and len(err.splitlines()) == 1, err


def _recorded(monkeypatch: pytest.MonkeyPatch) -> list[tuple[dict[str, object], bool]]:
    seen: list[tuple[dict[str, object], bool]] = []
    monkeypatch.setattr(dd, "_line_refusals", lambda line, gpu, hint, multi_layer=True,
                        auto_params=False, **_: seen.append((dict(line), multi_layer)))
    return seen


@pytest.mark.parametrize("algorithm", ["EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "eagle"])
def test_every_line_checks_the_eagle_family(algorithm: str,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """EAGLE-family lines (SGLang's `_handle_eagle_family`) are checked with their topk and
    without IQuest's multi-layer refusal (test_sglang_backend_checks_oracle compares them)."""
    seen = _recorded(monkeypatch)
    dd.every_line_checks({"speculative_algorithm": algorithm, "speculative_eagle_topk": 2}, "H100")
    assert seen == [({"speculative_algorithm": algorithm, "speculative_eagle_topk": 2}, False)]


@pytest.mark.parametrize("algorithm", ["DFLASH", "DSPARK", "NGRAM", "FROZEN_KV_MTP", "UNO"])
def test_every_line_checks_other_algorithms(algorithm: str,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Other algorithms (s31b): checked, the EAGLE topk rules seeing topk 1, NGRAM its own
    page rule with its BFS breadth (test_sglang_backend_checks_oracle compares them)."""
    seen: list[tuple[object, object]] = []
    monkeypatch.setattr(dd, "_line_refusals", lambda line, gpu, hint, multi_layer=True,
                        auto_params=False, checked_topk=None, ngram=False: seen.append(
                            (checked_topk, ngram)))
    dd.every_line_checks({"speculative_algorithm": algorithm, "speculative_eagle_topk": 2,
                          "speculative_ngram_max_bfs_breadth": 3}, "H100")
    assert seen == [(3, True) if algorithm == "NGRAM" else (1, False)]


def test_no_speculation_reaches_no_topk_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without speculation SGLang never reaches its topk rules: a stray topk is dropped."""
    seen = _recorded(monkeypatch)
    dd.every_line_checks({"speculative_eagle_topk": 2, "page_size": 16}, "H100")
    assert seen == [({"page_size": 16}, False)]


def test_automatic_topk_reaches_the_checks_only(monkeypatch: pytest.MonkeyPatch,
                                                tmp_path: Path) -> None:
    """EAGLE with no steps / topk / draft tokens: SGLang picks them after its attention
    default (speculative_hook.py:1159-1174), so the checks see its pick, the default not."""
    seen: list[bool] = []
    monkeypatch.setattr(dd, "_line_refusals", lambda line, gpu, hint, multi_layer=True,
                        auto_params=False, **_: seen.append(auto_params))
    dd.every_line_checks({"speculative_algorithm": "EAGLE"}, "H100")
    dd.every_line_checks({"speculative_algorithm": "STANDALONE"}, "H100")
    dd.every_line_checks({"speculative_algorithm": "EAGLE", "speculative_num_steps": 3}, "H100")
    assert seen == [True, False, False]


def test_automatic_params_copy_matches_the_planners() -> None:
    """The inputs layer keeps its own copy of SGLang's automatic (steps, topk, draft tokens)
    table (the planner's engine model is private to it): the two must not drift."""
    from graphfit.planner.engines import sglang

    assert dd.TREE_DEFAULT_ARCHS == sglang.TREE_DEFAULT_ARCHS
    assert dd.EAGLE_TREE_DEFAULTS == sglang.EAGLE_TREE_DEFAULTS
