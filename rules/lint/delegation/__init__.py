"""GPU family: ops the delegate does not take, failures that stop the whole delegation, and
delegated forms LiteRT's real accelerator computes wrongly (GPU005) or was never measured on
(GPU007)."""
