"""A MiniMax-M3 target without a sparse config (issue 23, s53m), against SGLang 0.5.23 itself.

SGLang's model class builds such a config (every layer dense, models/minimax_m3.py:1702-1704),
but the server then sizes its KV pool, and a MiniMax-M3 target's cell size reads the sparse
config (model_executor/pool_configurator.py:410-415): the text config's, else the top level's,
raising "Could not find sparse config. Is it MiniMax M3 Sparse model?" where both are absent
or null (configs/model_config.py:446-456). The oracle (tests/oracle/sglang_minimax_target_oracle
.build) builds the model class and then runs SGLang's own `get_minimax_sparse_attention_config`
on the same hf_config; graphfit must refuse exactly those lines, with SGLang's exception and
raising line, and plan the others (the compare of test_sglang_minimax_target_oracle).
The live check (graphfit.inputs.sglang_live) calls the same `line` and is not run here.

Cases, each way: top level and nested absent / null / present, the VL wrapper's top-level
fallback, a layer's own failure first, and the same targets from graphfit's own config file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_minimax_target_oracle as mo  # noqa: E402
from tests.oracle import test_sglang_minimax_target_oracle as mt  # noqa: E402
from tests.oracle.config_dirs import content_dir  # noqa: E402

POOL = "Could not find sparse config"
_DENSE = {"sparse_attention_freq": [0, 0], "sparse_num_index_heads": 4, "sparse_index_dim": 64}


def _dir(text: dict[str, Any], nested: bool, top: dict[str, Any] | None = None) -> str:
    """A target directory written as given (JSON null kept, unlike `mo.target_dir`): the
    base TEXT with `text`, top level or under the VL wrapper's text_config, whose own top
    level takes `top`."""
    body = {**mo.TEXT, "head_dim": 128, "qk_norm_type": "per_head", **text}
    if nested:
        config: dict[str, Any] = {"architectures": [mo.VL], "model_type": "minimax_m3_vl",
                                  "torch_dtype": "bfloat16", "text_config": body,
                                  "vision_config": mo.TOWER, **(top or {})}
    else:
        config = {"architectures": [mo.CAUSAL], **body, "torch_dtype": "bfloat16"}
    return content_dir(Path(mo._DIRS.name), json.dumps(config, sort_keys=True))


def _agree(path: str, tp: int = 2) -> str | None:
    """SGLang's verdict on `path` at TP `tp`, asserted equal to graphfit's (same exception,
    SGLang's raising line cited, one error line of at most 200 characters)."""
    theirs = mo.build(path, tp, 1)
    code, said = mt.graphfit_line(path, tp, 1)
    case = (path, theirs, code, said)
    if theirs is None:
        assert code == 0, case
        return None
    assert code == 2 and "SGLang cannot build" in said and len(said) <= 200, case
    kind, site = theirs.split(":", 1)[0], theirs.rsplit(" @ ", 1)[1]
    assert f"({kind}, " in said and mt.cites(said, site), case
    return theirs


def test_sparse_config_presence_matches_sglang() -> None:
    """Absent or null at the top level or in text_config: SGLang refuses with the pool's
    sentence (configs/model_config.py:456), and so does graphfit; present (even with no
    sparse layer), or only at the VL wrapper's top level: both start it."""
    for nested in (False, True):
        null = _dir({"sparse_attention_config": None}, nested)  # written as JSON null
        absent = mo.target_dir({"head_dim": 128, "qk_norm_type": "per_head",
                                "sparse_attention_config": None}, nested)  # key removed
        for path in (null, absent):
            theirs = _agree(path)
            assert theirs is not None and POOL in theirs, theirs
        assert _agree(_dir({"sparse_attention_config": _DENSE}, nested)) is None
    # the VL wrapper: text_config's null falls back to the top level's (model_config.py:453-454)
    assert _agree(_dir({"sparse_attention_config": None}, True,
                       {"sparse_attention_config": _DENSE})) is None


def test_layer_failure_comes_first() -> None:
    """A layer SGLang cannot build raises before the pool is sized: a per_layer QK norm at
    attention TP 2 (minimax_m3.py:858-865) wins over the missing sparse config."""
    for nested in (False, True):
        theirs = _agree(_dir({"sparse_attention_config": None, "qk_norm_type": "per_layer"},
                             nested))
        assert theirs is not None and POOL not in theirs, theirs


def test_config_file_matches_sglang() -> None:
    """The same targets from graphfit's own config file (`engine: sglang`, read by
    graphfit.inputs.config_file, which judges the target as a pasted line does): refused
    with SGLang's sentence where SGLang refuses, planned where it starts."""
    from tests.helpers import run_cli

    for nested in (False, True):
        for sparse in (None, _DENSE):
            path = _dir({"sparse_attention_config": sparse}, nested)
            theirs = mo.build(path, 2, 1)
            body = json.dumps({"engine": "sglang", "model_path": path, "tp_size": 2})
            code, _out, text = run_cli(["plan", "--gpu-memory-gb", "80", "--config",
                                        content_dir(Path(mo._DIRS.name), body) + "/config.json"])
            assert (code == 0) == (theirs is None), (path, theirs, text)
            if theirs is not None:
                assert POOL in theirs and POOL in text and "model_config.py:456" in text


def test_file_and_live_judged_on_the_gpu() -> None:
    """s52e's platform rule off the pasted line: two shared experts are fused, and refused,
    on CUDA (minimax_m3.py:2051, minimax_m3_vl.py:203) and never fused on an MI300X
    (minimax_m3.py:2040-2041). graphfit's config file (the GPU by flag or by the file's own
    gpu_memory_gb) and the live check (`from_sglang` on SGLang's own ServerArgs, resolved
    on that platform) answer as SGLang's build on the GPU named."""
    from graphfit.integrations.sglang import from_sglang
    from graphfit.planner.core.errors import ConfigError
    from tests.helpers import run_cli
    from tests.oracle.test_sglang_minimax_deepep_oracle import SHARED2

    for nested in (False, True):
        path = mo.target_dir({"head_dim": 128, **SHARED2}, nested)
        cuda = mo.build(path, 2, 1, (), own=True)  # CUDA first: see mo.build
        rocm = mo.build(path, 2, 1, (), own=True, rocm=True)
        assert cuda is not None and rocm is None, (cuda, rocm)  # not vacuous
        for gpu, theirs in (("80", cuda), ("MI300X", rocm)):
            for keys, flag in (({}, ("--gpu-memory-gb", gpu)), ({"gpu_memory_gb": gpu}, ())):
                body = json.dumps({"engine": "sglang", "model_path": path, "tp_size": 2,
                                   **keys})
                code, _out, text = run_cli(["plan", *flag, "--config", content_dir(
                    Path(mo._DIRS.name), body) + "/config.json"])
                assert (code == 0) == (theirs is None), (gpu, keys, theirs, text)
                assert theirs is None or "Only 1 fused shared expert" in text, text
            record = mo.resolved_on(path, 2, 1, (), rocm=gpu == "MI300X")
            assert not isinstance(record, str), record
            try:
                from_sglang(record.record, environ={}, max_num_seqs=8,
                            gpu_memory_gb=80.0 if gpu == "80" else gpu)
                said = None
            except ConfigError as exc:
                said = str(exc)
            assert (said is None) == (theirs is None), (gpu, theirs, said)
            assert said is None or "Only 1 fused shared expert" in said, said


def test_live_reads_the_deepep_mode() -> None:
    """The live check reads `deepep_mode` from the ServerArgs (found by
    measure_sglang_minimax_sparse_config): a Mooncake low-latency line, which SGLang builds
    (no normal-mode raise, token_dispatcher/mooncake.py:343-344), is planned, not refused as
    if its mode were auto."""
    from graphfit.integrations.sglang import from_sglang
    from tests.oracle.test_sglang_minimax_deepep_oracle import MOE, MOONCAKE_LL

    path = mo.target_dir({"head_dim": 128, **MOE}, False)
    assert mo.build(path, 2, 1, MOONCAKE_LL, own=True) is None
    record = mo.resolved_on(path, 2, 1, MOONCAKE_LL)
    assert not isinstance(record, str), record
    from_sglang(record.record, environ={}, max_num_seqs=8, gpu_memory_gb=80.0)
