"""Engine models as peers behind one protocol (`base.EngineModel`): `vllm`, `sglang`,
`trtllm` (the last two share `batch`). `registry` is the only place that picks one."""
