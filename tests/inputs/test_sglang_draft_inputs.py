"""graphfit.inputs.sglang_draft: a pasted SGLang DFLASH line's draft config.json -- the block
size when the line gives none, the drafts graphfit refuses, one-line errors.

(tests/oracle/test_sglang_dflash_draft_oracle.py compares all of it with SGLang's own
`_handle_dflash` and `parse_dflash_draft_config`.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from graphfit import EngineConfig, plan
from graphfit.inputs import sglang_draft
from tests.helpers import run_cli

LINE = ["plan", "--json", "--", "python", "-m", "sglang.launch_server",
        "--speculative-algorithm", "DFLASH"]


def _draft(root: Path, config: dict[str, Any]) -> str:
    directory = root / "draft"
    directory.mkdir(exist_ok=True)
    (directory / "config.json").write_text(json.dumps({
        "architectures": ["DFlashDraftModel"], "model_type": "qwen3", "hidden_size": 1024,
        "num_hidden_layers": 2, "torch_dtype": "bfloat16", **config}))
    return str(directory)


def _planned(argv: list[str]) -> tuple[int, dict[str, Any] | None, str]:
    code, out, text = run_cli([*LINE, "--model-path", "m", *argv])
    return code, (json.loads(out) if code == 0 else None), text


def test_block_size_read_from_the_draft(tmp_path: Path) -> None:
    code, out, _ = _planned(["--speculative-draft-model-path",
                             _draft(tmp_path, {"dflash_config": {"block_size": 6}})])
    assert code == 0 and out is not None
    assert out["config"]["speculative_num_draft_tokens"] == 6
    assert out["config"]["draft_hidden_size"] == 1024  # the same file, its width


def test_no_block_anywhere_is_sglang_default(tmp_path: Path) -> None:
    code, out, _ = _planned(["--speculative-draft-model-path", _draft(tmp_path, {})])
    assert code == 0 and out is not None
    assert out["config"]["speculative_num_draft_tokens"] == sglang_draft.BLOCK_DEFAULT


def test_the_line_wins_and_the_window_sees_the_draft_block(tmp_path: Path) -> None:
    draft = _draft(tmp_path, {"block_size": 8})
    code, out, _ = _planned(["--speculative-draft-model-path", draft,
                             "--speculative-dflash-block-size", "4"])
    assert code == 0 and out is not None
    assert out["config"]["speculative_num_draft_tokens"] == 4
    code, _, text = _planned(["--speculative-draft-model-path", draft,
                              "--speculative-draft-window-size", "6"])
    assert code == 2 and "below the DFLASH block size 8" in text


def test_refusals_are_one_line(tmp_path: Path) -> None:
    cases = [
        (["--speculative-draft-model-path", "z-lab/Qwen3-8B-DFlash-b16"],
         "no local config.json to read the DFLASH block size from"),
        (["--speculative-draft-model-path", _draft(tmp_path, {"block_size": 0})],
         "would not load"),
    ]
    selectorless = tmp_path / "selectorless"
    selectorless.mkdir()
    cases.append((["--speculative-draft-model-path", _draft(selectorless, {
        "architectures": ["DFlash2DraftModel"]})], "requires dflash_config.selector_rank"))
    # a LiLiCorr draft is modelled now; one without its head's geometry does not load
    # (lilicorr_utils.py:97-105)
    root = tmp_path / "lilicorr"
    root.mkdir()
    config: dict[str, Any] = {"architectures": ["LiLiCorrDraftModel"]}
    cases.append((["--speculative-draft-model-path", _draft(root, config)],
                  "LiLiCorr requires the lilicorr_* geometry fields"))
    for argv, said in cases:
        code, _, text = _planned(argv)
        errors = [ln for ln in text.splitlines() if ln.startswith("error:")]
        assert code == 2 and len(errors) == 1 and said in errors[0], text
        assert len(errors[0]) <= 200


def test_a_hub_draft_with_a_block_on_the_line_is_planned_with_a_note() -> None:
    code, out, text = _planned(["--speculative-draft-model-path", "org/draft",
                                "--speculative-num-draft-tokens", "8"])
    assert code == 0 and out is not None
    assert "planned as a plain DFlash draft" in " ".join(out.get("notes", [])) + text


_BLOCK = st.one_of(st.none(), st.integers(1, 64), st.integers(1, 64).map(str))


@given(nested=st.one_of(st.just("absent"), _BLOCK), top=st.one_of(st.just("absent"), _BLOCK))
def test_block_resolution(nested: object, top: object) -> None:
    """dflash_config.block_size when the key is there (even null), else the top-level one,
    int()-converted; SGLang's 16 when neither names one."""
    data: dict[str, Any] = {} if top == "absent" else {"block_size": top}
    if nested != "absent":
        data["dflash_config"] = {"block_size": nested}
    draft = sglang_draft.parse(data, Path("config.json"))
    named = nested if nested != "absent" else (None if top == "absent" else top)
    assert draft.problem is None and draft.head == "dflash"
    assert draft.block_size == (None if named is None else int(str(named)))
    assert draft.resolved_block == (draft.block_size or sglang_draft.BLOCK_DEFAULT)
    assert draft.resolved_block >= 1


