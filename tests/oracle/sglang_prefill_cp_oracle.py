"""Prefill context parallelism (issue 23 s51c): SGLang 0.5.23's own resolution of
`--enable-prefill-cp` / `--cp-strategy` lines vs graphfit's reading of the same pasted line
(graphfit.inputs.sglang_prefill_cp). A line SGLang refuses must be refused with SGLang's
sentence; a line SGLang serves must be planned as SGLang's runners are built (the DCP oracle's
comparison: ladders, padding, buffers, prefill-graph backend) or refused as not modelled.

The targets: pc.model_dir's Llama-shaped MHA (`llama`), DeepSeek-V3-shaped MLA (`mla`) and
DeepSeek-V4 (`dsv4`) directories, and the same config.json under the classes SGLang's CP
rules name (MiMo-V2, HYV4, DeepSeek-V3.2, LongCat-Flash's model_type)."""

from __future__ import annotations

import json
import random
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.oracle import sglang_dcp_oracle as dc
from tests.oracle import sglang_post_capture_oracle as pc
from tests.oracle import sglang_stubs

Case = dc.Case
GPU = "H100"
# name: (base directory, architecture, extra config.json fields)
VARIANTS: dict[str, tuple[str, str, dict[str, object]]] = {
    # MiMo-V2's SWA / full layer pattern (configs/model_config.py:2723-2730)
    "mimo": ("llama", "MiMoV2FlashForCausalLM", {"hybrid_layer_pattern": [0, 1] * 64}),
    "hyv4": ("mla", "HYV4ForCausalLM", {}),
    "v32": ("mla", "DeepseekV32ForCausalLM", {}),
    "longcat": ("llama", "LlamaForCausalLM", {"model_type": "longcat_flash"}),
}
MODELS = ("llama", "mla", "dsv4", *VARIANTS)
STRATEGIES = (None, "zigzag", "interleave")


def model_dir(name: str) -> str:
    """pc.model_dir's directory, or a VARIANTS one registered there."""
    if name in VARIANTS and name not in pc._MODELS:
        base, arch, fields = VARIANTS[name]
        root = Path(tempfile.mkdtemp(prefix="graphfit-prefill-cp-")) / name
        if base == "mla":
            sglang_stubs.write_mla_model_dir(root)
        else:
            sglang_stubs.write_model_dir(root)
        data = json.loads((root / "config.json").read_text())
        (root / "config.json").write_text(json.dumps({**data, "architectures": [arch],
                                                       **fields}))
        pc.register(name, str(root))
    return pc.model_dir(name)


def generate(count: int, seed: int) -> list[Case]:
    """`count` prefill-CP lines: TP, attention CP, strategy, DCP, a draft, the attention
    backend and pipeline parallelism drawn."""
    rng = random.Random(seed)
    out: list[Case] = []
    for _ in range(count):
        tp = rng.choice((1, 2, 4, 8))
        argv = ["--enable-prefill-cp", "--tp-size", str(tp), "--max-running-requests", "24"]
        strategy = rng.choice(STRATEGIES)
        if strategy is not None:
            argv += ["--cp-strategy", strategy]
        if rng.random() < 0.4:
            argv += ["--attn-cp-size", str(rng.choice([d for d in (1, 2, 4) if tp % d == 0]))]
        if rng.random() < 0.15:
            argv += ["--dcp-size", "2"]
        if rng.random() < 0.15:
            argv += list(dc.DRAFTS[0])
        if rng.random() < 0.3:
            argv += ["--attention-backend", rng.choice(("flashinfer", "fa3", "triton"))]
        if rng.random() < 0.1:
            argv += ["--pp-size", "2"]
        # the Llama-shaped target three times as often: the lines graphfit plans
        out.append((tuple(argv), GPU, rng.choice((*MODELS, "llama", "llama"))))
    return out


