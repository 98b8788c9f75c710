// The "select all" box of the approval queue and the month-end page
// (docs/web-app.md, "Finance pages"): shown only with JavaScript, it ticks or
// clears every row's box of its form (the boxes named by its
// data-select-all value, "id" when it has none).
(function () {
  function show() {
    document.querySelectorAll('[data-select-all]').forEach(function (box) { box.hidden = false; });
  }
  document.addEventListener('change', function (e) {
    var all = e.target.closest && e.target.closest('[data-select-all]');
    if (!all) return;
    var name = all.getAttribute('data-select-all') || 'id';
    all.form.querySelectorAll('input[type=checkbox][name="' + name + '"]').forEach(function (box) { box.checked = all.checked; });
  });
  // A queue that static/live.js fetched again brings its box hidden.
  document.addEventListener('htmx:load', show);
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', show); else show();
})();
