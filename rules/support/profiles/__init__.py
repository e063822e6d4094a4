"""One module per delegate generation; each exposes PROFILE."""
