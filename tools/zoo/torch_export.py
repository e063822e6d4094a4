"""Runs inside the zoo's torch venv (never the main environment): export one PyTorch model with
random, seeded weights through litert-torch, or apply an ai-edge-quantizer recipe to an exported
model. `python torch_export.py export NAME OUT` / `quantize RECIPE IN OUT` / `versions`."""

from __future__ import annotations

import sys

SIDE = 96  # the input side of the vision models


def _vision(name: str, **kwargs):
    """A torchvision classification model by name, random weights."""
    import torch
    import torchvision

    return getattr(torchvision.models, name)(weights=None, **kwargs), (torch.randn(1, 3, SIDE, SIDE),)


def _segmentation(name: str):
    """A torchvision segmentation model whose forward returns the "out" map only (as apps read it)."""
    import torch
    import torchvision

    model = getattr(torchvision.models.segmentation, name)(weights=None, weights_backbone=None, num_classes=4)

    class Out(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, x):
            return self.model(x)["out"]

    return Out(), (torch.randn(1, 3, SIDE * 2, SIDE * 2),)


def _ssdlite():
    """SSDLite320-MobileNetV3's backbone and head: raw box regressions and class logits (apps run
    the decoding and NMS after the model)."""
    import torch
    import torchvision

    det = torchvision.models.detection.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None,
                                                                     num_classes=5)

    class Head(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.backbone, self.head = det.backbone, det.head

        def forward(self, x):
            out = self.head(list(self.backbone(x).values()))
            return out["bbox_regression"], out["cls_logits"]

    return Head(), (torch.randn(1, 3, 320, 320),)


def _transformer(causal: bool):
    """Two transformer blocks over [1, 32, 64]; `causal` masks the future with masked_fill on a
    constant bool [32, 32] mask, as decoders do."""
    import torch

    class Blocks(torch.nn.Module):
        def __init__(self):
            super().__init__()
            layer = torch.nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0, batch_first=True)
            self.blocks = torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
            self.register_buffer("mask", torch.triu(torch.ones(32, 32, dtype=torch.bool), 1))

        def forward(self, x):
            if not causal:
                return self.blocks(x)
            for block in self.blocks.layers:
                qkv = torch.nn.functional.linear(x, block.self_attn.in_proj_weight, block.self_attn.in_proj_bias)
                qh, kh, vh = qkv.reshape(1, 32, 3, 4, 16).permute(2, 0, 3, 1, 4)
                scores = ((qh @ kh.transpose(-1, -2)) / 4.0).masked_fill(self.mask, float("-inf"))
                att = (scores.softmax(-1) @ vh).transpose(1, 2).reshape(1, 32, 64)
                x = block.norm1(x + block.self_attn.out_proj(att))
                x = block.norm2(x + block.linear2(torch.relu(block.linear1(x))))
            return x

    return Blocks().eval(), (torch.randn(1, 32, 64),)


MODELS = {  # the first ten are exported early (catalog.py): one of each kind first
    "resnet18": lambda: _vision("resnet18", num_classes=10),
    "mobilenet_v3_small": lambda: _vision("mobilenet_v3_small", num_classes=10),
    "transformer_encoder": lambda: _transformer(False),
    "transformer_decoder": lambda: _transformer(True),
    "lraspp_mobilenet_v3_large": lambda: _segmentation("lraspp_mobilenet_v3_large"),
    "ssdlite320_mobilenet_v3_large": _ssdlite,
    "squeezenet1_1": lambda: _vision("squeezenet1_1", num_classes=10),
    "shufflenet_v2_x0_5": lambda: _vision("shufflenet_v2_x0_5", num_classes=10),
    "googlenet": lambda: _vision("googlenet", num_classes=10, aux_logits=False, init_weights=True),
    "deeplabv3_mobilenet_v3_large": lambda: _segmentation("deeplabv3_mobilenet_v3_large"),
    "mobilenet_v2": lambda: _vision("mobilenet_v2", num_classes=10),
    "mobilenet_v3_large": lambda: _vision("mobilenet_v3_large", num_classes=10),
    "efficientnet_b0": lambda: _vision("efficientnet_b0", num_classes=10),
    "mnasnet0_5": lambda: _vision("mnasnet0_5", num_classes=10),
    "regnet_x_400mf": lambda: _vision("regnet_x_400mf", num_classes=10),
    "densenet121": lambda: _vision("densenet121", num_classes=10),
    "convnext_tiny": lambda: _vision("convnext_tiny", num_classes=10),
    "resnet50": lambda: _vision("resnet50", num_classes=10),
}


def export(name: str, out: str) -> None:
    """Export MODELS[name] (seeded random weights, eval mode) to `out` through litert-torch."""
    import litert_torch
    import torch

    torch.manual_seed(0)
    model, sample = MODELS[name]()
    litert_torch.convert(model.eval(), sample).export(out)


def quantize(recipe_name: str, source: str, out: str) -> None:
    """Apply ai-edge-quantizer's recipe `recipe_name` (a function of ai_edge_quantizer.recipe)."""
    from ai_edge_quantizer import quantizer, recipe

    qt = quantizer.Quantizer(source)
    qt.load_quantization_recipe(getattr(recipe, recipe_name)())
    qt.quantize().export_model(out, overwrite=True)


def versions() -> str:
    """The tools that decide the exported bytes."""
    from importlib.metadata import version

    return (f"torch{version('torch')}-torchvision{version('torchvision')}-litert_torch{version('litert-torch')}"
            f"-aeq{version('ai-edge-quantizer')}")


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "versions":
        print(versions())
    else:
        {"export": export, "quantize": quantize}[command](*args)
