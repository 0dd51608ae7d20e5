"""The typer + rich front end: `app` and `main` (the `graphfit` console script).

One module per command group (`planning`: plan/check/explain, `engines`: sweep/compare,
`tuning`: optimize/memory), `options` (engine flags -> EngineConfig), `render` (tables),
`reports` and `figures` (--svg/--png with matplotlib, imported only when asked for),
`errors` (one `error:` line, exit 2) and `output` (console and JSON).
"""

from graphfit.cli.app import app, main
from graphfit.cli.errors import fail

__all__ = ["app", "fail", "main"]
