"""What engines are told: their flags, JSON sub-configs and config files, read into Settings.

`vllm`, `sglang`, `trtllm` read each engine's own keys; `config_file` reads `--config FILE`;
`settings` and `resolve` merge every source (with precedence and conflicts) into one
EngineConfig; `values` and `keys` are the typed reads that name the key on bad input.
"""
