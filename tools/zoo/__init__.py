"""The zoo: real architectures built in code (keras.applications, litert-torch exports, graph shapes
real apps have), converted seeded, cached outside the repository, and judged against LiteRT's real
GPU accelerator plus `gpucompat verify` and `gpucompat fix` (docs/zoo.md holds the table).

Run from the repository root: `python -m tools.zoo build`, `python -m tools.zoo judge`,
`python tools/zoo_table.py`.
"""
