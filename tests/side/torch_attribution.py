"""Runs in a Python with torch and litert-torch (never the test environment): export the
attribution test's nn.Module with litert-torch, and write its named_modules() beside it.

    python torch_attribution.py OUT.tflite OUT_MODULES.txt"""

import sys

import litert_torch
import torch
from torch import nn


class Attn(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(8, 8)
        self.k = nn.Linear(8, 8)

    def forward(self, x):
        return torch.softmax(self.q(x) @ self.k(x).transpose(-1, -2), -1) @ x


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = Attn()
        self.norm = nn.LayerNorm(8)

    def forward(self, x):
        return self.norm(x + self.attn(x))


class Picker(nn.Module):
    """torch.gather with a constant index: GATHER_ND, which no GPU delegate takes."""

    def __init__(self):
        super().__init__()
        self.register_buffer("index", torch.tensor([[3] * 8, [9] * 8]).unsqueeze(0))

    def forward(self, x):
        return torch.gather(x, 1, self.index)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU())
        self.blocks = nn.ModuleList([Block() for _ in range(2)])
        self.head = nn.Sequential(Picker(), nn.Linear(8, 8))

    def forward(self, image):
        x = self.stem(image).flatten(2).transpose(1, 2)  # [1, 16, 8]
        for block in self.blocks:
            x = block(x)
        return self.head(x) * 2.0


def main(out: str, names: str) -> None:
    torch.manual_seed(0)
    model = Net().eval()
    litert_torch.convert(model, (torch.randn(1, 3, 4, 4),)).export(out)
    with open(names, "w") as f:
        for name, module in model.named_modules():
            f.write(f"{name} {type(module).__module__}.{type(module).__qualname__}\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
