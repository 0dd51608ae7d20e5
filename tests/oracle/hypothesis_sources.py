"""The engines' fetched sources count as installed packages for Hypothesis (issue 23, s70m).

Hypothesis (6.131+) mixes literals from the "local" modules in `sys.modules` into its draws:
before a test draws, `_get_local_constants` (hypothesis/internal/conjecture/providers.py)
parses the source of every newly imported module whose file is neither under site-packages
nor the standard library (`constants_from_module`, hypothesis/internal/constants_ast.py,
cached under `.hypothesis/constants`, which a clean CI clone does not have). The oracle runs
SGLang and vLLM from `paths.cache_dir()` (~/.cache/graphfit-oracle), not site-packages, so
each oracle module that imports more of them paid an AST walk of each new engine module:
18.7 of 47.0 s CPU for test_sglang_moe_a2a_oracle alone in a fresh process (measured,
docs/engines/sglang-coverage.md, the s70m section), and the draws depended on which engine
modules earlier tests happened to import (one module run alone drew other lines than in the
suite). Engine literals are not graphfit's edge cases; the strategies name the values the
oracle lines need.

Hypothesis has no public switch for this (HypothesisWorks/hypothesis#4627 asks for one), so
the engines' directory joins `scrutineer.SITE_PACKAGES_DIRS`, the set its `ModuleLocation`
test reads; where a Hypothesis version lacks it, nothing changes (the scan stays).
"""

from __future__ import annotations

from pathlib import Path


def treat_as_installed(root: Path) -> bool:
    """Count modules under `root` as site-packages for Hypothesis's local-constant scan.
    Call before the first draw (`ModuleLocation.from_path` caches its answers). Returns
    whether Hypothesis offered the hook."""
    try:
        from hypothesis.internal import scrutineer
    except ImportError:  # pragma: no cover - a Hypothesis without it scans as before
        return False
    dirs = getattr(scrutineer, "SITE_PACKAGES_DIRS", None)
    if not isinstance(dirs, set):
        return False
    dirs.add(root.resolve())
    return True
