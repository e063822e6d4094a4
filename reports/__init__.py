"""Report rendering assets (jinja2 templates)."""