def sglang_reason(text: str) -> str:
    """SGLang's sentence without the exception type, and without the values HYV4's echoes
    ("Got architecture=... and enable_prefill_cp=True.", deepseek_v2.py:66-67), which graphfit
    leaves out of its one-line error."""
    if text.startswith(("ValueError: ", "AssertionError: ")):
        text = text.split(": ", 1)[1]
    if text.startswith("--prefill-only-disable-kv-cache "):
        # its sentences go on explaining why (kv_cache_hook.py:878-930): compared up to the
        # first clause, which graphfit's one-line error carries (issue 23 s54c)
        cuts = [text.find(mark) for mark in (": ", " because", " so ")] + [
            text.find(". ") + 1 if ". " in text else -1]
        text = text[:min([cut for cut in cuts if cut > 0], default=len(text))]
    # and the reason of the trtllm_mha-off-SM100 refusal (attention_hook.py:232-236), which
    # graphfit words shorter (graphfit.planner.engines.sglang_prefill_cp_bcg, issue 23 s54g)
    return text.split(" Got architecture=", 1)[0].split(": the SM90/SM120 fmha_v2", 1)[0]


# the live check's reason for a DeepSeek-family line the pasted line and graphfit's file plan
# (graphfit.inputs.sglang_prefill_cp.line, issue 23 s60p): a gap, never a wrong answer
FAMILY_GAP = "the live check does not hand its widths to the plan"


def cp_bcg_line(case: Case) -> bool:
    """A line whose `--attn-cp-size` equals its `--tp-size` (both default 1): where SGLang
    may capture CP's own breakable prefill graphs (layers/cp/bcg/__init__.py:47-52)."""
    argv = case[0]

    def flag(name: str) -> str:
        return argv[argv.index(name) + 1] if name in argv else "1"

    return flag("--attn-cp-size") == flag("--tp-size")


def _runner_refusal(case: Case) -> str | None:
    """SGLang's prefill runner's own CP setup refusing the line (the capture filter, the
    strategy's input type: sglang_prefill_oracle.cp_bcg, issue 23 s54g), which the decode
    runners `dc.sglang_answer` builds never reach."""
    from tests.oracle import sglang_oracle as so
    from tests.oracle import sglang_prefill_oracle as po

    if not cp_bcg_line(case):
        return None
    argv, gpu, model = case
    gb, capability = dc.GPUS[gpu]
    with pc.environment(None):
        found = po.prefill(argv, gb, model_dir(model), capability)
    return found.text if isinstance(found, so.Rejected) else None


def compare(case: Case, cli: bool = False,
            same: Callable[[str, str], bool] = lambda reason, ours: reason in ours
            ) -> tuple[str, list[str]]:
    """("same refusal" | "agree" | "not modelled" | "differs", the differences); `cli`:
    graphfit reads the line with the GPU flag, as its CLI does (dc.graphfit_answer); `same`:
    graphfit's error gives SGLang's reason (issue 23 s66p)."""
    model_dir(case[2])
    sg = dc.sglang_answer(case)
    gf, _ = dc.graphfit_answer(case, cli=cli)
    refused = sg.rejected if sg.rejected is not None else _runner_refusal(case)
    if refused is not None:
        theirs = sglang_reason(refused)
        if gf.rejected is not None and same(theirs, gf.rejected):
            return "same refusal", []
        if gf.rejected is None:
            return "differs", [f"SGLang refuses ({theirs[:160]}); graphfit plans"]
        return "differs", [f"SGLang refuses ({theirs[:160]}); graphfit: {gf.rejected}"]
    if gf.rejected is not None:
        if dc.NOT_MODELLED in gf.rejected:
            return "not modelled", [gf.rejected]
        return "differs", [f"SGLang serves; graphfit refuses: {gf.rejected}"]
    return dc.compare(case)


# --- issue 23 s52c: the live path and config files ------------------------------------------


