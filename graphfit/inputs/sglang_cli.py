"""`python -m sglang.launch_server [flags]` and `sglang serve [MODEL] [flags]` as SGLang 0.5.23
reads them (facts, re-implemented):

* `sglang serve`: `--model-type X` / `--model-type=X` is taken out (only the LLM server,
  `auto` or `llm`, is modelled); a leading positional becomes `--model-path`; a model path is
  then required (cli/serve.py:32-66, cli/utils.py:136-168).
* `prepare_server_args` (srt/server_args.py:668): `--config FILE` (YAML; the separate token)
  becomes flags placed before the whole command line, so the command line wins; YAML keys are
  used verbatim as `--key` (an underscore key is an unknown flag, issue 23 s51f; a key that
  is not a string crashes the merger's `key.replace`); `key: true` of a store_true
  flag is the bare flag, other booleans are `--key true/false`, lists are spread, mappings
  become JSON; keys of flags the merger does not support are refused
  (srt/utils/server_args_config_parser.py).
* then plain argparse (prefix abbreviations on, no underscore spellings), from the snapshot.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from graphfit.inputs import (
    flagtable,
    sglang_a2a,
    sglang_beam_build,
    sglang_chunk_off_model,
    sglang_context_read,
    sglang_decision_heads,
    sglang_draft,
    sglang_draft_a2a,
    sglang_draft_load,
    sglang_draft_quant,
    sglang_draft_shape,
    sglang_dsa_dcp_hicache,
    sglang_dspark,
    sglang_dspark_mask,
    sglang_dsv4,
    sglang_hisparse_class,
    sglang_inkling_draft,
    sglang_instance,
    sglang_iquest_mtp,
    sglang_line_auto_dtype,
    sglang_lora,
    sglang_mamba_flags,
    sglang_minimax_kv,
    sglang_minimax_target,
    sglang_model_impl,
    sglang_mtp_backend,
    sglang_ngram,
    sglang_prefill_cp,
    sglang_prefill_cp_bcg,
    sglang_prefill_cp_family,
    sglang_processor_path,
    sglang_qwen_moe_experts,
    sglang_rules,
    sglang_runner_backends,
    sglang_server_serving,
    sglang_spec_dp,
    sglang_unified_backends,
    sglang_unified_switches,
    sglang_uno,
    sglang_uno_moe,
)
from graphfit.inputs import sglang as sglang_args
from graphfit.inputs.flagtable import LineReader, Parsed, Refused
from graphfit.inputs.reading import load_yaml
from graphfit.inputs.settings import Setting
from graphfit.planner.core.enums import Engine
from graphfit.planner.core.errors import brief


def _model_type(argv: list[str]) -> list[str]:
    backend, out, i = "auto", [], 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--model-type":
            if i + 1 >= len(argv):
                raise Refused("Error: --model-type requires a value.")
            backend, i = argv[i + 1], i + 2
            continue
        if arg.startswith("--model-type="):
            backend = arg.split("=", 1)[1]
        else:
            out.append(arg)
        i += 1
    if not backend:
        raise Refused("Error: --model-type requires a non-empty value.")
    if backend not in ("auto", "llm"):
        raise Refused(f"--model-type {backend}: graphfit models SGLang's LLM server only")
    return out


def _model_path(argv: Sequence[str]) -> str | None:
    for i, arg in enumerate(argv):
        if arg in ("--model-path", "--model"):
            if i + 1 < len(argv):
                return argv[i + 1]
        elif arg.startswith(("--model-path=", "--model=")):
            return arg.split("=", 1)[1]
    return None


def serve_argv(argv: Sequence[str]) -> list[str]:
    """`sglang serve ARGS` -> the argv prepare_server_args receives."""
    args = _model_type(list(argv))
    if args and not args[0].startswith("-"):
        args = ["--model-path", args[0], *args[1:]]
    if _model_path(args) is None:
        raise Refused("Error: --model-path is required. Please provide the path to the model.")
    return args


def config_file_args(path: str, table: flagtable.Table) -> list[str]:
    """A `--config` YAML as the flags SGLang's ConfigArgumentMerger inserts."""
    merger = table.data["config_file"]
    store_true, unsupported = set(merger["store_true"]), dict(merger["unsupported"])
    file = Path(path)
    if file.suffix.lower() not in (".yaml", ".yml"):
        raise Refused(f"Config file must be YAML format, got: {brief(file.suffix)}")
    if not file.exists():
        raise Refused(f"Config file not found: {brief(path)}")
    data = load_yaml(file, "--config")  # bounded and strict (graphfit.inputs.reading)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise Refused("Config file must contain a dictionary at root level")
    out: list[str] = []
    for key, value in data.items():
        if not isinstance(key, str):  # the merger's `key.replace` fails on it (:169)
            raise Refused(f"AttributeError: {type(key).__name__!r} object has no attribute "
                          "'replace'")
        norm = key.replace("-", "_")  # its store_true / unsupported checks' spelling
        if norm in unsupported:  # (:170-173), the action's class named as SGLang names it
            raise Refused(f"Unsupported config option {brief(norm)!r} with action "
                          f"{unsupported[norm]!r}")
        if isinstance(value, bool):
            if norm in store_true:
                if value:
                    out.append(f"--{key}")
            else:
                out += [f"--{key}", str(value).lower()]
        elif isinstance(value, list):
            if value:
                out += [f"--{key}", *(str(v) for v in value)]
        elif isinstance(value, dict):
            out += [f"--{key}", json.dumps(value)]
        else:
            out += [f"--{key}", str(value)]
    return out


