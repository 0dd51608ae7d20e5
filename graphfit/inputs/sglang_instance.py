"""An SGLang model path on the `instance://` connector: a line SGLang 0.5.23 cannot resolve.

Some of SGLang's hooks skip their model-dependent defaults for such a path -- Inkling's FULL
prefill graphs (`apply_inkling_prefill_cuda_graph_default`, arg_groups/cuda_graph_hook.py:
357-362), MuseGlimmer's prefill max (:378-382), and checks in parallel_hook.py:103, 220,
moe_hook.py:714, 823 and mega_moe_hook.py:84 -- but the pipeline reads the model's
ModelConfig regardless: `handle_attention_backend_compatibility` builds it for every line
(attention_hook.py:110-113, run at arg_groups/pipeline.py:242; only a "none" / "dummy" path
returns before, :105-109), as do the memory hook (memory_hook.py:235, 282) and the
cuda-graph compatibility rules (cuda_graph_hook.py:188). ModelConfig pulls a remote path's
config files through `create_remote_connector(model_path)` with no device
(configs/model_config.py:2261-2266, connector/__init__.py:36-43), and
`RemoteInstanceConnector.__init__` reads `device.type` of that None
(connector/remote_instance.py:18-21): an AttributeError ends every such line's resolution.
graphfit refuses the path with that reason on every entry (a pasted line, its own
`--model-path`, a config file's `model_path`), rather than planning it as a model it cannot
read -- which took Inkling's FULL prefill graphs that the hook would have skipped.

The draft's path (`--speculative-draft-model-path`, any algorithm or none) takes the same
pull: `handle_speculative_decoding` (pipeline.py:306) reads its config with `get_config`
(speculative_hook.py:90-95), which calls `create_remote_connector(model)` with no device for
a path with a scheme (utils/hf_transformers/config.py:366-371). So for the target and the
draft alike (`connectors`):
- `instance://`: the AttributeError above (remote_instance.py:19);
- `s3://`, `gs://`, `az://` (any case, utils/runai_utils.py:14, 48-50): downloaded first by
  Run:ai Model Streamer into SGLANG_CACHE_DIR (arg_groups/model_path_hook.py:25-41,
  runai_utils.py:98-132); graphfit reads no bucket: refused as not modelled;
- `redis://`: `RedisConnector` pulls the config from the Redis server (connector/__init__.py:
  38-39, connector/redis.py:17-25, 75-80): not modelled;
- `https://<account>.blob.core.windows.net/...`: the Azure Blob connector pulls it
  (connector/__init__.py:26-34, 44-49): not modelled;
- any other scheme (`http://`, `hf://`, ...): `ValueError("Invalid connector type: ...")`
  (connector/__init__.py:51), refused with that reason.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from graphfit.planner.core.errors import ConfigError, excerpt

INSTANCE = "instance"  # ConnectorType.INSTANCE (connector/__init__.py:19-22)
RUNAI = ("s3://", "gs://", "az://")  # SUPPORTED_SCHEMES (utils/runai_utils.py:14)
DRAFT_ORIGIN = "--speculative-draft-model-path"


def connector(path: object) -> str:
    """`parse_connector_type` (utils/common.py:3742-3752): the scheme before `://`, "" when
    the path has none."""
    found = re.match(r"(.+)://(.*)", path) if isinstance(path, str) else None
    return found.group(1) if found is not None else ""


def check(origin: str, path: object) -> None:
    """Refuse an `instance://` model path (the module docstring) with SGLang's reason."""
    if connector(path) == INSTANCE:
        raise ConfigError(
            f"{origin} {excerpt(str(path), 32)}: SGLang 0.5.23 fails resolving an instance:// "
            f"path: its config pull has no device (AttributeError, connector/"
            f"remote_instance.py:19)")


def _azure_blob(path: str) -> bool:
    """`_is_azure_blob_url` (connector/__init__.py:26-34) past the Run:ai schemes."""
    return connector(path) == "https" and ".blob.core.windows.net" in path


