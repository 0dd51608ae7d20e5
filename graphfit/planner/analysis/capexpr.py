"""Capacity formulas: "S*q", "max(S*q, C)", "T + S" evaluated per config.

An engine's buggy sizing is usually a formula, not a number (vLLM #50065 sized DFlash's
query buffers S*q), so audits over many configs (sweeps, the bug corpus) take formulas.
Only integer arithmetic on the names below, max() and min() are allowed; it is parsed with
`ast`, never eval'd.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.core.formula import evaluate_tree, parse_formula
from graphfit.planner.core.limits import MAX_INT
from graphfit.planner.plan import Plan

NAMES = {
    "S": "max_num_seqs",
    "T": "max_num_batched_tokens",
    "k": "num_speculative_tokens",
    "q": "tokens per request in a uniform decode (1 + k; SGLang: num_draft_tokens)",
    "C": "largest capture size as the config computes it (what a drafter's __init__ sees)",
    "R": "largest capture size the runner captures",
    "M": "max_model_len",
    "H": "hidden_size",
    "topk": "SGLang speculative_eagle_topk (1 otherwise)",
}


def variables(plan: Plan) -> dict[str, int]:
    """The values of NAMES for one plan."""
    c = plan.config
    return {"S": c.max_num_seqs, "T": c.max_num_batched_tokens, "k": c.num_speculative_tokens,
            "q": c.uniform_query_len, "C": plan.config_ladder.max_size,
            "R": plan.runtime_ladder.max_size, "M": c.max_model_len, "H": c.hidden_size,
            "topk": c.speculative_eagle_topk or 1}


def _eval(node: ast.AST, env: Mapping[str, int], text: str) -> int:
    return evaluate_tree(node, env, text, "capacity")


def parse(text: str) -> ast.Expression:
    """Parse once (a syntax error is a ConfigError naming the formula); at most
    MAX_FORMULA_CHARS characters (graphfit.planner.core.formula)."""
    return parse_formula(text, NAMES, "capacity")


def evaluate(formula: int | str, plan: Plan) -> int:
    """Rows for one plan: an int is taken as is, a string is a formula over NAMES."""
    if isinstance(formula, bool):
        raise ConfigError(f"capacity: expected an integer or a formula, got {excerpt(formula)}")
    if isinstance(formula, int):
        if not 0 <= formula <= MAX_INT:
            raise ConfigError(f"capacity: {excerpt(formula)} rows is not in 0..{MAX_INT}")
        return formula
    if not isinstance(formula, str):
        raise ConfigError(f"capacity: expected an integer or a formula, got {excerpt(formula)}")
    value = _eval(parse(formula), variables(plan), formula)
    if value < 0:
        raise ConfigError(f"capacity: {excerpt(formula)} is negative ({excerpt(value)}) for "
                          "this config")
    if value > MAX_INT:
        raise ConfigError(f"capacity: {excerpt(formula)} gives more than {MAX_INT} rows for "
                          "this config")
    return value


def capacities_for(plan: Plan, formulas: Mapping[str, int | str], *,
                   skip_missing: bool = False) -> dict[str, int]:
    """Evaluate every "component.buffer" -> formula for one plan.

    `skip_missing` drops buffers this plan has not (a sweep point without a drafter).
    """
    out: dict[str, int] = {}
    for key, formula in formulas.items():
        component, _, name = key.partition(".")
        # a keyed component's buffers (SGLang's `vit`) are audited like the others
        owner = plan.components.get(component) or plan.keyed.get(component)
        if skip_missing and (owner is None or name not in {b.name for b in owner.buffers}):
            continue
        plan.buffer(key)
        out[key] = evaluate(formula, plan)
    return out


def parse_assignment(text: str) -> tuple[str, str]:
    """'drafter.positions=S*q' -> ('drafter.positions', 'S*q'), the formula checked."""
    key, sep, formula = text.partition("=")
    key = key.strip()
    if not sep or "." not in key or not formula.strip():
        raise ConfigError(f"capacity: {excerpt(text)} is not of the form "
                          "component.buffer=FORMULA")
    parse(formula)
    return key, formula.strip()
