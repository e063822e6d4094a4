"""`python -m gpucompat` runs the command-line interface."""

from gpucompat.cli import run

run()
