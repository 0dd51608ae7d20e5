"""SGLang 0.5.23's mamba-flag checks on a graphfit config file (`--config`): the same keys as
SGLang arguments, resolved by SGLang's own pipeline (`handle_mamba_backend`'s stochastic-
rounding checks, arg_groups/mamba_hook.py:30-52, and `handle_int8_mamba_checkpoint`,
:75-99) on the named GPU's capability, against graphfit reading the file
(graphfit.inputs.sglang_mamba_flags.file / settle_file). A pasted line's are compared in
test_sglang_mamba_families_oracle; here the file form, each line both ways: the keys in the
file, and the keys in the file with the model on a pasted line."""

from __future__ import annotations

import json
import shlex
import tempfile
from pathlib import Path

import pytest

from tests.oracle.paths import require

require("sglang")

from graphfit.cli.options import resolve_values  # noqa: E402
from graphfit.inputs import commandline  # noqa: E402
from graphfit.planner.core.errors import ConfigError  # noqa: E402
from tests.oracle import sglang_mamba_memory_oracle as mm  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402

ROUNDING = {"enable_mamba_cache_stochastic_rounding": True}
FP16 = {"mamba_ssm_dtype": "float16"}
INT8 = {"enable_int8_mamba_checkpoint": True}
FILES = [
    ROUNDING, {**ROUNDING, "mamba_ssm_dtype": "bfloat16"}, {**ROUNDING, **FP16},
    {**ROUNDING, **FP16, "mamba_backend": "flashinfer"}, {"mamba_backend": "flashinfer"},
    INT8, {**INT8, "enable_hierarchical_cache": True}, {**INT8, "enable-hicache": True},
    {**INT8, "radix_cache_backend": "mooncake"}, {**INT8, "enable_lmcache": True},
    {"enable_hierarchical_cache": True}, {**INT8, "enable_hierarchical_cache": False},
    {"radix_cache_backend": "mooncake"},
    # the linear-attention kernels' checks (attention_hook.py:318-323, 334-377; issue 23 s44m)
    {"linear_attn_decode_backend": "flashinfer"},
    {"linear_attn_decode_backend": "flashinfer", "mamba_ssm_dtype": "bfloat16"},
    {"linear_attn_verify_backend": "flashinfer", "mamba_ssm_dtype": "float32"},
    {"linear_attn_backend": "flashinfer"}, {"linear_attn_decode_backend": "flashkda"}]
# SGLang's own words for each refusal graphfit restates
WORDS = ("float16, got", "SM100 with CUDA >= 12.8", "host-offload path",
         "built-in mamba radix cache", "LMCache is not int8-aware",
         "requires --mamba-ssm-dtype bfloat16", "FlashKDA is prefill-only")


def _argv(keys: dict) -> tuple[str, ...]:
    """The file's keys as the SGLang flags they are."""
    argv: list[str] = []
    for key, value in keys.items():
        flag = "--" + key.replace("_", "-")
        if value is True:
            argv.append(flag)
        elif value is not False:
            argv += [flag, str(value)]
    return tuple(argv)


def _file(keys: dict, with_model: bool) -> str:
    directory = Path(tempfile.mkdtemp(prefix="graphfit-mamba-file-"))
    path = directory / "serve.json"
    model = {"model_path": mm.model_dir(0)} if with_model else {}
    path.write_text(json.dumps({**model, "max_running_requests": 3000, **keys}))
    return str(path)


def _ours(keys: dict, gpu: str, with_model: bool) -> str | None:
    own = {"gpu_memory_gb": gpu, "weights_gb": 20.0, "config_file": _file(keys, with_model)}
    pasted = None if with_model else commandline.read([shlex.join(
        ["python", "-m", "sglang.launch_server", "--model-path", mm.model_dir(0)])])
    try:
        resolve_values(own, environ={}, pasted=pasted).config()
    except ConfigError as exc:
        text = str(exc)
        assert len(text) <= 200 and "\n" not in text
        return text
    return None


