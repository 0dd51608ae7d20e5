"""Generated lines for Nemotron-H's expert-remap rules, HYV4's deep_gemm pick and the
W4A16 / ModelOpt config a model override reads (graphfit.planner.engines.
sglang_class_picks), each with a model directory holding config.json and maybe a local
hf_quant_config.json (ModelOpt) or a ModelSlim quant_model_description.json, and the two
answers: SGLang's own overrides (tests.oracle.sglang_model_quant_oracle.resolve, with that
directory as model_path, then `handle_moe_kernel_config` without an a2a backend) and
graphfit's (its reader model_config.quant_settings on the directory, then
sglang_quantization.check / class_runner through EngineConfig).

`compare` scores them:
* without an a2a backend, the whole line: refused by both, or started by both with the same
  `--quantization` where graphfit knows it, and the same MoE runner where graphfit names one
  (it keeps auto where SGLang's pick takes the flag: flashinfer_trtllm, flashinfer_cutlass,
  or Nemotron-H's SM80-90 marlin);
* under an a2a backend, the class's pick only: a refusal by SGLang's overrides is
  graphfit's too, and where both start graphfit's runner is SGLang's (graphfit's a2a
  runner lists, checked against SGLang elsewhere, may refuse more).
"""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path
from typing import Any

ARCHS = ("NemotronHForCausalLM", "NemotronH_Omni_Reasoning_V3", "NemotronHPuzzleForCausalLM",
         "Qwen3MoeForCausalLM",
         "HYV4ForCausalLM", "HYV4ForCausalLMNextN")
W4A16_EXPERTS = {"model.layers.1.mixer.experts.0": {"quant_algo": "W4A16_NVFP4"},
                 "model.layers.0.mixer.in_proj": {"quant_algo": "FP8"}}
NVFP4_ONLY = {"model.layers.1.mixer.experts.0": {"quant_algo": "NVFP4", "group_size": 16}}
INNER = {
    "fp8": {"quant_algo": "FP8"}, "nvfp4": {"quant_algo": "NVFP4", "group_size": 16},
    "mixed_w4a16": {"quant_algo": "MIXED_PRECISION", "quantized_layers": W4A16_EXPERTS},
    "mixed_nvfp4": {"quant_algo": "MIXED_PRECISION", "quantized_layers": NVFP4_ONLY},
    "mxfp8": {"quant_algo": "MXFP8"},
    # Fp8Config reads activation_scheme (fp8.py:350): without it SGLang's loader stops
    "mxfp8_lower": {"quant_algo": "mxfp8", "activation_scheme": "dynamic"},
    "int4_awq": {"quant_algo": "INT4_AWQ"},
}
FLAGS = (None, None, None, "modelopt_mixed", "modelopt_fp8", "modelopt_fp4", "fp8", "mxfp8",
         "modelopt")
RUNNERS = ("auto",) * 5 + ("flashinfer_trtllm", "flashinfer_cutedsl",
                           "flashinfer_trtllm_routed", "marlin", "deep_gemm",
                           "flashinfer_cutlass", "cutlass")
A2AS = ("none",) * 4 + ("deepep_v2", "flashinfer", "pplx")
CANNOT, SEVERAL = "Cannot find the config file", "Found multiple config files"
# the config classes whose from_config graphfit restates (ModelOptFp8Config, Fp8Config,
# ModelOptFp4Config: quantization/__init__.py:64-70; graphfit.inputs.sglang_quant_config_file)
FP8_CLASS = ("modelopt", "modelopt_fp8", "fp8", "mxfp8", "modelopt_fp4")
AUTO_KEPT = ("auto", "flashinfer_trtllm", "flashinfer_cutlass", "marlin")
JOIN_MODES = (None,) * 6 + ("scale", "recover")
DISPATCHES = (None,) * 6 + ("static", "lp", "dynamic", "fake")


