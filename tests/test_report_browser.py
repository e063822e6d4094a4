"""The HTML report in a real headless Chromium (Debian's `chromium`, driven by Playwright): it loads
with no console errors, the op table sorts and filters, markup in a model's names stays text, and
1,000 and 20,000 op models render a page of rows at a time. Screenshots go to artifacts/ (gitignored)
for a person to look at."""

import os

import pytest

from cli import gpucompat
from models_report import BLOCKS, CUSTOM_CODE, IMG_NAME, RUN_OPS, SCRIPT_NAME
from models_scale import LONG_HOSTILE, LONG_OPS, LONG_ROUND

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "artifacts")

if not os.path.exists(CHROMIUM) and not os.environ.get("CI"):  # CI installs it (.ci/run): never skip there
    pytest.skip("Debian's chromium is not installed (apt-get install chromium)", allow_module_level=True)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield b
        b.close()


class Opened:
    """A report open in a fresh page, with every console message, page error and dialog recorded."""

    def __init__(self, browser, html_path: str, color_scheme: str = "light"):
        self.page = browser.new_page(viewport={"width": 1280, "height": 900}, color_scheme=color_scheme)
        self.console: list[str] = []
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}"))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.page.on("request",
                     lambda r: None if r.url.startswith("file://") else self.errors.append(f"request {r.url}"))
        self.page.goto("file://" + html_path)

    def column(self, header: str) -> list[str]:
        """The visible cells of a column of the first op table, in display order."""
        return self.page.evaluate(
            """(header) => {
                const table = document.querySelector("table.ops");
                const col = [...table.tHead.rows[0].cells].findIndex(c => c.textContent.trim() === header);
                return [...table.tBodies[0].rows].filter(r => !r.hidden).map(r => r.cells[col].textContent.trim());
            }""", header)

    def screenshot(self, name: str) -> None:
        os.makedirs(ARTIFACTS, exist_ok=True)
        self.page.screenshot(path=os.path.join(ARTIFACTS, name), full_page=True)


def report(tmp_path, name: str, model: str) -> str:
    out = str(tmp_path / name)
    r = gpucompat("report", model, "-o", out)
    assert r.returncode == 0, r.stderr
    return out


def test_loads_sorts_and_filters(browser, models, tmp_path):
    page = Opened(browser, report(tmp_path, "split.html", models.path("gather_nd_island")))
    assert page.errors == [] and page.console == []
    assert page.column("#") == ["0", "1", "2", "3", "4"]
    # gather_nd_island in plan order: CONV_2D GATHER_ND MUL ADD TANH
    page.page.click("table.ops th >> text=op")
    assert page.column("op") == ["ADD", "CONV_2D", "GATHER_ND", "MUL", "TANH"]
    page.page.click("table.ops th >> text=op")
    assert page.column("op") == ["TANH", "MUL", "GATHER_ND", "CONV_2D", "ADD"]
    page.page.click("table.ops th >> text=#")
    page.page.click("table.ops th >> text=#")
    assert page.column("#") == ["4", "3", "2", "1", "0"]
    page.page.fill("input.filter", "gather 107")  # every word must match: MUL reads the GatherNd tensor
    assert page.column("op") == ["GATHER_ND"]
    assert page.page.text_content(".count") == "1 of 5 ops"
    page.page.fill("input.filter", "")
    page.page.select_option("select.placement", "gpu")
    assert page.column("op") == ["TANH", "ADD", "MUL"]
    page.page.select_option("select.placement", "spare")
    assert page.column("op") == ["CONV_2D"]
    page.page.select_option("select.placement", "")
    page.screenshot("report-split.png")
    Opened(browser, page.page.url.removeprefix("file://"), "dark").screenshot("report-split-dark.png")
    assert page.errors == [] and page.console == []