@pytest.mark.parametrize("with_model", (True, False), ids=("model in file", "pasted model"))
@pytest.mark.parametrize("gpu", ("H100", "B200"))
@pytest.mark.parametrize("keys", FILES, ids=lambda k: " ".join(_argv(k)) or "none")
def test_mamba_hook_checks_on_a_config_file_as_sglang(keys: dict, gpu: str,
                                                       with_model: bool) -> None:
    """graphfit refuses exactly the files whose keys SGLang refuses as flags, with SGLang's
    reason, in one line."""
    theirs = so.resolve(_argv(keys), gpu_mem_gb=80, model=mm.model_dir(0),
                        capability=(10, 0) if gpu == "B200" else None)
    ours = _ours(keys, gpu, with_model)
    if isinstance(theirs, so.Rejected):
        assert ours is not None, theirs.text
        assert [w in ours for w in WORDS] == [w in theirs.text for w in WORDS], (ours, theirs)
    else:
        assert ours is None, ours


def test_a_bad_backend_name_in_a_file_is_refused() -> None:
    """--mamba-backend's choices (SGLang's argparse refuses any other) hold in a file too."""
    ours = _ours({"mamba_backend": "cuda"}, "B200", True)
    assert ours is not None and "invalid choice" in ours, ours
    assert isinstance(so.resolve(("--mamba-backend", "cuda"), gpu_mem_gb=80,
                                 model=mm.model_dir(0)), so.Rejected)


# a file with no `engine` key, read with graphfit's `--engine sglang` (issue 23 s45m): its
# `attention_backend` is SGLang's, as in a file naming `engine: sglang` (graphfit.inputs.
# resolve._line_keys); SGLang's own pipeline on the same keys as flags decides
NO_BUFFER = {"mamba_radix_cache_strategy": "no_buffer", "disable_overlap_schedule": True}
ENGINE_FLAG_FILES = [
    {"attention_backend": "fa3"}, {"attention_backend": "triton"},
    {"attention_backend": "trtllm_mha", **NO_BUFFER},  # mamba_hook.py:161-163
    {"attention_backend": "fa3", **NO_BUFFER}]


def _planned(keys: dict, gpu: str, engine_flag: bool = True) -> str | None:
    """graphfit's refusal (resolution or plan) for the file under `--engine sglang`, or with
    no engine named anywhere (the file's `model_path`, SGLang's spelling, implies it)."""
    from graphfit import plan

    # (--weights-gb is SGLang's flag: it names the engine too, so not given without the flag)
    own = {"gpu_memory_gb": gpu, "config_file": _file(keys, True),
           **({"engine": "sglang", "weights_gb": 20.0} if engine_flag else {})}
    try:
        plan(resolve_values(own, environ={}).config())
    except ConfigError as exc:
        text = str(exc)
        assert len(text) <= 200 and "\n" not in text
        return text
    return None


@pytest.mark.parametrize("engine_flag", (True, False), ids=("--engine sglang", "implied"))
@pytest.mark.parametrize("gpu", ("H100", "B200"))
@pytest.mark.parametrize("keys", ENGINE_FLAG_FILES, ids=lambda k: " ".join(_argv(k)))
def test_engine_flag_reads_the_file_backend_as_sglang(keys: dict, gpu: str,
                                                      engine_flag: bool) -> None:
    """graphfit plans the file SGLang serves and refuses the one SGLang refuses on its
    no_buffer / trtllm_mha assertion, with that rule's place."""
    theirs = so.resolve(_argv(keys), gpu_mem_gb=80, model=mm.model_dir(0),
                        capability=(10, 0) if gpu == "B200" else None)
    ours = _planned(keys, gpu, engine_flag)
    if isinstance(theirs, so.Rejected):
        assert "no_buffer do not support trtllm_mha" in theirs.text, theirs.text[-200:]
        assert ours is not None and "mamba_hook.py:161" in ours, ours
    else:
        assert ours is None, ours
