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
"""

from __future__ import annotations

import re

from graphfit.planner.core.errors import ConfigError, excerpt

INSTANCE = "instance"  # ConnectorType.INSTANCE (connector/__init__.py:19-22)


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