def _with_config(argv: list[str], table: flagtable.Table) -> list[str]:
    indices = [i for i, a in enumerate(argv) if a == "--config"]
    if not indices:
        return argv
    if len(indices) > 1:
        raise Refused("Multiple config files specified! Only one allowed.")
    index = indices[0]
    if index == len(argv) - 1:
        raise Refused("No config file specified after --config flag!")
    return config_file_args(argv[index + 1], table) + argv[:index] + argv[index + 2:]


@cache
def _parser() -> flagtable.Parser:
    """SGLang's server parser, once per process (the --lora-paths action checking its items as
    SGLang's LoRAPathAction does, arg_groups/argparse_actions.py:8-25)."""
    table = flagtable.load("sglang")
    parser = flagtable.Parser(prog=table.prog("server"))
    # the --lora-paths action's JSON items, checked as argparse meets the flag (s67l, s68l)
    flagtable.add_actions(parser, table, "server", {"lora_paths": sglang_lora.line_paths})
    return parser


def parse(argv: Sequence[str], entry: str) -> tuple[Parsed, str, list[str]]:
    """(what SGLang's parser read, the model path, notes) for launch_server's argv (entry
    "launch_server") or the argv after `sglang serve` (entry "serve")."""
    table = flagtable.load("sglang")
    args = serve_argv(argv) if entry == "serve" else list(argv)
    args = _with_config(args, table)
    parsed = flagtable.parse(_parser(), args)
    sglang_dspark.fill(parsed.values)  # the draft SGLang fills in from the target (s51d)
    model: Any = parsed.values.get("model_path")
    return parsed, str(model), []


