"""`gpucompat doctor`'s terminal view: versions, the OpenCL devices in the order verify tries them
with their probes, the program cache, the Vulkan drivers and whether confirm can run on them, and
whether the classic GL delegate can."""

from __future__ import annotations

from gpucompat.text import printable


def terminal(report: dict) -> str:
    """The report as lines for a person."""
    py, cl, vk = report["python"], report["opencl"], report["vulkan"]
    lines = [f"Python {py['version']} ({py['machine']}): {py['executable']}"]
    lines += [f"  {name} {version or 'not installed'}" for name, version in report["packages"].items()]
    if cl["devices"]:
        lines.append("OpenCL devices, in the order verify tries them:")
    for d in cl["devices"]:
        probe = "probe passed" if d["works"] else "probe failed"
        timing = "kept from an earlier run" if d["probe_cached"] else f"{d['probe_seconds']:.2f} s"
        lines.append(f"  {d['index']}: {d['name']} [{d['kind']}, driver {d['driver_version']}] {probe} ({timing})")
        lines.append(f"     {d['note']}")
    lines.append(f"verify uses: {cl['verify_device']}" if cl["verify_device"] else f"verify cannot run: {cl['error']}")
    lines.append(f"program cache: {report['program_cache']['directory']}"
                 f"{'' if report['program_cache']['exists'] else ' (not created yet)'}")
    lines.append(f"Vulkan for confirm ({vk['setup']}):")
    for d in vk["drivers"]:
        lines.append(f"  {d['file']}: {d['library'] or 'no library named'}"
                     f"{'' if d['library_present'] else ' (missing)'}")
    if not vk["available"]:
        lines.append("  no Vulkan driver found")
    probe = vk["confirm"]
    lines.append(f"confirm runs: LiteRT's GPU accelerator compiled a probe model ({probe['seconds']:.1f} s)"
                 if probe["works"] else f"confirm cannot run here: {probe['why']}")
    gl = report["gl_delegate"]
    lines.append(f"confirm --delegate gl runs: the classic GL delegate took a probe model ({gl['seconds']:.1f} s)"
                 if gl["works"] else f"confirm --delegate gl cannot run here: {gl['why']}")
    return "\n".join(printable(line) for line in lines) + "\n"
