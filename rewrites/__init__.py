"""Graph rewrites for `gpucompat fix`: one module per rewrite (pattern, check, rewrite, safety)."""
