"""Generated `sglang serve` lines for SGLang 0.5.23's expert-parallel start-up rules that
graphfit.planner.engines.sglang_ep_rules restates (GPT-OSS's Triton kernel runner at
ep_size 1, model_hook.py:568-571; `--moe-dp-size` with the ep / tp / attention-CP / PP
sizes, parallel_hook.py:170-193; the PD role switch with expert parallelism,
pd_disaggregation_hook.py:165-196), elastic EP's before scale-up (parallel_hook.py:519-581;
graphfit.planner.engines.sglang_elastic_ep) and the MoE runners' ep_size asserts
(sglang_eplb_checks.check_runner_ep, moe_hook.py:89-105, 161-167), all on `--ep-size` as
given under an a2a backend, each answered twice on the whole line:

* SGLang: its own `prepare_server_args` + `resolve_once` on the fake CUDA device
  (tests.oracle.sglang_oracle.resolve, every hook SGLang runs), with a model directory
  holding a Qwen3-MoE or a GPT-OSS-named config.json;
* graphfit: `graphfit plan -- sglang serve --model-path DIR ...` through its own CLI
  (graphfit.cli.application.main), exit 2 with one `error:` line being a refusal.

`compare`: both refuse or both start ("agree"), graphfit says "not modelled", or "differ".
The draws cover the sizes these rules read and the flags they name, not their effect on
graphs: the plans of started lines are compared elsewhere.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import random
from pathlib import Path

MODELS = ("moe", "moe", "gptoss")
A2AS = ("none",) * 4 + ("deepep", "deepep")
# the given backends Waterfill replaces by deepep after their pre-override hooks read them
# (overrides.py:1595-1607); flashinfer_megamoe: not modelled (sglang_waterfill)
WATERFILL_A2AS = ("none",) * 6 + ("deepep", "flashinfer", "pplx", "mori", "deepep_v2",
                                  "mooncake", "flashinfer_megamoe")
RUNNERS = ("auto",) * 3 + ("triton_kernel", "triton_kernel", "triton", "flashinfer_cutlass",
                           "cutlass")
QUANTS = (None, None, "fp8")
ELASTIC = (None,) * 6 + ("mooncake", "nixl", "none")
JOIN_MODES = (None,) * 4 + ("scale", "recover")
EPLB_ALGORITHMS = ("auto", "auto", "deepseek", "elasticity_aware")
PD_MODES = ("null", "null", "prefill", "decode")


@dataclasses.dataclass(frozen=True)
class Case:
    """One generated line (its model directory is the kind's, written once per root)."""

    model: str
    tp: int
    ep: int
    moe_dp: int
    attn_cp: int
    pp: int
    a2a: str
    runner: str
    pd_mode: str
    role_switch: bool
    quant: str | None = None
    elastic: str | None = None  # --elastic-ep-backend
    join_mode: str | None = None
    node_rank: int = 0
    offset: int = 0  # --elastic-ep-join-rank-offset
    max_ep: int | None = None
    initial: int | None = None  # --elastic-ep-initial-size
    eplb: bool = False
    eplb_algorithm: str = "auto"
    waterfill: bool = False  # --enable-waterfill (forces deepep, overrides.py:1595-1607)
    dwdp: int = 1  # --dwdp-size (parallel_hook.py:433-508)
    aiter: bool = False  # --enable-aiter-allreduce-fusion (parallel_hook.py:166-168, 185-187)
    determinism: str | None = None  # "flag": --enable-deterministic-inference; "rl": fsdp

    def argv(self) -> tuple[str, ...]:
        """The serve flags (the model path is added by each side)."""
        out = ["--tp-size", str(self.tp), "--ep-size", str(self.ep)]
        for flag, value, default in (("--moe-dp-size", self.moe_dp, 1),
                                     ("--attn-cp-size", self.attn_cp, 1),
                                     ("--pp-size", self.pp, 1),
                                     ("--moe-a2a-backend", self.a2a, "none"),
                                     ("--moe-runner-backend", self.runner, "auto"),
                                     ("--disaggregation-mode", self.pd_mode, "null"),
                                     ("--quantization", self.quant, None),
                                     ("--elastic-ep-backend", self.elastic, None),
                                     ("--elastic-ep-join-mode", self.join_mode, None),
                                     ("--node-rank", self.node_rank, 0),
                                     ("--elastic-ep-join-rank-offset", self.offset, 0),
                                     ("--max-ep-size", self.max_ep, None),
                                     ("--elastic-ep-initial-size", self.initial, None),
                                     ("--eplb-algorithm", self.eplb_algorithm, "auto"),
                                     ("--dwdp-size", self.dwdp, 1)):
            if value != default:
                out += [flag, str(value)]
        if self.role_switch:
            out.append("--enable-pd-role-switch")
        if self.eplb:
            out.append("--enable-eplb")
        if self.waterfill:
            out.append("--enable-waterfill")
        if self.aiter:
            out.append("--enable-aiter-allreduce-fusion")
        if self.determinism == "flag":
            out.append("--enable-deterministic-inference")
        elif self.determinism == "rl":
            out += ["--rl-on-policy-target", "fsdp"]
        if self.node_rank:
            out += ["--nnodes", "2"]
        return tuple(out)

    def label(self) -> str:
        return f"{self.model}: {' '.join(self.argv())}"


def draw(rng: random.Random) -> Case:
    """One line: the model and the sizes / flags the rules read."""
    tp = rng.choice((1, 2, 4, 8))
    moe_dp = rng.choice((1, 1, 2, 4))
    return Case(model=rng.choice(MODELS), tp=tp,
                ep=rng.choice((1, 1, 2, tp, max(1, tp // moe_dp))), moe_dp=moe_dp,
                attn_cp=rng.choice((1, moe_dp, moe_dp, 2)),
                pp=rng.choice((1, 1, 1, 2)), a2a=rng.choice(A2AS), runner=rng.choice(RUNNERS),
                pd_mode=rng.choice(PD_MODES), role_switch=rng.random() < 0.4,
                quant=rng.choice(QUANTS))


def draw_elastic(rng: random.Random, case: Case) -> Case:
    """Elastic EP's flags on a drawn line (on about a third of the lines)."""
    tp = case.tp
    if rng.random() < 0.65:
        return case
    return dataclasses.replace(
        case, elastic=rng.choice(ELASTIC), join_mode=rng.choice(JOIN_MODES),
        node_rank=rng.choice((0, 0, 1)), offset=rng.choice((0, 0, 0, tp, -1)),
        max_ep=rng.choice((None, None, None, tp, 2 * tp, 0)),
        initial=rng.choice((None,) * 5 + (tp,)), eplb=rng.random() < 0.2,
        eplb_algorithm=rng.choice(EPLB_ALGORITHMS))


def draw_waterfill(rng: random.Random, case: Case) -> Case:
    """`--enable-waterfill` (on about a fifth of the lines), with EPLB on half of those: EPLB's
    ep_size check reads the backend Waterfill forced (parallel_hook.py:790-791)."""
    if rng.random() < 0.8:
        return case
    return dataclasses.replace(case, waterfill=True, a2a=rng.choice(WATERFILL_A2AS),
                               eplb=case.eplb or rng.random() < 0.5)


def draw_dwdp(rng: random.Random, case: Case) -> Case:
    """`--dwdp-size` on about a tenth of the lines: 1 or less (off, parallel_hook.py:435-436),
    the TP size, or another size (each of DWDP's asserts reads the line's other flags)."""
    if rng.random() < 0.9:
        return case
    return dataclasses.replace(case, dwdp=rng.choice((0, case.tp, case.tp, 2, 4)))


def draw_aiter(rng: random.Random, case: Case) -> Case:
    """AITER all-reduce fusion on about a sixth of the lines, deterministic inference (the
    flag or `--rl-on-policy-target fsdp`, which clear it) on a third of those."""
    if rng.random() < 5 / 6:
        return case
    return dataclasses.replace(case, aiter=True,
                               determinism=rng.choice((None, None, "flag", "rl")))


def model_dirs(root: Path) -> dict[str, Path]:
    """The two model directories: a small Qwen3-MoE config.json, and the same named
    GptOssForCausalLM (SGLang's model hooks and overrides key on architectures[0]; the
    experts per token make both sides seed the MoE flags)."""
    import json

    from tests.oracle import sglang_stubs

    moe = sglang_stubs.write_moe_model_dir(root / "moe")
    gptoss = sglang_stubs.write_moe_model_dir(root / "gptoss")
    config = json.loads((gptoss / "config.json").read_text())
    (gptoss / "config.json").write_text(json.dumps({**config,
                                                    "architectures": ["GptOssForCausalLM"]}))
    return {"moe": moe, "gptoss": gptoss}


def sglang(case: Case, model: Path) -> str | None:
    """None where SGLang's resolution starts the line, else its refusal."""
    from tests.oracle import sglang_oracle as so

    answer = so.resolve(case.argv(), model=str(model))
    return answer.text if isinstance(answer, so.Rejected) else None


def graphfit(case: Case, model: Path) -> tuple[int, str]:
    """(exit status, the last `error:` line or "") of graphfit's CLI on the pasted line."""
    from graphfit.cli.application import main

    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(["plan", "--gpu-memory-gb", "80", "--", "sglang", "serve", "--model-path",
                  str(model), *case.argv()])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    errors = [ln for ln in err.getvalue().splitlines() if ln.startswith("error:")]
    return code, errors[-1] if errors else ""


def sglang_plan(case: Case, model: Path) -> tuple[float | None, str, str] | None:
    """(mem_fraction_static, decode backend, prefill backend) of SGLang's resolution of a
    line it starts (its declarations over the record, model_override_base.py:133-135)."""
    from tests.oracle import sglang_oracle as so

    answer = so.resolve(case.argv(), model=str(model))
    if not isinstance(answer, so.Resolved):
        return None
    from sglang.srt.arg_groups.model_override_base import resolved_view

    fraction = resolved_view(answer.record).mem_fraction_static
    return (None if fraction is None else round(float(fraction), 3), str(answer.decode_backend),
            str(answer.prefill_backend))


def graphfit_plan(case: Case, model: Path) -> tuple[float | None, str, str] | None:
    """The same three read off graphfit's plan of the line (None when it refuses)."""
    import re

    from graphfit.cli.application import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(["plan", "--gpu-memory-gb", "80", "--", "sglang", "serve", "--model-path",
                  str(model), *case.argv()])
        except SystemExit as exc:
            if exc.code not in (0, None):
                return None
    text = " ".join(out.getvalue().split())
    fraction = re.search(r"mem_fraction_static ([0-9.]+)", text)
    decode = "disabled" if "cuda_graph_backend_decode disabled" in text else "on"
    prefill = re.search(r"cuda_graph_backend_prefill (\w+)", text)
    return (None if fraction is None else float(fraction.group(1)), decode,
            prefill.group(1) if prefill else "?")


def plans_agree(ours: tuple[float | None, str, str] | None,
                theirs: tuple[float | None, str, str] | None) -> bool:
    """The same mem_fraction_static, decode graphs off on both or on on both, and the prefill
    backend disabled on both or on on both."""
    if ours is None or theirs is None:
        return ours is theirs
    return (ours[0] == theirs[0] and (ours[1] == "disabled") == (theirs[1] == "disabled")
            and (ours[2] == "disabled") == (theirs[2] == "disabled"))


def compare(ours: tuple[int, str], theirs: str | None) -> str:
    """"agree", "differ", or "not modelled" (graphfit says so)."""
    if ours[0] != 0 and "not modelled" in ours[1]:
        return "not modelled"
    return "agree" if (ours[0] != 0) == (theirs is not None) else "differ"


def run(count: int, seed: int, root: Path) -> tuple[dict[str, int], list[str]]:
    """Score `count` drawn lines: the counts per verdict, the differing lines, then graphfit's
    "not modelled" reasons."""
    rng = random.Random(seed)
    dirs = model_dirs(root)
    counts = {"agree": 0, "differ": 0, "not modelled": 0}
    wrong: list[str] = []
    reasons: list[str] = []
    for _ in range(count):
        case = draw_aiter(rng, draw_dwdp(rng, draw_waterfill(rng, draw_elastic(rng, draw(rng)))))
        ours, theirs = graphfit(case, dirs[case.model]), sglang(case, dirs[case.model])
        verdict = compare(ours, theirs)
        if (verdict == "agree" and theirs is None and case.dwdp > 1 and not plans_agree(
                graphfit_plan(case, dirs[case.model]), sglang_plan(case, dirs[case.model]))):
            verdict = "differ"  # a DWDP line both start: its rewritten plan too
        counts[verdict] += 1
        if verdict == "differ":
            wrong.append(f"{case.label()}: graphfit exit {ours[0]} {ours[1][:90]}; SGLang "
                         f"{'starts' if theirs is None else theirs[:90]}")
        elif verdict == "not modelled":
            reasons.append(f"not modelled: {ours[1][:110]}")
    return counts, wrong + reasons


__all__ = ["Case", "compare", "draw", "draw_aiter", "draw_dwdp", "draw_elastic", "draw_waterfill",
           "graphfit", "graphfit_plan", "model_dirs", "plans_agree", "run", "sglang",
           "sglang_plan"]
