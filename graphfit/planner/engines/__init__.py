"""Engine models as peers behind one protocol (`base.EngineModel`): `vllm`, `sglang`,
`trtllm` (the last two share `batch`) and `described` (an engine given as data).
`registry` is the only place that picks one, by (engine, version); `table` names each
release's other parts (reader, flag table, paste-back, strategies, corpus); `plugins` reads
third-party engines from the `graphfit.engines` entry points."""
