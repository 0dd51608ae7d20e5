"""A multimodal model's processor and `--tokenizer-path` (issue 23 s47l,
graphfit.inputs.sglang_processor_path) against SGLang 0.5.23's own code.

Per line, SGLang's side is what its tokenizer manager does (managers/tokenizer_manager.py:
607-648): SGLang resolves the line, its ModelConfig says whether the model is served as
multimodal (`is_multimodal`); if so, SGLang's own `get_processor` runs on the tokenizer path
(utils/hf_transformers/processor.py:245-346, even under --skip-tokenizer-init), else, unless
--skip-tokenizer-init, its tokenizer name resolution (s45l's `_pull`). graphfit must refuse
exactly the lines where that fails, on the pasted line and on the live check alike, and the
processor's refusal must carry its exception and file:line."""

from __future__ import annotations

import json
import tempfile
import traceback
from pathlib import Path

import pytest

from tests.oracle.paths import require

require("sglang")

from graphfit.integrations.sglang import from_sglang  # noqa: E402
from graphfit.planner.core.errors import ConfigError  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_post_capture_oracle as pc  # noqa: E402
from tests.oracle import sglang_stubs  # noqa: E402
from tests.oracle.test_sglang_instance_oracle import _graphfit  # noqa: E402
from tests.oracle.test_sglang_tokenizer_path_oracle import _pull  # noqa: E402

MRR = ("--max-running-requests", "48")
PATHS = ("redis://host:6379/t", "https://acct.blob.core.windows.net/c/t",
         "instance://10.0.0.1:5000/t", "hf://org/t")


def _lm_only_model() -> str:
    """The Qwen3-VL directory with the checkpoint's own `language_model_only`."""
    data = json.loads((Path(pc.model_dir("vl")) / "config.json").read_text())
    root = Path(tempfile.mkdtemp(prefix="graphfit-s47l-lm-only-"))
    (root / "config.json").write_text(json.dumps({**data, "language_model_only": True}))
    return str(root)


def _processor(path: str, model: str) -> tuple[str, str] | None:
    """SGLang's `get_processor` on `path` (the model's config from `model`): (exception type,
    SGLang's frame) where it fails."""
    so.oracle()
    with sglang_stubs.imports():
        from sglang.srt.utils.hf_transformers import processor
    try:
        processor.get_processor(path, model_name=model)
    except Exception as exc:  # SGLang's own failure
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if "sglang" in f.filename]
        return type(exc).__name__, f"{frames[-1].filename.split('srt/')[-1]}:{frames[-1].lineno}"
    return None


def sglang_fails(model: str, argv: tuple[str, ...]) -> tuple[str, str] | None:
    """Where SGLang's tokenizer manager fails on the line (module docstring), or None."""
    r = so.resolve(argv, gpu_mem_gb=80, model=model)
    assert isinstance(r, so.Resolved), r
    from sglang.srt.arg_groups.model_override_base import model_config_of

    path = argv[argv.index("--tokenizer-path") + 1]
    if model_config_of(r.record).is_multimodal and not r.record.language_model_only:
        return _processor(path, model)
    return None if "--skip-tokenizer-init" in argv else _pull(path)


def _live(model: str, argv: tuple[str, ...]) -> str:
    r = so.resolve(argv, gpu_mem_gb=80, model=model)
    assert isinstance(r, so.Resolved), r
    try:
        from_sglang(r.record, environ={}, gpu_memory_gb=80)
    except ConfigError as exc:
        return str(exc)
    return ""


def _agree(model: str, argv: tuple[str, ...]) -> tuple[str, str] | None:
    failed = sglang_fails(model, argv)
    refusal = _graphfit(["--model-path", model, *argv])
    if failed is None:
        assert refusal == "", refusal
    else:
        kind, frame = failed
        assert kind in refusal and frame.split("/")[-1] in refusal, (failed, refusal)
        assert len(refusal) <= 200, refusal
    live = _live(model, argv)
    assert live.replace("server_args.tokenizer_path", "--tokenizer-path") == refusal, live
    return failed


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("skip", [False, True])
def test_multimodal_processor_reads_the_path(path: str, skip: bool) -> None:
    """Qwen3-VL (multimodal): the processor fails on every connector path, skip or not."""
    argv = (*MRR, "--tokenizer-path", path, *(("--skip-tokenizer-init",) if skip else ()))
    failed = _agree(pc.model_dir("vl"), argv)
    assert failed is not None and failed[0] == "OSError", failed  # the premise


