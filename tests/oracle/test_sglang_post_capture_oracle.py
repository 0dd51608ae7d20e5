"""Whether SGLang 0.5.23 sizes KV after capture, and so its default memory reserve: graphfit's
reading of SGLANG_ENABLE_POST_CAPTURE_KV_SIZING from a pasted line's environment prefix, the
Muse Spark default (muse_spark_hook.py:19-25) and its restatement of
`post_capture_kv_sizing_planned` (graphfit/planner/engines/sglang_post_capture.py) vs SGLang's
own pipeline with the variable in its environment (tests/oracle/sglang_post_capture_oracle.py).
"""

from __future__ import annotations

import functools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_post_capture_oracle as pc  # noqa: E402

S = ("--max-running-requests", "48")
BREAKABLE = ("--cuda-graph-backend-prefill", "breakable")


@functools.cache
def compare(argv: tuple[str, ...], gb: float, name: str, value: str | None
            ) -> tuple[str | None, bool | None]:
    """(the disagreement or None, SGLang's planned answer or None when SGLang refused or did
    not ask)."""
    sg = pc.sglang_fraction(argv, gb, name, value)
    if sg is None:
        return None, None
    theirs, asked = sg
    ours = pc.graphfit_fraction(pc.graphfit_line(argv, name, value), gb)
    return pc.disagreement(theirs, ours), asked


GRID = [(a, g, n, v) for n in pc.MODELS[:3] for v in (None, "1", "0", "bogus") for a, g in (
    ((*S, *BREAKABLE), 80), (S, 80), ((*S, *BREAKABLE, "--chunked-prefill-size", "16384"), 141),
    ((*S, *BREAKABLE, "--tp", "4"), 48),
    # chunked prefill (8192 on 80 GB) above the largest prefill graph: declined (:1844-1854)
    ((*S, *BREAKABLE, "--cuda-graph-max-bs-prefill", "2048"), 80),
    ((*S, *BREAKABLE, "--enable-memory-saver"), 80),
    ((*S, *BREAKABLE, "--prefill-only-disable-kv-cache"), 80))]


@pytest.mark.parametrize(("argv", "gb", "name", "value"), GRID,
                         ids=[f"{n}:{v}:{' '.join(a)}@{g}" for a, g, n, v in GRID])
def test_post_capture_grid_equals_sglang(argv: tuple[str, ...], gb: float, name: str,
                                         value: str | None) -> None:
    assert compare(argv, gb, name, value)[0] is None


@st.composite
def lines(draw: st.DrawFn) -> tuple[tuple[str, ...], float, str, str | None]:
    argv: list[str] = list(S) if draw(st.booleans()) else []
    prefill = draw(st.sampled_from(("", "breakable", "off", "max_bs")))
    if prefill == "breakable":
        argv += BREAKABLE
    elif prefill == "off":
        argv.append("--disable-prefill-cuda-graph")
    elif prefill == "max_bs":
        argv += [*BREAKABLE, "--cuda-graph-max-bs-prefill",
                 str(draw(st.sampled_from((512, 2048, 8192, 16384))))]
    if draw(st.booleans()):
        argv += ["--chunked-prefill-size", str(draw(st.sampled_from((256, 2048, 8192, 16384))))]
    mode = draw(st.sampled_from(("", "", "decode", "prefill")))
    if mode:
        argv += ["--disaggregation-mode", mode]
    graphs = draw(st.sampled_from(("", "", "off", "decode_off")))
    if graphs == "off":
        argv.append("--disable-cuda-graph")
    elif graphs == "decode_off":
        argv.append("--disable-decode-cuda-graph")
    tp = draw(st.sampled_from((1, 1, 2, 4)))
    if tp > 1:
        argv += ["--tp", str(tp)]
    if draw(st.integers(0, 4)) == 0:
        argv += ["--pp-size", "2"]
    if draw(st.integers(0, 3)) == 0:  # flags that turn post-capture sizing off (:1799-1814)
        argv.append(draw(st.sampled_from(pc.DECLINING)))
    return (tuple(argv), draw(st.sampled_from(pc.GPUS)), draw(st.sampled_from(pc.MODELS)),
            draw(st.sampled_from(pc.VALUES)))


@settings(max_examples=40)
@given(lines())
def test_generated_post_capture_lines(case: tuple[tuple[str, ...], float, str, str | None]
                                      ) -> None:
    assert compare(*case)[0] is None


