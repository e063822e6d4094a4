"""HYG family: model-file hygiene that costs time on every device."""