def _gemma(root: Path, **extra: Any) -> str:
    directory = root / "assistant"
    directory.mkdir(exist_ok=True)
    (directory / "config.json").write_text(json.dumps({
        "architectures": ["Gemma4AssistantForCausalLM"], "model_type": "gemma4_assistant",
        "torch_dtype": "bfloat16", "text_config": {"hidden_size": 256}, **extra}))
    return str(directory)


SPEC = ["--speculative-num-steps", "3", "--speculative-eagle-topk", "1",
        "--speculative-num-draft-tokens", "4", "--max-running-requests", "8"]


def _frozen_line(algorithm: str, draft: str) -> tuple[int, dict[str, Any] | None, str]:
    code, out, text = run_cli(["plan", "--json", "--", "python", "-m", "sglang.launch_server",
                               "--model-path", "m", "--speculative-algorithm", algorithm,
                               *SPEC, "--speculative-draft-model-path", draft])
    return code, (json.loads(out) if code == 0 else None), text


def test_frozen_width_is_the_draft_backbone(tmp_path: Path) -> None:
    for algorithm in ("FROZEN_KV_MTP", "EAGLE", "NEXTN"):  # the last two promoted
        code, out, text = _frozen_line(algorithm, _gemma(tmp_path, backbone_hidden_size=640))
        assert code == 0 and out is not None, text
        assert out["config"]["options"]["frozen_kv_mtp"] is True
        assert out["config"]["draft_hidden_size"] == 640  # not the draft's own 256
        p = plan(EngineConfig.from_dict(out["config"]))
        assert p.buffer("frozen_drafter.hidden_states").shape[-1] == 640
    (tmp_path / "default").mkdir()
    code, out, _ = _frozen_line("FROZEN_KV_MTP", _gemma(tmp_path / "default"))
    assert code == 0 and out is not None
    assert out["config"]["draft_hidden_size"] == sglang_draft.BACKBONE_DEFAULTS[
        "gemma4_assistant"]


def test_frozen_refusals(tmp_path: Path) -> None:
    code, _, text = _frozen_line("EAGLE3", _gemma(tmp_path, backbone_hidden_size=640))
    assert code == 2 and "refuses EAGLE3" in text
    code, _, text = _frozen_line("FROZEN_KV_MTP", _draft(tmp_path, {}))
    assert code == 2 and "backbone_hidden_size" in text


