"""DEV family, device reports: forms that public reports say a GPU family's runtime mishandles,
raised only for the families the user names (`check --device-family adreno,mali`).

Nothing here was measured by gpucompat: no such device is at hand. Each finding says so, cites the
report it rests on, and stays at warning; the reports are LiteRT's and LiteRT-LM's public issues
(reporter's device, runtime release and repro are in each). The project's own measurements (GPU005,
PREC408) come from LiteRT's accelerator on a software Vulkan device, which is no phone's GPU."""
