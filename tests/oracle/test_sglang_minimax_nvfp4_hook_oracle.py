"""MiniMax-M3 served as `minimax_m3_nvfp4` with no speculation (issue 23 s51n), against
SGLang's own override hook and pool price (tests/oracle/measure_sglang_minimax_nvfp4_hook:
SGLang resolves each line on an NVFP4-expert checkpoint on the fake device of its GPU, then
prices it with `_compute_cell_size`). graphfit once refused every such line; now it refuses
exactly where the hook raises (minimax_m3.py:56-58, 92-93, 103-111, 116-119), with the hook's
sentence, and plans the others with SGLang's per-token price and page size. DSPARK / DFLASH
lines there (issue 23 s53d) are planned where the hook accepts them and refused with its
sentence, in its order, where it does not (minimax_m3.py:59-93).

Each hook rule is drawn one way and the neighbouring way on each GPU it binds on; the
generated counts are in `python -m tests.oracle.measure_sglang_minimax_nvfp4_hook`.
"""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import measure_sglang_minimax_nvfp4_hook as m  # noqa: E402

CASES: tuple[tuple[str, int, tuple[str, ...]], ...] = (
    # no flags: fa3 / page 128 / marlin on Hopper, trtllm_mha / fp8 KV / megamoe on B200
    ("H100", 2, ()), ("B200", 1, ()),
    # speculation outside DSPARK / DFLASH (:56-58)
    ("H100", 1, ("--speculative-algorithm", "EAGLE")),
    # the page size (:92-93): 64 refused, 128 kept; a backend given keeps page 128 on Hopper
    ("B200", 2, ("--page-size", "64")), ("H100", 1, ("--attention-backend", "triton")),
    # KV dtype (:116-119): bf16 refused on Blackwell, allowed on Hopper
    ("B200", 1, ("--kv-cache-dtype", "bf16")), ("H100", 2, ("--kv-cache-dtype", "bf16")),
    # the a2a backend (:103-111): deepep refused on Blackwell, megamoe kept
    ("B200", 1, ("--moe-a2a-backend", "deepep")),
    ("B200", 2, ("--moe-a2a-backend", "megamoe", "--kv-cache-dtype", "fp8_e4m3")),
    # (s53d) the hook's KV refusal before the model class's (flashinfer_trtllm_routed has no
    # fused func under megamoe, runner.py:168-183): the hook runs at argument resolution
    ("B200", 1, ("--kv-cache-dtype", "bf16", "--moe-a2a-backend", "megamoe",
                 "--moe-runner-backend", "flashinfer_trtllm_routed")),
)


@pytest.mark.parametrize(("gpu", "tp", "flags"), CASES)
def test_nvfp4_hook_matches_sglang(gpu: str, tp: int, flags: tuple[str, ...]) -> None:
    outcome, detail = m.verdict(m.target(), gpu, tp, flags)
    assert outcome == "agree", detail


def _spec(algo: str, *extra: str) -> tuple[str, ...]:
    """A DSPARK / DFLASH line with a MiniMax draft SGLang builds at TP 1; VAR=value words in
    `extra` are the line's environment (m.draw's form)."""
    from tests.oracle import sglang_dspark_compare as kc

    env = tuple(word for word in extra if "=" in word and not word.startswith("-"))
    rest = tuple(word for word in extra if word not in env)
    return (*env, "--speculative-algorithm", algo, *rest, kc.DRAFT, kc.minimax_dir(m.LAYERS))


# (s53d) DSPARK / DFLASH on the NVFP4 target (minimax_m3.py:59-93), on the VL wrapper the
# hook requires unless `nested` is False: accepted on Blackwell with the draft's writes, and
# each refusal in the hook's order (the arch :62-67, Blackwell :68-69, the environment :70-73,
# PP :74-75, DFLASH colocated :76-79, the page :92-93 after them)
SPEC_CASES: tuple[tuple[str, tuple[str, ...], bool], ...] = (
    ("B200", _spec("DSPARK"), True), ("B200", _spec("DFLASH"), True),
    ("B200", _spec("DSPARK"), False), ("H100", _spec("DFLASH"), True),
    # the environment before PP, and both before the Blackwell a2a refusal (:109-111)
    ("B200", _spec("DSPARK", "SGLANG_RAGGED_VERIFY_MODE=compact", "--pp-size", "2",
                   "--moe-a2a-backend", "deepep"), True),
    ("B200", _spec("DFLASH", "--pp-size", "2", "--page-size", "64"), True),
    ("B200", _spec("DFLASH", "--disaggregation-mode", "prefill"), True),
    ("B200", _spec("DSPARK", "--disaggregation-mode", "prefill"), True),
    # the page refusal before the model class's own (flashinfer_trtllm_routed under megamoe)
    ("B200", _spec("DSPARK", "--page-size", "64", "--moe-a2a-backend", "megamoe",
                   "--moe-runner-backend", "flashinfer_trtllm_routed"), True),
)


@pytest.mark.parametrize(("gpu", "flags", "nested"), SPEC_CASES)
def test_nvfp4_draft_hook_matches_sglang(gpu: str, flags: tuple[str, ...],
                                         nested: bool) -> None:
    outcome, detail = m.verdict(m.target(nested), gpu, 1, flags)
    assert outcome == "agree", detail


def test_nvfp4_draft_arch_before_the_draft_build() -> None:
    """At TP 2 the default MiniMax draft does not build (test_sglang_dspark_minimax_oracle);
    SGLang's hook refuses the causal-LM target first, at argument resolution."""
    outcome, detail = m.verdict(m.target(False), "B200", 2, _spec("DSPARK"))
    assert outcome == "agree", detail


def test_vl_wrapper_matches_sglang() -> None:
    """The VL wrapper's checkpoint (quantization_config at the top, text under text_config)."""
    outcome, detail = m.verdict(m.target(nested=True), "B200", 1, ())
    assert outcome == "agree", detail
