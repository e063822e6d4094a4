"""One module per CLI command; gpucompat/cli.py registers them."""
