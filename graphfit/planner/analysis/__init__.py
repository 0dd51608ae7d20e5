"""Analysis on top of plans: padding waste and summaries, side-by-side comparisons, ladder
properties, capacity formulas, sweeps over config grids and the bug corpus runner."""
