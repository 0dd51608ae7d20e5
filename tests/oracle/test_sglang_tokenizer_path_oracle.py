"""`--tokenizer-path` with a connector scheme, graphfit vs SGLang 0.5.23 (issue 23 s45l,
graphfit.inputs.sglang_instance.check_tokenizer).

SGLang's resolution touches a tokenizer path only for the Run:ai schemes (downloaded,
arg_groups/model_path_hook.py:25-41); every other path resolves, and the server then loads
the tokenizer with `get_tokenizer` (managers/tokenizer_manager.py:638-648 and the scheduler,
TP workers, detokenizer), unless --skip-tokenizer-init. Its name resolution
(`_resolve_tokenizer_name`, utils/hf_transformers/tokenizer.py:149-172) pulls a `scheme://`
path through `create_remote_connector` with no device. Per drawn path the test runs both:
SGLang's resolution of the line, then SGLang's own `_resolve_tokenizer_name` on the path
(on CPU; the Redis and Azure pulls need a server, and are not called: their connector class
is checked instead); graphfit must refuse exactly the lines SGLang fails, with SGLang's
exception and file:line, on the pasted line and the live check alike, and plan the rest."""

from __future__ import annotations

import traceback

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")

from graphfit.integrations.sglang import from_sglang  # noqa: E402
from graphfit.planner.core.errors import ConfigError  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_stubs  # noqa: E402
from tests.oracle.test_sglang_instance_oracle import _graphfit, sglang_failure  # noqa: E402

MRR = ["--max-running-requests", "48"]
# paths SGLang resolves and then loads a tokenizer from (downloaded or pulled): planned
LOADED = ("redis://host:6379/t", "https://acct.blob.core.windows.net/c/t")
RUNAI = ("s3://bucket/t", "GS://bucket/t", "az://bucket/t")


def _line(path: str, *extra: str) -> list[str]:
    return ["--model-path", str(so.oracle().model_dir), *MRR, "--tokenizer-path", path,
            *extra]


def _pull(path: str) -> tuple[str, str] | None:
    """SGLang's tokenizer name resolution on `path`: (exception type, last frame) where it
    fails, None where it would pull (Redis / Azure: the connector is built, not run)."""
    so.oracle()
    with sglang_stubs.imports():  # SGLang's imports on the stubs' path
        from sglang.srt import connector
        from sglang.srt.connector import azure
        from sglang.srt.utils.hf_transformers import tokenizer

    def pulled(*_: object, **__: object) -> None:
        raise LookupError("pulled")

    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(connector, "RedisConnector", pulled)
            mp.setattr(azure, "AzureBlobConnector", pulled)
            tokenizer._resolve_tokenizer_name(path, {})
    except LookupError:
        return None
    except Exception as exc:  # SGLang's own failure
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        return type(exc).__name__, f"{frame.filename.split('srt/')[-1]}:{frame.lineno}"
    return None


def _live(argv: list[str]) -> str:
    """The live check's refusal of SGLang's resolved record ('' when it plans it)."""
    resolved = so.resolve(tuple(argv[2:]), gpu_mem_gb=80)
    assert isinstance(resolved, so.Resolved), resolved  # resolution never reads the path
    try:
        from_sglang(resolved.record, environ={}, gpu_memory_gb=80)
    except ConfigError as exc:
        return str(exc)
    return ""


def _agrees(path: str, *extra: str) -> str:
    """graphfit's refusal of the line, checked against SGLang's resolution and pull."""
    line = _line(path, *extra)
    failed = None if "--skip-tokenizer-init" in extra else _pull(path)
    refusal = _graphfit(line)
    if failed is None:
        assert refusal == "", (path, refusal)
    else:
        kind, frame = failed
        assert refusal.startswith("--tokenizer-path") and kind in refusal, (path, refusal)
        assert frame.split("/")[-1] in refusal and len(refusal) <= 200, (frame, refusal)
    live = _live(line)
    assert live.replace("server_args.tokenizer_path", "--tokenizer-path") == refusal, live
    return refusal


@pytest.mark.parametrize("path", ["instance://10.0.0.1:5000/t", "http://host/t",
                                  "Instance://10.0.0.1:5000/t", *LOADED])
def test_pinned_paths(path: str) -> None:
    refusal = _agrees(path)
    assert bool(refusal) == (path not in LOADED), refusal  # non-vacuous: both kinds seen


@settings(max_examples=4, deadline=None)
@given(st.from_regex(r"[a-zA-Z][a-zA-Z0-9+.]{1,8}", fullmatch=True))
def test_drawn_schemes(scheme: str) -> None:
    _agrees(f"{scheme}://host/t")


@pytest.mark.parametrize("path", ["instance://10.0.0.1:5000/t", "hf://org/t"])
def test_skip_tokenizer_init_loads_none(path: str) -> None:
    """--skip-tokenizer-init: no process loads the tokenizer (tokenizer_manager.py:638-640,
    scheduler.py:894-895, tp_worker.py:325-328, detokenizer_manager.py:137-140)."""
    assert _agrees(path, "--skip-tokenizer-init") == ""


@pytest.mark.parametrize("path", RUNAI)
def test_runai_tokenizer_is_downloaded_at_resolution(path: str) -> None:
    """SGLang downloads a Run:ai tokenizer path beside the model (the oracle has no Run:ai
    streamer, so its resolution stops in that download); graphfit reads nothing from it."""
    exc = sglang_failure(_line(path))
    assert exc is not None
    frames = [f"{f.filename.split('srt/')[-1]}:{f.lineno}"
              for f in traceback.extract_tb(exc.__traceback__)]
    assert "arg_groups/model_path_hook.py:41" in frames, frames
    assert _graphfit(_line(path)) == ""
