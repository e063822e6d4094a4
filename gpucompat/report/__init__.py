"""The HTML compatibility report: one self-contained page (inline CSS and JS, no network) rendered
with jinja2 from the JSON model records, so it shows the same facts as every other format."""

from gpucompat.report.html import render, write_report

__all__ = ["render", "write_report"]
