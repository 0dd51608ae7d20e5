"""Target and draft model paths with a connector scheme, graphfit vs SGLang 0.5.23's own
resolution (graphfit.inputs.sglang_instance).

SGLang reads a scheme path's config through a connector: the target's at its first
`get_config` (muse_spark_hook.py:43), the draft's in `handle_speculative_decoding`
(speculative_hook.py:90-95), both via utils/hf_transformers/config.py:366-371, after Run:ai
paths were downloaded (arg_groups/model_path_hook.py:25-41). Per drawn line (scheme, target
or draft, algorithm) SGLang's resolution must fail where graphfit's refusal says: with
SGLang's reason (instance:// -> remote_instance.py:19; an unknown scheme -> connector/
__init__.py:51), or through the store graphfit says it does not read (Run:ai download,
Redis, Azure Blob), refused as not modelled. The control: a local draft resolves on both."""

from __future__ import annotations

import traceback

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle.test_sglang_instance_oracle import _graphfit, sglang_failure  # noqa: E402

# scheme path -> (where SGLang's traceback passes, what graphfit's refusal cites)
KNOWN = {
    "instance://10.0.0.1:5000/m": ("connector/remote_instance.py:19", "remote_instance.py:19"),
    "s3://bucket/m": ("arg_groups/model_path_hook.py:41", "model_path_hook.py:25-41"),
    "GS://bucket/m": ("arg_groups/model_path_hook.py:41", "model_path_hook.py:25-41"),
    "az://bucket/m": ("arg_groups/model_path_hook.py:41", "model_path_hook.py:25-41"),
    "redis://host:6379/m": ("connector/__init__.py:39", "connector/redis.py:17-25"),
    "https://acct.blob.core.windows.net/c/m": ("connector/__init__.py:48",
                                               "connector/__init__.py:44-49"),
    "http://host/m": ("connector/__init__.py:51", "connector/__init__.py:51"),
    "Instance://10.0.0.1:5000/m": ("connector/__init__.py:51", "connector/__init__.py:51"),
}
ALGORITHMS = (None, "EAGLE", "EAGLE3", "NGRAM", "STANDALONE")


def _frames(argv: list[str]) -> list[str]:
    """SGLang's traceback as 'path:line' frames, [] when the line resolved."""
    exc = sglang_failure(argv)
    if exc is None:
        return []
    return [f"{f.filename.split('srt/')[-1]}:{f.lineno}"
            for f in traceback.extract_tb(exc.__traceback__)]


def _line(path: str, draft: bool, algorithm: str | None) -> list[str]:
    model = str(so.oracle().model_dir)
    line = ["--model-path", model if draft else path, "--max-running-requests", "48"]
    if algorithm is not None:
        line += ["--speculative-algorithm", algorithm]
    if draft:
        line += ["--speculative-draft-model-path", path]
    return line


@settings(max_examples=6, deadline=None)
@given(st.sampled_from(sorted(KNOWN)), st.booleans(), st.sampled_from(ALGORITHMS))
def test_scheme_paths_fail_where_graphfit_says(path: str, draft: bool,
                                               algorithm: str | None) -> None:
    line = _line(path, draft, algorithm)
    where, cited = KNOWN[path]
    frames = _frames(line)
    assert where in frames, frames
    refusal = _graphfit(line)
    flag = "--speculative-draft-model-path" if draft else "--model-path"
    assert refusal.startswith(flag) and cited in refusal and len(refusal) <= 200, refusal
    # SGLang fails with this reason, or graphfit reads no store: said so
    assert ("not modelled" in refusal) != (where in (
        "connector/remote_instance.py:19", "connector/__init__.py:51")), refusal


@settings(max_examples=4, deadline=None)
@given(st.from_regex(r"[a-z][a-z0-9+.]{1,8}", fullmatch=True), st.booleans())
def test_unknown_schemes_refused_with_sglangs_reason(scheme: str, draft: bool) -> None:
    if scheme in ("instance", "redis", "s3", "gs", "az"):
        return
    line = _line(f"{scheme}://host/m", draft, "EAGLE")
    assert "connector/__init__.py:51" in _frames(line)
    assert "connector/__init__.py:51" in _graphfit(line)


@pytest.mark.parametrize("algorithm", ["EAGLE", None])
def test_local_draft_control(algorithm: str | None) -> None:
    line = _line(str(so.oracle().model_dir), True, algorithm)
    assert _frames(line) == []
    assert "speculative-draft-model-path" not in _graphfit(line)
