"""graphfit inside serving engines: checks that run at the engine's start-up.

- `graphfit.integrations.vllm`: a `vllm.general_plugins` entry point (GRAPHFIT_VLLM=check or
  warn) that audits the live model runner's and drafter's buffers before vLLM captures.
- `graphfit.integrations.sglang`: the same for SGLang (a `sglang.srt.plugins` entry point and
  a launcher), and `from_sglang(server_args)`, an SGLang server's config with what the server
  reads beside its ServerArgs (model directories, UNO's adapter_config.json, environment).

Nothing here imports an engine at graphfit's import time; each module imports its engine
only when the engine itself loads it. The planner, inputs and runtime never import this
package (import-linter layers, pyproject.toml).
"""
