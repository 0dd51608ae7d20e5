"""The vocabulary and the rules every engine shares: enums and errors, ladders and dispatch
tables, batch families and streams, buffer specs, the one row rule, the arena layout, the walk
over reachable batches and the proof built on it. Nothing here knows any engine."""
