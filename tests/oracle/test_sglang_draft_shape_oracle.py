"""SGLang 0.5.23 EAGLE-family drafts whose vocabulary, dtype or EAGLE3 aux width are not the
target's: the draft runners size those buffers from the DRAFT's ModelConfig.

SGLang's side: its argument pipeline on the line, its own `ModelConfig` of the generated draft
directory (tests/oracle/sglang_oracle.py `_draft_model_config`) under its real runner
constructors (EAGLEDraftCudaGraphRunner, EAGLEDraftExtendCudaGraphRunner, the multi-layer
composite) and its own STANDALONE vocabulary check; graphfit's side: the same line pasted into
`graphfit plan` (tests/oracle/sglang_draft_shape). A DFLASH draft's DecodeCudaGraphRunner
takes its logits width and input_embeds dtype from the same draft ModelConfig. Larger counts:
`python -m tests.oracle.measure_sglang_draft_shape 150`.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_compare as sc  # noqa: E402
from tests.oracle import sglang_draft_shape as ds  # noqa: E402

EAGLE1, EAGLE3 = "LlamaForCausalLMEagle", "LlamaForCausalLMEagle3"
# (line, outcome, {(runner, buffer): the dimension that must not be the target's}); the
# expected values are SGLang's (read off its runners below), the dict says only which
# buffers the draft shapes
LINES: list[tuple[tuple[str, ...], str, dict[tuple[str, str], str]]] = [
    (ds.line("EAGLE", ds.draft(EAGLE1, hot_vocab_size=32000)), "planned",
     {("draft_extend", "next_token_logits_buffer"): "columns"}),
    (ds.line("EAGLE", ds.draft(EAGLE1, draft_vocab_size=16384, torch_dtype="float16")),
     "planned", {("draft_extend", "next_token_logits_buffer"): "columns",
                 ("draft_extend", "hidden_states"): "dtype", ("draft", "hidden_states"): "dtype"}),
    (ds.line("EAGLE", ds.draft(EAGLE1)), "planned",  # no dtype: float32 -> fp16
     {("draft_extend", "hidden_states"): "dtype"}),
    (ds.line("EAGLE3", ds.draft(EAGLE3, draft_vocab_size=32000, eagle_config={
        "eagle_aux_hidden_state_layer_ids": [2, 16, 29, 31]})), "planned",
     {("draft_extend", "next_token_logits_buffer"): "columns",
      ("draft_extend", "hidden_states"): "columns"}),
    (ds.line("EAGLE3", ds.draft(EAGLE3, draft_vocab_size=32000, target_hidden_size=5120,
                                dtype="float16"), "--enable-multi-layer-eagle"), "planned",
     {("mtp_draft_extend", "next_token_logits_buffer"): "columns",
      ("mtp_draft_extend", "hidden_states"): "columns"}),
    (ds.line("EAGLE3", ds.draft(EAGLE3, draft_vocab_size=32000,
                                eagle_config={"use_aux_hidden_state": False})), "planned",
     {("draft_extend", "hidden_states"): "not_aux"}),
    (ds.line("NEXTN", ds.draft(EAGLE1, vocab_size=151936, torch_dtype="float32"), "--dtype",
             "bfloat16"), "planned", {("draft_extend", "next_token_logits_buffer"): "columns"}),
    (ds.line("STANDALONE", ds.draft("LlamaForCausalLM", vocab_size=32000)), "rejected", {}),
    (ds.line("STANDALONE", ds.draft("LlamaForCausalLM", torch_dtype="float16")), "planned",
     {("draft", "hidden_states"): "absent"}),
    (("--max-running-requests", "24", "--speculative-algorithm", "DFLASH", "--dtype", "auto",
      "--speculative-draft-model-path", ds.draft("DFlashDraftModel", vocab_size=32000,
                                                 torch_dtype="float16", block_size=4)),
     "planned", {("dflash_draft", "next_token_logits_buffer"): "columns",
                 ("dflash_draft", "input_embeds"): "dtype"}),
]


def _differs_from_target(buf: Any, how: str) -> bool:
    if how == "columns":
        return buf.shape[-1] not in (ds.TARGET_VOCAB, ds.TARGET_HIDDEN * 3, ds.TARGET_HIDDEN)
    if how == "not_aux":  # the draft's own width, not three target layers
        return bool(buf.shape[-1] != ds.TARGET_HIDDEN * 3)
    if how == "dtype":
        return buf.dtype != "bfloat16"
    return True


@pytest.mark.parametrize(("argv", "outcome", "shaped"), LINES,
                         ids=[f"{a[3]}-{i}" for i, (a, _, _) in enumerate(LINES)])
def test_draft_buffers_follow_the_draft(argv: tuple[str, ...], outcome: str,
                                        shaped: dict[tuple[str, str], str]) -> None:
    assert ds.compare(argv) == (outcome, [])
    runners = sc.sglang(argv, 80).runners
    for (runner, name), how in shaped.items():
        assert runners is not None
        if how == "absent":  # STANDALONE carries no hidden states (eagle_utils.py:288-289)
            assert runners[runner].buffers.get(name) is None
            continue
        # the cases graphfit used to get wrong: SGLang's buffer is not the target's shape
        assert _differs_from_target(runners[runner].buffers[name], how), (runner, name)


@settings(max_examples=6, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(ds.lines())
def test_generated_draft_configs(argv: tuple[str, ...]) -> None:
    got, diffs = ds.compare(argv)
    assert got != "differs", diffs


def test_planted_errors_show(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each rule, planted wrong in graphfit's reader, is reported by the comparison."""
    from graphfit.inputs import sglang_draft_shape as shape

    vocab, dtype, aux = LINES[1][0], LINES[2][0], LINES[3][0]
    monkeypatch.setattr(shape, "logits_width", lambda data, where, method: ds.TARGET_VOCAB)
    assert any("next_token_logits_buffer shape" in d.detail for d in ds.compare(vocab)[1])
    monkeypatch.undo()
    monkeypatch.setattr(shape, "draft_dtype", lambda data, flag: "bfloat16")
    assert any("hidden_states dtype" in d.detail for d in ds.compare(dtype)[1])
    monkeypatch.undo()
    monkeypatch.setattr(shape, "eagle3_width", lambda data, where: ds.TARGET_HIDDEN * 3)
    assert any("hidden_states shape" in d.detail for d in ds.compare(aux)[1])
    monkeypatch.undo()
    monkeypatch.setattr(shape, "_target_vocab", lambda values: None)  # no STANDALONE check
    assert ds.compare(LINES[7][0])[0] == "differs"
    monkeypatch.undo()
    monkeypatch.setattr(shape, "_own_vocab", lambda data, where: None)  # DFLASH: target's
    assert any("next_token_logits_buffer shape" in d.detail for d in ds.compare(LINES[9][0])[1])


