"""Renderers of check results: terminal (rich) and JSON."""