def finish(values: Mapping[str, Any], settings: list[Setting]
           ) -> tuple[list[Setting], list[str]]:
    """SGLang's own rules across keys: the deprecated --dp-size N --enable-dp-attention is
    --attn-dp-size N; a disaggregation role turns graphs off (graphfit.inputs.sglang_rules).
    The draft model's config.json (DFLASH block / Domino, FROZEN_KV_MTP width, Gemma 4
    promotion: graphfit.inputs.sglang_draft) and --enable-multimodal / --model-impl
    (graphfit.inputs.sglang_model_impl) are read here too.
    (max_running_requests left open is the engine model's to imply.)"""
    # a multimodal model's processor reads --tokenizer-path with no connector, even under
    # --skip-tokenizer-init (graphfit.inputs.sglang_processor_path, issue 23 s47l)
    sglang_processor_path.check(values)
    sglang_instance.check_line(values)  # target / draft connector paths (instance://, s3://...)
    # a hub-id model: the processor's rule said, not checked (issue 23 s55l)
    processor_notes = sglang_processor_path.unchecked_note(values)
    prefill_cp_notes = sglang_prefill_cp.line(values, bcg=True, family=True)  # s51c, s60p
    settings = [*settings, *sglang_prefill_cp_bcg.settings(values)]  # its strategy (s54g)
    family = sglang_prefill_cp.family(values)  # DeepSeek-family widths (s60p)
    settings += family
    roles, role_notes = sglang_rules.role_settings(values)
    notes = list(role_notes) + prefill_cp_notes + processor_notes
    sglang_minimax_target.hook_line(values)  # MiniMax-M3 NVFP4's hook, before drafts (s53d)
    sglang_draft_load.check(values)  # a draft config.json SGLang cannot load (s64c)
    settings = sglang_args.dflash_line(values, settings, notes)
    settings = sglang_dspark.line(values, settings)
    notes += sglang_dspark_mask.unchecked_note(values)  # a hub-id target: said, not checked
    settings = sglang_ngram.line(values, settings, notes)  # NGRAM's topk: its BFS breadth
    # attention DP: the LM-head flag (on the widths the family override settled, s68p),
    # DSPARK's draft kind
    sglang_spec_dp.line(sglang_prefill_cp_family.settled(values, family))
    # a MiniMax-M3 target SGLang cannot build (what an AMD GPU changes: at settle, s52e)
    sglang_minimax_target.line(values, gpu_later=True)
    sglang_beam_build.line(values)  # Beam's class refusals (dense TP 1, EPLB, LoRA; s69n)
    sglang_qwen_moe_experts.line(values)  # Qwen MoE: TP above the expert count (s69n)
    settings = sglang_uno.line(values, settings)  # UNO's checks on flags the plan lacks
    notes += sglang_uno_moe.line(values)  # UNO's adapter on a MoE model's experts
    frozen, frozen_notes = sglang_draft.frozen_draft_settings(values)  # Gemma 4 drafts
    settings, notes = settings + frozen, notes + frozen_notes
    # an IQuest Q1 target's MTP draft: argument resolution, before the draft's buffers
    iquest, iquest_notes = sglang_iquest_mtp.line(values)
    settings, notes = settings + iquest, notes + iquest_notes
    shape, shape_notes = sglang_draft_shape.settings(values)  # the draft's vocab / dtype
    settings, notes = settings + shape, notes + shape_notes
    settings += sglang_inkling_draft.settings(values)  # an Inkling draft's conv state (s47m)
    settings += sglang_minimax_kv.settings(values)  # MiniMax-M3's sparse KV pool (s50p)
    settings = settings + sglang_draft_quant.settings(values)  # the draft's quantization
    notes += sglang_draft_quant.unchecked_note(values)  # a hub-id draft's file search (s63c)
    settings += sglang_draft_a2a.settings(values)  # a MoE draft's class (s54e)
    notes += sglang_model_impl.multimodal_switches(values)
    notes += sglang_mamba_flags.line(values)  # mamba_hook.py's checks across flags
    a2a, a2a_notes = sglang_a2a.graphs_off(values)
    a2a += sglang_mtp_backend.line_settings(values)  # multi-layer EAGLE's draft backend
    a2a += sglang_runner_backends.line_settings(values)  # the runners' seq_lens fills
    a2a += sglang_unified_backends.line_settings(values)  # unified memory's backend checks
    a2a += sglang_unified_switches.line(values)  # its cache / DCP switches (s41u)
    a2a += sglang_mamba_flags.attention_flag(values)  # no_buffer's trtllm_mha check
    a2a += sglang_dsv4.dp_replicas(values)  # replicas for DeepSeek-V4's decode extra slots
    a2a += sglang_line_auto_dtype.line(values)  # --dtype auto over a file's dtype (s46f)
    a2a += sglang_server_serving.settings(values)  # check_server_args' serving flags (s68b)
    a2a += sglang_hisparse_class.settings(values)  # HiSparse's model-class assert (s68b)
    sglang_dsa_dcp_hicache.check(values)  # HiCache under DSA DCP (s69r)
    a2a += sglang_chunk_off_model.settings(values)  # model hooks' chunking off (s69a)
    sglang_decision_heads.check(values)  # Clef / Kev heads' TP / PP, decision files (s70a)
    a2a += sglang_context_read.settings(values)  # Kimi-K3's known context length (s70l)
    return (settings + sglang_args.deprecated_dp_attention(values) + roles + a2a,
            notes + a2a_notes)


def draft_model(values: Mapping[str, Any]) -> str | None:
    model = values.get("speculative_draft_model_path")
    return model if isinstance(model, str) else None


def label(entry: str) -> str:
    shown = "sglang serve" if entry == "serve" else "sglang.launch_server"
    return f"SGLang {flagtable.load('sglang').version} ({shown})"


READER = LineReader(Engine.SGLANG, parse, sglang_args.LINE_KEYS,
                    frozenset({"model_path", "speculative_draft_model_path",
                               "enable_multimodal", "model_impl",
                               "uno_lora_path",  # read by graphfit.inputs.sglang_uno
                               # the vision tower's: read by `plan --vit-images`
                               # (graphfit.cli.vit_plan); without ViT graphs
                               # (SGLANG_VIT_ENABLE_CUDA_GRAPH) they shape no graph
                               "mm_attention_backend", "mm_enable_dp_encoder",
                               # applied to the target's and the draft's config.json where
                               # graphfit reads them (graphfit.inputs.target_overrides)
                               "json_model_override_args",
                               # read by graphfit.inputs.sglang_draft_shape (a local map's
                               # length, graphfit.inputs.sglang_token_map)
                               "speculative_token_map",
                               # read by graphfit.inputs.sglang_draft_quant
                               "speculative_draft_model_quantization"}),
                    label, finish, draft_model)
