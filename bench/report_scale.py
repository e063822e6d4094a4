"""Benchmark: the HTML report of a 20,000-op model in headless Chromium, this checkout against a
peer checkout (say /work/main, before the op table was drawn on demand), side by side, one run.

    python bench/report_scale.py [--peer DIR] [--runs 3] [--ops chain-20k] [--cache DIR] [--model M.tflite]

The model is bench/scale.py's chain of ADD / TANH ops (built with TensorFlow's converter once, into
--cache). Each checkout writes the report (`gpucompat report`, its own process: seconds and page
size); then Debian's /usr/bin/chromium, driven by Playwright, opens the page and the script in it
times, as medians over --runs fresh pages: first contentful paint; load (the load event's end,
after the page's script has run, so the table answers from then on); a text filter that matches two
ops, the placement filter "rejected", clearing the filter, a sort on the op column, and drawing the
graph one box per op, per layer or module and per partition (where the page offers that view),
each until the next frame after the change (two animation frames).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from checkout_tree import importable_tree
from scale import build

HERE = os.path.dirname(os.path.abspath(__file__))
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]

# Runs in the page: applies a change, waits for the frame after it, returns the milliseconds.
TIMED_CHANGE = """async ([what, value]) => {
    const section = document.querySelector("section.model");
    const frame = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
    const t0 = performance.now();
    if (what === "sort") {
        [...section.querySelectorAll("table.ops th button")].find(b => b.textContent === value).click();
    } else if (what === "graph") {
        const view = [...section.querySelectorAll(".graph-views button")].find(b => b.textContent === value);
        if (!view) return null;  // a view the page does not offer (20,000 ops are never drawn one by one)
        view.click();
    } else {
        const control = section.querySelector(what);
        control.value = value;
        control.dispatchEvent(new Event(what === "input.filter" ? "input" : "change"));
    }
    await frame();
    return performance.now() - t0;
}"""

STEPS = [  # (column, control, value)
    ("filter 2 ops", "input.filter", "{needle}"),
    ("clear filter", "input.filter", ""),
    ("rejected only", "select.placement", "cpu"),
    ("all placements", "select.placement", ""),
    ("sort by op", "sort", "op"),
    ("graph: each op", "graph", "each op"),
    ("graph: per layer", "graph", "per layer / module"),
    ("graph: per partition", "graph", "per partition"),
]


def write_report(tree: str, model: str, out: str) -> float:
    """Seconds `gpucompat report` of `tree` (a checkout's importable tree) takes to write `out`."""
    env = dict(os.environ, PYTHONPATH=tree)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "gpucompat", "report", model, "-o", out], check=True, env=env,
                   capture_output=True)
    return time.perf_counter() - start


def measure(browser, html: str, needle: str) -> dict[str, float]:
    """Milliseconds of each stage for one fresh page."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto("file://" + html, wait_until="load", timeout=300_000)
    out = page.evaluate("""async () => {
        const paint = await new Promise(resolve => new PerformanceObserver((list, observer) => {
            const fcp = list.getEntriesByName("first-contentful-paint")[0];
            if (fcp) { observer.disconnect(); resolve(fcp.startTime); }
        }).observe({type: "paint", buffered: true}));
        return {"first paint": paint, "load": performance.getEntriesByType("navigation")[0].loadEventEnd};
    }""")
    for name, control, value in STEPS:
        out[name] = page.evaluate(TIMED_CHANGE, [control, value.format(needle=needle)])
    page.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer", default="/work/main", help="the checkout to compare with")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--ops", default="chain-20k", help="a chain model of bench/scale.py")
    parser.add_argument("--cache", default=os.path.join(HERE, ".cache", "scale"))
    parser.add_argument("--model", help="a .tflite to report instead of the chain (the filter step then finds no op)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    model = args.model or build(args.cache, [args.ops])[args.ops]
    checkouts = {"this": os.path.dirname(HERE), "peer": os.path.abspath(args.peer)}
    needle = "tanh_4321"  # a converter tensor name: op 8643 writes it, op 8644 reads it
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as scratch, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        for label, checkout in checkouts.items():
            html = os.path.join(scratch, f"{label}.html")
            seconds = write_report(importable_tree(checkout, os.path.join(scratch, label)), model, html)
            runs = [measure(browser, html, needle) for _ in range(args.runs)]
            results[label] = {k: statistics.median(r[k] for r in runs) if runs[0][k] is not None else None
                              for k in runs[0]}
            print(f"{label}: {checkout}: report written in {seconds:.2f} s, page {os.path.getsize(html) / 1e6:.1f} MB",
                  flush=True)
        browser.close()
    print(f"\n{'ms (median of ' + str(args.runs) + ')':<22} {'this':>9} {'peer':>9} {'peer/this':>9}")
    for key in results["this"]:
        this, peer = results["this"][key], results["peer"].get(key)
        if this is None or peer is None:  # a step one side's page does not have
            print(f"{key:<22} {_ms(this):>9} {_ms(peer):>9} {'-':>9}")
            continue
        print(f"{key:<22} {this:>9.0f} {peer:>9.0f} {peer / this if this else float('nan'):>9.1f}")


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"


if __name__ == "__main__":
    main()
