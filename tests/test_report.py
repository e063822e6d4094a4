"""`gpucompat report` and `check --html`: what the page says, checked on the HTML text itself."""

import json
import re
from html.parser import HTMLParser

from cli import gpucompat
from gpucompat.output.html import render
from gpucompat.output.html_view import doc_html, strip_runs
from models_report import BLOCKS, CUSTOM_CODE, DESCRIPTION, IMG_NAME, RUN_OPS, SCRIPT_NAME


class Page(HTMLParser):
    """Tags, attributes and text of a page, as a browser's parser would split them."""

    def __init__(self, html: str):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)

    def all(self, tag: str, cls: str | None = None) -> list[dict]:
        return [a for t, a in self.tags if t == tag and (cls is None or cls in (a.get("class") or "").split())]


def ops_data(html: str) -> list[dict]:
    """The op table data each model's section embeds for the page's script, as JSON decodes it."""
    return [json.loads(m) for m in re.findall(r'<script type="application/json" class="ops-data">(.*?)</script>',
                                              html, re.S)]


def report(tmp_path, *paths: str, extra: tuple[str, ...] = (), code: int = 0) -> str:
    out = tmp_path / "report.html"
    r = gpucompat("report", *paths, "-o", str(out), *extra)
    assert r.returncode == code, r.stderr
    return out.read_text()


def test_split_model_page(models, tmp_path):
    # gather_nd_island: CONV_2D | GATHER_ND | MUL ADD TANH; subsets GPU[0] CPU[1] GPU[2-4], only the
    # larger GPU run is delegated (see test_cli_check), so 3 of 5 ops run on the GPU.
    html = report(tmp_path, models.path("gather_nd_island"))
    page = Page(html)
    text = " ".join(" ".join(page.text).split())
    assert "3 of 5 ops (60%) run on the GPU in 1 delegated partition; 2 stay on the CPU." in text
    assert "op code #107" in text
    runs = page.all("a", "run")
    assert [r["class"].split()[1] for r in runs] == ["spare", "cpu", "gpu"]
    assert [r["style"] for r in runs] == ["flex-grow: 1", "flex-grow: 1", "flex-grow: 3"]
    assert ["delegated" in r["class"] for r in runs] == [False, False, True]
    assert ["boundary" in r["class"] for r in runs] == [False, True, True]
    (table,) = ops_data(html)
    assert [(r[1], r[2], r[5]) for r in table["ops"]] == [  # index, op, kind
        (0, "CONV_2D", "spare"), (1, "GATHER_ND", "cpu"), (2, "MUL", "gpu"), (3, "ADD", "gpu"), (4, "TANH", "gpu")]
    findings = re.findall(r'class="code">(\w+)<', html)
    assert {"GPU001", "PRT101"} <= set(findings)
    assert "## What it finds" not in html and "<h4>What it finds</h4>" in html  # rule docs rendered


def test_self_contained(models, tmp_path):
    page = Page(report(tmp_path, models.path("gather_nd_island")))
    assert not page.all("link") and not page.all("img") and not page.all("iframe")
    assert all("src" not in a for a in page.all("script"))
    assert all(a["href"].startswith("#") for a in page.all("a"))


def test_check_html_is_the_same_page(models, tmp_path):
    out = tmp_path / "check.html"
    r = gpucompat("check", models.path("gather_nd_island"), "--html", str(out))
    assert r.returncode == 1 and "GATHER_ND" in r.stdout  # the terminal output and exit code are unchanged
    assert out.read_text() == report(tmp_path, models.path("gather_nd_island"))


def test_hostile_strings_are_text(models, tmp_path):
    html = report(tmp_path, models.path("hostile_names"))
    for s in (SCRIPT_NAME, IMG_NAME, CUSTOM_CODE, DESCRIPTION):
        assert s not in html
    page = Page(html)
    assert DESCRIPTION in "".join(page.text)
    (table,) = ops_data(html)  # the op table's strings reach the page as JSON with < > & escaped
    strings = {t[0] for t in table["tensors"]} | {r[2] for r in table["ops"]}
    assert {SCRIPT_NAME, IMG_NAME, CUSTOM_CODE} <= strings
    scripts = page.all("script")
    # the graph's data, the op table's, then the one program; the graph's SVG is empty until it runs
    assert [a.get("type") for a in scripts] == ["application/json", "application/json", None]
    assert not page.all("img") and [a.get("class") for a in page.all("svg")] == ["graph"]
    assert all(set(a) <= {"class", "id", "href", "style", "title", "role", "start", "lang", "charset", "name",
                          "content", "type", "placeholder", "aria-label", "value", "data-type", "data-key",
                          "data-model", "open", "rowspan", "colspan", "xmlns", "hidden", "data-source",
                          "data-sep"} for _, a in page.tags)