def test_multimodal_switches(tmp_path: Path) -> None:
    """--enable-multimodal / --model-impl transformers (graphfit.inputs.sglang_model_impl):
    refused where they turn a default-off VLM multimodal, a note elsewhere."""
    vlm, text = tmp_path / "vlm", tmp_path / "text"
    vlm.mkdir()
    text.mkdir()
    (vlm / "config.json").write_text(json.dumps({
        "architectures": ["Llama4ForConditionalGeneration"], "vision_config": {},
        "text_config": {"hidden_size": 512}}))
    (text / "config.json").write_text(json.dumps({"architectures": ["LlamaForCausalLM"],
                                                  "hidden_size": 512}))
    head = ["plan", "--", "python", "-m", "sglang.launch_server", "--model-path"]
    for flags in (["--enable-multimodal"], ["--model-impl", "transformers"]):
        code, _, said = run_cli([*head, str(vlm), *flags])
        assert code == 2 and "multimodal serving on for Llama4ForConditionalGeneration" in said
        code, _, said = run_cli([*head, str(text), *flags])
        assert code == 0 and "changes no graph or buffer" in said
        assert "ignored: --enable-multimodal" not in said
    assert run_cli([*head, str(vlm)])[0] == 0  # SGLang's default: served text-only
    code, _, said = run_cli([*head, str(text), "--model-impl", "mindspore"])
    assert code == 2 and "cuda_graph_setup.py:729" in said


def test_a_domino_draft_is_planned_with_its_sampler(tmp_path: Path) -> None:
    draft = _draft(tmp_path, {"block_size": 5, "dflash_config": {
        "projector_type": "domino", "shift_label": True, "pure_draft_prefix_len": 1,
        "gru_hidden_dim": 8, "emb_dim": 8}})
    code, out, text = _planned(["--speculative-draft-model-path", draft, "--tp-size", "2",
                                "--max-running-requests", "16"])
    assert code == 0 and out is not None, text
    assert out["config"]["options"]["dflash_domino"] is True
    p = plan(EngineConfig.from_dict(out["config"]))
    names = {b.name for b in p.components["dflash_draft"].buffers}
    assert {n for n in names if n.startswith("sampler_")} == {"sampler_out"}  # no TP buffers
    assert p.buffer("dflash_draft.sampler_out").shape == (max(p.capture_sizes) * 4,)


def test_a_selector_draft_is_planned_with_its_sampler(tmp_path: Path) -> None:
    draft = _draft(tmp_path, {"architectures": ["DFlash2DraftModel"], "block_size": 5,
                              "dflash_config": {"selector_rank": 4, "selector_top_k": 8}})
    code, out, text = _planned(["--speculative-draft-model-path", draft,
                                "--max-running-requests", "16"])
    assert code == 0 and out is not None, text
    assert out["config"]["options"]["dflash_selector_top_k"] == 8
    p = plan(EngineConfig.from_dict(out["config"]))
    top = max(p.capture_sizes)
    assert p.buffer("dflash_draft.sampler_candidate_out").shape == (top, 4, 8)
    assert p.buffer("dflash_draft.sampler_out").shape == (top * 4,)


def test_a_lilicorr_override_block_is_refused_in_one_line(tmp_path: Path) -> None:
    """An override block_size other than the block the draft's config was saved with: SGLang
    builds the head at the override and its weights do not fit (the oracle shows it,
    tests/oracle/test_sglang_lilicorr_weights_oracle.py); the same block plans."""
    head = {"lilicorr_candidate_topk": 4, "lilicorr_hidden_size": 0, "lilicorr_num_layers": 1,
            "lilicorr_num_heads": 4, "lilicorr_mlp_ratio": 2.0, "lilicorr_factor_dim": 16,
            "lilicorr_vector_eps": 1e-6, "lilicorr_logit_scale": 1.0}
    root = tmp_path / ("d" * 60)  # a long path: the error still fits one line
    root.mkdir()
    draft = _draft(root, {"architectures": ["LiLiCorrDraftModel"], "block_size": 8,
                          "dflash_config": head})
    for block, refused in ((16, True), (4, True), (8, False)):
        code, _, text = _planned(["--speculative-draft-model-path", draft,
                                  "--json-model-override-args",
                                  json.dumps({"block_size": block})])
        errors = [ln for ln in text.splitlines() if ln.startswith("error:")]
        if refused:
            assert code == 2 and len(errors) == 1 and "saved at 8" in errors[0], text
            assert len(errors[0]) <= 200
        else:
            assert code == 0, text
