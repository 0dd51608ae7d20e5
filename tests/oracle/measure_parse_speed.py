"""What one SGLang line costs the oracle and graphfit, before and after issue 23 s67x.

    PYTHONPATH=. python tests/oracle/measure_parse_speed.py [COUNT] [SEED] [BEFORE_ROOT]

On COUNT lines of the agreement measure's draw (tests/oracle/measure_sglang.py `draw`, seed
SEED), in this process:

* SGLang's side: `prepare_server_args` and the oracle's whole `resolve` with the parser
  cache (tests/oracle/sglang_parser_cache.py) and without it (`uncached`: SGLang builds the
  parser on every line, server_args.py:679-680), CPU ms per line, and how many lines give the
  same outcome both ways (the parse's fields and launch command, or the refusal's stderr);
* graphfit's side: `graphfit plan -- sglang serve ...` of the same line, pasted, with the
  oracle's model directory: how many times config.json is read per line and CPU ms per line.

Then BEFORE_ROOT's graphfit (default /work/main) on the same lines in a child process
(measure_root.print_before_in_child): its config.json reads and CPU per pasted line. Exit 1
when a cached parse differs from a fresh one.
"""

from __future__ import annotations

import builtins
import collections
import contextlib
import io
import random
import sys
import time
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # as a script; imported (the before child) its path stands, so
    # BEFORE_ROOT's graphfit is the one imported, not this tree's behind the `tests` link
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.oracle import measure_root  # binds no graphfit


def _parse(argv: list[str]) -> tuple[Any, ...]:
    import msgspec

    from tests.oracle import sglang_oracle as so
    from tests.oracle import sglang_stubs

    err = io.StringIO()
    with sglang_stubs.fake_cuda(81920.0):
        try:
            with contextlib.redirect_stderr(err):
                record = so.oracle().server_args.prepare_server_args(argv)
        except SystemExit as exc:
            return ("exit", exc.code, err.getvalue())
    fields = {f.name: getattr(record, f.name) for f in msgspec.structs.fields(type(record))}
    return ("record", repr(fields), record._launch_command)


def _cpu_ms(run: Any, items: list[Any]) -> float:
    start = time.process_time()
    for item in items:
        run(item)
    return 1000 * (time.process_time() - start) / max(1, len(items))


def measure(count: int, seed: int) -> dict[str, Any]:
    import graphfit  # first: measure_sglang puts this tree on sys.path (the before child's too)

    print(f"graphfit from {Path(graphfit.__file__).parent}")
    from tests.oracle import measure_sglang, sglang_parser_cache
    from tests.oracle import sglang_compare as sc
    from tests.oracle import sglang_oracle as so

    rng = random.Random(seed)
    drawn = [measure_sglang.draw(rng)[0] for _ in range(count)]
    model = str(so.oracle().model_dir)
    full = [["--model-path", model, *argv] for argv in drawn]
    out: dict[str, Any] = {"lines": count}
    if hasattr(sglang_parser_cache, "uncached"):  # this tree's oracle (the child's too)
        for argv in drawn:  # first imports and caches out of both timings
            so.resolve(argv)
        _parse(full[0])
        with sglang_parser_cache.uncached():
            _parse(full[0])
            fresh = [_parse(argv) for argv in full]
            out["parse_ms_fresh"] = round(_cpu_ms(_parse, full), 2)
            out["resolve_ms_fresh"] = round(_cpu_ms(so.resolve, drawn), 2)
        cached = [_parse(argv) for argv in full]
        out["parse_ms_cached"] = round(_cpu_ms(_parse, full), 2)
        out["resolve_ms_cached"] = round(_cpu_ms(so.resolve, drawn), 2)
        out["agree"] = sum(a == b for a, b in zip(cached, fresh, strict=True))
        out["differ"] = count - out["agree"]
    # every file graphfit reads is opened by reading.read_bytes (`open(path, "rb")`): counted
    # at `open` itself, which modules that bound a reading function by name cannot bypass
    reads: collections.Counter[str] = collections.Counter()
    real = builtins.open

    def counting(file: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(file, (str, Path)):
            reads[Path(file).name] += 1
        return real(file, *args, **kwargs)

    pasted = [("sglang", "serve", *argv) for argv in full]
    sc.pasted_plan(pasted[0], "80")
    builtins.open = counting
    try:
        out["graphfit_ms_per_pasted_line"] = round(
            _cpu_ms(lambda line: sc.pasted_plan(line, "80"), pasted), 2)
    finally:
        builtins.open = real
    out["config_json_reads_per_line"] = round(reads["config.json"] / max(1, count), 2)
    print(out)
    return out


def main(argv: list[str]) -> int:
    return measure_root.main_with_before("measure_parse_speed", measure, argv, 40, "lines")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