def test_grid_is_not_vacuous() -> None:
    """SGLang sizes KV after capture on some lines and not others; the variable decides for a
    text model, a Muse Spark model has it on unset and off when set to 0 or to a value SGLang
    cannot parse."""
    answers = {(a, g, n, v): compare(a, g, n, v)[1] for a, g, n, v in GRID}
    line = ((*S, *BREAKABLE), 80)
    assert answers[(*line, "llama", "1")] is True and answers[(*line, "llama", None)] is False
    assert answers[(*line, "muse", None)] is True
    assert answers[(*line, "muse", "0")] is False and answers[(*line, "muse", "bogus")] is False
    # with the variable on, SGLang still declines on some lines (overrides.py:1838-1860)
    assert {True, False} <= {v for (_, _, _, value), v in answers.items() if value == "1"}


def test_an_mla_model_keeps_its_reserve() -> None:
    """An MLA model: SGLang declines with the variable on (overrides.py:1808-1810), on a line
    where a text model is sized after capture; graphfit's fraction equals SGLang's."""
    line = ((*S, *BREAKABLE), 80)
    assert compare(*line, "llama", "1")[1] is True
    assert compare(*line, "mla", "1") == (None, False)
    assert isinstance(pc.graphfit_fraction(pc.graphfit_line(line[0], "mla", "1"), 80), float)


@settings(max_examples=200)
@given(st.none() | st.sampled_from(pc.VALUES[1:]) | st.text(max_size=6),
       st.sampled_from([pc.MUSE, "LlamaForCausalLM"]))