def test_text_only_checkpoint_loads_no_processor() -> None:
    """The checkpoint's own `language_model_only` (`is_lm_only`, configs/model_config.py:
    674-676; the --language-model-only flag is refused for Qwen3-VL, model_hook.py:1079): the
    text tokenizer's rule alone (redis:// loads; under --skip-tokenizer-init nothing loads)."""
    model = _lm_only_model()
    assert _agree(model, (*MRR, "--tokenizer-path", "redis://host:6379/t")) is None
    assert _agree(model, (*MRR, "--tokenizer-path", "hf://org/t",
                          "--skip-tokenizer-init")) is None


def test_text_model_keeps_the_tokenizer_rule() -> None:
    """A text model: no processor; redis:// loads, and skip loads nothing."""
    model = str(so.oracle().model_dir)
    assert _agree(model, (*MRR, "--tokenizer-path", "redis://host:6379/t")) is None
    assert _agree(model, (*MRR, "--tokenizer-path", "hf://org/t",
                          "--skip-tokenizer-init")) is None


@pytest.mark.parametrize("path", ["redis://host:6379/t", "instance://10.0.0.1:5000/t"])
def test_config_file_tokenizer_path_reaches_the_processor(path: str) -> None:
    """A --config file's tokenizer path (merged into argv, utils/server_args_config_parser.py:
    75-106) on Qwen3-VL with the line's --skip-tokenizer-init: SGLang's processor still
    fails; graphfit's `engine: sglang` file is refused with the same reason."""
    from tests.helpers import run_cli

    model = pc.model_dir("vl")
    root = Path(tempfile.mkdtemp(prefix="graphfit-s47l-file-"))
    (root / "s.yaml").write_text(f"tokenizer-path: {json.dumps(path)}\n")
    argv = ("--config", str(root / "s.yaml"), *MRR, "--skip-tokenizer-init")
    r = so.resolve(argv, gpu_mem_gb=80, model=model)
    assert isinstance(r, so.Resolved), r
    failed = _processor(str(r.record.tokenizer_path), model)
    assert failed is not None, "premise: SGLang's processor fails"
    (root / "g.json").write_text(json.dumps({"engine": "sglang", "tokenizer_path": path}))
    code, _out, text = run_cli(["plan", "--gpu-memory-gb", "80", "--config",
                                str(root / "g.json"), "--", "python", "-m",
                                "sglang.launch_server", "--model-path", model, *MRR,
                                "--skip-tokenizer-init"])
    errors = [ln for ln in text.strip().splitlines() if ln.startswith("error:")]
    assert code == 2 and errors, text
    assert failed[0] in errors[-1] and failed[1].split("/")[-1] in errors[-1], errors


def _with(extra: dict[str, object]) -> str:
    """The text model's directory with `extra` keys in its config.json (issue 23 s49l)."""
    data = json.loads((Path(pc.model_dir("llama")) / "config.json").read_text())
    root = Path(tempfile.mkdtemp(prefix="graphfit-s49l-sub-"))
    (root / "config.json").write_text(json.dumps({**data, **extra}))
    return str(root)


def _text() -> dict[str, object]:
    data = json.loads((Path(pc.model_dir("llama")) / "config.json").read_text())
    return {k: v for k, v in data.items() if k != "architectures"}


SUB_CASES = [  # (config.json keys added to a LlamaForCausalLM checkpoint, extra flags)
    ({"text_config": "text"}, ()), ({"language_config": "text"}, ()),
    ({"llm_config": "text"}, ()), ({"thinker_config": "text"}, ("--skip-tokenizer-init",)),
    ({"vision_config": {"hidden_size": 8}}, ()),
    ({"vision_config": {"hidden_size": 8}}, ("--model-impl", "transformers")),
    ({"text_config": "text", "language_model_only": True}, ()),
    # mm_disabled_models (configs/model_config.py:690-705)
    ({"architectures": ["Gemma3ForConditionalGeneration"], "text_config": "text"}, ()),
    ({"architectures": ["Gemma3ForConditionalGeneration"], "text_config": "text"},
     ("--enable-multimodal",)),
    # the pick's order and its asserted keys (graphfit.inputs.sglang_text_pick, s69s): a null
    # sub-config leaves the top level (common.py:612-613), the first key present wins
    # (:582-608), and a text_config behind a picked language_config is not asserted (:605)
    ({"language_config": None}, ()),
    ({"thinker_config": None, "text_config": "text"}, ("--skip-tokenizer-init",)),
    ({"language_config": "text", "text_config": {"hidden_size": 8}}, ()),
]


