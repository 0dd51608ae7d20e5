"""graphfit == SGLang 0.5.23 with chunked prefill off (`--chunked-prefill-size` <= 0; issue 23,
s68b): the prefill plan (backend, ladder, dispatch, buffers, fills, proof, decode) and the
default `mem_fraction_static` (tests.oracle.sglang_chunk_off_oracle.compare), on fixed lines
and a small draw. SGLang keeps the chunk as given, so its default prefill max leaves no
capture size, an explicit one still captures (the full backend then holds one request,
max(cps // 512, 1)), and the reserve counts --max-prefill-tokens (memory_hook.py:233-308);
the one PD-multiplexing line SGLang starts (chunking off at -1, overlap schedule off,
validation_hook.py:249-262) is planned."""

from __future__ import annotations

import random

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_chunk_off_oracle as co  # noqa: E402

PDMUX = ("--enable-pdmux", "--disable-overlap-schedule")
# (line after --model-path, GPU GiB, verdict); each line gives --max-running-requests, as
# the prefill plan oracle's draw does (SGLang's default request pool is another question)
FIXED: list[tuple[tuple[str, ...], float, str]] = [
    (("--chunked-prefill-size", "-1", *PDMUX), 80, "agree"),  # the brief's line
    (("--chunked-prefill-size", "-1", "--max-prefill-tokens", "30000"), 80, "agree"),
    (("--chunked-prefill-size", "0", "--tp", "2", "--attn-dp-size", "2"), 141, "agree"),
    (("--chunked-prefill-size", "-1", "--cuda-graph-max-bs-prefill", "512",
      "--max-running-requests", "300"), 48, "agree"),
    (("--chunked-prefill-size", "-1", "--cuda-graph-backend-prefill", "full",
      "--cuda-graph-max-bs-prefill", "1024", "--max-running-requests", "16"), 80, "agree"),
    # -2 // attention DP 2 is -1: PD multiplexing's `== -1` holds after the division
    (("--chunked-prefill-size", "-2", "--tp", "2", "--attn-dp-size", "2", *PDMUX), 80,
     "agree"),
    (("--chunked-prefill-size", "0", *PDMUX), 80, "both refuse"),
]


@pytest.mark.parametrize(("argv", "gb", "verdict"), FIXED,
                         ids=[" ".join(a) for a, _, _ in FIXED])
def test_fixed_lines(argv: tuple[str, ...], gb: float, verdict: str) -> None:
    out = co.compare(argv, gb)
    assert out.verdict == verdict, (out.diffs, out.refused)


def test_drawn_lines_agree() -> None:
    rng = random.Random(68)
    verdicts = []
    for _ in range(6):
        out = co.compare(*co.draw(rng))
        assert out.verdict in ("agree", "both refuse"), (out.argv, out.diffs, out.refused)
        verdicts.append(out.verdict)
    assert verdicts.count("agree") >= 3  # not vacuous: most drawn lines are planned


def test_flashinfer_a2a_refuses_chunking_off() -> None:
    """FlashInfer A2A's budget check refuses chunking off outside a decode server
    (moe_hook.py:755-760): SGLang's own resolution and runners (sglang_moe_a2a_compare)
    beside graphfit's plan, on a line SGLang starts with its default chunk."""
    from tests.oracle import sglang_moe_a2a_compare as m
    from tests.oracle.measure_sglang_flashinfer_a2a_copy import differences, line

    base = line("Qwen3MoeForCausalLM", "modelopt-nvfp4", "auto", "RTX5090", "modelopt_fp4")
    assert m.sglang(base).rejected is None  # the chunk is all that differs
    off = (*base, "--chunked-prefill-size", "-1")
    said = m.sglang(off).rejected
    assert said is not None and "requires chunked prefill" in said, said
    assert not differences(off), differences(off)
