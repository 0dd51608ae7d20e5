"""Error types shared by the planner, the runtime and the CLI.

They live in the planner (the torch-free core) so every layer can raise and catch them
without importing torch.
"""

from __future__ import annotations


class GraphfitError(Exception):
    """Base class: every error graphfit raises on purpose derives from it."""


class ConfigError(GraphfitError, ValueError):
    """An engine config (or a value derived from one) is invalid; the message names the field."""


class BatchError(GraphfitError, ValueError):
    """A batch query is malformed (e.g. a uniform-decode batch whose size is not q * num_reqs)."""


class CapacityError(GraphfitError, ValueError):
    """A batch needs more rows than a persistent buffer holds: raised instead of a short view."""

    def __init__(self, buffer: str, rows: int, capacity: int) -> None:
        self.buffer = buffer
        self.rows = rows
        self.capacity = capacity
        super().__init__(
            f"buffer {buffer!r} holds {capacity} rows but {rows} were requested "
            f"(a slice would silently return a short tensor)"
        )