@dataclasses.dataclass(frozen=True)
class Case:
    """One generated line and its checkpoint files."""

    arch: str
    config_quant: dict[str, Any] | None  # config.json's quantization_config
    others: dict[str, Any]  # file name -> JSON object
    flag: str | None
    runner: str
    a2a: str
    sm100: bool
    enable_eplb: bool
    redundant: int
    location: str
    jit_env: bool
    tp: int = 1
    ep_size: int = 1
    join_mode: str | None = None
    dispatch: str | None = None
    blocks: tuple[int, ...] = ()  # NemotronHPuzzle: each MoE block's n_routed_experts

    @property
    def capability(self) -> int:
        return 100 if self.sm100 else 90

    def label(self) -> str:
        files = "+".join(["config.json" if self.config_quant else "bare", *sorted(self.others)])
        remap = f"eplb={int(self.enable_eplb)} red={self.redundant} loc={self.location}"
        return (f"{self.arch} {files} {json.dumps(self.config_quant)[:70]} --quantization "
                f"{self.flag} runner={self.runner} a2a={self.a2a} sm{self.capability} "
                f"{remap} jit={int(self.jit_env)} tp={self.tp} ep={self.ep_size} "
                f"join={self.join_mode} dispatch={self.dispatch} blocks={list(self.blocks)}")


def _config_quant(rng: random.Random) -> dict[str, Any] | None:
    kind = rng.choice((None, *INNER))
    if kind is None:
        return None
    inner = dict(INNER[kind])
    shape = rng.choice(("modelopt", "flat", "nested"))
    if shape == "modelopt":
        return {"quant_method": "modelopt", **inner}
    if shape == "nested":
        return {"quantization": inner}
    return inner


def draw(rng: random.Random) -> Case:
    """One line: the checkpoint's files, the flags, the GPU."""
    arch = rng.choice(ARCHS)
    form = rng.choice(("config", "config", "hf_quant", "modelslim", "none"))
    config_quant = _config_quant(rng) if form in ("config", "modelslim") else None
    others: dict[str, Any] = {}
    if form == "hf_quant":
        others["hf_quant_config.json"] = {"producer": {"name": "modelopt"}, "quantization":
                                          dict(INNER[rng.choice(list(INNER))])}
    if form == "modelslim":
        others["quant_model_description.json"] = {"model.layers.0.mixer.in_proj.weight":
                                                  "W8A8"}
    remap = rng.random() < 0.5
    case = Case(arch, config_quant, others, rng.choice(FLAGS), rng.choice(RUNNERS),
                rng.choice(A2AS), rng.random() < 0.6, remap and rng.random() < 0.7,
                rng.choice((0, 0, 2)) if remap else 0,
                rng.choice(("trivial", "trivial", "/tmp/loc.json")) if remap else "trivial",
                rng.random() < 0.75)
    tp = rng.choice((1, 2, 4, 8))
    blocks = tuple(rng.choice((64, 128)) for _ in range(rng.choice((1, 2, 3))))
    return dataclasses.replace(
        case, tp=tp, ep_size=rng.choice((1, tp, tp, min(2, tp))), join_mode=rng.choice(JOIN_MODES),
        dispatch=rng.choice(DISPATCHES), blocks=blocks if arch == ARCHS[2] else ())


def write(folder: Path, case: Case) -> None:
    """The model directory: config.json (architectures, relu2, the quantization config)
    and the other files."""
    folder.mkdir(parents=True, exist_ok=True)
    config: dict[str, Any] = {"architectures": [case.arch], "mlp_hidden_act": "relu2"}
    if case.config_quant is not None:
        config["quantization_config"] = case.config_quant
    if case.arch == ARCHS[2]:  # NemotronHPuzzleConfig takes block_configs (nemotron_h.py:530)
        config["block_configs"] = _block_configs(case.blocks)
    (folder / "config.json").write_text(json.dumps(config))
    for name, data in case.others.items():
        (folder / name).write_text(json.dumps(data))


