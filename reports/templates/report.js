// Sorting and filtering of the op tables. Rows are only moved or hidden, never rebuilt, so a
// sort costs O(n log n) and a filter O(n) in the number of ops.
(function () {
  "use strict";

  function cellValue(row, col, numeric) {
    var cell = row.cells[col];
    var raw = cell.hasAttribute("data-v") ? cell.getAttribute("data-v") : cell.textContent;
    return numeric ? parseFloat(raw) : raw.trim().toLowerCase();
  }

  function sortBy(table, th) {
    var col = th.cellIndex;
    var numeric = th.getAttribute("data-type") === "num";
    var ascending = th.getAttribute("aria-sort") !== "ascending";
    table.querySelectorAll("th[aria-sort]").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    var body = table.tBodies[0];
    var keyed = Array.prototype.map.call(body.rows, function (row, i) {
      return { row: row, key: cellValue(row, col, numeric), i: i };
    });
    keyed.sort(function (a, b) {
      var c = a.key < b.key ? -1 : a.key > b.key ? 1 : a.i - b.i;
      return ascending ? c : -c;
    });
    var frag = document.createDocumentFragment();
    keyed.forEach(function (k) { frag.appendChild(k.row); });
    body.appendChild(frag);
  }

  // Each row's text is read once, on the first filtering, not on every keystroke; only rows whose
  // visibility changes are touched.
  var texts = new WeakMap();

  function rowText(row) {
    var text = texts.get(row);
    if (text === undefined) {
      text = row.textContent.toLowerCase();
      texts.set(row, text);
    }
    return text;
  }

  function filter(section) {
    var words = section.querySelector("input.filter").value.toLowerCase().split(/\s+/).filter(Boolean);
    var kind = section.querySelector("select.placement").value;
    var rows = section.querySelector("table.ops").tBodies[0].rows;
    var shown = 0;
    for (var i = 0; i < rows.length; i++) {
      var row = rows[i];
      var ok = (!kind || row.getAttribute("data-kind") === kind) &&
        (!words.length || words.every(function (w) { return rowText(row).indexOf(w) !== -1; }));
      if (row.hidden === ok) row.hidden = !ok;
      if (ok) shown++;
    }
    section.querySelector(".count").textContent = shown + " of " + rows.length + " ops";
  }

  document.querySelectorAll("section.model").forEach(function (section) {
    var table = section.querySelector("table.ops");
    if (!table) return;
    table.querySelectorAll("th[data-type] button").forEach(function (button) {
      button.addEventListener("click", function () { sortBy(table, button.parentNode); });
    });
    var run = function () { filter(section); };
    section.querySelector("input.filter").addEventListener("input", run);
    section.querySelector("select.placement").addEventListener("change", run);
    run();
  });
})();
