"""MiniMax-M3 NVFP4 target with DSPARK / DFLASH given in graphfit's own `--config` file
(issue 23 s57m), against SGLang's override hook on the same settings (minimax_m3.py:68-93:
Blackwell, SGLANG_RAGGED_VERIFY_MODE=static, PP 1, DFLASH colocated, page 128, in that
order). Before s57m a config file reached only the planner's Blackwell check
(sglang_arch_overrides._minimax_nvfp4 passes no environment), so a file with `pp_size: 2` or
`page_size: 64` was planned where SGLang refuses it. SGLang's side is the pasted-line oracle's
(tests/oracle/measure_sglang_minimax_nvfp4_hook.price on the fake B200); graphfit's reads the
same settings from a JSON config file, with the environment variable in graphfit's own
environment (the one a server started from it inherits).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import measure_sglang_minimax_nvfp4_hook as m  # noqa: E402
from tests.oracle import sglang_compare as sc  # noqa: E402

# (algorithm, environment, the file's extra SGLang keys): each hook rule past Blackwell
CASES: tuple[tuple[str, tuple[tuple[str, str], ...], dict[str, object]], ...] = (
    ("DSPARK", (("SGLANG_RAGGED_VERIFY_MODE", "compact"),), {"pp_size": 2}),  # :70-73 first
    ("DFLASH", (), {"pp_size": 2, "page_size": 64}),  # PP (:74-75) before the page
    ("DFLASH", (), {"disaggregation_mode": "prefill"}),  # colocated (:76-79)
    ("DSPARK", (), {"page_size": 64}),  # the page (:92-93)
)


def _file_verdict(tmp: Path, monkeypatch: pytest.MonkeyPatch, algo: str,
                  env: tuple[tuple[str, str], ...], extra: dict[str, object]) -> tuple[str, str]:
    from tests.oracle import sglang_dspark_compare as kc

    path, draft = m.target(True), kc.minimax_dir(m.LAYERS)
    keys = {"speculative_algorithm": algo, "speculative_draft_model_path": draft, **extra}
    argv: list[str] = ["--model-path", path, "--tp-size", "1"]
    for key, value in keys.items():
        argv += [f"--{key.replace('_', '-')}", str(value)]
    theirs = m.price(path, tuple(argv), "B200", env)
    monkeypatch.delenv("SGLANG_RAGGED_VERIFY_MODE", raising=False)
    for name, value in env:
        monkeypatch.setenv(name, value)
    config = tmp / "serve.json"
    config.write_text(json.dumps({"engine": "sglang", "model_path": path, "tp_size": 1, **keys}))
    code, _, output = sc.run_graphfit(["plan", "--gpu-memory-gb", "B200", "--config",
                                       str(config)])
    errors = [ln for ln in output.splitlines() if ln.startswith("error:")]
    said = errors[-1] if errors else ""
    hook = re.match(r"Rejected: ValueError: (M3\.1 NVFP4 .*)", str(theirs))
    assert hook is not None, f"SGLang's hook accepts this line: {theirs}"
    ok = code == 2 and hook.group(1) in said and m.HOOK in said and len(said) <= 200
    return ("agree" if ok else "disagree"), f"{theirs} | graphfit {code}: {said[:200]}"


@pytest.mark.parametrize(("algo", "env", "extra"), CASES)
def test_nvfp4_file_hook_matches_sglang(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        algo: str, env: tuple[tuple[str, str], ...],
                                        extra: dict[str, object]) -> None:
    outcome, detail = _file_verdict(tmp_path, monkeypatch, algo, env, extra)
    assert outcome == "agree", detail