@pytest.mark.parametrize(("extra", "flags"), SUB_CASES)
def test_sub_config_multimodal_agrees(extra: dict[str, object], flags: tuple[str, ...]) -> None:
    """A class outside `multimodal_model_archs` that SGLang serves as multimodal through its
    sub-config (configs/model_config.py:809-815; utils/hf_transformers/common.py:547-613), or
    not: graphfit refuses exactly where SGLang's processor fails, pasted and live alike."""
    keys = {k: (_text() if v == "text" else v) for k, v in extra.items()}
    model = _with(keys)
    r = so.resolve((*MRR, *flags), gpu_mem_gb=80, model=model)
    assert isinstance(r, so.Resolved), r
    from sglang.srt.arg_groups.model_override_base import model_config_of

    multimodal = model_config_of(r.record).is_multimodal
    failed = _agree(model, (*MRR, "--tokenizer-path", "redis://host:6379/t", *flags))
    assert (failed is not None) == multimodal, (failed, multimodal)  # the premise


def test_own_config_types_are_sglangs_registry() -> None:
    """graphfit's restated `_CONFIG_REGISTRY` model types (whose classes SGLang reloads, so
    the JSON's sub-configs are not read off the file) are SGLang's own."""
    from graphfit.inputs.sglang_processor_path import OWN_CONFIG_TYPES

    so.oracle()
    with sglang_stubs.imports():
        from sglang.srt.utils.hf_transformers import common
    assert set(common._CONFIG_REGISTRY) == OWN_CONFIG_TYPES


def _v41(vision: dict[str, object]) -> str:
    """A DeepSeek-V4.1 directory (the DeepSeek-V4 stand-in, model type deepseek_v41) with
    `vision` keys in its config.json (issue 23 s50l)."""
    data = json.loads((Path(pc.model_dir("dsv4")) / "config.json").read_text())
    root = Path(tempfile.mkdtemp(prefix="graphfit-s50l-v41-"))
    (root / "config.json").write_text(json.dumps({**data, "model_type": "deepseek_v41",
                                                   **vision}))
    return str(root)


def _pulled_processor(path: str, model: str) -> tuple[str, str] | None:
    """SGLang's `get_processor` with the Redis / Azure connectors' construction standing for
    a pull (as `_pull`: the connector is built, not run): None where it would load."""
    so.oracle()
    with sglang_stubs.imports():
        from sglang.srt import connector
        from sglang.srt.connector import azure

    def pulled(*_: object, **__: object) -> None:
        raise LookupError("pulled")

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(connector, "RedisConnector", pulled)
        mp.setattr(azure, "AzureBlobConnector", pulled)
        failed = _processor(path, model)
    return None if failed is not None and failed[0] == "LookupError" else failed


V41_CASES = [  # (config.json keys, tokenizer path)
    ({"vision_config": {"num_hidden_layers": 2}}, "instance://10.0.0.1:5000/t"),
    ({"vision_config": {"num_hidden_layers": 2}}, "hf://org/t"),
    ({"vision_config": {"num_hidden_layers": 2}}, "redis://host:6379/t"),
    ({"vision_n_layers": 3}, "https://acct.blob.core.windows.net/c/t"),
    ({"vision_config": {"num_hidden_layers": 0}}, "instance://10.0.0.1:5000/t"),
]


@pytest.mark.parametrize(("vision", "path"), V41_CASES)
def test_deepseek_v41_vision_processor_is_the_tokenizer(vision: dict[str, object],
                                                        path: str) -> None:
    """A DeepSeek-V4.1 vision checkpoint under --skip-tokenizer-init: SGLang serves it as
    multimodal (`has_dsv41_vision`, configs/model_config.py:816-828) and its processor is
    `get_tokenizer` (processor.py:290-293), so the text tokenizer's connector rule decides:
    graphfit refuses exactly where SGLang's own get_processor fails, with its reason."""
    model = _v41(vision)
    argv = (*MRR, "--tokenizer-path", path, "--skip-tokenizer-init")
    r = so.resolve(argv, gpu_mem_gb=80, model=model)
    assert isinstance(r, so.Resolved), r
    from sglang.srt.arg_groups.model_override_base import model_config_of

    multimodal = model_config_of(r.record).is_multimodal
    failed = _pulled_processor(path, model) if multimodal else None
    assert multimodal == ("0" not in json.dumps(vision))  # the premise
    assert failed is None or "processor.py" not in failed[1], failed  # not AutoProcessor
    refusal = _graphfit(["--model-path", model, *argv])
    if failed is None:
        assert refusal == "", refusal
    else:
        assert failed[0] in refusal and failed[1].split("/")[-1] in refusal, (failed, refusal)
    assert _live(model, argv).replace("server_args.tokenizer_path",
                                      "--tokenizer-path") == refusal
