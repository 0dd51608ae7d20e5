"""SGLang 0.5.23's own answer for the draft model's quantization on one pasted line: the
server arguments resolved by SGLang (`_handle_missing_default_values` gives the draft the
target's flag when `--speculative-draft-model-quantization` is absent, serving_hook.py:
676-708), then the draft's `ModelConfig.from_server_args(..., is_draft_model=True)` (its
constructor runs `_verify_quantization`, configs/model_config.py:923-978, 2000-2160), then the
draft model loader's `_get_quantization_config` (model_loader/loader.py:214-270: the config
class built from the draft directory, its GPU and dtype checks).

The loader's model-class lookup is glue (an empty class, as in
sglang_quant_capability_oracle): the config class reads only its mappings. The GPU is the
oracle's fake CUDA device of the given capability.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_stubs


@dataclass(frozen=True)
class Answer:
    """stage: "args" (argument resolution refused), "verify" (the draft ModelConfig refused),
    "loader" (the draft loader refused: config file, GPU or dtype), "started" (the config was
    built and passed both checks) or "none" (the draft has no quantization). method: the
    draft ModelConfig's final quantization. said: SGLang's message."""

    stage: str
    method: str | None = None
    said: str = ""


@cache
def answer(argv: tuple[str, ...], capability: int = 90, target: str | None = None) -> Answer:
    """SGLang's answer for `argv` (a line naming a local draft directory) on a GPU of
    `capability` (90: SM 9.0): the target's ModelConfig and loader first (a stop there is
    stage "target: ..."), then the draft's. `target`: the target model directory (default:
    the oracle's Llama)."""
    resolved = so.resolve(argv, capability=divmod(capability, 10), model=target)
    if isinstance(resolved, so.Rejected):
        return Answer("args", said=resolved.text[:300])
    record = resolved.record
    stop = _load(record, None, capability)
    if stop.stage not in ("started", "none"):
        return Answer(f"target {stop.stage}", stop.method, stop.said)
    from sglang.srt.arg_groups.overrides import resolving_view

    # the resolved draft path: the line's, or the one SGLang's handlers fill in from the
    # target (speculative_hook.py:720-745, 1138-1148)
    return _load(record, str(resolving_view(record).speculative_draft_model_path), capability)


def _load(record: object, draft: str | None, capability: int) -> Answer:
    """SGLang's ModelConfig of the target (`draft` None) or of the draft directory, then its
    loader's `_get_quantization_config`."""
    with sglang_stubs.stubbed(), sglang_stubs.fake_cuda(80 * 1024,
                                                        capability=divmod(capability, 10)):
        from sglang.srt.configs.load_config import LoadConfig
        from sglang.srt.configs.model_config import ModelConfig
        from sglang.srt.model_loader import loader

        try:
            if draft is None:
                config = ModelConfig.from_server_args(record)
            else:
                config = ModelConfig.from_server_args(record, model_path=draft,
                                                      is_draft_model=True)
        except (ValueError, TypeError, AttributeError) as exc:
            return Answer("verify", said=str(exc)[:300])
        if config.quantization is None:
            return Answer("none")
        method = str(config.quantization)
        saved = loader.get_model_architecture
        loader.get_model_architecture = lambda model_config: (type("Glue", (), {}), "Glue")
        from sglang.srt.runtime_context import get_parallel

        try:
            # s60d: this process's TP rank, which quark_int4fp8_moe's config class names in
            # its progress bar only (quark_int4fp8_moe.py:75-84): rank 0
            with get_parallel().override(tp_rank=0):
                loader._get_quantization_config(config, LoadConfig())
        except Exception as exc:  # any stop of the loader: the worker does not start
            return Answer("loader", method, f"{type(exc).__name__}: {exc}"[:300])
        finally:
            loader.get_model_architecture = saved
    return Answer("started", method)


@cache
def filled_target(architecture: str, quantization: str | None = None) -> str:
    """A target directory of `architecture` (the Qwen3-MoE shapes the oracle's stubs write)
    whose line names no draft path: SGLang fills the draft in from it for the NEXTN-shipping
    classes (speculative_hook.py:1120-1148). `quantization`: a ModelOpt quant_algo for its
    quantization_config, None for none."""
    import json
    import tempfile
    from pathlib import Path

    so.oracle()  # the stubs first
    root = Path(tempfile.mkdtemp(prefix="graphfit-draft-fill-"))
    directory = sglang_stubs.write_moe_model_dir(root / "model")
    data = json.loads((directory / "config.json").read_text())
    data["architectures"] = [architecture]
    if quantization is not None:
        data["quantization_config"] = {"quant_method": "modelopt", "quant_algo": quantization}
    (directory / "config.json").write_text(json.dumps(data))
    return str(directory)