def test_the_environment_reader_is_sglangs_envbool(value: str | None, arch: str) -> None:
    """graphfit's reading of the variable (graphfit.inputs.environment) then the Muse Spark
    default (sglang_post_capture.switch_on) vs SGLang's: its EnvBool read after
    `apply_muse_spark_env_defaults`'s `is_set` rule (muse_spark_hook.py:50-54)."""
    import os
    import warnings

    from graphfit.inputs.environment import sglang_environment
    from graphfit.planner.engines.sglang_post_capture import switch_on

    if value is not None and "\x00" in value:
        return  # not a value an environment can hold
    env = {} if value is None else {pc.ENV: value}
    read = {s.field: s.value for s in sglang_environment(env)}
    ours = switch_on(read.get("post_capture_kv_sizing"), arch)
    pc.so.oracle()
    from sglang.srt.environ import envs

    field = envs.SGLANG_ENABLE_POST_CAPTURE_KV_SIZING
    with pc.environment(value):
        if arch == pc.MUSE and not field.is_set():
            field.set(True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = field.get()
        assert os.environ.get(pc.ENV) is not None or value is None
    assert ours == theirs


def test_the_live_path_reads_the_process_environment() -> None:
    """graphfit.integrations.sglang reads the server's environment through the same reader."""
    from graphfit.integrations.sglang import environment_overrides

    assert environment_overrides({}, environ={pc.ENV: "yes"})["post_capture_kv_sizing"] is True
    assert environment_overrides({}, environ={pc.ENV: "?"})["post_capture_kv_sizing"] is False
    assert "post_capture_kv_sizing" not in environment_overrides({}, environ={})


@pytest.mark.parametrize("name", pc.MODELS[:3])
@pytest.mark.parametrize("value", [None, "1"])
def test_a_mooncake_memory_pool_turns_it_off(name: str, value: str | None) -> None:
    """SGLANG_MOONCAKE_CUSTOM_MEM_POOL set (to anything) turns post-capture sizing off
    (overrides.py:1815-1816): graphfit's plan of the prefixed line vs SGLang's."""
    argv = (*S, *BREAKABLE)
    extra = (("SGLANG_MOONCAKE_CUSTOM_MEM_POOL", "NVLINK"),)
    sg = pc.sglang_fraction(argv, 80, name, value, extra)
    assert sg is not None and sg[1] is False
    ours = pc.graphfit_fraction(pc.graphfit_line(argv, name, value, extra), 80)
    assert pc.disagreement(sg[0], ours) is None


# ------------------------------------------------------------------------------------------
# issue 23 s32k: the predicate's other inputs (the device, Mooncake over EFA, PP dynamic
# chunking, unified memory) and the DeepSeek-V4 / MiniMax-M3 sparse classes
# ------------------------------------------------------------------------------------------

LINE = (*S, *BREAKABLE)


@functools.cache
def compare_env(argv: tuple[str, ...], name: str, value: str | None,
                extra: tuple[tuple[str, str], ...] = (), gb: float = 80
                ) -> tuple[str | None, bool | None]:
    """`compare` with other variables in both environments."""
    sg = pc.sglang_fraction(argv, gb, name, value, extra)
    if sg is None:
        return None, None
    ours = pc.graphfit_fraction(pc.graphfit_line(argv, name, value, extra), gb)
    return pc.disagreement(sg[0], ours), sg[1]


EFA = (("MOONCAKE_PROTOCOL", "efa"),)
NEW_GRID = [
    # Mooncake over EFA (:1817-1822): any case; another transfer backend keeps it
    (LINE, "llama", "1", EFA), (LINE, "llama", "1", (("MOONCAKE_PROTOCOL", "EFA"),)),
    (LINE, "llama", "1", (("MOONCAKE_PROTOCOL", "rdma"),)),
    ((*LINE, "--disaggregation-transfer-backend", "nixl"), "llama", "1", EFA),
    ((*LINE, "--disaggregation-transfer-backend", "mooncake"), "muse", None, EFA),
    # PP dynamic chunking (:1865-1883): the buffer grows past the largest prefill graph
    ((*LINE, "--pp-size", "2", "--enable-dynamic-chunking"), "llama", "1", ()),
    ((*LINE, "--enable-dynamic-chunking"), "llama", "1", ()),
    ((*LINE, "--pp-size", "2", "--enable-dynamic-chunking", "--chunked-prefill-size", "2048",
      "--max-prefill-tokens", "4096"), "llama", "1", ()),
    ((*LINE, "--pp-size", "2", "--enable-dynamic-chunking", "--chunked-prefill-size", "2048",
      "--max-prefill-tokens", "16384", "--cuda-graph-max-bs-prefill", "16384"), "llama", "1",
     ()),
    # the device: an index is stripped (serving_hook.py:650-660)
    ((*LINE, "--device", "cuda:1"), "llama", "1", ()),
    ((*LINE, "--device", "cuda"), "muse", None, ()),
    # unified memory (:1826-1836): a hybrid-SWA model only
    ((*LINE, "--enable-unified-memory"), "llama", "1", ()),
    ((*LINE, "--enable-unified-memory"), "gemma4", "1", ()),
    ((*LINE, "--enable-unified-memory"), "swa_optin", "1", ()),
    ((*LINE, "--enable-unified-memory"), "beam_full", "1", ()),
    ((*LINE, "--enable-unified-memory"), "beam_swa", "1", ()),
    ((*LINE, "--enable-unified-memory"), "muse", None, ()),
    # DeepSeek-V4 / MiniMax-M3 sparse (:1856-1860), with and without unified memory
    (LINE, "dsv4", "1", ()), (LINE, "minimax", "1", ()), (LINE, "minimax_vl", "1", ()),
    ((*LINE, "--enable-unified-memory"), "minimax", "1", ()),
    (LINE, "beam_full", "1", ()),
]


@pytest.mark.parametrize(("argv", "name", "value", "extra"), NEW_GRID,
                         ids=[f"{n}:{v}:{e}:{' '.join(a[len(LINE):])}"
                              for a, n, v, e in NEW_GRID])
def test_the_other_inputs_equal_sglang(argv: tuple[str, ...], name: str, value: str | None,
                                       extra: tuple[tuple[str, str], ...]) -> None:
    assert compare_env(argv, name, value, extra)[0] is None


def test_the_other_inputs_are_not_vacuous() -> None:
    """Each input flips SGLang's answer on a line it otherwise plans post-capture."""
    answers = {(a, n, v, e): compare_env(a, n, v, e)[1] for a, n, v, e in NEW_GRID}
    assert compare_env(LINE, "llama", "1")[1] is True
    assert answers[(LINE, "llama", "1", EFA)] is False
    assert answers[((*LINE, "--disaggregation-transfer-backend", "nixl"), "llama", "1",
                    EFA)] is True
    assert answers[((*LINE, "--pp-size", "2", "--enable-dynamic-chunking"), "llama", "1",
                    ())] is False
    assert answers[((*LINE, "--enable-dynamic-chunking"), "llama", "1", ())] is True
    assert answers[((*LINE, "--enable-unified-memory"), "llama", "1", ())] is False
    assert answers[((*LINE, "--enable-unified-memory"), "gemma4", "1", ())] is True
    assert answers[((*LINE, "--enable-unified-memory"), "beam_full", "1", ())] is False
    assert answers[(LINE, "beam_full", "1", ())] is True
    for sparse in ("dsv4", "minimax", "minimax_vl"):
        assert answers[(LINE, sparse, "1", ())] is False


@pytest.mark.parametrize("device", ["cpu", "npu", "xpu"])
def test_another_device_is_one_error_line(device: str) -> None:
    """SGLang turns post-capture sizing off on another device (:1805) and plans it with that
    platform's backends; graphfit refuses the line as not modelled, in one line."""
    ours = pc.graphfit_fraction(pc.graphfit_line((*LINE, "--device", device), "llama", "1"), 80)
    assert isinstance(ours, str) and "not modelled" in ours and "\n" not in ours
    assert len(ours) <= 200


@settings(max_examples=25)
@given(st.integers(0, 2**32 - 1))
def test_generated_lines_with_the_other_inputs(seed: int) -> None:
    """Lines drawn as the measure's new grid draws them (tests/oracle/
    measure_sglang_post_capture.generate_new)."""
    import random

    from tests.oracle.measure_sglang_post_capture import generate_new

    argv, gb, name, value, extra = generate_new(random.Random(seed))
    assert compare_env(argv, name, value, extra, gb)[0] is None


ARCHS = sorted({"BeamForCausalLM", "LagunaForCausalLM", "Gemma4ForCausalLM",
                "DeepseekV4ForCausalLM", "GptOssForCausalLM", "MiMoV2FlashForCausalLM",
                "LlamaForCausalLM", "MistralForCausalLM", "Qwen3ForCausalLM",
                "MiniMaxM3SparseForCausalLM"})


@settings(max_examples=150)
@given(st.lists(st.sampled_from(ARCHS), min_size=1, max_size=2),
       st.lists(st.sampled_from(["sliding_attention", "full_attention"]), max_size=3),
       st.sampled_from([None, 0, 4096]), st.sampled_from([None, True, False]),
       st.booleans())
def test_the_hybrid_swa_reader_is_sglangs(classes: list[str], types: list[str],
                                          window: int | None, opt_in: bool | None,
                                          nested: bool) -> None:
    """graphfit's `hybrid_swa` over a config.json vs SGLang's `is_hybrid_swa_model` over the
    same class list and text config (configs/model_config.py:2651-2697)."""
    from types import SimpleNamespace

    from graphfit.inputs.sglang_post_capture import hybrid_swa

    text: dict[str, object] = {"layer_types": types, "hidden_size": 64}
    if window is not None:
        text["sliding_window"] = window
    if opt_in is not None:
        text["is_hybrid_swa"] = opt_in
    data = {"architectures": classes, "text_config": text} if nested else {
        "architectures": classes, **text}
    pc.so.oracle()
    from sglang.srt.configs.model_config import is_hybrid_swa_model

    assert hybrid_swa(data) == is_hybrid_swa_model(classes, SimpleNamespace(**text))


def test_the_environment_reads_mooncake_protocol() -> None:
    """MOONCAKE_PROTOCOL is read from a line's prefix and the live process environment."""
    from graphfit.integrations.sglang import environment_overrides

    assert environment_overrides({}, environ={"MOONCAKE_PROTOCOL": "EFA"})[
        "mooncake_protocol"] == "EFA"
    assert "mooncake_protocol" not in environment_overrides({}, environ={})


@pytest.mark.parametrize("extra", [("--pp-size", "2"), ("--pp-size", "2",
                                                        "--enable-dynamic-chunking"),
                                   ("--enable-dynamic-chunking",)])
def test_pp_dynamic_chunking_skips_megamoes_prefill_check(extra: tuple[str, ...]) -> None:
    """--enable-dynamic-chunking, now read, also skips megamoe's prefill token check under PP
    (mega_moe_hook.py:188-189): a budget below the chunk is refused without it, accepted with
    it, by both (tests/oracle/sglang_moe_a2a_compare)."""
    from tests.oracle import sglang_moe_a2a_compare as moe

    argv = ("SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK=1024", "--moe-a2a-backend",
            "megamoe", "--gpu-memory-gb", "H100", "--chunked-prefill-size", "8192",
            "--max-running-requests", "16", *extra)
    sg, gf = moe.sglang(argv), moe.graphfit_cli(argv)
    assert (sg.rejected is None) == (gf.rejected is None)
    assert (sg.rejected is None) == ("--enable-dynamic-chunking" in extra and "--pp-size" in extra)
