"""`gpucompat calibrate`: measure the ai-edge-litert installed beside gpucompat on this machine's
Vulkan device (gpucompat/calibrate/) and write a profile file that `--profile PATH` reads. Exit
codes: 0 written, 2 no usable Vulkan device (nothing written) or another error."""

from __future__ import annotations

import enum
import time
from typing import Annotated

import typer

from gpucompat.commands.common import EXIT_CLEAN


class Grid(str, enum.Enum):
    sample = "sample"
    full = "full"
    none = "none"


SAID = {"gpu": "delegated", "cpu": "refused at partitioning", "fails": "fails to build"}


def calibrate(
    output: Annotated[str | None, typer.Option("--output", "-o", help="The profile file to write (default litert-mldrift-RELEASE-calibrated.json here).")] = None,
    vulkan_dir: Annotated[str | None, typer.Option(help="Directory whose env.sh ('export K=V' lines) names the Vulkan driver (default $GPUCOMPAT_VULKAN_DIR or ~/.cache/gpucompat-oracle when present).")] = None,
    grid: Annotated[Grid, typer.Option("--grid", help="The numerics grid to run (which op forms the GPU computes wrongly, fp32 and fp16): sample (every hand-picked form and one in 40 of the rest, about a minute on a software driver), full (34,070 forms: 10 to 25 minutes on a software driver), none.")] = Grid.sample,
    timeout: Annotated[float | None, typer.Option(help="Seconds one probe may take to compile before it is given up (default 120).")] = None,
) -> None:
    """Compile the calibration probes (one-op models, one per op type, version cap and constraint
    the delegation depends on) with the installed LiteRT's GPU accelerator, run the numerics grid
    (--grid), and write what it does differently from litert-mldrift, with the grid's table, as a
    profile file for `--profile PATH`."""
    from gpucompat.calibrate import document, measure
    from gpucompat.confirm import runner
    from gpucompat.errors import GpucompatError

    start = time.monotonic()
    launch = runner.launcher(vulkan_dir)
    m = measure.measure(launch, timeout or 120.0)
    seconds = time.monotonic() - start
    forms = _grid(grid.value, launch)
    path = output or f"litert-mldrift-{m.litert or 'unknown'}-calibrated.json"
    try:
        document.write(m, path, forms)
    except OSError as e:
        raise GpucompatError(f"{path}: cannot write the profile file ({e.strerror})") from None
    typer.echo(summary(m, forms, path, seconds), nl=False)
    raise typer.Exit(EXIT_CLEAN)


def _grid(which: str, launch) -> dict | None:
    """The numerics grid's record (gpucompat/calibrate/grid.py), None for --grid none."""
    from gpucompat.calibrate import grid
    from gpucompat.progress import status

    if which == "none":
        return None
    forms = grid.chosen(which)
    start = time.monotonic()
    with status(f"running {len(forms)} op forms of the numerics grid on LiteRT's GPU accelerator") as step:
        grid.run(forms, launch, lambda news: step.say(f"numerics grid on LiteRT's GPU accelerator: {news}"))
    return grid.record(which, forms, time.monotonic() - start)


def summary(m, forms: dict | None, path: str, seconds: float) -> str:
    """What was measured (the probes took `seconds`), every difference from litert-mldrift, the
    grid's counts, and the file written."""
    from gpucompat.rules.support.profile_file import BASE, device_name

    differs = [p for p in m.points if p.differs]
    unmeasured = [p for p in m.points if p.observed is None]
    lines = [f"calibrated LiteRT {m.litert}'s GPU accelerator on {device_name(m.device)} "
             f"({m.driver}): {len(m.points)} probes in {seconds:.0f} s",
             f"  {len(m.points) - len(differs) - len(unmeasured)} as {BASE} predicts, {len(differs)} "
             f"differ{'s' if len(differs) == 1 else ''}, {len(unmeasured)} unmeasured"]
    lines += [f"  differs: {p.probe.point}: {SAID[p.observed]} ({BASE}: {SAID[p.predicted]})"
              + (f": {p.message}" if p.message else "") for p in differs]
    lines += [f"  unmeasured: {p.probe.point}: {p.message}" for p in unmeasured]
    if forms is None:
        lines.append("  numerics grid not run (--grid none): the profile's op forms are not judged")
    else:
        table = forms["table"]
        wrong = [sum(1 for v in table.values() if p in v and v[p]["wrong"]) for p in ("fp32", "fp16")]
        lines.append(f"  numerics grid ({forms['run']}): {forms['forms']} forms in {forms['seconds']} s, "
                     f"{len(table)} form keys, {wrong[0]} wrong at fp32, {wrong[1]} at fp16, "
                     f"{len(forms['left_out'])} left out")
    lines.append(f"wrote {path}: use it with --profile {path}")
    return "\n".join(lines) + "\n"