@cache
def planned(argv: tuple[str, ...], gpu: str, target: str | None = None) -> tuple[int, str]:
    """graphfit's (exit code, last error line) on `python -m sglang.launch_server
    --model-path TARGET ARGV` (the oracle's target directory) pasted into
    `graphfit plan --gpu-memory-gb GPU`."""
    from tests.oracle import sglang_compare as sc

    code, said, _ = sc.pasted_plan(("python", "-m", "sglang.launch_server", "--model-path",
                                    target or str(so.oracle().model_dir), *argv), gpu)
    return code, said


# SGLang stops that depend on this process, not on the line: an optional package
# (humming-kernels; graphfit assumes it installed) and a parallel name the oracle does not
# state (the TP rank quark_int4fp8_moe's config class reads is stated since s60d, `_load`)
_ENVIRONMENT = ("humming-kernels", "has not been written in this process")


def compare(argv: tuple[str, ...], gpu: str, target: str | None = None
            ) -> tuple[str, str, bool | None]:
    """(SGLang's outcome, graphfit's, whether they agree; None: not comparable). Outcomes:
    "starts" or "refused: <message>"."""
    from graphfit.inputs.gpus import gpu_capability

    capability = gpu_capability(gpu)
    assert capability is not None, gpu
    theirs = answer(argv, capability, target)
    if any(mark in theirs.said for mark in _ENVIRONMENT):
        return f"{theirs.stage}: {theirs.said}", "", None
    code, error = planned(argv, gpu, target)
    ours = "starts" if code == 0 else f"refused: {error}"
    sglang_starts = theirs.stage in ("started", "none")
    outcome = "starts" if sglang_starts else f"refused: {theirs.stage}: {theirs.said}"
    return outcome, ours, sglang_starts == (code == 0)


def live(argv: tuple[str, ...], gpu: str, target: str | None = None) -> str:
    """graphfit's live check (graphfit.integrations.sglang.check_server_args, the path
    `from_sglang` takes) on SGLang's own resolved ServerArgs for `argv`, the GPU named:
    "starts" or "refused: <message>"; "args" where SGLang's resolution refuses the line."""
    from graphfit.inputs.gpus import gpu_capability
    from graphfit.integrations import sglang as gs
    from graphfit.planner.core.errors import GraphfitError

    capability = gpu_capability(gpu)
    assert capability is not None, gpu
    resolved = so.resolve(argv, capability=divmod(capability, 10), model=target)
    if isinstance(resolved, so.Rejected):
        return "args"
    try:
        # the ServerArgs carry no request count before the scheduler sizes it
        gs.check_server_args(resolved.record, gpu_memory_gb=gpu, max_num_seqs=32)
    except GraphfitError as exc:
        return f"refused: {exc}"
    return "starts"


@cache
def dspark_target(bundled: bool, subfolder: bool) -> str:
    """The oracle's Llama target directory, its config carrying the prefixed dspark_* keys
    (`bundled`) and / or a `dspark/` folder holding the oracle's working DSPARK draft config
    (`subfolder`; tests.oracle.sglang_dspark_compare.draft_dir)."""
    import json
    import shutil
    import tempfile
    from pathlib import Path

    from tests.oracle import sglang_dspark_compare as dc

    root = Path(tempfile.mkdtemp(prefix="graphfit-dspark-fill-")) / "target"
    root.mkdir()
    data = json.loads((so.oracle().model_dir / "config.json").read_text())
    if bundled:
        data.update(dspark_block_size=4, dspark_markov_rank=1, dspark_noise_token_id=0)
    (root / "config.json").write_text(json.dumps(data))
    if subfolder:
        (root / "dspark").mkdir()
        shutil.copy(Path(dc.draft_dir(None, None, None)) / "config.json",
                    root / "dspark" / "config.json")
    return str(root)


def filled_path(argv: tuple[str, ...], target: str) -> tuple[str | None, str | None] | None:
    """(SGLang's resolved draft path, graphfit's `sglang_draft_path.draft_path`) for `argv`
    on `target`; None where SGLang's resolution refuses the line."""
    from sglang.srt.arg_groups.overrides import resolving_view

    from graphfit.inputs.sglang_draft_path import draft_path

    resolved = so.resolve(argv, model=target)
    if isinstance(resolved, so.Rejected):
        return None
    theirs = resolving_view(resolved.record).speculative_draft_model_path
    flags = dict(zip(argv[::2], argv[1::2], strict=False))
    values = {"model_path": target,
              "speculative_algorithm": flags.get("--speculative-algorithm"),
              "speculative_draft_model_path": flags.get("--speculative-draft-model-path")}
    return (None if theirs is None else str(theirs)), draft_path(values)
