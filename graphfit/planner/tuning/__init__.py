"""Tuning on top of plans: traces of real step sizes (`trace`), the exact ladder optimiser
(`optimize`), the config-level driver (`tune`) and the graph memory model (`memory`)."""
