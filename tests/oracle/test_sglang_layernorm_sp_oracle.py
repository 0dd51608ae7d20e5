"""LayerNorm sequence parallelism's start-up checks against SGLang 0.5.23 (issue 23, s64k;
graphfit.planner.engines.sglang_layernorm_sp).

SGLang's side: its argument pipeline and decode runners (tests.oracle.sglang_moe_a2a_compare)
on the Qwen3-MoE shapes under the Muse Spark, Qwen3ForCausalLM and Qwen3-MoE classes. A line
`handle_layernorm_sp` refuses is refused by graphfit citing the hook; a line SGLang starts
with the flag is not modelled; Muse MegaMoE's token budget is SGLang's own function's answer.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.planner.engines import sglang_layernorm_sp as sp  # noqa: E402
from tests.oracle import measure_sglang_layernorm_sp as measure  # noqa: E402
from tests.oracle import sglang_moe_a2a_compare as mc  # noqa: E402
from tests.oracle import sglang_stubs  # noqa: E402

HOOK = "layernorm_sp_hook.py"
SP = "--enable-layernorm-sp"
MEGA = "--enable-megamoe-for-layernorm-sp"
TRTLLM = ("--moe-runner-backend", "flashinfer_trtllm")


def _muse(*words: str) -> tuple[str, ...]:
    return ("--model-path", mc.class_model_dir(sp.MUSE), *words)


def _qwen3(*words: str) -> tuple[str, ...]:
    return ("--model-path", mc.class_model_dir("Qwen3ForCausalLM"), SP, *words)


def _fp4(*words: str) -> tuple[str, ...]:
    """Muse Spark NVFP4 with FlashInfer A2A SP on a B200."""
    return ("--model-path", mc.quantized_model_dir("NVFP4", sp.MUSE), "--tp-size", "4", SP,
            *TRTLLM, "--moe-a2a-backend", "flashinfer", "--quantization", "modelopt_fp4",
            "--gpu-memory-gb", "B200", *words)


def _answers(line: tuple[str, ...]) -> tuple[str | None, str | None, list[str]]:
    """(SGLang's refusal, graphfit's, the differing aspects' details) for one line
    (`measure.answers`)."""
    return measure.answers(line)


def test_the_hook_refuses_on_both_sides() -> None:
    """Each of these is refused by handle_layernorm_sp; graphfit cites the hook's lines of
    the same check."""
    budget = f"{measure.BUDGET}=1024"
    for line, lines in (
            (_muse("--tp-size", "4", MEGA), "23-28"),
            (("--tp-size", "2", SP), "130-134"),  # Qwen3-MoE: not a supported class
            (_qwen3("--tp-size", "1"), "135-139"),
            (_qwen3("--tp-size", "2", "--attn-dp-size", "2"), "172-177"),
            (_qwen3("--tp-size", "2", "--speculative-algorithm", "NGRAM"), "178-185"),
            (_qwen3("--tp-size", "2", "--pp-size", "2"), "186-191"),
            (_muse("--tp-size", "4", "--ep-size", "2", SP, MEGA, *TRTLLM), "140-145"),
            (_muse("--tp-size", "4", "--ep-size", "4", SP, *TRTLLM), "146-155"),  # BF16
            (_muse("--tp-size", "4", "--ep-size", "4", SP, MEGA, "--moe-a2a-backend",
                   "deepep", *TRTLLM), "156-160"),
            (_muse("--tp-size", "4", "--ep-size", "4", SP, MEGA), "167-171"),  # the runner
            (_muse("--tp-size", "4", "--ep-size", "4", SP, MEGA, *TRTLLM,
                   "--enable-mixed-chunk"), "45-50"),
            ((budget, *_muse("--tp-size", "4", "--ep-size", "4", SP, MEGA, *TRTLLM,
                             "--chunked-prefill-size", "8192")), "58-63"),  # 2048 > 1024
            (_fp4(), "101-106"),  # unset: FlashInfer A2A turns it on for NVFP4
            (("SGLANG_MOE_NVFP4_DISPATCH=1", *_fp4()), "101-106")):
        theirs, ours, found = _answers(line)
        assert measure.hook_refusal(theirs) and not found, (line, theirs, ours)
        assert ours is not None and f"{HOOK}:{lines}" in ours, (lines, theirs, ours)
        assert "not modelled" not in ours, ours


def test_a_line_the_hook_passes_is_not_modelled() -> None:
    """SGLang starts these; graphfit says not modelled in one line: Qwen3 dense SP, Muse
    MegaMoE at exactly its budget (8192 over TP4 = 2048), and Muse's FlashInfer A2A SP group
    without attention DP (moe_hook.py:43-67) on NVFP4 with BF16 dispatch."""
    for line in (("--model-path", mc.class_model_dir("Qwen3ForCausalLM"), "--tp-size", "2",
                  SP),
                 (f"{measure.BUDGET}=2048", *_muse("--tp-size", "4", "--ep-size", "4", SP,
                                                   MEGA, *TRTLLM, "--chunked-prefill-size",
                                                   "8192")),
                 ("SGLANG_MOE_NVFP4_DISPATCH=0", *_fp4())):
        theirs, ours, _ = _answers(line)
        assert theirs is None, (line, theirs)
        assert ours is not None and "not modelled" in ours and len(ours) <= 200, ours


def test_the_megamoe_budget_is_sglangs() -> None:
    """`megamoe_budget` refuses exactly where SGLang's validate_muse_megamoe_token_budget
    raises (layernorm_sp_hook.py:194-209), over a grid of signs and edges."""
    with sglang_stubs.imports():
        from sglang.srt.arg_groups.layernorm_sp_hook import (
            validate_muse_megamoe_token_budget as theirs,
        )
    for tp in (1, 4, 8):
        for chunk in (-1, 0, 1, 4095, 4096, 8192, 8193):
            for most in (-1, 0, 1, 16384):
                for capacity in (-1, 0, 1, 1024, 2048, 2049):
                    try:
                        theirs(tp_size=tp, chunked_prefill_size=chunk,
                               max_prefill_tokens=most, capacity=capacity)
                        refused = False
                    except ValueError:
                        refused = True
                    said = sp.megamoe_budget(tp, chunk, most, capacity)
                    assert refused == (said is not None), (tp, chunk, most, capacity, said)


@settings(max_examples=3, deadline=None)
@given(st.randoms(use_true_random=False))
def test_generated_lines_agree(rng) -> None:  # type: ignore[no-untyped-def]
    """Lines of the measure's draw (each carries a LayerNorm SP flag): SGLang and graphfit agree,
    or graphfit says not modelled where SGLang starts."""
    line = measure.draw(rng)
    theirs, ours, found = _answers(line)
    if found:
        assert theirs is None and ours is not None and "not modelled" in ours, (line, found)
    if measure.hook_refusal(theirs):
        assert ours is not None and HOOK in ours, (line, theirs, ours)