def test_hostile_names_are_text(browser, models, tmp_path):
    page = Opened(browser, report(tmp_path, "hostile.html", models.path("hostile_names")))
    assert page.dialogs == [] and page.errors == [] and page.console == []
    assert page.page.evaluate("document.querySelectorAll('script:not([type=\"application/json\"])').length") == 1
    # the graph is the page's one SVG, and a name in it (a box's label and title) stays text there too
    assert page.page.evaluate("document.querySelectorAll('img, iframe, svg:not(.graph), svg.graph svg, "
                              "svg.graph foreignObject, svg.graph script').length") == 0
    page.page.locator("svg.graph g.box").first.click()
    assert page.dialogs == [] and page.errors == []
    names = page.page.evaluate("[...document.querySelectorAll('.tname')].map(e => e.textContent)")
    assert SCRIPT_NAME in names and IMG_NAME in names
    assert CUSTOM_CODE in page.column("op")
    page.page.fill("input.filter", "onerror")  # filtering runs over the names, still as text
    assert page.column("#") == ["0", "1"]
    assert page.dialogs == [] and page.errors == []
    page.screenshot("report-hostile.png")


def test_thousand_ops(browser, models, tmp_path):
    page = Opened(browser, report(tmp_path, "thousand.html", models.path("thousand_ops")))
    total = BLOCKS * (RUN_OPS + 1)
    assert page.page.text_content(".count") == f"{total} of {total} ops · showing 1–200 (page 1 of 6)"
    assert page.column("#")[-1] == "199"
    page.page.click("button.next")
    assert page.column("#")[:2] == ["200", "201"] and page.page.is_disabled("button.prev") is False
    page.page.select_option("select.page-size", "0")  # every row on one page
    assert len(page.column("#")) == total and page.page.text_content(".count") == f"{total} of {total} ops"
    page.page.select_option("select.page-size", "200")
    assert page.page.evaluate("document.querySelectorAll('.strip .run').length") == 2 * BLOCKS
    page.page.click("table.ops th >> text=#")
    page.page.click("table.ops th >> text=#")
    assert page.column("#")[:3] == [str(total - 1), str(total - 2), str(total - 3)]
    page.page.select_option("select.placement", "cpu")
    assert page.column("op") == ["ROUND"] * BLOCKS
    page.page.select_option("select.placement", "gpu")
    assert len(page.column("#")) == RUN_OPS  # only the first run is delegated
    assert page.errors == [] and page.console == []
    page.screenshot("report-thousand.png")


def test_dark_and_print(browser, models, tmp_path):
    path = report(tmp_path, "modes.html", models.path("gather_nd_island"))
    background = "getComputedStyle(document.body).backgroundColor"
    light, dark = Opened(browser, path, "light"), Opened(browser, path, "dark")
    assert light.page.evaluate(background) == "rgb(255, 255, 255)"
    assert dark.page.evaluate(background) == "rgb(21, 24, 30)"  # --bg of the dark scheme
    dark.page.emulate_media(media="print")  # printing is light, without the table controls
    assert dark.page.evaluate(background) == "rgb(255, 255, 255)"
    assert not dark.page.is_visible(".controls")
    assert dark.page.pdf()[:4] == b"%PDF"


