"""Delegate support rules: verdicts, profiles (one module per delegate generation) and lint rules."""
