"""graphfit's live check == SGLang 0.5.23 on a quantized checkpoint (issue 23, s63c).

The live check now reads the checkpoint's quantization as a pasted line does
(graphfit.inputs.sglang_live: `model_config.quant_settings`), `--quantization unquant` is
what SGLang makes of it (none before any ModelConfig, arg_groups/serving_hook.py:692-703),
and compressed-tensors / quark without a config in config.json are refused as SGLang's
loader fails on them (model_loader/weight_utils.py:346-375). Each drawn (layout, flag, GPU)
is answered by SGLang's own ModelConfig and loader checks (tests.oracle.sglang_live_quant).
"""

from __future__ import annotations

import types

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.inputs import model_config  # noqa: E402
from graphfit.inputs import sglang_quant_config_file as qcf  # noqa: E402
from graphfit.planner.engines.sglang_native import fields_from_sglang  # noqa: E402
from tests.oracle import sglang_live_quant as lq  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402

FIXED = [
    (None, "compressed-tensors", "H100"),  # CompressedTensorsConfig() fails
    (None, "quark", "B200"),  # QuarkConfig() raises
    ("modelopt_fp8", None, "A100"),  # the loader's SM89 floor, read from config.json
    ("fp8_block", "unquant", "B200"),  # unquant is none: the checkpoint's fp8 loads
    ("awq_4bit", "unquant", "A100"),
    (None, "fp8", "H100"),  # online fp8 starts
]


def _agree(case: lq.Case) -> tuple[str, str]:
    theirs, ours = lq.sglang(case), lq.live(case)
    assert theirs.startswith("refused") == ours.startswith("refused"), (case, theirs, ours)
    return theirs, ours


def test_fixed_cases_as_sglang() -> None:
    answers = [_agree(case)[0] for case in FIXED]
    # not vacuous: three refused, three started
    assert [a.split(":")[0] for a in answers] == ["refused"] * 3 + ["passed"] * 3


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(lq.LAYOUTS), st.sampled_from(lq.FLAGS), st.sampled_from(lq.GPUS))
def test_drawn_cases_as_sglang(layout: str | None, flag: str | None, gpu: str) -> None:
    _agree((layout, flag, gpu))


def test_unquant_on_sglangs_own_record() -> None:
    """SGLang's resolved record keeps `unquant` raw beside the opt-out and its ModelConfig
    loads the checkpoint's fp8; the live check on that record plans, and a record whose
    flag was already resolved to none still reads as the opt-out."""
    from sglang.srt.arg_groups.model_override_base import model_config_of
    from sglang.srt.arg_groups.overrides import resolving_view

    from graphfit.integrations.sglang import from_sglang
    from graphfit.planner.plan import plan

    r = so.resolve(("--max-running-requests", "16", "--quantization", "unquant"),
                   gpu_mem_gb=80, model=lq.folder("fp8_block"), capability=(10, 0))
    assert isinstance(r, so.Resolved), r
    assert model_config_of(r.record).quantization == "fp8"
    plan(from_sglang(r.record, environ={}, gpu_memory_gb="B200"))
    view = resolving_view(r.record)
    assert view.quantization is None and view._quantization_explicitly_unset is True
    fields = fields_from_sglang(types.SimpleNamespace(
        quantization=view.quantization, max_running_requests=16,
        _quantization_explicitly_unset=view._quantization_explicitly_unset))
    assert fields["quant_method"] == "unquant"


@pytest.mark.parametrize("plant, case", [
    ("no quant read", ("modelopt_fp8", None, "A100")),
    ("unquant kept", ("fp8_block", "unquant", "B200")),
    ("bare classes", (None, "compressed-tensors", "H100")),
])
def test_planted_errors_caught(monkeypatch: pytest.MonkeyPatch, plant: str,
                               case: lq.Case) -> None:
    if plant == "no quant read":
        monkeypatch.setattr(model_config, "quant_settings", lambda model: [])
    elif plant == "unquant kept":
        monkeypatch.setattr(qcf, "UNQUANT", "no-such-flag")
    else:
        monkeypatch.setattr(qcf, "ARGLESS_REFUSED", {})
    theirs, ours = lq.sglang(case), lq.live(case)
    assert theirs.startswith("refused") != ours.startswith("refused")


def test_hub_draft_note_names_sglangs_file_search() -> None:
    """A hub-id draft's note (graphfit.inputs.sglang_draft_quant.unchecked_note) is said for
    exactly the flags whose loader, on a draft that declares no quantization, searches the
    checkpoint's *.json and refuses without the file ("Cannot find the config file",
    weight_utils.py:379-389), over SGLang's own --quantization choices; a local draft, an
    unquantized line and a non-draft line get none."""
    from graphfit.inputs import sglang_draft_quant as dq
    from tests.oracle import sglang_quant_capability_oracle as co
    from tests.oracle import sglang_stubs

    so.oracle()
    with sglang_stubs.imports():
        from sglang.srt.arg_groups.choices import QUANTIZATION_CHOICES
    line = {"speculative_algorithm": "EAGLE", "speculative_draft_model_path": "org/eagle"}
    noted, searched = set(), set()
    for flag in QUANTIZATION_CHOICES:
        if flag in ("unquant", "humming", "quark_int4fp8_moe"):  # no search; kernels / TP
            continue
        if dq.unchecked_note({**line, "speculative_draft_model_quantization": flag}):
            noted.add(flag)
        if "Cannot find the config file" in co.load(flag, None, 90, lq.folder(None)).said:
            searched.add(flag)
    assert noted == searched and len(noted) >= 8, (noted ^ searched)
    assert dq.unchecked_note({**line, "quantization": "awq"})  # inherited
    assert not dq.unchecked_note({**line, "speculative_draft_model_path": lq.folder(None),
                                  "quantization": "awq"})
    assert not dq.unchecked_note({**line, "quantization": "unquant"})
    assert not dq.unchecked_note({"speculative_draft_model_path": "org/eagle",
                                  "quantization": "awq"})


@pytest.mark.parametrize("argv", [
    ("--quantization", "modelopt_fp8"),  # a hub-id target's file search
    ("--quantization", "fp8"),  # no file: no note
    ("--speculative-algorithm", "EAGLE", "--speculative-draft-model-path", "org/eagle",
     "--speculative-num-steps", "3", "--speculative-eagle-topk", "1",
     "--speculative-num-draft-tokens", "4", "--speculative-draft-model-quantization",
     "modelopt_fp8"),  # a hub-id draft's
], ids=repr)
def test_live_quant_notes_as_the_line(argv: tuple[str, ...]) -> None:
    """s63c: the live check carries the pasted line's quantization notes for hub ids
    (the line's notes are SGLang's file search, test_hub_draft_note_names_sglangs_file_search
    and the s54q file tests)."""
    from graphfit.inputs import commandline
    from graphfit.integrations.sglang import check_server_args

    line = ["python", "-m", "sglang.launch_server", "--model-path", "org/model",
            "--max-running-requests", "16", *argv]
    theirs = [n for n in commandline.read(line).notes if "config file search" in n]
    keys = {k.lstrip("-").replace("-", "_"): v for k, v in zip(argv[::2], argv[1::2],
                                                                strict=True)}
    for key in ("speculative_num_steps", "speculative_eagle_topk",
                "speculative_num_draft_tokens"):
        if key in keys:
            keys[key] = int(keys[key])
    record = types.SimpleNamespace(model_path="org/model", max_running_requests=16, **keys)
    ours = [n for n in check_server_args(record, gpu_memory_gb="H100").notes
            if "config file search" in n]
    assert ours == theirs
    assert bool(theirs) == (argv[1] != "fp8")
