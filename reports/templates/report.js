// The op tables, drawn from the JSON data each model section embeds: sorting and filtering run over
// that data, and only one page of rows is ever in the document (every matching row when printing),
// so a 20,000-op model loads and filters as fast as a small one. Model strings are set with
// textContent only: a name is always text, never markup.
(function () {
  "use strict";

  // Positions in a row of the data (gpucompat/output/html_view.py: ops_data).
  var SUBGRAPH = 0, INDEX = 1, OP = 2, OPCODE = 3, VERSION = 4, KIND = 5, PARTITION = 6, REASON = 7,
    INPUTS = 8, OUTPUTS = 9, PADDING = 10, SOURCE = 11;
  var LABELS = { gpu: "GPU", spare: "CPU (spare)", cpu: "CPU" };

  function tensorText(data, refs) {
    return refs.map(function (t) { return data.tensors[t][0] + " " + data.tensors[t][1]; }).join(" ");
  }

  // The value a column sorts by, for one row of the data.
  var SORT_KEYS = {
    subgraph: function (r) { return r[SUBGRAPH]; },
    index: function (r) { return r[INDEX]; },
    op: function (r) { return r[OP].toLowerCase(); },
    opcode: function (r) { return r[OPCODE]; },
    version: function (r) { return r[VERSION]; },
    kind: function (r) { return LABELS[r[KIND]].toLowerCase(); },
    partition: function (r) { return r[PARTITION] === null ? -1 : r[PARTITION]; },
    reason: function (r) { return r[REASON].toLowerCase(); },
    inputs: function (r, data) { return tensorText(data, r[INPUTS]).toLowerCase(); },
    outputs: function (r, data) { return tensorText(data, r[OUTPUTS]).toLowerCase(); },
    padding: function (r) { return r[PADDING] === null ? -1 : r[PADDING]; },
    source: function (r) { return r[SOURCE] === null ? "\uffff" : r[SOURCE].toLowerCase(); }
  };

  function element(tag, className, text) {
    var e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function tensorCell(td, data, refs) {
    td.className = "tensors";
    refs.forEach(function (t) {
      var div = element("div");
      div.appendChild(element("span", "tname", data.tensors[t][0]));
      div.appendChild(document.createTextNode(" "));
      div.appendChild(element("span", "shape", data.tensors[t][1]));
      td.appendChild(div);
    });
  }

  // Fills one cell of a row for the column `key`.
  var CELLS = {
    subgraph: function (td, r) { td.textContent = r[SUBGRAPH]; },
    index: function (td, r) { td.textContent = r[INDEX]; },
    op: function (td, r) { td.textContent = r[OP]; },
    opcode: function (td, r) { td.textContent = r[OPCODE]; },
    version: function (td, r) { td.textContent = r[VERSION]; },
    kind: function (td, r) { td.appendChild(element("span", "pill " + r[KIND], LABELS[r[KIND]])); },
    partition: function (td, r) { td.textContent = r[PARTITION] === null ? "" : r[PARTITION]; },
    reason: function (td, r) { td.className = "reason"; td.textContent = r[REASON]; },
    inputs: function (td, r, data) { tensorCell(td, data, r[INPUTS]); },
    outputs: function (td, r, data) { tensorCell(td, data, r[OUTPUTS]); },
    padding: function (td, r) { td.textContent = r[PADDING] === null ? "" : Math.round(100 * r[PADDING]) + "%"; },
    source: function (td, r) { td.textContent = r[SOURCE] === null ? "" : (r[SOURCE] || "(top level)"); }
  };

  // Whether the op's source is `path` or inside it (`sep` joins a path's parts); the top level
  // ("") holds every op that has a source.
  function within(source, path, sep) {
    if (source === null) return false;
    return path === "" || source === path || source.indexOf(path + sep) === 0;
  }

  function OpTable(section) {
    this.section = section;
    this.table = section.querySelector("table.ops");
    this.model = this.table.getAttribute("data-model");
    this.data = JSON.parse(section.querySelector("script.ops-data").textContent);
    this.keys = Array.prototype.map.call(this.table.tHead.rows[0].cells, function (th) {
      return th.getAttribute("data-key");
    });
    this.order = this.data.ops.map(function (r, i) { return i; });
    this.shown = this.order;
    this.texts = null;  // each row's searchable text, built on the first filtering
    this.page = 0;
    this.input = section.querySelector("input.filter");
    this.placement = section.querySelector("select.placement");
    this.pageSize = section.querySelector("select.page-size");
    this.source = null;  // [path, separator] chosen in the source tree, or null
  }

  OpTable.prototype.rowText = function (i) {
    if (!this.texts) {
      var data = this.data;
      this.texts = data.ops.map(function (r) {
        return [r[SUBGRAPH], r[INDEX], r[OP], r[OPCODE], r[VERSION], LABELS[r[KIND]],
          r[PARTITION] === null ? "" : r[PARTITION], r[REASON], tensorText(data, r[INPUTS]),
          tensorText(data, r[OUTPUTS]), r[SOURCE] || ""].join(" ").toLowerCase();
      });
    }
    return this.texts[i];
  };

  OpTable.prototype.filter = function () {
    var self = this;
    var words = this.input.value.toLowerCase().split(/\s+/).filter(Boolean);
    var kind = this.placement.value;
    var ops = this.data.ops, source = this.source;
    this.shown = !words.length && !kind && !source ? this.order : this.order.filter(function (i) {
      if (kind && ops[i][KIND] !== kind) return false;
      if (source && !within(ops[i][SOURCE], source[0], source[1])) return false;
      var text = words.length ? self.rowText(i) : "";
      return words.every(function (w) { return text.indexOf(w) !== -1; });
    });
    this.page = 0;
  };

  OpTable.prototype.sortBy = function (th) {
    var key = SORT_KEYS[th.getAttribute("data-key")];
    var ascending = th.getAttribute("aria-sort") !== "ascending";
    this.table.querySelectorAll("th[aria-sort]").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    var data = this.data;
    var keyed = data.ops.map(function (r, i) { return { key: key(r, data), i: i }; });
    keyed.sort(function (a, b) {
      var c = a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
      return (ascending ? c : -c) || a.i - b.i;
    });
    this.order = keyed.map(function (k) { return k.i; });
    this.filter();
  };

  OpTable.prototype.size = function () {
    return parseInt(this.pageSize.value, 10) || this.shown.length || 1;
  };

  // Puts rows [first, last) of the filtered, sorted ops into the table body.
  OpTable.prototype.draw = function (first, last) {
    var data = this.data, keys = this.keys, model = this.model;
    var body = document.createElement("tbody");
    for (var n = first; n < last; n++) {
      var r = data.ops[this.shown[n]];
      var tr = document.createElement("tr");
      tr.id = "op-" + model + "-" + r[SUBGRAPH] + "-" + r[INDEX];
      tr.className = r[KIND];
      tr.setAttribute("data-kind", r[KIND]);
      for (var k = 0; k < keys.length; k++) CELLS[keys[k]](tr.insertCell(), r, data);
      body.appendChild(tr);
    }
    this.table.replaceChild(body, this.table.tBodies[0]);
  };

  OpTable.prototype.render = function () {
    var size = this.size(), total = this.shown.length;
    var pages = Math.max(1, Math.ceil(total / size));
    this.page = Math.min(this.page, pages - 1);
    var first = this.page * size, last = Math.min(total, first + size);
    this.draw(first, last);
    this.section.querySelector(".count").textContent = total + " of " + this.data.ops.length + " ops" +
      (pages > 1 ? " · showing " + (first + 1) + "–" + last + " (page " + (this.page + 1) + " of " + pages + ")" : "");
    this.section.querySelector(".pager").hidden = pages <= 1;
    this.section.querySelector("button.prev").disabled = this.page === 0;
    this.section.querySelector("button.next").disabled = this.page >= pages - 1;
  };

  // Shows the op `id` (op-MODEL-SUBGRAPH-INDEX): clears a filter that hides it, turns to its page,
  // scrolls to it and marks it.
  OpTable.prototype.reveal = function (id) {
    var parts = id.split("-");
    var sg = +parts[2], index = +parts[3], ops = this.data.ops;
    var find = function (list) {
      for (var n = 0; n < list.length; n++) {
        if (ops[list[n]][SUBGRAPH] === sg && ops[list[n]][INDEX] === index) return n;
      }
      return -1;
    };
    var at = find(this.shown);
    if (at === -1) {
      this.input.value = "";
      this.placement.value = "";
      this.showSource(null);
      at = find(this.shown);
    }
    if (at === -1) return;
    this.page = Math.floor(at / this.size());
    this.render();
    var row = document.getElementById(id);
    document.querySelectorAll("tr.target").forEach(function (t) { t.classList.remove("target"); });
    row.classList.add("target");
    row.scrollIntoView({ block: "center" });
  };

  // Lists only the ops of one layer or module (`source`: [path, separator]), or every op (null).
  OpTable.prototype.showSource = function (source) {
    this.source = source;
    var chip = this.section.querySelector(".source-filter");
    chip.hidden = !source;
    if (source) chip.querySelector("code").textContent = source[0] || "(top level)";
    this.filter();
  };

  // The table's rows of one subgraph, by op index (built once per subgraph).
  OpTable.prototype.rowsOf = function (subgraph) {
    this.bySubgraph = this.bySubgraph || {};
    if (!this.bySubgraph[subgraph]) {
      var out = {};
      this.data.ops.forEach(function (r) { if (r[SUBGRAPH] === subgraph) out[r[INDEX]] = r; });
      this.bySubgraph[subgraph] = out;
    }
    return this.bySubgraph[subgraph];
  };

  OpTable.prototype.wire = function () {
    var self = this;
    this.table.querySelectorAll("th[data-key] button").forEach(function (button) {
      button.addEventListener("click", function () { self.sortBy(button.parentNode); self.render(); });
    });
    var refilter = function () { self.filter(); self.render(); };
    this.input.addEventListener("input", refilter);
    this.placement.addEventListener("change", refilter);
    this.pageSize.addEventListener("change", refilter);
    this.section.querySelector("button.prev").addEventListener("click", function () { self.page--; self.render(); });
    this.section.querySelector("button.next").addEventListener("click", function () { self.page++; self.render(); });
    this.section.querySelectorAll(".source-tree button.source").forEach(function (button) {
      button.addEventListener("click", function (event) {
        event.preventDefault();  // inside a summary: the click chooses, it does not fold
        self.showSource([button.getAttribute("data-source"), button.getAttribute("data-sep")]);
        self.render();
        document.getElementById("ops-" + self.model).scrollIntoView();
      });
    });
    this.section.querySelector("button.clear-source").addEventListener("click", function () {
      self.showSource(null);
      self.render();
    });
    this.section.querySelectorAll(".strip a.run").forEach(function (a) {
      a.addEventListener("click", function (event) {
        event.preventDefault();
        var id = a.getAttribute("href").slice(1);
        history.replaceState(null, "", "#" + id);
        self.reveal(id);
      });
    });
  };


  // The graph (gpucompat/output/graph_view.py lays it out): one SVG per model section, drawn from
  // the section's graph data for the chosen subgraph and view; wheel zooms, dragging moves, a
  // click on a box opens its card. Labels are set with textContent only.
  var SVG = "http://www.w3.org/2000/svg";
  var BOX_W = 150, BOX_H = 26, STEP_X = 170, STEP_Y = 64, LABEL = 22;
  var VIEW_NAMES = { ops: "each op", partitions: "per partition", sources: "per layer / module" };
  var KIND_NAMES = { gpu: "on the GPU", spare: "supported, on the CPU", cpu: "rejected, on the CPU",
    wrong: "on the GPU, computed wrongly", unmeasured: "on the GPU, form never measured" };

  function svgElement(tag, attrs) {
    var e = document.createElementNS(SVG, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }

  function GraphView(section, table) {
    this.section = section;
    this.table = table;
    this.data = JSON.parse(section.querySelector("script.graph-data").textContent);
    this.svg = section.querySelector("svg.graph");
    this.card = section.querySelector(".op-card");
    this.which = 0;
    this.view = null;
    this.box = null;  // [x, y, w, h] of the viewBox
  }

  GraphView.prototype.wire = function () {
    var self = this, pick = this.section.querySelector("select.graph-subgraph");
    this.data.forEach(function (sg, i) {
      var o = element("option", null, "subgraph " + sg.index + (sg.name ? " " + sg.name : "") + " (" + sg.ops + " ops)");
      o.value = i;
      pick.appendChild(o);
    });
    pick.hidden = this.data.length < 2;
    pick.addEventListener("change", function () { self.which = +pick.value; self.view = null; self.draw(); });
    this.section.querySelector("button.graph-reset").addEventListener("click", function () { self.fit(true); });
    var drag = null;
    this.svg.addEventListener("mousedown", function (e) { drag = [e.clientX, e.clientY]; });
    window.addEventListener("mouseup", function () { drag = null; });
    this.svg.addEventListener("mousemove", function (e) {
      if (!drag || !self.box) return;
      var k = self.box[2] / self.svg.clientWidth;
      self.box[0] -= (e.clientX - drag[0]) * k;
      self.box[1] -= (e.clientY - drag[1]) * k;
      drag = [e.clientX, e.clientY];
      self.place();
    });
    this.svg.addEventListener("wheel", function (e) {
      if (!self.box) return;
      e.preventDefault();
      var r = self.svg.getBoundingClientRect(), f = e.deltaY > 0 ? 1.2 : 1 / 1.2;
      var px = self.box[0] + (e.clientX - r.left) / r.width * self.box[2];
      var py = self.box[1] + (e.clientY - r.top) / r.height * self.box[3];
      self.box = [px - (px - self.box[0]) * f, py - (py - self.box[1]) * f, self.box[2] * f, self.box[3] * f];
      self.place();
    }, { passive: false });
    this.draw();
  };

  GraphView.prototype.place = function () {
    this.svg.setAttribute("viewBox", this.box.join(" "));
  };

  // Shows the graph's top, at 1:1 or smaller so that its width fits (`whole`: all of it).
  GraphView.prototype.fit = function (whole) {
    var b = this.svg.querySelector("g.viewport").getBBox(), pad = 20;
    var ratio = (this.svg.clientHeight || 1) / (this.svg.clientWidth || 1);
    var w = Math.max(b.width + 2 * pad, this.svg.clientWidth || 800), h = w * ratio;
    if (whole && h < b.height + 2 * pad) { h = b.height + 2 * pad; w = h / ratio; }
    this.box = [b.x - pad, b.y - pad, w, h];
    this.place();
  };

  GraphView.prototype.draw = function () {
    var self = this, sg = this.data[this.which];
    if (!sg) return;
    var views = sg.views;
    if (!this.view || !views[this.view]) this.view = views.ops && sg.ops <= 300 ? "ops" : "partitions";
    var bar = this.section.querySelector(".graph-views");
    bar.textContent = "";
    Object.keys(VIEW_NAMES).forEach(function (name) {
      if (!views[name]) return;
      var b = element("button", null, VIEW_NAMES[name]);
      b.type = "button";
      b.setAttribute("role", "radio");
      b.setAttribute("aria-checked", name === self.view ? "true" : "false");
      b.addEventListener("click", function () { self.view = name; self.draw(); });
      bar.appendChild(b);
    });
    var view = views[this.view];
    this.svg.textContent = "";
    var root = svgElement("g", { "class": "viewport" });
    var edges = svgElement("g", {}), boxes = svgElement("g", {});
    root.appendChild(edges);
    root.appendChild(boxes);
    this.svg.appendChild(root);
    var at = function (n) { return [n[3] * STEP_X, n[2] * STEP_Y]; };
    view.edges.forEach(function (e) {
      var a = at(view.nodes[e[0]]), b = at(view.nodes[e[1]]);
      var x1 = a[0] + BOX_W / 2, y1 = a[1] + BOX_H, x2 = b[0] + BOX_W / 2, y2 = b[1], my = (y1 + y2) / 2;
      edges.appendChild(svgElement("path", { "class": "edge" + (e[2] ? " boundary" : ""),
        d: "M" + x1 + "," + y1 + " C" + x1 + "," + my + " " + x2 + "," + my + " " + x2 + "," + y2 }));
    });
    view.nodes.forEach(function (n, i) {
      var p = at(n), g = svgElement("g", { "class": "box " + n[1] + (n[6] ? " changed" : ""),
        transform: "translate(" + p[0] + "," + p[1] + ")" });
      g.setAttribute("data-box", i);
      g.appendChild(svgElement("rect", { width: BOX_W, height: BOX_H }));
      var t = svgElement("text", { x: 6, y: 17 });
      t.textContent = n[0].length > LABEL ? n[0].slice(0, LABEL - 1) + "…" : n[0];
      g.appendChild(t);
      var title = svgElement("title", {});
      title.textContent = n[0];
      g.appendChild(title);
      g.addEventListener("click", function (event) { event.stopPropagation(); self.open(i, g); });
      boxes.appendChild(g);
    });
    this.card.hidden = true;
    this.fit(false);
  };

  // The card of box `i`: an op's reason, shapes, source and findings; a group's counts and ops.
  GraphView.prototype.open = function (i, g) {
    var self = this, sg = this.data[this.which], n = sg.views[this.view].nodes[i], table = this.table;
    this.svg.querySelectorAll(".box.chosen").forEach(function (b) { b.classList.remove("chosen"); });
    g.classList.add("chosen");
    var card = this.card;
    card.textContent = "";
    var close = element("button", "close", "×");
    close.type = "button";
    close.setAttribute("aria-label", "Close");
    close.addEventListener("click", function () { card.hidden = true; });
    card.appendChild(close);
    card.appendChild(element("h4", null, n[0]));
    var rows = table ? table.rowsOf(sg.index) : {};
    if (this.view === "ops") {
      var r = rows[n[4][0]];
      card.appendChild(element("p", null, KIND_NAMES[n[1]] + (r && r[PARTITION] !== null ? " · partition " + r[PARTITION] : "")));
      if (r && r[REASON]) card.appendChild(element("p", null, r[REASON]));
      if (r && r[SOURCE] !== null && r[SOURCE] !== undefined) card.appendChild(element("p", null, "from " + (r[SOURCE] || "(top level)")));
      if (r) {
        [["inputs", INPUTS], ["outputs", OUTPUTS]].forEach(function (io) {
          card.appendChild(element("strong", null, io[0]));
          var ul = element("ul");
          r[io[1]].forEach(function (t) { ul.appendChild(element("li", null, table.data.tensors[t][0] + " " + table.data.tensors[t][1])); });
          card.appendChild(ul);
        });
      }
      var found = sg.findings[n[4][0]] || [];
      if (found.length) {
        card.appendChild(element("strong", null, "findings"));
        var fl = element("ul");
        found.forEach(function (f) { fl.appendChild(element("li", null, f)); });
        card.appendChild(fl);
      }
    } else {
      var counts = Object.keys(n[5]).map(function (k) { return n[5][k] + " " + KIND_NAMES[k]; }).join(", ");
      card.appendChild(element("p", null, n[4].length + " op(s): " + counts));
    }
    if (table) {
      var ops = element("p"), shown = this.view === "ops" ? n[4] : n[4].slice(0, 40);
      shown.forEach(function (index) {
        var a = element("a", null, "#" + index + " " + (rows[index] ? rows[index][OP] : ""));
        a.href = "#op-" + table.model + "-" + sg.index + "-" + index;
        a.addEventListener("click", function (event) {
          event.preventDefault();
          table.reveal(a.getAttribute("href").slice(1));
        });
        ops.appendChild(a);
        ops.appendChild(document.createTextNode(" "));
      });
      if (n[4].length > shown.length) ops.appendChild(document.createTextNode("and " + (n[4].length - shown.length) + " more"));
      card.appendChild(ops);
    }
    card.hidden = false;
  };

  var tables = [];
  document.querySelectorAll("section.model").forEach(function (section) {
    if (!section.querySelector("table.ops")) return;
    var t = new OpTable(section);
    t.wire();
    t.filter();
    t.render();
    tables.push(t);
    if (section.querySelector("script.graph-data")) new GraphView(section, t).wire();
  });

  // Printing shows every op that matches the filter, not only the page on screen.
  window.addEventListener("beforeprint", function () {
    tables.forEach(function (t) { t.draw(0, t.shown.length); });
  });
  window.addEventListener("afterprint", function () {
    tables.forEach(function (t) { t.render(); });
  });

  var target = location.hash.match(/^#op-(\d+)-/);
  if (target) {
    tables.forEach(function (t) { if (t.model === target[1]) t.reveal(location.hash.slice(1)); });
  }
})();