def check_connector(origin: str, path: object) -> None:
    """Refuse a target or draft path with a connector scheme (the module docstring): with
    SGLang's reason where its resolution fails, as not modelled where SGLang pulls the
    config from a store graphfit does not read."""
    check(origin, path)
    scheme = connector(path)
    if not scheme or not isinstance(path, str):
        return
    shown = f"{origin} {excerpt(path, 32)}"
    if path.lower().startswith(RUNAI):
        raise ConfigError(f"{shown}: not modelled: SGLang 0.5.23 downloads its config from "
                          f"object storage (Run:ai streamer, arg_groups/model_path_hook.py:"
                          f"25-41); pass a local copy")
    if scheme == "redis":
        raise ConfigError(f"{shown}: not modelled: SGLang 0.5.23 pulls its config from the "
                          f"Redis server (connector/redis.py:17-25, 75-80); pass a local copy")
    if _azure_blob(path):
        raise ConfigError(f"{shown}: not modelled: SGLang 0.5.23 pulls its config from Azure "
                          f"Blob Storage (connector/__init__.py:44-49); pass a local copy")
    raise ConfigError(f"{shown}: SGLang 0.5.23 fails: Invalid connector type {excerpt(scheme, 16)}"
                      f" (ValueError, connector/__init__.py:51)")


def check_tokenizer(values: Mapping[str, Any], origin: str = "--tokenizer-path") -> None:
    """A `--tokenizer-path` with a connector scheme, as SGLang 0.5.23 treats it (issue 23
    s45l). Resolution touches it only for the Run:ai schemes, downloading it beside the model
    (arg_groups/model_path_hook.py:25-41); an unset one becomes the model path
    (serving_hook.py:636-641), checked as the target. The tokenizer is then loaded by the
    tokenizer manager, the scheduler, each TP worker and the detokenizer unless
    --skip-tokenizer-init (managers/tokenizer_manager.py:638-648, scheduler.py:894-918,
    tp_worker.py:325-350, detokenizer_manager.py:137-148), through `get_tokenizer`, which
    pulls any `scheme://` path with `create_remote_connector(path)` and no device
    (utils/hf_transformers/tokenizer.py:162-170). So:
    - `instance://` fails there (RemoteInstanceConnector reads `device.type` of None,
      connector/remote_instance.py:19) and a scheme create_remote_connector does not know
      fails with "Invalid connector type" (connector/__init__.py:51): refused with those
      reasons;
    - `s3://` / `gs://` / `az://`, `redis://` and an Azure Blob URL load (downloaded or
      pulled): graphfit reads nothing from a tokenizer, so the line is planned.
    A tiktoken `.json` path never reaches the connector (tokenizer.py:481-484): not checked."""
    path = values.get("tokenizer_path")
    if (not isinstance(path, str) or values.get("skip_tokenizer_init") is True
            or path.endswith(".json")):
        return
    scheme = connector(path)
    if not scheme or path.lower().startswith(RUNAI) or scheme == "redis" or _azure_blob(path):
        return
    shown = f"{origin} {excerpt(path, 32)}"
    if scheme == INSTANCE:
        raise ConfigError(f"{shown}: SGLang 0.5.23 fails loading its tokenizer: the pull has "
                          f"no device (AttributeError, hf_transformers/tokenizer.py:164-170, "
                          f"connector/remote_instance.py:19)")
    raise ConfigError(f"{shown}: SGLang 0.5.23 fails loading its tokenizer: Invalid connector "
                      f"type {excerpt(scheme, 16)} (ValueError, connector/__init__.py:51)")


def check_line(values: Mapping[str, Any], target: str = "--model-path",
               draft: str = DRAFT_ORIGIN) -> None:
    """A line's target, draft and tokenizer paths (`check_connector`, `check_tokenizer`)."""
    check_connector(target, values.get("model_path"))
    check_connector(draft, values.get("speculative_draft_model_path"))
    check_tokenizer(values, "--tokenizer-path" if target == "--model-path"
                    else "server_args.tokenizer_path")
