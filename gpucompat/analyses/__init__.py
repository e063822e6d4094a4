"""Cost analyses over a check result: where the GPU time and the CPU<->GPU traffic go.

Each module answers one question from the result of `gpucompat.placement.check_model` and the model
IR, and returns plain dataclasses; `gpucompat.output.records` turns them into the JSON contract
that every renderer reads. Costs are relative (elements, MACs, bytes), never milliseconds."""

from __future__ import annotations

from dataclasses import dataclass

from gpucompat.analyses.boundaries import Boundaries, boundaries
from gpucompat.analyses.channel_padding import ChannelPadding, channel_padding
from gpucompat.analyses.hotspots import Hotspot, hotspots
from gpucompat.analyses.what_if import WhatIf, what_if


@dataclass
class Analyses:
    """Every analysis of one model under one profile (and the model they were run on); with
    representative inputs, the value range of every tensor (gpucompat/value_ranges.py)."""

    model: object
    channel_padding: ChannelPadding
    hotspots: list[Hotspot]
    boundaries: Boundaries
    what_if: list[WhatIf]
    value_ranges: dict | None = None  # tensor index (main subgraph) -> value_ranges.TensorRange
    fp16_class_flips: dict | None = None  # output index -> task record, where emulated fp16 flips the class


def analyze(model, result, value_ranges: dict | None = None, fp16_class_flips: dict | None = None) -> Analyses:
    """Run every analysis on `result` (the check of `model`); `value_ranges` and
    `fp16_class_flips` (gpucompat/fp16_emulation.py) come from running the model on the user's
    inputs, when there are some."""
    return Analyses(model, channel_padding(model, result), hotspots(model, result), boundaries(model, result),
                    what_if(model, result), value_ranges, fp16_class_flips)
