"""SGLang's default mem_fraction_static and its PD-role reserves: graphfit
(graphfit/planner/engines/sglang_memory.py) vs SGLang 0.5.23's own `handle_gpu_memory_settings`
run by its whole resolution pipeline (tests/oracle/sglang_prefill_oracle.mem_fraction).

A PD decode server reserves activation memory for running requests x draft tokens and no
prefill graphs; a PD prefill server none for decode graphs (memory_hook.py:298-304, 357-397).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")

from graphfit import ConfigError  # noqa: E402
from graphfit.planner.engines.sglang_memory import mem_fraction_static  # noqa: E402
from graphfit.planner.engines.sglang_native import memory_inputs_from_sglang  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_prefill_oracle as po  # noqa: E402


def compare(argv: tuple[str, ...], gb: float | None) -> list[str]:
    sg = po.mem_fraction(argv, gb)
    if isinstance(sg, so.Rejected):
        return []
    raw, theirs = sg
    try:
        ours = mem_fraction_static(memory_inputs_from_sglang(raw, gb))
    except ConfigError as exc:
        assert "not modelled" in str(exc) or "SGLang" in str(exc) or "given" in str(exc)
        return []
    return [] if ours == theirs else [f"mem_fraction_static: SGLang {theirs}, graphfit {ours}"]


S = ("--max-running-requests", "48")
GRID: list[tuple[tuple[str, ...], float | None]] = [
    (S, 80), (S, 16), (S, 30), (S, 48), (S, 141), (S, 192), (S, None), ((), 80),
    ((*S, "--disaggregation-mode", "decode"), 80),
    ((*S, "--disaggregation-mode", "decode"), 24),
    (("--disaggregation-mode", "decode"), 24),
    ((*S, "--disaggregation-mode", "decode", "--speculative-algorithm", "EAGLE",
      "--speculative-num-steps", "3", "--speculative-eagle-topk", "4",
      "--speculative-num-draft-tokens", "64"), 48),
    ((*S, "--disaggregation-mode", "prefill"), 80),
    ((*S, "--disaggregation-mode", "prefill", "--cuda-graph-backend-decode", "full"), 80),
    ((*S, "--tp", "8", "--attn-dp-size", "8", "--cuda-graph-max-bs-decode", "400"), 192),
    ((*S, "--chunked-prefill-size", "1000"), 24),
    ((*S, "--disable-cuda-graph"), 30),
    ((*S, "--cuda-graph-bs-decode", "1", "2", "300"), 48),
    ((*S, "--cuda-graph-config", json.dumps({"prefill": {"bs": [8, 16]}})), 48),
]


@pytest.mark.parametrize(("argv", "gb"), GRID, ids=[f"{' '.join(a) or '-'}@{g}" for a, g in GRID])
def test_mem_fraction_equals_sglang(argv: tuple[str, ...], gb: float | None) -> None:
    assert compare(argv, gb) == []


def test_decode_role_reserves_for_running_requests() -> None:
    """The oracle itself: a PD decode server at 24 GiB reserves 1.5 MiB per running request
    x draft token above 2048 and no prefill graphs, so it keeps more than a mixed server."""
    mixed = po.mem_fraction(S, 24)
    decode = po.mem_fraction((*S, "--disaggregation-mode", "decode"), 24)
    assert not isinstance(mixed, so.Rejected) and not isinstance(decode, so.Rejected)
    assert decode[1] > mixed[1]


@st.composite
def lines(draw: st.DrawFn) -> tuple[tuple[str, ...], float | None]:
    argv: list[str] = []
    if draw(st.integers(0, 3)):
        argv += ["--max-running-requests", str(draw(st.integers(1, 4096)))]
    mode = draw(st.sampled_from(("", "", "decode", "prefill")))
    if mode:
        argv += ["--disaggregation-mode", mode]
    if draw(st.booleans()):
        argv += ["--chunked-prefill-size", str(draw(st.integers(64, 20000)))]
    graphs = draw(st.sampled_from(("", "max_bs", "bs", "off", "decode_off", "prefill_off",
                                   "decode_full")))
    if graphs == "max_bs":
        argv += ["--cuda-graph-max-bs-decode", str(draw(st.integers(1, 1024)))]
    elif graphs == "bs":
        argv += ["--cuda-graph-bs-decode",
                 *map(str, draw(st.lists(st.integers(1, 600), min_size=1, max_size=4)))]
    elif graphs == "off":
        argv.append("--disable-cuda-graph")
    elif graphs == "decode_off":
        argv.append("--disable-decode-cuda-graph")
    elif graphs == "prefill_off":
        argv.append("--disable-prefill-cuda-graph")
    elif graphs == "decode_full":
        argv += ["--cuda-graph-backend-decode", "full"]
    if draw(st.booleans()):
        argv += ["--speculative-algorithm", "EAGLE", "--speculative-num-steps", "3",
                 "--speculative-eagle-topk", "4", "--speculative-num-draft-tokens",
                 str(draw(st.integers(2, 64)))]
    tp = draw(st.sampled_from((1, 2, 4, 8)))
    if tp > 1:
        argv += ["--tp", str(tp)]
        if draw(st.booleans()):
            argv += ["--attn-dp-size", str(draw(st.sampled_from([d for d in (2, 4, 8)
                                                                 if tp % d == 0])))]
    if draw(st.integers(0, 4)) == 0:
        argv += ["--pp-size", "2"]
    return tuple(argv), draw(st.sampled_from((16, 24, 30, 48, 80, 141, 192, None)))


@given(lines())
def test_generated_memory_lines(case: tuple[tuple[str, ...], float | None]) -> None:
    argv, gb = case
    assert compare(argv, gb) == []


# --------------------------------------------------------------------------------------------
# The config path `graphfit plan` / `graphfit memory` show: a line pasted as a user pastes it,
# read by graphfit.inputs.commandline, resolved by SglangModel.resolve into
# SglangOptions.mem_fraction_static (graphfit/planner/engines/sglang_reserve.py)
# --------------------------------------------------------------------------------------------

def config_fraction(argv: tuple[str, ...], gb: float | None) -> float | str | None:
    """graphfit's mem_fraction_static for a pasted line, or its refusal's message."""
    from graphfit.cli.options import resolve_values
    from graphfit.inputs import commandline

    line = ["python", "-m", "sglang.launch_server", "--model-path",
            str(so.oracle().model_dir), *argv]
    own = {} if gb is None else {"gpu_memory_gb": gb}
    try:
        config = resolve_values(own, environ={}, pasted=commandline.read(line)).config()
    except ConfigError as exc:
        return str(exc)
    return config.mem_fraction_static


def compare_config(argv: tuple[str, ...], gb: float | None) -> list[str]:
    sg = po.mem_fraction(argv, gb)
    if isinstance(sg, so.Rejected):
        return []
    ours = config_fraction(argv, gb)
    if isinstance(ours, str):
        return []  # graphfit refuses the line (its own test files cover why)
    if gb is None:
        # SGLang's 0.95 fallback is not graphfit's to guess: unknown GPU memory leaves the
        # fraction None, unless the pasted-line reader assumed its noted 80 GB (it does when
        # the line gives no decode max_bs, graphfit.inputs.line_defaults.settle_sglang)
        if ours is None:
            return []
        sg = po.mem_fraction(argv, 80)
        assert not isinstance(sg, so.Rejected)
    if sg[1] <= 0:  # SGLang's reserve exceeds the GPU: graphfit leaves it unset and warns
        return [] if ours is None else [f"SGLang {sg[1]} (not positive), graphfit {ours}"]
    return [] if ours == sg[1] else [f"mem_fraction_static: SGLang {sg[1]}, graphfit {ours}"]


@pytest.mark.parametrize(("argv", "gb"), GRID, ids=[f"{' '.join(a) or '-'}@{g}" for a, g in GRID])
def test_config_fraction_equals_sglang(argv: tuple[str, ...], gb: float | None) -> None:
    assert compare_config(argv, gb) == []


def test_config_path_compares_the_grid() -> None:
    """Not vacuous: graphfit reads (and fills in) every line of the grid with a known GPU."""
    filled = [config_fraction(a, g) for a, g in GRID if g is not None]
    assert all(isinstance(f, float) for f in filled), filled


def test_given_fraction_is_kept() -> None:
    """A given --mem-fraction-static is SGLang's own value (memory_hook.py:281 skips the
    default) and graphfit keeps it."""
    argv = (*S, "--mem-fraction-static", "0.7")
    sg = po.mem_fraction(argv, 80)
    assert not isinstance(sg, so.Rejected) and sg[1] == 0.7
    assert config_fraction(argv, 80) == 0.7


@given(lines())
def test_generated_config_lines(case: tuple[tuple[str, ...], float | None]) -> None:
    argv, gb = case
    assert compare_config(argv, gb) == []


@pytest.mark.parametrize("argv", [
    S, (*S, "--disaggregation-mode", "decode", "--speculative-algorithm", "EAGLE",
         "--speculative-num-steps", "3", "--speculative-eagle-topk", "4",
         "--speculative-num-draft-tokens", "64")])
def test_memory_command_equals_sglang(argv: tuple[str, ...]) -> None:
    """`graphfit memory --json` on the pasted line reports SGLang's own fraction and what it
    leaves outside static memory."""
    from graphfit.planner.engines.sglang_reserve import GIB
    from tests.helpers import run_cli

    sg = po.mem_fraction(argv, 48)
    assert not isinstance(sg, so.Rejected)
    code, out, err = run_cli(["memory", "--json", "--gpu-memory-gb", "48", "--",
                              "python", "-m", "sglang.launch_server", "--model-path",
                              str(so.oracle().model_dir), *argv])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["mem_fraction_static"] == sg[1]
    assert doc["runtime_reserve_bytes"] == round(48 * GIB * (1 - sg[1]))


# --------------------------------------------------------------------------------------------
# MLA and vision-language models: the 1.5 GiB MLA prefill-graph reserve (memory_hook.py:384-389)
# and the vision-encoder adjustment (:283-289, 330-335, 417-462), against SGLang's own hook on
# model directories SGLang's ModelConfig reads (a DeepSeek-V3-shaped MLA config; Qwen3-VL
# configs whose vision encoders are smaller than, about twice and far above ViT-L/14, so the
# factor's clamp is crossed). The model facts graphfit uses come from its own reader
# (graphfit.inputs.model_config.read_model) of the same directory.
# --------------------------------------------------------------------------------------------

_MODELS: dict[str, str] = {}


def model_dir(name: str) -> str:
    """The directory of one of the models above, written once per test session."""
    import tempfile
    from pathlib import Path

    from tests.oracle import sglang_stubs

    if name not in _MODELS:
        root = Path(tempfile.mkdtemp(prefix="graphfit-sglang-mem-"))
        writers = {
            "mla": lambda: sglang_stubs.write_mla_model_dir(root / "dsv3"),
            "vl_small": lambda: sglang_stubs.write_qwen3_vl_model_dir(root / "vl-small"),
            "vl_2x": lambda: sglang_stubs.write_qwen3_vl_model_dir(root / "vl-2x", 32, 1280),
            "vl_huge": lambda: sglang_stubs.write_qwen3_vl_model_dir(root / "vl-huge", 48,
                                                                    1664),
        }
        _MODELS[name] = str(writers[name]())
    return _MODELS[name]


MODEL_NAMES = ("mla", "vl_small", "vl_2x", "vl_huge")


def compare_model(argv: tuple[str, ...], gb: float | None, name: str) -> list[str]:
    """graphfit's fraction for the model (facts read by graphfit) vs SGLang's own."""
    from pathlib import Path

    from graphfit.inputs.model_config import read_model
    from graphfit.planner.engines.sglang_memory import VisionEncoder
    from graphfit.planner.engines.sglang_prefill import MLA_ARCHITECTURES

    model = model_dir(name)
    sg = po.mem_fraction(argv, gb, model)
    if isinstance(sg, so.Rejected):
        return []
    raw, theirs = sg
    info = read_model(Path(model) / "config.json")
    vision = (VisionEncoder(info.vision_layers, info.vision_hidden_size)
              if info.vision_layers and info.vision_hidden_size else None)
    try:
        ours = mem_fraction_static(memory_inputs_from_sglang(
            raw, gb, mla=info.architecture in MLA_ARCHITECTURES, vision=vision,
            multimodal=info.multimodal, architecture=info.architecture,
            sm90=True))  # the oracle's CUDA device is a Hopper (sglang_stubs.fake_cuda)
    except ConfigError as exc:
        assert "not modelled" in str(exc) or "given" in str(exc)
        return []
    return [] if ours == theirs else [f"{name}: SGLang {theirs}, graphfit {ours}"]


MODEL_GRID = [(a, g, n) for n in MODEL_NAMES for a, g in (
    (S, 80), (S, 24), (S, 141), ((*S, "--disaggregation-mode", "decode"), 80),
    ((*S, "--disaggregation-mode", "prefill"), 80), ((*S, "--disable-prefill-cuda-graph"), 48),
    ((*S, "--cuda-graph-backend-prefill", "breakable"), 48))] + [
    # encoder disaggregation's language-only server: SGLang accepts it for Qwen3-VL
    # (pd_disaggregation_hook.py:351-376) and keeps no vision headroom (memory_hook.py:283)
    ((*S, "--language-only"), g, n) for n in ("vl_small", "vl_huge") for g in (48, 80)]


@pytest.mark.parametrize(("argv", "gb", "name"), MODEL_GRID,
                         ids=[f"{n}:{' '.join(a)}@{g}" for a, g, n in MODEL_GRID])
def test_mla_and_vlm_fraction_equals_sglang(argv: tuple[str, ...], gb: float | None,
                                            name: str) -> None:
    assert compare_model(argv, gb, name) == []


def test_model_grid_is_not_vacuous() -> None:
    """SGLang resolves every MLA / VLM line of the grid, the MLA reserve and the vision factor
    move the fraction, and the clamp is reached (the huge encoder's factor is 0.95 x 0.8)."""
    from graphfit.planner.engines.sglang_memory import VisionEncoder

    got = {(n, a, g): po.mem_fraction(a, g, model_dir(n)) for a, g, n in MODEL_GRID}
    assert not any(isinstance(v, so.Rejected) for v in got.values())
    llama = po.mem_fraction(S, 48)
    assert not isinstance(llama, so.Rejected)
    mla = got[("mla", (*S, "--cuda-graph-backend-prefill", "breakable"), 48)]
    small = got[("vl_small", S, 80)]
    huge = got[("vl_huge", S, 80)]
    text = got[("vl_huge", (*S, "--language-only"), 80)]
    assert not isinstance(mla, so.Rejected) and mla[1] != llama[1]
    assert not isinstance(small, so.Rejected) and not isinstance(huge, so.Rejected)
    assert not isinstance(text, so.Rejected) and huge[1] < small[1] < text[1]
    assert VisionEncoder(48, 1664).factor() == 0.95 * 0.8


@given(lines(), st.sampled_from(MODEL_NAMES))
def test_generated_mla_and_vlm_lines(case: tuple[tuple[str, ...], float | None],
                                     name: str) -> None:
    argv, gb = case
    assert compare_model(argv, gb, name) == []


# a GPU memory figure without a name leaves the GPU's generation unknown (SglangOptions.sm90
# None), which graphfit plans as not a Hopper: SGLang on an Ampere-class device
AMPERE = (8, 0)


def config_fraction_for(argv: tuple[str, ...], gb: float, name: str) -> float | str | None:
    """graphfit's fraction for a pasted line naming the model directory (the CLI's path);
    compare with SGLang's on an `AMPERE` device."""
    return po.pasted_mem_fraction(
        ["python", "-m", "sglang.launch_server", "--model-path", model_dir(name), *argv], gb)


@pytest.mark.parametrize(("argv", "gb", "name"), [
    (S, 80, "mla"), (S, 80, "vl_2x"), (S, 141, "vl_huge"), (S, 24, "vl_small"),
    ((*S, "--disaggregation-mode", "decode"), 48, "vl_small"),
    ((*S, "--disaggregation-mode", "prefill"), 80, "vl_huge")])
def test_pasted_mla_and_vlm_lines_equal_sglang(argv: tuple[str, ...], gb: float,
                                               name: str) -> None:
    """The pasted line's path reads the vision encoder from the model directory and fills in
    SGLang's own fraction."""
    sg = po.mem_fraction(argv, gb, model_dir(name), AMPERE)
    assert not isinstance(sg, so.Rejected)
    assert config_fraction_for(argv, gb, name) == sg[1]


@pytest.mark.parametrize("flag", ["--language-only", "--language-model-only"])
def test_language_only_lines_are_refused_not_misplanned(flag: str) -> None:
    """Serving a multimodal model's language model alone has SGLang rules graphfit does not
    restate (architectures, roles): the pasted line is refused in one line, naming the flag."""
    out = config_fraction_for((*S, flag), 80, "vl_small")
    assert isinstance(out, str) and out.startswith(flag) \
        and "not modelled" in out


def test_multimodal_prefill_graphs_are_off_as_sglang_turns_them_off() -> None:
    """A Qwen3-VL line: SGLang switches breakable prefill graphs off for a multimodal model
    off its allowlist (cuda_graph_hook.py:229-238); graphfit's plan has no prefill component,
    and an explicit backend keeps them on in both."""
    from graphfit import plan
    from graphfit.cli.options import resolve_values
    from graphfit.inputs import commandline

    def planned(argv: tuple[str, ...]) -> bool:
        line = ["python", "-m", "sglang.launch_server", "--model-path", model_dir("vl_small"),
                *argv]
        config = resolve_values({"gpu_memory_gb": 80}, environ={},
                                pasted=commandline.read(line)).config()
        return "prefill" in plan(config).components

    for argv in (S, (*S, "--cuda-graph-backend-prefill", "breakable")):
        theirs = po.prefill(argv, 80, model_dir("vl_small"))
        assert not isinstance(theirs, so.Rejected)
        assert planned(argv) == (theirs.backend != "disabled"), argv
    assert not planned(S)


@given(lines(), st.sampled_from(MODEL_NAMES))
def test_generated_pasted_mla_and_vlm_lines(case: tuple[tuple[str, ...], float | None],
                                            name: str) -> None:
    """The pasted line's path over generated lines: SGLang's own value, or unset where SGLang's
    is not positive (graphfit warns), or a refusal of a line graphfit does not model."""
    argv, gb = case
    if gb is None:
        return  # an unknown GPU leaves the fraction unset (compare_config covers it)
    sg = po.mem_fraction(argv, gb, model_dir(name), AMPERE)
    if isinstance(sg, so.Rejected):
        return
    ours = config_fraction_for(argv, gb, name)
    if isinstance(ours, str):
        assert "not modelled" in ours or "SGLang" in ours, ours
        return
    assert ours == sg[1] or (sg[1] <= 0 and ours is None), (sg[1], ours)
