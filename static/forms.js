// Forms marked data-once are sent once: a second click or Enter while the
// first request is on its way does nothing, and the submit buttons say they
// are busy (aria-disabled, not disabled, so a button's own name and value
// still go with the form). The server refuses doubles by itself too
// (docs/web-app.md, "Double submits"); this spares the person the second
// answer. Coming back to the page (the back button) makes the form usable
// again.
(function () {
  'use strict';

  document.addEventListener('submit', function (e) {
    var form = e.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute('data-once')) {
      return;
    }
    if (form.dataset.sent) {
      e.preventDefault();
      return;
    }
    form.dataset.sent = 'true';
    form.querySelectorAll('button[type=submit]').forEach(function (b) {
      b.setAttribute('aria-disabled', 'true');
      b.classList.add('opacity-60', 'cursor-wait');
    });
  });

  window.addEventListener('pageshow', function () {
    document.querySelectorAll('form[data-once][data-sent]').forEach(function (form) {
      delete form.dataset.sent;
      form.querySelectorAll('button[type=submit]').forEach(function (b) {
        b.removeAttribute('aria-disabled');
        b.classList.remove('opacity-60', 'cursor-wait');
      });
    });
  });
})();

// A refused form shown again keeps the address of the page it was on, not
// the address it posted to (the server names it: body[data-address]), so a
// reload or a bookmark opens the page rather than a POST-only address.
(function () {
  'use strict';

  var at = document.body && document.body.getAttribute('data-address');
  if (at && at.charAt(0) === '/' && at.charAt(1) !== '/' && location.pathname + location.search !== at) {
    history.replaceState(history.state, '', at);
  }
})();
