"""graphfit == SGLang 0.5.23 on the rest of `check_server_args` (issue 23, s67b;
graphfit.planner.engines.sglang_server_nodes, sglang_server_chunk): `(tp x pp) % nnodes`,
padding off beside torch.compile, PP with speculation (EAGLE on a prefill server only, or
under SGLANG_ENABLE_PP_SPEC), data-parallel replicas on one node (validation_hook.py:119-202),
chunked prefill against the page size after the attention-DP division, and PD multiplexing
(:243-262), each refusal naming the check SGLang raised, in its order. SGLang: its resolution,
then its own `check_server_args`; graphfit: its CLI with the GPU named. Also: every resolution
grid now runs the whole `check_server_args` (tests.oracle.sglang_oracle.resolve)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.planner.engines import sglang_server_chunk, sglang_server_nodes  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_server_args_oracle as sao  # noqa: E402

EAGLE, NGRAM, PP_SPEC = sao.EAGLE, sao.NGRAM, sao.PP_SPEC
PDMUX = "--enable-pdmux"
FIXED: list[tuple[str, dict[str, str], tuple[str, ...], str | None]] = [
    # (target, environment, line after --model-path, the lines of SGLang's check refusing it)
    ("dense", {}, (PDMUX,), "253-255"),  # the brief's line: chunked prefill is on
    ("dense", {}, (PDMUX, "--pp-size", "2"), "250-252"),
    ("dense", {}, (PDMUX, "--disaggregation-mode", "decode"), "253-255"),
    ("dense", {}, ("--page-size", "64", "--chunked-prefill-size", "100"), "243-246"),
    # 192 // attention DP 2 = 96 is not a multiple of 64; 128 // 2 = 64 is
    ("dense", {}, ("--tp-size", "2", "--attn-dp-size", "2", "--page-size", "64",
                   "--chunked-prefill-size", "192"), "243-246"),
    ("dense", {}, ("--tp-size", "2", "--attn-dp-size", "2", "--page-size", "64",
                   "--chunked-prefill-size", "128"), None),
    # a decode server skips the page check
    ("dense", {}, ("--page-size", "64", "--chunked-prefill-size", "100",
                   "--disaggregation-mode", "decode"), None),
    ("dense", {}, ("--enable-torch-compile", "--disable-cuda-graph-padding"), "188-194"),
    ("dense", {}, ("--enable-torch-compile",), None),
    ("dense", {}, ("--tp-size", "2", "--nnodes", "4"), "177-181"),
    ("dense", {}, ("--tp-size", "2", "--pp-size", "2", "--nnodes", "4"), None),
    ("dense", {}, ("--tp-size", "2", "--dp-size", "2", "--nnodes", "2"), "199-202"),
    ("dense", {}, ("--pp-size", "2", *NGRAM), "132-138"),
    ("dense", {}, ("--pp-size", "2", *EAGLE), "161-164"),
    ("dense", {}, ("--pp-size", "2", "--disaggregation-mode", "prefill", *EAGLE), None),
    ("dense", PP_SPEC, ("--pp-size", "2", *EAGLE), None),
    ("dense", PP_SPEC, ("--pp-size", "2", "--disaggregation-mode", "prefill", *EAGLE),
     "145-147"),
    ("moe", PP_SPEC, ("--tp-size", "2", "--attn-dp-size", "2", "--pp-size", "2", *EAGLE),
     "156-159"),
    # the one PD-multiplexing line SGLang starts: chunking off at -1, overlap schedule off
    # (issue 23 s68b; graphfit read -1 as not modelled before)
    ("dense", {}, (PDMUX, "--chunked-prefill-size", "-1", "--disable-overlap-schedule"), None),
    ("dense", {}, (PDMUX, "--chunked-prefill-size", "0", "--disable-overlap-schedule"),
     "253-255"),
    ("dense", {}, (PDMUX, "--chunked-prefill-size", "-1"), "259-261"),
    # the node count is checked before PD multiplexing (SGLang's order)
    ("dense", {}, ("--tp-size", "2", "--nnodes", "4", PDMUX), "177-181"),
]


@pytest.fixture(scope="module")
def targets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return sao.targets(tmp_path_factory.mktemp("server-args"))


def test_fixed_lines_agree(targets: dict[str, Path]) -> None:
    from tests.oracle import sglang_lora_runner_oracle as lro

    wrong = []
    for name, env, argv, where in FIXED:
        theirs, at_check = lro.sglang(targets[name], argv, env)
        code, said = sao.graphfit(targets[name], argv, env)
        # not vacuous: each refusal is SGLang's check_server_args, the lines graphfit names
        if (sao.verdict(theirs, at_check, code, said) != "agree"
                or at_check != (where is not None)
                or (where is not None and f"validation_hook.py:{where})" not in said)):
            wrong.append(f"{name} {env} {argv}: SGLang {theirs}; graphfit {code} {said}")
    assert not wrong, "\n".join(wrong)


def test_drawn_lines_agree(targets: dict[str, Path]) -> None:
    rng = random.Random(67)
    wrong, refused = [], 0
    for _ in range(16):
        name, env, argv = sao.draw(rng)
        said, line = sao.compare(targets[name], argv, env)
        refused += "SGLang None" not in line
        if said != "agree":
            wrong.append(f"{said}: {name} {line}")
    assert not wrong, "\n".join(wrong)
    assert 4 <= refused <= 12  # the draw reaches both answers


def test_resolution_grids_run_the_whole_check() -> None:
    """`resolve` runs all of `check_server_args`: a plain PD-multiplexing line, which only
    its PD-multiplexing asserts refuse, is rejected there."""
    r = so.resolve(("--enable-pdmux",))
    assert isinstance(r, so.Rejected) and "PD-Multiplexing" in r.text, r


@pytest.mark.parametrize(("module", "rule", "line"), [
    (sglang_server_chunk, "pdmux_problem", 0),
    (sglang_server_chunk, "chunk_page_problem", 4),
    (sglang_server_nodes, "compile_problem", 7),
    (sglang_server_nodes, "nodes_problem", 9),
    (sglang_server_nodes, "replicas_problem", 11),
    (sglang_server_nodes, "pipeline_problem", 13),
])
def test_planted_rule_off_is_caught(targets: dict[str, Path], monkeypatch: pytest.MonkeyPatch,
                                    module: object, rule: str, line: int) -> None:
    """Plants: each rule off (graphfit plans what SGLang refuses) is caught."""
    monkeypatch.setattr(module, rule, lambda *args: None)
    name, env, argv, _ = FIXED[line]
    said, _ = sao.compare(targets[name], argv, env)
    assert said == "differ"