def live_compare(case: Case, named: bool = False) -> tuple[str, list[str]]:
    """SGLang's resolved ServerArgs record of the line (the object an engine developer hands
    graphfit) through `graphfit.integrations.sglang.from_sglang`, against the pasted line:
    ("sglang refuses" | "agree" | "not modelled" | "differs", the differences). "agree": the
    live plan has SGLang's resolved mem_fraction_static and prefill backend, and the pasted
    line's ladders, components and fraction (the pasted line is compared with SGLang's
    runners by `compare`); "not modelled" only where the pasted line is not modelled too."""
    import graphfit
    from graphfit import ConfigError
    from graphfit.integrations.sglang import from_sglang
    from graphfit.planner.engines.sglang_prefill_plan import prefill_graphs
    from tests.oracle import sglang_oracle as so

    argv, gpu, model = case
    gb, capability = dc.GPUS[gpu]
    with pc.environment(None):
        resolved = so.resolve(argv, gpu_mem_gb=gb, model=model_dir(model),
                              capability=capability)
    if not isinstance(resolved, so.Resolved):
        return "sglang refuses", []
    line, line_prefill = dc.graphfit_answer(case)
    runner = _runner_refusal(case)  # the prefill runner's CP setup (issue 23 s55g)
    try:
        live = graphfit.plan(from_sglang(resolved.record, environ={},
                                         gpu_memory_gb=gpu if named else gb))
    except ConfigError as exc:
        text = str(exc)
        if runner is not None and sglang_reason(runner) in text:
            return "same refusal", []
        # "not modelled" where the line says so, or on CP's breakable prefill graphs (attn_cp
        # == tp): a gap, never a wrong answer (since s55g the live check plans them where the
        # pasted line does; a GPU in GiB, `named` False, leaves trtllm_mha's SM100 check)
        if dc.NOT_MODELLED in text and (cp_bcg_line(case) or FAMILY_GAP in text or (
                line.rejected is not None and dc.NOT_MODELLED in line.rejected)):
            return "not modelled", [text]
        if runner is not None:
            return "differs", [f"SGLang's runner refuses ({runner[:120]}); live: {text}"]
        return "differs", [f"live refuses: {text}; pasted line: {line.rejected}"]
    if runner is not None:
        return "differs", [f"SGLang's runner refuses ({runner[:120]}); the live check plans"]
    if line.plan is None:
        return "differs", [f"live plans; pasted line: {line.rejected}"]
    from sglang.srt.arg_groups.overrides import resolving_view  # on so's path

    view = resolving_view(resolved.record)
    backend = view.cuda_graph_config.prefill.backend
    diffs = []
    if abs(live.config.mem_fraction_static - float(view.mem_fraction_static)) > 1e-9:
        diffs.append(f"fraction {live.config.mem_fraction_static} vs SGLang "
                     f"{view.mem_fraction_static}")
    if prefill_graphs(live.config).backend != str(getattr(backend, "value", backend)):
        diffs.append(f"prefill backend {prefill_graphs(live.config).backend} vs SGLang "
                     f"{backend}")
    if prefill_graphs(live.config).backend != line_prefill:
        diffs.append(f"prefill backend {prefill_graphs(live.config).backend} vs the line's")
    if tuple(live.capture_sizes) != tuple(line.plan.capture_sizes):
        diffs.append(f"ladder {live.capture_sizes} vs the line's {line.plan.capture_sizes}")
    if sorted(live.components) != sorted(line.plan.components):
        diffs.append(f"components {sorted(live.components)} vs {sorted(line.plan.components)}")
    else:
        diffs += [name for name in live.components
                  if live.graph_sizes(name) != line.plan.graph_sizes(name)]
        diffs += [f"{name} buffers" for name in live.components  # CP's inputs too (s55g)
                  if _buffers(live.components[name]) != _buffers(line.plan.components[name])]
    return ("differs", diffs) if diffs else ("agree", [])


def _keys(argv: tuple[str, ...]) -> dict[str, object]:
    """A line's flags as a config file's keys (a flag alone: true; digits, signed too: an
    int)."""
    out: dict[str, object] = {}
    i = 0
    while i < len(argv):
        key = argv[i][2:].replace("-", "_")
        if i + 1 < len(argv) and not argv[i + 1].startswith("--"):
            value = argv[i + 1]
            out[key] = int(value) if value.removeprefix("-").isdigit() else value
            i += 2
        else:
            out[key] = True
            i += 1
    return out


