"""A pasted NGRAM line's topk: SGLang's, not the line's `--speculative-eagle-topk`.

Why: `_handle_ngram` always writes `speculative_eagle_topk` from
`--speculative-ngram-max-bfs-breadth` (arg_groups/speculative_hook.py:1309-1313; default 10,
arg_groups/fields/spec.py:256-259), whatever `--speculative-eagle-topk` says, and fills
the steps with draft tokens // that topk (:1322-1328). graphfit's `speculative_eagle_topk` is
NGRAM's BFS breadth (graphfit.planner.config), so a pasted NGRAM line sets it from the
breadth; the line's `--speculative-eagle-topk` is dropped with a note where it differs.
Other algorithms keep the line's topk (the breadth is read only by NGRAM).

A `--config` file with SGLang's keys (`speculative_algorithm: NGRAM`) gets the same rule
(`file`): its `speculative_ngram_max_bfs_breadth` (default 10) is the topk, over its
`speculative_eagle_topk`. graphfit's own `--speculative-eagle-topk` flag stays NGRAM's
breadth (it is graphfit's topk field, graphfit.planner.config), and as a flag it wins over
the file.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs.settings import COMMAND_LINE, FILE, Setting
from graphfit.inputs.values import normalize_key
from graphfit.planner.core.errors import ConfigError, excerpt

NGRAM = "NGRAM"
BFS_BREADTH_DEFAULT = 10  # arg_groups/fields/spec.py:256-259
FIELD = "speculative_eagle_topk"
FLAG = "--speculative-ngram-max-bfs-breadth"


def breadth(values: Mapping[str, Any]) -> int:
    """The line's max BFS breadth (SGLang's default where absent); ConfigError below 1 (a
    breadth 0 makes SGLang divide the draft tokens by 0, speculative_hook.py:1322-1328)."""
    value = values.get("speculative_ngram_max_bfs_breadth")
    if value is None:
        return BFS_BREADTH_DEFAULT
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"{FLAG}: must be an int >= 1 (SGLang's NGRAM topk), got "
                          f"{excerpt(value)}")
    return value


def line(values: Mapping[str, Any], settings: list[Setting], notes: list[str],
         layer: int = COMMAND_LINE, prefix: str = "") -> list[Setting]:
    """`settings` with an NGRAM line's topk set to its BFS breadth (module docstring); a note
    in `notes` where the line's `--speculative-eagle-topk` differs; other lines unchanged.
    `layer` / `prefix`: the layer and origin prefix of a config file's keys (`file`)."""
    if str(values.get("speculative_algorithm") or "").upper() != NGRAM:
        return settings
    topk = breadth(values)
    given = values.get(FIELD)
    if given is not None and given != topk:
        notes.append(f"{prefix}--speculative-eagle-topk {given}: SGLang's NGRAM uses its BFS "
                     f"breadth {topk} as topk ({FLAG}, arg_groups/speculative_hook.py:"
                     f"1309-1313)")
    origin = (f"{prefix}{FLAG} (NGRAM's topk)" if "speculative_ngram_max_bfs_breadth" in values
              else f"{prefix}SGLang's NGRAM topk: the BFS breadth default {topk}")
    return [s for s in settings if s.field != FIELD] + [Setting(FIELD, topk, origin, layer)]


def file(data: Mapping[Any, Any], settings: list[Setting], notes: list[str], name: str
         ) -> list[Setting]:
    """A config file's settings with `line`'s rule applied to its SGLang keys (dashes or
    underscores; module docstring); `name` prefixes the origins."""
    values = {normalize_key(k): v for k, v in data.items() if isinstance(k, str)}
    return line(values, settings, notes, FILE, f"{name}: ")
