"""Every limit graphfit puts on what it is given, in one place, with why it is what it is.

graphfit answers in time proportional to the number of capture sizes and buffers, never to a
number the user typed (a batch of 10^18 tokens costs what a batch of 8 does: batches are
walked as intervals). What the user types can still ask for unbounded work -- a ladder of a
billion sizes, a sweep of 10^12 configs, a 4-GiB file -- so each such input has a limit here,
and going past one is a one-line error (exit 2 in the CLI) that names the limit.
"""

from __future__ import annotations

# -- files -----------------------------------------------------------------------------------

MAX_FILE_BYTES = 16 * 1024 * 1024
"""Config files, plan files, memory profiles, corpus cases, model config.json: a plan of the
largest ladder graphfit plans is under 2 MiB and the rest are kilobytes, so 16 MiB is ample
and parses (JSON) in well under a second."""

MAX_TRACE_BYTES = 64 * 1024 * 1024
"""Batch-size traces: one CSV line per engine step, about 13 million steps (days of serving);
graphfit reads about 3 MB of CSV a second, so 64 MiB stays under half a minute."""

MAX_YAML_BYTES = 1024 * 1024
"""YAML files: serving configs and corpus cases are a few KB. PyYAML builds Python objects at
about 1 MB/s (far slower without its C extension), so 1 MiB keeps loading in seconds."""

MAX_DEPTH = 64
"""Nesting of JSON/YAML documents and of flag values: graphfit's deepest document (a plan) nests
5 levels; Python's own parsers fail with RecursionError near 1,000."""

# -- numbers ---------------------------------------------------------------------------------

MAX_INT = 2**63 - 1
"""Every integer (batch sizes, token counts, lengths, capacities, trace sizes and counts):
the engines hold them in int64 tensors or C longs, so a larger value cannot be served."""

MAX_INT_DIGITS = 19
"""Digits of an integer written as text (len(str(MAX_INT))): checked before converting, so a
100,000-digit number is refused at once (Python's int() refuses 4,300 digits, slowly)."""

MAX_FLOAT = 1e18
"""Floats (bytes per token, MiB, weights): 10^18 bytes is an exabyte, beyond any GPU; products
of two such values stay finite, so no estimate overflows to inf or NaN."""

# -- work ------------------------------------------------------------------------------------

MAX_CAPTURE_SIZES = 16384
"""Sizes in one capture ladder: each graph costs an engine tens of milliseconds and megabytes
to capture, so engines capture tens to a few hundred (vLLM at most 1024-token ladders of ~100
sizes; SGLang without padding one per batch size up to its max, default 256). 16,384 graphs
would take an engine over ten minutes to capture; graphfit plans that many in about a
second."""

MAX_PADDING_TABLE = 1 << 22
"""Entries of `padding_table` (one per batch size up to the largest capture size)."""

MAX_SWEEP_POINTS = 100_000
"""Configs in one sweep (the product of its axes): each is planned and proven, a few
milliseconds apiece, so 100,000 points take minutes on a laptop."""

MAX_DP_CELLS = 20_000_000
"""The optimiser's exact programme costs (graphs x distinct trace sizes) steps of about a
microsecond; 2 x 10^7 keeps `optimize` under half a minute."""

MAX_SPREAD_TOKENS = 1 << 16
"""Token counts up to which a Prometheus histogram's wide buckets are spread evenly, one size
at a time (graphfit.inputs.traces): vLLM's default buckets end at 16,384 tokens and the
optimiser needs single sizes only up to the max capture size (vLLM's default is 512). The
part of a bucket above 65,536 tokens keeps its step count and mean size at one or two
points, so `le="1e18"` costs what `le="16384"` does; spreading 65,536 sizes takes about a
tenth of a second (one dictionary entry each, and the optimiser's cells grow with them)."""

MAX_COUNTEREXAMPLES = 1 << 20
"""Counterexamples a ladder property lists one by one (graphfit.planner.analysis.properties);
properties are checked segment by segment, so only listing them costs per batch."""

MAX_PASTE_WORDS = 4096
"""Words of a pasted serving command (`graphfit plan -- vllm serve ...`, or one quoted
string): each flag is one or two words and the engines have a few hundred flags, so a real
line has tens to a few hundred words. The engines' parsers (argparse) take time quadratic in
the number of options given -- 20,000 words took 2.5 s, 120,000 took 82 CPU-s -- while 4,096
take about a tenth of a second."""

MAX_FORMULA_CHARS = 200
"""A capacity formula ("max(S*q, C)"): real ones are tens of characters; Python's parser and
graphfit's evaluator recurse once per nesting level, so a bound keeps both off the stack's
limit."""

# -- output ----------------------------------------------------------------------------------

MAX_ERROR_CHARS = 200
"""An `error:` line, whole: one terminal line or two, whatever the user typed."""

EXCERPT_CHARS = 48
"""A user value echoed in a message is cut to this many characters."""

MAX_LISTED = 20
"""Counterexample ranges printed as lines (the rest are counted; --json has them all)."""