ADAPTIVE = ds.line("EAGLE", ds.draft(EAGLE1, hot_vocab_size=32000), "--speculative-adaptive",
                   max_running=33)
# the lines whose draft-extend logits have a vocabulary of their own (LINES 0, 1, 3, 5, 6)
OWN_VOCAB = [LINES[i][0] for i in (0, 1, 3, 5, 6)] + [ADAPTIVE]


@pytest.mark.parametrize("argv", OWN_VOCAB, ids=[f"{a[3]}-{i}" for i, a in
                                                 enumerate(OWN_VOCAB)])
def test_draft_vocab_logits_tensor_has_max_rows(argv: tuple[str, ...]) -> None:
    """A draft vocabulary of its own is one (max_rows, vocab) tensor of SGLang's
    `GraphSharedOutput` (graph_shared_output.py:62-73, max_rows: model_runner.py:905-929),
    more rows than the draft-extend view reads: SGLang's allocation, read off its own object,
    is graphfit's reference (graphfit.planner.engines.sglang_shared.draft_logits_rows)."""
    got = ds.draft_logits_allocation(argv)
    assert got is not None
    sglang, graphfit = got
    assert sglang == graphfit
    view = sc.sglang(argv, 80).runners["draft_extend"].buffers["next_token_logits_buffer"]
    assert sglang > view.shape[0] * view.shape[1]  # the case the view's rows undercount


def test_dflash_draft_vocab_logits_tensor() -> None:
    """DFLASH's draft DecodeCudaGraphRunner takes its view from the same object
    (decode_cuda_graph_runner.py:474-477): with a vocabulary of its own it is a tensor of
    max_rows rows too, here its own max_num_token."""
    got = ds.draft_logits_allocation(LINES[9][0], "dflash_draft")
    assert got is not None and got[0] == got[1]


def test_adaptive_draft_vocab_agrees() -> None:
    """Adaptive EAGLE with a draft vocabulary of its own: every state, and the tensors SGLang
    shares (the draft-vocab logits tensor's elements included), agree."""
    from tests.oracle import sglang_adaptive_oracle as sa

    found = {k: v for k, v in sa.compare(ADAPTIVE).items() if v}
    assert not found, found


def test_draft_logits_rows_planted(monkeypatch: pytest.MonkeyPatch) -> None:
    """graphfit counting the view's rows only (the rule off) is caught."""
    from graphfit.planner.engines import sglang

    monkeypatch.setattr(sglang, "draft_logits_rows", lambda decode, vocab: decode)
    sglang_elements, graphfit_elements = ds.draft_logits_allocation(LINES[0][0]) or (0, 0)
    assert graphfit_elements < sglang_elements


