"""Engine models beyond vLLM's own (SGLang, TensorRT-LLM) and the readers of engine inputs.

Planning: `ladders` (batch-size ladders), `catalogue` (runners, widths, buffer specs with their
safe fills), `sglang` / `trtllm` (each engine's runners), `batched` (tables, plan, proof).
Inputs: `vllm_args`, `sglang_args`, `trtllm_args` (each engine's flags and JSON configs),
`config_file` (`--config FILE`), `settings` / `resolve` (precedence and conflicts), `values`
and `keys` (typed reads that name the key). Everything here is pure Python, like the planner.
"""
