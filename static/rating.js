// The rating configuration's running sum of the weights (docs/web-app.md,
// "Rating pages"): as the user types a weight, the sum beside the buttons
// follows, and says when it is not 100. Without JavaScript the sum is the
// one the server computed, and saving says the same.
(function () {
  function parse(v) {
    v = (v || '').trim().replace(',', '.');
    if (v === '') return 0;
    var n = Number(v);
    return isFinite(n) ? n : NaN;
  }
  function update(form) {
    var sum = 0;
    form.querySelectorAll('[data-weight]').forEach(function (input) { sum += parse(input.value); });
    var out = form.querySelector('[data-weight-sum]');
    var warn = form.querySelector('[data-weight-warning]');
    if (!out) return;
    var ok = isFinite(sum);
    out.textContent = ok ? String(Math.round(sum * 100) / 100) : '?';
    if (warn) warn.hidden = ok && Math.abs(sum - 100) < 0.005;
  }
  document.addEventListener('input', function (e) {
    var form = e.target.closest && e.target.closest('[data-weights-form]');
    if (form && e.target.matches('[data-weight]')) update(form);
  });
  function init() { document.querySelectorAll('[data-weights-form]').forEach(update); }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init); else init();
})();
