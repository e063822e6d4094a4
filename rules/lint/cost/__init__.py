"""PERF family: GPU time spent without arithmetic (reshape-like ops) or on padding channels."""
