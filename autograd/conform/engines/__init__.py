"""The shipped adapters, one module per engine; each imports its engine only when loaded."""
