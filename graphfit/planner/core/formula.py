"""Integer formulas over named config values ("S*q", "max(S*q, C)", "min(T, 64)").

Engines size buffers and ladders by formulas, not numbers, so both the audits of a sizing
(graphfit.planner.analysis.capexpr) and engine descriptions (engines.described) take them.
Only integer arithmetic (+ - * //), max() and min() over the given names: the text is
parsed with `ast`, never eval'd, and at most MAX_FORMULA_CHARS long, so no formula can nest
deep enough to exhaust the stack.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Collection, Mapping

from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.core.limits import MAX_FORMULA_CHARS

__all__ = ["evaluate_tree", "parse_formula"]

_OPS: dict[type[ast.operator], Callable[[int, int], int]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv}


def evaluate_tree(node: ast.AST, env: Mapping[str, int], text: str, what: str) -> int:
    """The value of a parsed formula; ConfigError (prefixed `what`) for anything else."""
    if isinstance(node, ast.Expression):
        return evaluate_tree(node.body, env, text, what)
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in env:
            raise ConfigError(f"{what}: unknown name {excerpt(node.id)} in {excerpt(text)} "
                              f"(known: {', '.join(env)})")
        return env[node.id]
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        right = evaluate_tree(node.right, env, text, what)
        if isinstance(node.op, ast.FloorDiv) and right == 0:
            raise ConfigError(f"{what}: division by zero in {excerpt(text)}")
        return _OPS[type(node.op)](evaluate_tree(node.left, env, text, what), right)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -evaluate_tree(node.operand, env, text, what)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in ("max", "min") and node.args and not node.keywords):
        args = [evaluate_tree(a, env, text, what) for a in node.args]
        return max(args) if node.func.id == "max" else min(args)
    raise ConfigError(f"{what}: {excerpt(text)} is not an integer formula over "
                      f"{', '.join(env)} with + - * // max() min()")


def parse_formula(text: str, names: Collection[str], what: str) -> ast.Expression:
    """Parse once, checking every name and operator up front (a ConfigError names it)."""
    source = str(text).strip()
    if len(source) > MAX_FORMULA_CHARS:
        raise ConfigError(f"{what}: a formula of {len(source):,} characters; at most "
                          f"{MAX_FORMULA_CHARS}")
    try:
        tree = ast.parse(source, mode="eval")
        evaluate_tree(tree, dict.fromkeys(names, 1), source, what)
    except ConfigError:
        raise
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise ConfigError(f"{what}: {excerpt(source)} is not a formula") from None
    return tree