def test_twenty_thousand_ops(browser, models, tmp_path):
    # ADD, TANH x 19,997, ROUND (rejected), TANH; tensor `link_N` is op N's output, one named SCRIPT_NAME
    page = Opened(browser, report(tmp_path, "long.html", models.path("scale_long_chain")))
    rows = "document.querySelectorAll('table.ops tbody tr').length"
    assert page.page.text_content(".count") == f"{LONG_OPS} of {LONG_OPS} ops · showing 1–200 (page 1 of 100)"
    assert page.page.evaluate(rows) == 200
    page.page.fill("input.filter", "round")
    assert page.column("op") == ["ROUND", "TANH"]  # the last TANH reads the converter's tensor "Round"
    assert page.column("#") == [str(LONG_ROUND), str(LONG_OPS - 1)]
    assert page.page.text_content(".count") == f"2 of {LONG_OPS} ops"
    page.page.fill("input.filter", f"link_{LONG_ROUND - 1}")  # written by the op before ROUND, read by ROUND
    assert page.column("#") == [str(LONG_ROUND - 1), str(LONG_ROUND)]
    page.page.fill("input.filter", "<script>")
    assert page.column("#") == [str(LONG_HOSTILE), str(LONG_HOSTILE + 1)]
    assert SCRIPT_NAME in page.page.evaluate("[...document.querySelectorAll('.tname')].map(e => e.textContent)")
    page.page.fill("input.filter", "")
    page.page.select_option("select.placement", "cpu")
    assert page.column("#") == [str(LONG_ROUND)]
    page.page.select_option("select.placement", "")

    page.page.click("table.ops th >> text=op")
    assert page.column("op")[:3] == ["ADD", "ROUND", "TANH"] and page.column("#")[:3] == ["0", str(LONG_ROUND), "1"]
    page.page.click("table.ops th >> text=op")
    assert page.column("#")[:2] == ["1", "2"]  # TANH first, ties in plan order

    page.page.fill("input.filter", "link_5")  # hides ROUND; the strip's box for it still jumps there
    page.page.click(f".strip a.run[href='#op-1-0-{LONG_ROUND}']")
    target = page.page.locator(f"#op-1-0-{LONG_ROUND}")
    assert target.is_visible() and "target" in target.get_attribute("class")
    assert page.page.input_value("input.filter") == ""
    assert page.page.text_content(".count").endswith("(page 100 of 100)")  # descending: ROUND, ADD last

    page.page.evaluate("window.dispatchEvent(new Event('beforeprint'))")  # printing: every matching op
    assert page.page.evaluate(rows) == LONG_OPS and page.column("op")[-2:] == ["ROUND", "ADD"]
    page.page.evaluate("window.dispatchEvent(new Event('afterprint'))")
    assert page.page.evaluate(rows) == 200
    assert page.dialogs == [] and page.errors == [] and page.console == []


def test_several_models_with_fix_and_verify_fit_the_page(browser, models, tmp_path):
    # three models with long names, a fix and a verify result: an overview table, the results as
    # tables, and nothing wider than the window, down to a phone-sized one
    long_dir = tmp_path / ("a_models_folder_with_a_rather_long_name_" * 3)
    long_dir.mkdir()
    paths = []
    for name in ("rw_fp16_partial", "two_gathers", "conv_relu"):
        paths.append(str(long_dir / f"{name}_exported_from_the_training_pipeline_v2.tflite"))
        with open(paths[-1], "wb") as f:
            f.write(models.bytes(name))
    fixed = str(tmp_path / "fixed.tflite")
    r = gpucompat("fix", paths[1], "-o", fixed, "--format", "json")
    assert r.returncode == 0, r.stderr
    (tmp_path / "fix.json").write_text(r.stdout)
    out = str(tmp_path / "many.html")
    r = gpucompat("report", *paths, "-o", out, "--fix", str(tmp_path / "fix.json"))
    assert r.returncode == 0, r.stderr
    page = Opened(browser, out)
    assert page.errors == [] and page.console == []
    rows = page.page.evaluate("[...document.querySelectorAll('table.overview tbody tr')].map(r => r.cells.length)")
    assert rows == [6, 6, 6]
    names = page.page.evaluate("[...document.querySelectorAll('table.overview td.path a')].map(a => a.textContent)")
    assert names == paths
    fix_rows = page.page.evaluate(
        "[...document.querySelectorAll('#fix-2 table')].map(t => t.tBodies[0].rows.length)")
    assert fix_rows[0] == 6 and len(fix_rows) >= 2  # before/after, applied rewrites (and the verification)
    widths = "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    for width in (1280, 800, 420):
        page.page.set_viewport_size({"width": width, "height": 900})
        scroll, client = page.page.evaluate(widths)
        wide = page.page.evaluate("[...document.querySelectorAll('body *')].filter(e => "
                                  "e.getBoundingClientRect().right > document.documentElement.clientWidth)"
                                  ".map(e => e.tagName + '.' + e.className).slice(0, 5)")
        assert scroll <= client, f"{scroll}px of content in a {client}px window: {wide}"
        if width == 1280:
            page.screenshot("report-many.png")
            page.page.locator("#fix-2").screenshot(path=os.path.join(ARTIFACTS, "report-fix.png"))
    assert page.errors == [] and page.console == []


