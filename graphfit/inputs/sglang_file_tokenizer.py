"""A config file's `tokenizer_path` on an SGLang plan, checked as a pasted line's.

SGLang merges its `--config` file into the argument list, the line's own flags after it
(utils/server_args_config_parser.py:75-106, so they win), and loads the tokenizer from
`server_args.tokenizer_path` wherever it came from: a connector scheme there fails or loads
as on the command line (graphfit.inputs.sglang_instance.check_tokenizer, s45l's rule:
`instance://` and unknown schemes refused with SGLang's reasons, s3:// / gs:// / az:// /
redis:// / Run:ai / Azure Blob planned, all skipped under --skip-tokenizer-init). The check
needs the file and the pasted line together (a line's --tokenizer-path replaces the file's;
a line's --skip-tokenizer-init skips it), so it runs once both are read (graphfit.cli.
options.resolve_values), on a plan whose engine is SGLang.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs import sglang_processor_path
from graphfit.inputs.sglang_instance import check_tokenizer
from graphfit.inputs.values import normalize_key
from graphfit.planner.core.enums import Engine

KEY = "tokenizer_path"
SKIP = "skip_tokenizer_init"
PROCESSOR_KEYS = ("model_path", "language_model_only", "enable_multimodal", "model_impl")


def check(data: Mapping[Any, Any], engine: object,
          line: Mapping[str, Any] | None) -> None:
    """Refuse the file's tokenizer path as SGLang's tokenizer load fails (module docstring);
    `line`: the pasted line's values (its flags win), if any."""
    if str(getattr(engine, "value", engine)) != Engine.SGLANG.value:
        return
    keys = {normalize_key(k): v for k, v in data.items() if isinstance(k, str)}
    line = line or {}
    if KEY not in keys or KEY in line:  # the line's own path is checked with the line
        return
    skip = line[SKIP] if SKIP in line else keys.get(SKIP)
    # a multimodal model's processor reads it even under --skip-tokenizer-init (graphfit.
    # inputs.sglang_processor_path, issue 23 s47l); the line's values win over the file's
    merged = {key: line[key] if key in line else keys.get(key) for key in PROCESSOR_KEYS}
    sglang_processor_path.check({**merged, KEY: keys[KEY]}, KEY)
    # the key alone names it (the file's name would push SGLang's reason past 200 chars)
    check_tokenizer({KEY: keys[KEY], SKIP: skip}, KEY)


def note(data: Mapping[Any, Any], engine: object, line: Mapping[str, Any] | None
         ) -> list[str]:
    """A hub-id target's processor note (graphfit.inputs.sglang_processor_path.unchecked_note,
    issue 23 s55l) on the file's tokenizer path, as on a pasted line (issue 23 s62c): SGLang
    knows whether it serves a hub id as multimodal only from the config.json it downloads
    (configs/model_config.py:820-828), whose processor reads the path with no connector
    (utils/hf_transformers/processor.py:340). Run after `check` (the text tokenizer's rule
    refuses first); the line's values win over the file's. [] for another engine."""
    if str(getattr(engine, "value", engine)) != Engine.SGLANG.value:
        return []
    keys = {normalize_key(k): v for k, v in data.items() if isinstance(k, str)}
    line = line or {}
    if KEY not in keys or KEY in line:  # the line's own path gets the line's note
        return []
    merged = {key: line[key] if key in line else keys.get(key) for key in PROCESSOR_KEYS}
    return sglang_processor_path.unchecked_note({**merged, KEY: keys[KEY]}, KEY)
