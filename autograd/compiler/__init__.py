"""`jit`: tracing, the cache, code generation from the op rules, and the trace guard."""
