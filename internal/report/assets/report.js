// Sortable tables. Numeric cells carry their raw value in data-v; text
// cells sort by their text. No data from the log is ever parsed as HTML.
(function () {
  "use strict";
  function key(cell, numeric) {
    if (!cell) return numeric ? -Infinity : "";
    if (numeric) {
      var v = parseFloat(cell.getAttribute("data-v"));
      return isNaN(v) ? -Infinity : v;
    }
    return cell.textContent.toLowerCase();
  }
  function sortBy(table, th, col) {
    var numeric = th.getAttribute("data-type") === "num";
    var desc = !th.classList.contains("sorted-desc");
    var heads = table.tHead.rows[0].cells;
    for (var i = 0; i < heads.length; i++) heads[i].classList.remove("sorted-asc", "sorted-desc");
    th.classList.add(desc ? "sorted-desc" : "sorted-asc");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a.cells[col], numeric), y = key(b.cells[col], numeric);
      if (x < y) return desc ? 1 : -1;
      if (x > y) return desc ? -1 : 1;
      return 0;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  var tables = document.querySelectorAll("table.sortable");
  Array.prototype.forEach.call(tables, function (table) {
    if (!table.tHead || !table.tBodies.length) return;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      th.addEventListener("click", function () { sortBy(table, th, col); });
    });
  });
  document.body.setAttribute("data-ready", "1");
})();