def _block_configs(counts: tuple[int, ...]) -> list[dict[str, Any]]:
    """A Puzzle's block list: a mamba block, then one MoE block per count."""
    return [{"block_type": "mamba"}, *({"block_type": "moe", "n_routed_experts": n}
                                       for n in counts)]


def sglang(case: Case, folder: Path) -> tuple[str, str | None, str | None]:
    """SGLang's own answer: EPLB's and elastic EP's start-up checks (tests.oracle.
    sglang_eplb_oracle), then the class's overrides (tests.oracle.sglang_model_quant_oracle.
    resolve)."""
    from tests.oracle import sglang_eplb_oracle as eo
    from tests.oracle import sglang_model_quant_oracle as mo
    from tests.oracle import sglang_quantization_oracle as qo

    stop = eo.check(enable_eplb=case.enable_eplb, init_expert_location=case.location,
                    ep_size=case.ep_size, tp_size=case.tp, moe_a2a_backend=case.a2a,
                    ep_join_mode=case.join_mode, ep_dispatch_algorithm=case.dispatch,
                    elastic=True)
    if stop is not None:
        return "refused", f"handle_eplb_and_dispatch: {stop}", None
    jit = mo.jit_deepgemm(case.jit_env, case.capability)
    args = {"enable_eplb": case.enable_eplb, "ep_num_redundant_experts": case.redundant,
            "init_expert_location": case.location, "ep_size": case.ep_size,
            "tp_size": case.tp}
    hf = {"block_configs": _block_configs(case.blocks)} if case.arch == ARCHS[2] else {}
    answer = mo.resolve(case.arch, case.flag, case.config_quant, case.sm100, case.a2a,
                        case.runner, model_dir=str(folder), args=args, jit=jit,
                        kernel=case.a2a == "none", hf_attrs=hf)
    if answer[0] == "ok" and answer[1] is not None and answer[1] != case.flag:
        # a copied flag: the worker's own ModelConfig verifies it again against the
        # directory's files (managers/scheduler.py:794; SGLang's _verify_quantization)
        again = qo.verify(answer[1], case.config_quant, divmod(case.capability, 10),
                          model_dir=str(folder))
        if again.startswith(("refused", "crash")):
            return "refused", f"the worker: {again}", None
    if answer[0] == "ok":
        # the model loader's minimum GPU capability (model_loader/loader.py:253-262), past
        # the overrides: SGLang's own check on the final method and the directory's files
        from tests.oracle import sglang_quant_capability_oracle as co

        flag = answer[1] if answer[1] is not None else case.flag
        loaded = co.load(flag, case.config_quant, case.capability, model_dir=str(folder))
        if loaded.stage == "capability" or (loaded.stage == "before" and (loaded.said.startswith(
                (CANNOT, SEVERAL))  # or its file search (weight_utils.py:288-394)
                or loaded.method in FP8_CLASS)):  # or ModelOptFp8Config (restated too)
            return "refused", f"the loader: {loaded.said}", None
        if loaded.stage == "before":  # a config class refusing what it reads: not restated
            return "unknown", f"the loader: {loaded.said}", None
    return answer


