"""Runs in a Python with torch and litert-torch (never the test environment): the code before and
after each PyTorch source hint (gpucompat/attribution/hints.py), exported with litert-torch.

    python torch_hints.py OUT_DIR     (writes OUT_DIR/torch-gather-fixed.{before,after}.tflite)"""

import os
import sys

import litert_torch
import torch
from torch import nn
from torch_attribution import Picker  # rows 3 and 9 through torch.gather with a fixed index: GATHER_ND


class SlicePick(nn.Module):
    """The rows Picker gathers, as slices, concatenated."""

    def forward(self, x):
        return torch.cat([x[:, 3:4], x[:, 9:10]], 1)


class Net(nn.Module):
    def __init__(self, pick: nn.Module):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.pick = pick
        self.head = nn.Linear(8, 4)

    def forward(self, x):
        return self.head(self.pick(self.proj(x))) * 2.0


def main(out: str) -> None:
    for name, pick in (("before", Picker()), ("after", SlicePick())):
        torch.manual_seed(0)
        model = Net(pick).eval()
        path = os.path.join(out, f"torch-gather-fixed.{name}.tflite")
        litert_torch.convert(model, (torch.randn(1, 16, 8),)).export(path)


if __name__ == "__main__":
    main(sys.argv[1])