def test_source_tree_of_a_real_model_filters_the_op_table(browser, models, tmp_path):
    page = Opened(browser, report(tmp_path, "convnext.html", models.path("attr_convnext_tiny")))
    assert page.errors == [] and page.console == []
    total = page.page.evaluate("JSON.parse(document.querySelector('script.ops-data').textContent).ops.length")
    assert total >= 500
    layer = "convnext_tiny_stage_1_block_0_pointwise_conv_1"
    button = page.page.locator(f'.source-tree button.source[data-source="{layer}"]')
    button.scroll_into_view_if_needed()
    button.click()
    where = page.column("where")
    assert where and set(where) == {layer}
    assert page.page.locator(".source-filter code").text_content() == layer
    assert page.page.locator(".count").first.text_content().startswith(f"{len(where)} of {total} ops")
    page.screenshot("source_tree.png")
    page.page.click("button.clear-source")
    assert page.page.locator(".count").first.text_content().startswith(f"{total} of {total} ops")


def _boxes(page) -> int:
    return page.page.locator("svg.graph g.box").count()


def test_graph_draws_and_a_click_opens_the_op_card(browser, models, tmp_path):
    # gather_nd_island in plan order: CONV_2D GATHER_ND MUL ADD TANH; the GATHER_ND is rejected
    page = Opened(browser, report(tmp_path, "graph.html", models.path("gather_nd_island")))
    assert _boxes(page) == 5
    assert page.page.locator("svg.graph path.edge.boundary").count() == 2  # into and out of the CPU's op
    gather = page.page.locator("svg.graph g.box.cpu")
    assert gather.count() == 1
    gather.click()
    card = page.page.locator(".op-card")
    assert card.is_visible()
    text = card.text_content()
    assert "#1 GATHER_ND" in text and "rejected" in text and "GPU001" in text and "inputs" in text
    page.page.click(".op-card a")  # the card's link shows the op in the table
    assert "target" in page.page.locator("#op-1-0-1").get_attribute("class")
    page.page.click("text=per partition")
    assert _boxes(page) == 3
    page.screenshot("graph_card.png")
    assert page.errors == [] and page.console == []


def test_graph_of_a_real_model_and_of_twenty_thousand_ops_starts_collapsed(browser, models, tmp_path):
    page = Opened(browser, report(tmp_path, "convnext.html", models.path("attr_convnext_tiny")))
    assert page.page.locator(".graph-views button[aria-checked=true]").text_content() == "per partition"
    page.page.click("text=each op")
    assert _boxes(page) >= 500
    page.page.click("text=per layer / module")
    layers = _boxes(page)
    assert 20 < layers < 500
    page.screenshot("graph_convnext.png")
    long = Opened(browser, report(tmp_path, "long_graph.html", models.path("scale_long_chain")))
    views = long.page.locator(".graph-views button").all_text_contents()
    assert views[0] == "per partition" and "each op" not in views  # 20,000 ops are never drawn one by one
    assert 1 <= _boxes(long) <= 5
    assert page.errors == [] and page.console == [] and long.errors == [] and long.console == []


def test_the_fixed_graph_marks_what_the_fix_wrote(browser, models, tmp_path):
    fixed = str(tmp_path / "fixed.tflite")
    r = gpucompat("fix", models.path("gather_nd_island"), "-o", fixed, "--no-verify")
    assert r.returncode == 0, r.stderr
    out = str(tmp_path / "after.html")
    r = gpucompat("report", models.path("gather_nd_island"), "--after", fixed, "-o", out)
    assert r.returncode == 0, r.stderr
    page = Opened(browser, out)
    # substitute-gather replaced the GATHER_ND: its slice (and what reshapes it) are the fix's
    changed = page.page.locator("svg.graph g.box.changed")
    assert 1 <= changed.count() < _boxes(page)
    assert page.page.locator("svg.graph g.box.cpu").count() == 0
    page.screenshot("graph_after_fix.png")
    assert page.errors == [] and page.console == []