def test_thousand_ops_strip_has_one_box_per_run(models, tmp_path):
    # 8 x (126 supported ops + ROUND): subsets GPU CPU GPU CPU ..., the first GPU run delegated
    # (ties go to the first), the other seven supported runs stay on the CPU.
    html = report(tmp_path, models.path("thousand_ops"))
    page = Page(html)
    runs = page.all("a", "run")
    assert len(runs) == 2 * BLOCKS
    assert [r["class"].split()[1] for r in runs] == ["gpu", "cpu"] + ["spare", "cpu"] * (BLOCKS - 1)
    assert len(ops_data(html)[0]["ops"]) == BLOCKS * (RUN_OPS + 1)


def test_before_and_after(models, tmp_path):
    html = report(tmp_path, models.path("gather_nd_island"), extra=("--after", models.path("conv_relu")))
    text = " ".join(" ".join(Page(html).text).split())
    assert "Before and after" in text
    assert "ops on GPU 3 / 5 3 / 3" in text


def test_before_and_after_leads_with_the_result(models, tmp_path):
    html = report(tmp_path, models.path("gather_nd_island"), extra=("--after", models.path("conv_relu")))
    text = " ".join(" ".join(Page(html).text).split())
    # the section is the fixed model's: its path, its headline, then the original's beside it
    after = text.index(models.path("conv_relu"))
    assert after < text.index("All 3 ops run on the GPU") < text.index("Before, ")
    assert "Before, " + models.path("gather_nd_island") + ": 3 of 5 ops (60%) run on the GPU" in text
    assert text.index("Before and after") < text.index("Execution order")
    (table,) = ops_data(html)
    assert len(table["ops"]) == 3  # the op table is the fixed model's


def test_error_record_and_absent_sections(models, tmp_path):
    bad = tmp_path / "bad.tflite"
    bad.write_bytes(b"version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 12\n")
    text = " ".join(" ".join(Page(report(tmp_path, str(bad), models.path("conv_relu"), code=2)).text).split())
    r = gpucompat("report", str(bad), models.path("conv_relu"), "-o", str(tmp_path / "again.html"))
    assert r.stderr == f"gpucompat: {bad}: is a Git LFS pointer, not the model: run `git lfs pull` to fetch it\n"
    assert "could not be checked" in text and "git lfs pull" in text
    assert "Verify" not in text and "Before and after" not in text


def test_sections_other_commands_add_are_shown_when_present():
    rec = {"path": "m.tflite", "profile": "gpu-current", "error": None,
           "options": {"backend": "cl", "allow_quant": True, "max_delegated_partitions": 1},
           "summary": {"ops_total": 1, "ops_gpu": 1, "ops_cpu": 0, "partitions_total": 1,
                       "partitions_delegated": 1, "fully_delegated": True, "delegation_fails": False},
           "subgraphs": [{"index": 0, "name": "main", "ops_total": 1, "gate": None, "topology_problem": None,
                          "node_subsets": [{"index": 0, "type": "gpu", "delegated": True, "nodes": [0]}]}],
           "unsupported": [], "findings": [],
           "ops": [{"subgraph": 0, "index": 0, "op": "ADD", "opcode": 0, "custom_code": None, "version": 1,
                    "placement": "gpu", "partition": 0, "supported": True, "layer": None, "reason": None}]}
    doc = {"tool": {"version": "0"}, "models": [rec]}
    assert "Verify" not in render(doc)
    rec["verify"] = verify_doc("m.tflite", "<out>")
    text = " ".join(" ".join(Page(render(doc)).text).split())
    assert "Verify" in text and "<out>" in text
    # numbers rounded to 3 significant digits, states in words, no field names or Python values
    assert "<out> passed 0.25 4.06e-07 2.75e-07 atol 1e-05 + rtol 0.001 x max|ref| 1.91e-06 2" in text
    assert "0.0669 ± 0.0313 ms on the reference" in text and "50 runs" in text
    for raw in ("True", "None", "max_abs_error", "0.24999999999999997", "0.06686276000664293"):
        assert raw not in text, raw


def verify_doc(model: str, output: str) -> dict:
    """A `gpucompat verify --format json` document (every field, with a float's full digits)."""
    return {"schema_version": 1, "model": model, "precision": "fp32", "runs": 50, "inputs": "seeded random (seed 0)",
            "device": "Portable Computing Language / pthread",
            "reference": {"latency_ms": {"avg": 0.06686276000664293, "std": 0.031343292388947896},
                          "model": "as stored", "noise_floor": "XNNPACK vs builtin kernels, first run"},
            "test": {"latency_ms": {"avg": 0.22166271998457887, "std": 0.052585477362215825},
                     "init_ms": 678.3305849999124},
            "outputs": [{"index": 0, "name": output, "avg_error": 2.745896927081048e-07,
                         "std_dev": 1.7101897938179863e-08, "max_abs_error": 0.24999999999999997,
                         "max_ref_abs": 13.067895889282227, "max_rel_error": 4.0596929126490087e-07,
                         "tolerance": "atol 1e-05 + rtol 0.001 x max|ref|", "noise_floor": 1.9073486328125e-06,
                         "error_to_noise": 2.0, "passed": True}],
            "passed": True, "first_divergent_op": None}


