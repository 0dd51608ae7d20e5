"""The torch runtime: buffers allocated from a plan, checked views, graph capture/replay."""