# --speculative-token-map, loaded by SGLang's own init_token_map / load_token_map
# (eagle_worker_v2.py:324-334, spec_utils.py:792-819) in the oracle's draft worker:
# (line, SGLang's draft logits columns the line must show)
MAP = ("--speculative-token-map",)
TOKEN_MAP_LINES: list[tuple[tuple[str, ...], str, int]] = [
    (ds.line("EAGLE", ds.draft(EAGLE1), *MAP, ds.token_map(8192)), "draft_extend", 8192),
    (ds.line("NEXTN", ds.draft(EAGLE1, vocab_size=32000), *MAP, ds.token_map(4096)),
     "draft_extend", 4096),
    (ds.line("STANDALONE", ds.draft("LlamaForCausalLM"), *MAP, ds.token_map(4096)),
     "draft_extend", 4096),
    # the config's width first (hasattr, :233-241), EAGLE3 ignores the map (:324-330),
    # the multi-layer composite too (:647-653)
    (ds.line("EAGLE", ds.draft(EAGLE1, hot_vocab_size=32000), *MAP, ds.token_map(4096)),
     "draft_extend", 32000),
    (ds.line("EAGLE3", ds.draft(EAGLE3), *MAP, ds.token_map(4096)), "draft_extend",
     ds.TARGET_VOCAB),
    (ds.line("EAGLE", ds.draft(EAGLE1), "--enable-multi-layer-eagle", *MAP,
             ds.token_map(4096)), "mtp_draft_extend", ds.TARGET_VOCAB),
]


@pytest.mark.parametrize(("argv", "runner", "columns"), TOKEN_MAP_LINES,
                         ids=[f"{a[3]}-{i}" for i, (a, _, _) in enumerate(TOKEN_MAP_LINES)])
def test_token_map_width(argv: tuple[str, ...], runner: str, columns: int) -> None:
    assert ds.compare(argv) == ("planned", [])
    runners = sc.sglang(argv, 80).runners
    assert runners is not None
    assert runners[runner].buffers["next_token_logits_buffer"].shape[-1] == columns


def test_token_map_planted(monkeypatch: pytest.MonkeyPatch) -> None:
    """graphfit not reading the map (main's upper bound) is caught on the map lines."""
    from graphfit.inputs import sglang_draft_shape as shape

    monkeypatch.setattr(shape, "map_length", lambda path: None)
    for argv, _, _ in TOKEN_MAP_LINES[:3]:
        got, diffs = ds.compare(argv)
        assert got == "differs", argv
        assert any("next_token_logits_buffer shape" in d.detail for d in diffs)


# the TARGET's dtype: SGLang's `_get_and_verify_dtype` (model_config.py:881, 2284-2345) on the
# line's --dtype and the model's config (the oracle model is bfloat16; the override args
# make it float32, which SGLang's auto turns into float16, vLLM's into bfloat16)
F32 = ("--json-model-override-args", '{"torch_dtype": "float32"}')
TARGET_DTYPE_LINES: list[tuple[tuple[str, ...], str]] = [
    (("--max-running-requests", "24", "--dtype", "half"), "float16"),
    (("--max-running-requests", "24", *F32), "float16"),
    (("--max-running-requests", "24", *F32, "--dtype", "bfloat16"), "bfloat16"),
    (ds.line("EAGLE", ds.draft(EAGLE1, torch_dtype="bfloat16"), "--dtype", "float16"),
     "float16"),
    (ds.line("EAGLE", ds.draft(EAGLE1, torch_dtype="bfloat16"), *F32), "float16"),
    (ds.line("EAGLE", ds.draft(EAGLE1, torch_dtype="bfloat16"), "--dtype", "float32"),
     "float32"),
]


@pytest.mark.parametrize(("argv", "dtype"), TARGET_DTYPE_LINES,
                         ids=[f"target-dtype-{i}" for i in range(len(TARGET_DTYPE_LINES))])
def test_target_dtype(argv: tuple[str, ...], dtype: str) -> None:
    assert ds.compare(argv) == ("planned", [])
    runners = sc.sglang(argv, 80).runners
    assert runners is not None
    assert runners["target"].buffers["input_embeds"].dtype == dtype  # not the bfloat16 default


def test_target_dtype_planted(monkeypatch: pytest.MonkeyPatch) -> None:
    """vLLM's float32 -> bfloat16 rule, or --dtype ignored (main's reading), is caught."""
    from graphfit.inputs import model_config, sglang_dtype

    monkeypatch.setattr(model_config, "sglang_dtype", lambda data, flag, *_: None)
    assert any("input_embeds dtype" in d.detail for d in ds.compare(TARGET_DTYPE_LINES[1][0])[1])
    monkeypatch.undo()
    monkeypatch.setattr(sglang_dtype, "flag_dtype", lambda flag: None)
    assert any("input_embeds dtype" in d.detail for d in ds.compare(TARGET_DTYPE_LINES[0][0])[1])


def test_planted_extra_draft_buffer_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The extra-buffer direction (issue 23 s50o): graphfit planted to track mamba state in
    the draft extend of a line on a dense target (SGLang allocates `mamba_track_indices` there
    only with the hybrid-mamba extra buffer, eagle_draft_extend_cuda_graph_runner.py:273-277)
    plans a buffer SGLang's runner lacks; the one-way check could not see it."""
    from graphfit.planner.engines import sglang_mamba_buffers

    monkeypatch.setattr(sglang_mamba_buffers, "mamba_extra_buffer", lambda config: True)
    outcome, diffs = ds.compare(LINES[0][0])
    assert outcome == "differs"
    assert len(diffs) == 1 and diffs[0].aspect == "draft_extend_extra_buffers", diffs
    assert diffs[0].detail.startswith("draft_extend.mamba_track_indices ")
    assert diffs[0].detail.endswith("SGLang's runner has no such buffer")
