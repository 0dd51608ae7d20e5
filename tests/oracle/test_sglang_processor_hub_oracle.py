"""A hub-id model's `--tokenizer-path` and SGLang's multimodal processor (issue 23 s55l,
graphfit.inputs.sglang_processor_path.unchecked_note) against SGLang 0.5.23's own code.

SGLang reads a hub id's config.json from the hub, and only then knows whether it serves the
model as multimodal (`is_multimodal`, configs/model_config.py:820-828) and so builds the
processor on the tokenizer path (managers/tokenizer_manager.py:607-628). graphfit reads
nothing from the hub, so for each tokenizer path the same line runs through SGLang on two
local checkpoints that stand for what the hub id may be: Qwen3-VL (multimodal) and the text
model. Where SGLang's verdicts agree, graphfit's verdict on the hub-id line must be theirs,
with no note; where they differ (the processor fails, the text model starts), graphfit
plans the hub-id line and says, in one note, that the processor refuses the path for a
multimodal model, with the exception and file SGLang's processor fails in."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.oracle.paths import require

require("sglang")

from graphfit.inputs import commandline  # noqa: E402
from graphfit.planner.core.errors import ConfigError  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_post_capture_oracle as pc  # noqa: E402
from tests.oracle.test_sglang_processor_path_oracle import sglang_fails  # noqa: E402

HUB = "org/some-model"  # a hub id: no local config.json
MRR = ("--max-running-requests", "48")
CASES = [(path, skip) for path in ("redis://host:6379/t", "instance://10.0.0.1:5000/t",
                                   "hf://org/t",
                                   "https://acct.blob.core.windows.net/c/t")
         for skip in (False, True)]


def _graphfit(argv: tuple[str, ...]) -> tuple[str, list[str]]:
    """graphfit on the hub-id line: (its refusal, '' when planned; the processor's notes)."""
    line = ["python", "-m", "sglang.launch_server", "--model-path", HUB, *argv]
    try:
        pasted = commandline.read(line)
    except ConfigError as exc:
        return str(exc), []
    return "", [n for n in pasted.notes if "multimodal" in n and "--tokenizer-path" in n]


@pytest.mark.parametrize(("path", "skip"), CASES, ids=repr)
def test_hub_id_processor_note_where_the_checkpoint_decides(path: str, skip: bool) -> None:
    argv = (*MRR, "--tokenizer-path", path, *(("--skip-tokenizer-init",) if skip else ()))
    multimodal = sglang_fails(pc.model_dir("vl"), argv)
    text = sglang_fails(str(so.oracle().model_dir), argv)
    refusal, notes = _graphfit(argv)
    if (multimodal is None) == (text is None):  # the checkpoint does not decide
        assert bool(refusal) == (text is not None), (path, skip, text, refusal)
        assert notes == [], notes
        return
    assert multimodal is not None and text is None, (multimodal, text)  # the premise
    kind, frame = multimodal
    assert refusal == "" and len(notes) == 1, (refusal, notes)
    assert kind in notes[0] and frame.split("/")[-1] in notes[0], (multimodal, notes)


def _graphfit_file(argv: tuple[str, ...], tmp: Path) -> tuple[str, list[str]]:
    """graphfit on the same hub-id target and tokenizer path given in its own `--config`
    file (issue 23 s62c): (its refusal, '' when planned; the processor's notes)."""
    from graphfit.cli.options import resolve_values
    from graphfit.planner.core.errors import GraphfitError

    keys: dict[str, object] = {"engine": "sglang", "model_path": HUB,
                               "max_running_requests": 48, "tokenizer_path": argv[3],
                               "skip_tokenizer_init": "--skip-tokenizer-init" in argv}
    config = tmp / "serve.json"
    config.write_text(json.dumps(keys))
    try:
        notes = resolve_values({"gpu_memory_gb": "H100", "config_file": str(config)},
                               environ={}).notes
    except GraphfitError as exc:
        return str(exc), []
    return "", [n for n in notes if "multimodal" in n and "tokenizer_path" in n]


@pytest.mark.parametrize(("path", "skip"), CASES, ids=repr)
def test_file_hub_id_processor_note_as_the_line(path: str, skip: bool, tmp_path: Path) -> None:
    """The file's verdict and note are the pasted line's (checked against SGLang above), with
    the key's name: the note was said only for pasted lines before s62c."""
    argv = (*MRR, "--tokenizer-path", path, *(("--skip-tokenizer-init",) if skip else ()))
    line_refusal, line_notes = _graphfit(argv)
    refusal, notes = _graphfit_file(argv, tmp_path)
    assert bool(refusal) == bool(line_refusal), (refusal, line_refusal)
    assert [n.replace("--tokenizer-path", "tokenizer_path") for n in line_notes] == notes


def _graphfit_live(argv: tuple[str, ...]) -> tuple[str, list[str]]:
    """The live check on a record of the same hub-id line (issue 23 s63c): (its refusal, ''
    when checked; the processor's notes, which the check now carries)."""
    import types

    from graphfit.integrations.sglang import check_server_args
    from graphfit.planner.core.errors import GraphfitError

    record = types.SimpleNamespace(model_path=HUB, max_running_requests=48,
                                   tokenizer_path=argv[3],
                                   skip_tokenizer_init="--skip-tokenizer-init" in argv)
    try:
        notes = check_server_args(record, gpu_memory_gb="H100").notes
    except GraphfitError as exc:
        return str(exc), []
    return "", [n for n in notes if "multimodal" in n and "tokenizer_path" in n]


@pytest.mark.parametrize(("path", "skip"), CASES, ids=repr)
def test_live_hub_id_processor_note_as_the_line(path: str, skip: bool) -> None:
    """s63c: the live check's verdict and note are the pasted line's (checked against SGLang
    above); before, the live check said no note."""
    argv = (*MRR, "--tokenizer-path", path, *(("--skip-tokenizer-init",) if skip else ()))
    line_refusal, line_notes = _graphfit(argv)
    refusal, notes = _graphfit_live(argv)
    assert bool(refusal) == bool(line_refusal), (refusal, line_refusal)
    assert [n.replace("--tokenizer-path", "server_args.tokenizer_path")
            for n in line_notes] == notes


class _HubView:
    """A resolved ServerArgs (read-only once resolved) seen under the hub id: every field its
    own, the model path and the memo's key the hub id's."""

    model_path = HUB
    _model_config_built_from = HUB

    def __init__(self, record: object) -> None:
        self._record = record

    def __getattr__(self, name: str) -> object:
        return getattr(self._record, name)


def _graphfit_built(model: str, argv: tuple[str, ...]) -> tuple[str, list[str]]:
    """The live check on SGLang's own resolved record of the line over the stand-in checkpoint
    `model`, naming the hub id as SGLang's record of the hub-id line does: its resolution
    memoized the ModelConfig of the config.json it downloaded (`model_config_of`,
    arg_groups/model_override_base.py:192-221), which the stand-in's is (issue 23 s66c)."""
    from sglang.srt.arg_groups.model_override_base import model_config_of

    from graphfit.integrations.sglang import check_server_args
    from graphfit.planner.core.errors import GraphfitError

    r = so.resolve(argv, gpu_mem_gb=80, model=model)
    assert isinstance(r, so.Resolved), r
    model_config_of(r.record)
    try:
        notes = check_server_args(_HubView(r.record), gpu_memory_gb="H100").notes
    except GraphfitError as exc:
        return str(exc), []
    return "", [n for n in notes if "multimodal" in n and "tokenizer_path" in n]


@pytest.mark.parametrize(("path", "skip"), [("redis://host:6379/t", False), ("hf://org/t", True)],
                         ids=repr)
def test_live_hub_id_judged_on_sglangs_model_config(path: str, skip: bool) -> None:
    """s66c: where SGLang's resolution memoized the hub-id model's ModelConfig, the live
    check judges the processor as a local checkpoint's line is judged: refused exactly where
    SGLang's processor fails on the checkpoint the hub id stands for (multimodal or text),
    naming its exception and file, and no note either way (the note stays for a record
    SGLang did not resolve: test_live_hub_id_processor_note_as_the_line). Two paths: one the
    text tokenizer loads, one only --skip-tokenizer-init lets through."""
    argv = (*MRR, "--tokenizer-path", path, *(("--skip-tokenizer-init",) if skip else ()))
    for model in (pc.model_dir("vl"), str(so.oracle().model_dir)):
        failed = sglang_fails(model, argv)
        refusal, notes = _graphfit_built(model, argv)
        assert notes == [], notes
        assert bool(refusal) == (failed is not None), (model, failed, refusal)
        if failed is not None:
            kind, frame = failed
            assert kind in refusal and frame.split("/")[-1] in refusal, (failed, refusal)
            assert len(refusal) <= 200, refusal
