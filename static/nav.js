// The navigation's menus are details elements, so they open and close
// without JavaScript. This makes them behave as menus do: one open at a
// time, Escape closes the open one and gives the focus back to its button,
// and a click or focus elsewhere on the page closes it.
(function () {
  'use strict';

  function menus() {
    return document.querySelectorAll('details[data-nav-menu][open]');
  }

  function closeAll(except) {
    menus().forEach(function (d) {
      if (d !== except) {
        d.removeAttribute('open');
      }
    });
  }

  document.addEventListener('toggle', function (e) {
    var d = e.target;
    if (d instanceof HTMLDetailsElement && d.hasAttribute('data-nav-menu') && d.open) {
      closeAll(d);
    }
  }, true);

  document.addEventListener('keydown', function (e) {
    if (e.key !== 'Escape') {
      return;
    }
    menus().forEach(function (d) {
      d.removeAttribute('open');
      if (d.contains(document.activeElement)) {
        d.querySelector('summary').focus();
      }
    });
  });

  function outside(e) {
    menus().forEach(function (d) {
      if (!d.contains(e.target)) {
        d.removeAttribute('open');
      }
    });
  }
  document.addEventListener('click', outside);
  document.addEventListener('focusin', outside);
})();