def test_strip_runs_by_hand():
    subsets = [{"type": "gpu", "delegated": True}, {"type": "cpu", "delegated": False}]
    ops = [{"subgraph": 0, "index": i, "op": op, "placement": p, "supported": s, "partition": part}
           for i, (op, p, s, part) in enumerate([("ADD", "gpu", True, 0), ("MUL", "gpu", True, 0),
                                                 ("ROUND", "cpu", False, 1), ("ADD", "gpu", True, 0)])]
    runs = strip_runs({"subgraphs": [{"node_subsets": subsets}], "ops": ops}, 0)
    assert [(r["first"], r["last"], r["kind"], r["boundary"], r["ops"]) for r in runs] == [
        (0, 1, "gpu", False, "ADD, MUL"), (2, 2, "cpu", True, "ROUND"), (3, 3, "gpu", True, "ADD")]


def test_rule_doc_markup_is_escaped():
    html = str(doc_html("## Example\n`<b>` & <i>x</i>"))
    assert html == "<h4>Example</h4><p><code>&lt;b&gt;</code> &amp; &lt;i&gt;x&lt;/i&gt;</p>"


def test_fix_and_verify_results_are_attached_to_their_model(models, tmp_path):
    model, fixed = models.path("two_gathers"), str(tmp_path / "fixed.tflite")
    fix = tmp_path / "fix.json"
    r = gpucompat("fix", model, "-o", fixed, "--format", "json")
    assert r.returncode == 0, r.stderr
    fix.write_text(r.stdout)
    verify = tmp_path / "verify.json"  # about the --after model
    verify.write_text(json.dumps(verify_doc(fixed, "Identity")))
    html = report(tmp_path, model, extra=("--after", fixed, "--fix", str(fix), "--verify", str(verify)))
    text = " ".join(" ".join(Page(html).text).split())
    b, a = json.loads(fix.read_text())["before"], json.loads(fix.read_text())["after"]
    assert b["ops_gpu"] < a["ops_gpu"] == a["ops_total"]
    assert f"ops on GPU {b['ops_gpu']} / {b['ops_total']} {a['ops_gpu']} / {a['ops_total']}" in text  # before/after
    assert "Applied rewrite safety nodes substitute-gather" in text and "Verify" in text
    assert re.search(r"reference-interpreter \S.* (passed|not run)", text)
    assert "True" not in text and "None" not in text and "failing_rewrites" not in text
    r = gpucompat("report", fixed, "-o", str(tmp_path / "x.html"), "--fix", str(fix))
    assert r.returncode == 2 and r.stderr.strip().endswith("which is not among the reported models")
    assert len(r.stderr.strip().splitlines()) == 1
    fix.write_text(json.dumps({"path": model, "applied": []}))  # not fix's output: refused, naming what lacks
    r = gpucompat("report", model, "-o", str(tmp_path / "y.html"), "--fix", str(fix))
    assert r.returncode == 2 and "not a gpucompat fix JSON result (no 'profile'" in r.stderr


def test_overview_plurals_reasons_and_shapes(models, tmp_path):
    from ai_edge_litert.interpreter import Interpreter

    paths = [models.path("rw_fp16_partial"), models.path("conv_relu"), models.path("stb_valid_odd")]
    html = report(tmp_path, *paths, extra=("--profile", "litert-mldrift"), code=0)
    page = Page(html)
    text = " ".join(" ".join(page.text).split())
    links = [a["href"] for a in page.all("a") if a.get("href", "").startswith("#model-")]
    assert links[:3] == ["#model-1", "#model-2", "#model-3"]  # the overview table, one row per model
    assert re.search(r"model ops on GPU delegated partitions .* findings .*rw_fp16_partial.tflite \d+ / 7", text)
    assert "1 partition after delegation" in text and "1 partitions" not in text
    assert not re.search(r"\b1 (partitions|node subsets|models|ops|runs)\b", text)
    fp16, _, dynamic = ops_data(html)
    reasons = [row[7] for row in fp16["ops"] if row[2] == "DEQUANTIZE"]
    # the runtime lists them (layer and reason, as for any rejected op), and no "None: " leaks
    assert reasons and all(r.startswith("partition: constant fp16 weights") for r in reasons)
    # a dynamic batch: the shape the runtime allocates, written as the terminal writes shapes
    interpreter = Interpreter(model_path=paths[2])
    [detail] = interpreter.get_input_details()
    allocated = [int(d) for d in detail["shape"]]
    assert [t[1] for t in dynamic["tensors"] if t[0] == detail["name"]] == [f"{allocated} FLOAT32"]
    assert all("?" not in t[1] and "-1" not in t[1] for t in dynamic["tensors"])
