"""The graph: node classes with their op definitions, float64 helpers, public op functions."""
