// The approval queue's "select all" box (docs/web-app.md, "Finance pages"):
// shown only with JavaScript, it ticks or clears every row's box of its form.
(function () {
  function show() {
    document.querySelectorAll('[data-select-all]').forEach(function (box) { box.hidden = false; });
  }
  document.addEventListener('change', function (e) {
    var all = e.target.closest && e.target.closest('[data-select-all]');
    if (!all) return;
    all.form.querySelectorAll('input[type=checkbox][name=id]').forEach(function (box) { box.checked = all.checked; });
  });
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', show); else show();
})();
