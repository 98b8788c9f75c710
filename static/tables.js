// A table marked table-stack is a list of cards on a phone
// (static/input.css): each cell shows its column's name on its left. This
// copies the names from the header row into the cells' data-label, on the
// page and on what htmx swaps in; a cell that has a data-label keeps it.
// Without JavaScript the cards come without the names.
(function () {
  'use strict';

  // name is a header cell's visible text: no icons, no text for screen
  // readers only.
  function name(th) {
    var c = th.cloneNode(true);
    c.querySelectorAll('.sr-only, svg').forEach(function (n) {
      n.remove();
    });
    return c.textContent.replace(/\s+/g, ' ').trim();
  }

  function label(table) {
    var head = table.tHead && table.tHead.rows[table.tHead.rows.length - 1];
    if (!head) {
      return;
    }
    var names = [];
    Array.prototype.forEach.call(head.cells, function (th) {
      var n = name(th);
      for (var i = 0; i < th.colSpan; i++) {
        names.push(n);
      }
    });
    var rows = [];
    Array.prototype.forEach.call(table.tBodies, function (b) {
      rows.push.apply(rows, b.rows);
    });
    if (table.tFoot) {
      rows.push.apply(rows, table.tFoot.rows);
    }
    rows.forEach(function (tr) {
      var col = 0;
      Array.prototype.forEach.call(tr.cells, function (cell) {
        if (cell.colSpan === 1 && names[col] && !cell.hasAttribute('data-label')) {
          cell.setAttribute('data-label', names[col]);
        }
        col += cell.colSpan;
      });
    });
  }

  function labelAll() {
    document.querySelectorAll('table.table-stack').forEach(label);
  }

  labelAll();
  document.addEventListener('htmx:load', labelAll);
})();
