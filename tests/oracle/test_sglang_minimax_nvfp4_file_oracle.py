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
from tests.oracle import sglang_minimax_nvfp4_runner as r  # noqa: E402

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


# (issue 23 s60m) a file SGLang's hook accepts: the draft's config.json is read as on a pasted
# line (graphfit.inputs.sglang_file_drafts), and the plan is compared with SGLang's runners
@pytest.mark.parametrize(("gpu", "flags"), [r.LINES[0], r.LINES[3]], ids=["DSPARK", "DFLASH"])
def test_accepted_file_plans_sglang_runner(tmp_path: Path, gpu: str,
                                           flags: tuple[str, ...]) -> None:
    outcome, diffs = r.compare(gpu, flags, file=str(tmp_path / "serve.json"))
    assert outcome == "runner" and diffs == [], (gpu, flags, outcome, diffs)


def test_file_megamoe_budget_as_sglang(tmp_path: Path) -> None:
    """The hook's megamoe token budget on a file: B200's default chunk 16384 is over the
    8192 tokens a rank may take (mega_moe_hook.py:78-91), so SGLang refuses and so does the
    file (before s60m the file, reading no MiniMax pool shape, planned it)."""
    outcome, diffs = r.compare("B200", r.line("DSPARK"), file=str(tmp_path / "serve.json"))
    assert outcome == "rejected", (outcome, diffs)


def _file_plan(tmp: Path, gpu: str, argv: tuple[str, ...]) -> tuple[int, str]:
    """graphfit's plan (exit code, output on one line) of `argv` written as a config file."""
    from tests.oracle.sglang_block_drafts import run_cli

    config = tmp / "serve.json"
    config.write_text(json.dumps(r.file_keys(argv)))
    code, out, err = run_cli(["plan", "--gpu-memory-gb", gpu, "--config", str(config)])
    return code, " ".join((out + err).split())


def test_file_states_sglang_price_with_the_draft_kv(tmp_path: Path) -> None:
    """The sparse KV pool's price SGLang's configurator computes, the draft's own KV
    included (tests/oracle/sglang_minimax_draft_kv_oracle), stated by the file's plan: the
    file now reads the pool's shape and the draft's (before s60m: no price line)."""
    for gpu, flags in (r.LINES[3],):  # DFLASH, a bf16 draft KV
        argv = ("--model-path", m.target(True), "--tp-size", "1", *flags)
        theirs = m.price(m.target(True), argv, gpu, ())
        assert not isinstance(theirs, str), theirs
        (total,), page = theirs
        code, text = _file_plan(tmp_path, gpu, argv)
        assert code == 0 and f"{total} B a token" in text and "the draft's KV" in text, text
        assert f"{total * page} B a page of {page}" in text, text


def test_file_draft_refusal_after_the_hook(tmp_path: Path) -> None:
    """At TP 2 the MiniMax draft does not build (minimax_m3.py:858-865), after the target's
    worker: with the default B200 chunk SGLang's argument resolution refuses first (the
    megamoe budget), with a 4096 chunk it resolves and the draft's reason is graphfit's; the
    file keeps that order (graphfit.inputs.sglang_file_drafts.settle)."""
    from tests.oracle import sglang_dspark_compare as kc

    base = ("--model-path", m.target(True), "--tp-size", "2", "--speculative-algorithm",
            "DSPARK", kc.DRAFT, kc.minimax_dir(m.LAYERS))
    first = m.price(m.target(True), base, "B200", ())
    assert isinstance(first, str) and "MEGA_MOE" in first.upper(), first
    code, text = _file_plan(tmp_path, "B200", base)
    assert code == 2 and "mega_moe_hook.py" in text and "858-865" not in text, text
    chunked = (*base, "--chunked-prefill-size", "4096")
    assert not isinstance(m.price(m.target(True), chunked, "B200", ()), str)
    code, text = _file_plan(tmp_path, "B200", chunked)
    assert code == 2 and "DSPARK draft fails to build" in text and "858-865" in text, text


# (issue 23 s62c) the same files naming no model_path, the target given by graphfit's own
# --model-path flag (SGLang's --model-path beside its --config): the draft is read too (before
# s62c: none was, and DSPARK / DFLASH files were refused for want of draft tokens)
@pytest.mark.parametrize(("gpu", "flags"), [r.LINES[0], r.LINES[3], ("B200", r.line("DSPARK"))],
                         ids=["DSPARK", "DFLASH", "DSPARK-megamoe-refused"])
def test_flag_target_file_plans_sglang_runner(tmp_path: Path, gpu: str,
                                              flags: tuple[str, ...]) -> None:
    outcome, diffs = r.compare(gpu, flags, file=str(tmp_path / "serve.json"), flag_model=True)
    assert outcome in ("runner", "rejected") and diffs == [], (gpu, flags, outcome, diffs)
    assert (outcome == "rejected") == ("--chunked-prefill-size" not in flags), outcome
