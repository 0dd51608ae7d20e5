"""Commands about one config: `plan`, `check`, `explain`. Exit 0 ok, 1 violations, 2 bad input.

`plan` and `check` open with the verdict on the ENGINE's own sizing (`Plan.verify_engine`:
is this config safe on the engine as it is?), then graphfit's plan or the audit.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import typer

from graphfit.cli.errors import EXIT_VIOLATIONS, handled
from graphfit.cli.options import config_options, integer
from graphfit.cli.output import JsonFlag, console, emit_json
from graphfit.cli.render import (
    eager_line,
    engine_label,
    engine_verdict,
    explain_rows,
    explain_table,
    print_plan,
    print_verdict,
)
from graphfit.cli.reports import PngOpt, SvgOpt, draw, write_report
from graphfit.cli.vit_plan import (
    VitImagesOpt,
    VitMaxImagesOpt,
    print_vit,
    vit_component,
    vit_config,
    vit_document,
)
from graphfit.planner.config import EngineConfig
from graphfit.planner.core.enums import Unit
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.verify import Verification
from graphfit.planner.document import plan_document, verification_document
from graphfit.planner.plan import Plan, plan


def parse_capacity(text: str) -> tuple[str, str]:
    """'drafter.positions=132' or 'drafter.positions=max(S*q, C)' -> (buffer, formula): the
    formula grammar of `sweep --capacity` (graphfit.planner.analysis.capexpr)."""
    from graphfit.planner.analysis.capexpr import parse_assignment

    key, formula = parse_assignment(text)
    return key, formula


def capacities(result: Plan, given: list[str] | None) -> dict[str, int]:
    """Rows per buffer for this plan from `--capacity` assignments (ints or formulas)."""
    from graphfit.planner.analysis.capexpr import capacities_for

    for text in given or []:
        check_buffer_name(result, text.partition("=")[0].strip())
    formulas = dict(parse_capacity(c) for c in given or [])
    return capacities_for(result, formulas)


def check_buffer_name(result: Plan, key: str) -> None:
    """A `--capacity` buffer this plan does not have: the closest name first ("did you mean
    target.positions?"), then what was typed, cut; a bare buffer name gets its component."""
    import difflib

    from graphfit.planner.core.errors import brief

    keys = [f"{comp}.{buf.name}" for comp, c in result.components.items() for buf in c.buffers]
    keys += [b.key for k in result.keyed.values() for b in k.buffers]
    if not key or key in keys:
        return
    if "." not in key:
        owners = [k for k in keys if k.endswith(f".{key}")]
        if owners:
            raise ConfigError(f"capacity: use {' or '.join(owners[:3])}=FORMULA: a buffer is "
                              f"named with its component ({brief(key, 40)} alone is not)")
        return  # parse_capacity names the form
    close = difflib.get_close_matches(key, keys, n=1, cutoff=0.6)
    if close:
        raise ConfigError(f"capacity: did you mean {close[0]}? {brief(key, 40)} is not a "
                          "buffer of this plan (graphfit plan lists them)")
    raise ConfigError(f"capacity: {brief(key, 40)} is not a buffer of this plan (graphfit "
                      f"plan lists them: {', '.join(keys[:3])}, ...)")


def _engine_document(result: Plan, verification: Any) -> dict[str, Any]:
    return {"label": engine_label(result), **verification_document(verification)}


def plan_json(result: Plan, verification: Verification | None = None,
              engine: Verification | None = None, *, refusals: bool = True
              ) -> dict[str, Any]:
    """The document `plan --json` writes (and `check --plan` accepts only exactly): with a
    `vit` object, the proof report of SGLang's ViT graphs, when the config plans them.
    `refusals=False`: without the engine's refusals (a plan file written before graphfit
    reported them)."""
    verification = result.verify() if verification is None else verification
    engine = result.verify_engine() if engine is None else engine
    if not refusals:
        engine = replace(engine, refusals=())
    vit = vit_component(result)
    return {**plan_document(result, verification, refusals=refusals),
            "engine": _engine_document(result, engine),
            **({"vit": vit_document(*vit)} if vit is not None else {})}


def read_plan(path: Path) -> Plan:
    """The plan of a plan file's config, after checking the file is exactly the document
    graphfit writes for it (graphfit.inputs.plan_file); ConfigError names the first
    difference."""
    from graphfit.inputs.plan_file import first_difference, read_plan_file
    from graphfit.inputs.reading import shown_path

    doc, config = read_plan_file(path)
    result = plan(config)
    expected = json.loads(json.dumps(plan_json(result)))
    engine_doc = doc.get("engine") if isinstance(doc, dict) else None
    if result.refusals and isinstance(engine_doc, dict) and "refusals" not in engine_doc:
        # written before graphfit reported the engine's refusals: compare without them
        expected = json.loads(json.dumps(plan_json(result, refusals=False)))
    difference = first_difference(doc, expected)
    if difference is not None:
        from graphfit.cli.vit_plan import stale_plan_hint, stale_prefill_hint

        stale = stale_prefill_hint(doc, expected) if difference.startswith(
            "components.prefill.") else stale_plan_hint(difference)
        if stale is not None:
            raise ConfigError(f"plan {shown_path(path)}: {stale}")
        raise ConfigError(f"plan {shown_path(path)}: not what graphfit writes for its config: "
                          f"{difference} (audit other sizes with --capacity)")
    return result


def plan_command(
    config: EngineConfig,
    capacity: Annotated[list[str] | None, typer.Option(
        "--capacity", help="Also audit your own sizing, as `check` does: component.buffer=ROWS "
        "or a formula (e.g. drafter.positions=S*q); the report marks where it goes short; "
        "exit 1 when it does.")] = None,
    json_output: JsonFlag = False, svg: SvgOpt = None, png: PngOpt = None,
    vit_images: VitImagesOpt = None, vit_max_images: VitMaxImagesOpt = 1) -> None:
    """Plan the ladder, padding and every buffer capacity, and prove them safe."""
    from graphfit.cli.options import PASTED

    with handled():
        config, vit_notes = vit_config(config, vit_images, vit_max_images, PASTED.get())
        result = plan(config)
        vit = vit_component(result)
        engine = result.verify_engine()
        verification = result.verify()
        audited = capacities(result, capacity)
        # an audited sizing is compared with every batch the engine's own code runs, as in
        # `check`; the report marks it short instead of the engine's own sizing
        audit = result.verify(capacities=audited, engine=True) if audited else None
    written = write_report(lambda: draw().plan_figure(result, audit), svg, png)
    if json_output:
        doc = plan_json(result, verification, engine)
        if audit is not None:  # an extra key: `check --plan` takes a plan written without it
            doc = {**doc, "audit": verification_document(audit)}
        emit_json(doc)
    else:
        out = console()
        print_plan(out, result, verification, engine)
        if audit is not None:
            print_verdict(out, audit, audit=True, engine_version=result.engine_version)
        if vit is not None:
            print_vit(out, *vit, vit_notes)
        for path in written:
            out.print(f"wrote {path}")
    if (not verification.ok or (audit is not None and not audit.ok)
            or (vit is not None and not vit[1].ok)):
        raise typer.Exit(EXIT_VIOLATIONS)


def check_command(
    config: EngineConfig | None = None,
    capacity: Annotated[list[str] | None, typer.Option(
        "--capacity", help="Audit your own sizing: component.buffer=ROWS or a formula, e.g. "
        "drafter.positions=S*q (names S T k q C R M H topk; repeatable).")] = None,
    plan_file: Annotated[Path | None, typer.Option(
        "--plan", help="Re-check a plan JSON written by `graphfit plan --json` (refused "
        "unless exactly what graphfit writes for its config).")] = None,
    json_output: JsonFlag = False,
) -> None:
    """Audit the engine's own sizing (and yours, with --capacity; a plan file's with --plan):
    exit 1 with counterexamples when any reachable batch goes short."""
    with handled():
        if plan_file is not None:
            if config is not None:
                raise ConfigError("plan: give either --plan FILE or config flags, not both")
            result = read_plan(plan_file)
        elif config is None:
            raise ConfigError("max_num_seqs: missing (pass --max-num-seqs or --plan FILE)")
        else:
            result = plan(config)
        audited = capacities(result, capacity)
        # a plan file is graphfit's own sizing (its runtime allocates it), not the engine's:
        # its capacities are proven again against the batches graphfit's runtime runs, with
        # any --capacity audited over them; --capacity sizings alone against every batch the
        # engine's own code runs (its engine rows)
        engine = None if plan_file is not None else result.verify_engine()
        verification = (result.verify(capacities=audited, engine=plan_file is None)
                        if audited or plan_file is not None else None)
    ok = ((engine is None or engine.ok)
          and (verification is None or verification.ok))
    if json_output:
        doc = verification_document(verification) if verification is not None else {}
        engine_doc = {} if engine is None else {"engine": _engine_document(result, engine)}
        emit_json({"schema": "graphfit.check/1", "engine_version": result.engine_version,
                   **doc, "ok": ok, **engine_doc})
    else:
        out = console()
        for line in engine_verdict(result, engine) if engine is not None else []:
            out.print(line)
        slow = eager_line(result) if engine is not None else None
        if slow is not None:
            out.print(slow)
        if verification is not None:
            print_verdict(out, verification, audit=bool(audited),
                          engine_version=result.engine_version)
    if not ok:
        raise typer.Exit(EXIT_VIOLATIONS)


def explain_command(
    config: EngineConfig,
    num_tokens: Annotated[int, typer.Argument(help="Tokens in the batch.", parser=integer)],
    uniform: Annotated[bool, typer.Option(
        "--uniform", help="A uniform decode batch (num_reqs x q tokens).")] = False,
    num_reqs: Annotated[int | None, typer.Option("--num-reqs", help="Requests.",
                                                 parser=integer)] = None,
    json_output: JsonFlag = False,
) -> None:
    """Show where a batch of N tokens goes: graph mode, padded size, buffer headroom."""
    with handled():
        result: Plan = plan(config)
        limit, what = ((config.max_num_batched_tokens, "max_num_batched_tokens")
                       if result.unit is Unit.TOKENS else (config.max_num_seqs, "max_num_seqs"))
        if isinstance(num_tokens, int) and num_tokens > limit:  # the scheduler never builds it
            raise ConfigError(f"num_tokens: {num_tokens:,} exceeds {what} {limit:,}; no "
                              "such batch is scheduled")
        if json_output:
            rows = explain_rows(result, num_tokens, uniform_decode=uniform, num_reqs=num_reqs)
        else:
            table = explain_table(result, num_tokens, uniform_decode=uniform,
                                  num_reqs=num_reqs)
    if json_output:
        emit_json({"schema": "graphfit.explain/1", "engine_version": result.engine_version,
                   "num_tokens": num_tokens,
                   "uniform": uniform, "num_reqs": num_reqs, "config": config.to_dict(),
                   "components": rows})
        return
    console().print(table)


def register(app: typer.Typer) -> None:
    """Attach `plan`, `check` and `explain` to `app`."""
    app.command("plan")(config_options(plan_command))
    app.command("check")(config_options(check_command))
    app.command("explain")(config_options(explain_command))