def graphfit(case: Case, folder: Path) -> tuple[str, str | None, str | None]:
    """graphfit's answer through its reader and EngineConfig; options this graphfit lacks
    are dropped (as it ignores those flags), so an older tree runs the same cases."""
    from graphfit import EngineConfig
    from graphfit.inputs import model_config
    from graphfit.planner.core.errors import ConfigError
    from graphfit.planner.engines import sglang_quantization as sq
    from graphfit.planner.engines.sglang_options import SglangOptions

    try:
        from graphfit.planner.engines import sglang_eplb_checks as eplb_checks
    except ImportError:
        eplb_checks = None  # type: ignore[assignment]

    try:
        settings = {s.field: s.value for s in model_config.quant_settings(str(folder))}
        options = {**settings, "sm100": case.sm100, "gpu_capability": case.capability,
                   "quant_method": case.flag, "moe_runner_backend": case.runner,
                   "moe_a2a_backend": case.a2a, "enable_eplb": case.enable_eplb,
                   "ep_num_redundant_experts": case.redundant,
                   "init_expert_location": case.location, "jit_deepgemm": case.jit_env,
                   "tp_size": case.tp, "ep_size": case.ep_size,
                   "ep_join_mode": case.join_mode, "ep_dispatch_algorithm": case.dispatch}
        known_fields = {f.name for f in dataclasses.fields(SglangOptions)}
        config = EngineConfig(engine="sglang", architecture=case.arch, max_num_seqs=8,
                              options={k: v for k, v in options.items() if k in known_fields})
        if eplb_checks is not None:  # a graphfit without them ignores those flags
            eplb_checks.check(config)
        unchecked = _file_search(case.flag, folder)  # the loader's, on the directory
        if case.a2a == "none":
            sq.check(config)
        elif sq.flag_known(config):
            sq.check_copy(config)
        known, runner = sq.class_runner(config)
    except ConfigError as exc:
        return ("not modelled" if "not modelled" in str(exc) else "refused"), str(exc), None
    if unchecked:  # graphfit's note: the loader's config class hangs on the override's copy
        return "not modelled", unchecked[0], None
    flag = sq.resolved_flag(config) if sq.flag_known(config) else "?"
    return "ok", flag, runner if known else "?"


def _file_search(flag: str | None, folder: Path) -> list[str]:
    """graphfit's reader's restatement of the loader's quantization file search
    (graphfit.inputs.sglang_quant_config_file, what a pasted line runs): its notes that
    a check was not made. An older graphfit without it (or the flag-less form) checks less."""
    try:
        from graphfit.inputs import sglang_quant_config_file as qf
    except ImportError:
        return []
    if flag is None and not hasattr(qf, "mixed_incomplete"):
        return []
    notes = qf.check_model(flag, str(folder))
    return [n for n in notes or [] if "is not checked" in n]


def compare(case: Case, ours: tuple[str, str | None, str | None],
            theirs: tuple[str, str | None, str | None]) -> str:
    """"agree", "differ", or "not modelled" (graphfit says so)."""
    if ours[0] == "not modelled" or theirs[0] == "unknown":
        return "not modelled"
    state = "refused" if theirs[0] in ("refused", "crash") else theirs[0]
    if (ours[0] == "refused") != (state == "refused"):
        if case.a2a != "none" and ours[0] == "refused":
            return "agree"  # graphfit's a2a rules may refuse more (checked elsewhere)
        return "differ"
    if ours[0] == "refused":
        return "agree"
    if ours[1] != "?" and ours[1] != theirs[1]:
        return "differ"
    if ours[2] == "?":
        return "agree"
    if ours[2] == theirs[2] or (case.a2a == "none" and ours[2] == "auto"
                                and theirs[2] in AUTO_KEPT):
        return "agree"
    return "differ"


def run(count: int, seed: int, root: Path) -> tuple[dict[str, int], list[str]]:
    """Score `count` drawn lines: the counts per verdict and the differing lines (then the
    reasons graphfit gave for "not modelled", prefixed "not modelled:")."""
    rng = random.Random(seed)
    counts = {"agree": 0, "differ": 0, "not modelled": 0}
    wrong: list[str] = []
    reasons: list[str] = []
    for index in range(count):
        case = draw(rng)
        folder = root / f"m{index}"
        write(folder, case)
        ours, theirs = graphfit(case, folder), sglang(case, folder)
        verdict = compare(case, ours, theirs)
        counts[verdict] += 1
        if verdict == "not modelled" and ours[0] == "not modelled":
            reasons.append(f"not modelled: {str(ours[1])[:100]}")
        if verdict == "differ":
            wrong.append(f"{case.label()}: graphfit {ours[0]} {str(ours[1])[:60]} {ours[2]}; "
                         f"SGLang {theirs[0]} {str(theirs[1])[:60]} {theirs[2]}")
    return counts, wrong + reasons