def yaml_case(case: Case, dashes: bool = True) -> Case:
    """The line with its prefill-CP flags moved into an SGLang `--config` YAML file (SGLang
    merges it into the flags, server_args_config_parser.py; graphfit's pasted-line reader
    likewise, graphfit.inputs.sglang_cli.config_file_args). SGLang's merger takes only
    dashed keys (s51f), so they are written with dashes."""
    argv = case[0]
    moved = ("--enable-prefill-cp", "--cp-strategy")
    keys = {k: v for k, v in _keys(argv).items() if f"--{k.replace('_', '-')}" in moved}
    rest: list[str] = []
    i = 0
    while i < len(argv):
        if argv[i] in moved:
            i += 1 if argv[i] == "--enable-prefill-cp" else 2
            continue
        rest.append(argv[i])
        i += 1
    body = "".join(f"{k.replace('_', '-') if dashes else k}: "
                   f"{'true' if v is True else v}\n" for k, v in keys.items())
    path = Path(tempfile.mkdtemp(prefix="graphfit-prefill-cp-yaml-")) / "serve.yaml"
    path.write_text(body)
    return (("--config", str(path), *rest), case[1], case[2])


def file_plan(case: Case) -> tuple[Any, str | None]:
    """graphfit's plan of the line's flags as its own `--config` file (JSON, `engine:
    sglang`, the model in `model_path`, the GPU named by graphfit's flag): (plan, None), or
    (None, graphfit's refusal)."""
    import graphfit
    from graphfit import ConfigError
    from graphfit.cli.options import resolve_values

    argv, gpu, model = case
    path = Path(tempfile.mkdtemp(prefix="graphfit-prefill-cp-file-")) / "serve.json"
    path.write_text(json.dumps({"engine": "sglang", "model_path": model_dir(model),
                                **_keys(argv)}))
    try:
        return graphfit.plan(resolve_values({"gpu_memory_gb": gpu, "config_file": str(path)},
                                            environ={}).config()), None
    except ConfigError as exc:
        return None, str(exc)


def file_compare(case: Case) -> tuple[str, list[str]]:
    """The line's flags as graphfit's own `--config` file (`file_plan`), against SGLang's
    resolution of the line and its prefill runner's CP setup (`_runner_refusal`, issue 23
    s55g): a refusal must carry SGLang's sentence; a served line is planned as the pasted
    line is (`compare` holds that to SGLang's runners: ladders, components, each
    component's sizes and buffers) or refused as not modelled where the pasted line is too,
    or on CP's breakable prefill graphs (a gap: since s55g the file plans them where the
    line does, which test_sglang_prefill_cp_bcg_live_oracle holds)."""
    argv, gpu, model = case
    sg = dc.sglang_answer((argv, gpu, model)) if model_dir(model) else None
    assert sg is not None
    ours, error = file_plan(case)
    refused = sg.rejected if sg.rejected is not None else _runner_refusal(case)
    if refused is not None:
        theirs = sglang_reason(refused)
        if error is not None and theirs in error:
            return "same refusal", []
        return "differs", [f"SGLang refuses ({theirs[:160]}); graphfit: {error or 'plans'}"]
    line, _ = dc.graphfit_answer(case)
    if error is not None:
        if dc.NOT_MODELLED in error and (line.rejected is not None or cp_bcg_line(case)
                                         or FAMILY_GAP in error):
            return "not modelled", [error]  # a gap, never a wrong answer
        return "differs", [f"SGLang serves; the file: {error}; the line: {line.rejected}"]
    if line.plan is None:
        return "differs", [f"the file plans; the line: {line.rejected}"]
    assert ours is not None
    if tuple(ours.capture_sizes) != tuple(line.plan.capture_sizes) or \
            sorted(ours.components) != sorted(line.plan.components):
        return "differs", [f"file {ours.capture_sizes} vs line {line.plan.capture_sizes}"]
    diffs = [f"fraction: file {ours.config.mem_fraction_static}, line "
             f"{line.plan.config.mem_fraction_static}"] if abs(
        ours.config.mem_fraction_static - line.plan.config.mem_fraction_static) > 1e-9 else []
    diffs += [f"{name}: file {ours.graph_sizes(name)} vs line {line.plan.graph_sizes(name)}"
             for name in ours.components if ours.graph_sizes(name) != line.plan.graph_sizes(name)]
    diffs += [f"{name} buffers differ" for name in ours.components
              if _buffers(ours.components[name]) != _buffers(line.plan.components[name])]
    return ("differs", diffs) if diffs else ("agree", [])


def _buffers(component: Any) -> list[tuple[str, str, str, int]]:
    """A component's buffers (name, shape, dtype, rows at the reference capacity), sorted."""
    return sorted((b.name, repr(b.shape), str(b.dtype), b.reference_capacity)
                  for b in component.buffers)
