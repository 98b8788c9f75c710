// Live updates (docs/live-updates.md): a page whose parts change when the
// data does marks each part with the events that change it,
//
//   <div hx-get="/fragment" hx-trigger="live" hx-swap="outerHTML"
//        data-live-on="notification.created document.file_uploaded">
//
// and this script opens the caller's stream (/events, signed in by the
// session cookie) once per page, only when such a part is on it, and
// triggers "live" on each part an event names, at most once a second,
// so htmx fetches it again. A reset (the page was away longer than the
// stream remembers) refreshes every part. While the stream is down,
// elements marked data-live-status are shown ("reconnecting…"); the
// browser reconnects by itself and the server resumes after the last
// event it saw. Without this script, or without a stream, the page works
// as before and is as fresh as its last load.
(function () {
  'use strict';

  var source = null;
  var listening = {};
  var pending = new Set();
  var timer = null;

  function parts() {
    return document.querySelectorAll('[data-live-on]');
  }

  function namesOf(el) {
    return (el.getAttribute('data-live-on') || '').split(/\s+/).filter(Boolean);
  }

  function status(down) {
    document.querySelectorAll('[data-live-status]').forEach(function (el) {
      el.hidden = !down;
    });
  }

  function flush() {
    timer = null;
    var names = pending;
    pending = new Set();
    parts().forEach(function (el) {
      if (names.has('reset') || namesOf(el).some(function (n) { return names.has(n); })) {
        if (window.htmx) {
          window.htmx.trigger(el, 'live');
        }
      }
    });
  }

  function heard(name) {
    pending.add(name);
    if (timer === null) {
      timer = setTimeout(flush, 1000);
    }
  }

  function listen() {
    var els = parts();
    if (els.length === 0 || typeof EventSource === 'undefined') {
      return;
    }
    if (source === null) {
      source = new EventSource('/events');
      source.addEventListener('open', function () { status(false); });
      source.addEventListener('error', function () { status(true); });
      source.addEventListener('reset', function () { heard('reset'); });
    }
    els.forEach(function (el) {
      namesOf(el).forEach(function (name) {
        if (!listening[name]) {
          listening[name] = true;
          source.addEventListener(name, function () { heard(name); });
        }
      });
    });
  }

  document.addEventListener('DOMContentLoaded', listen);
  // A part that htmx swapped in may name events not listened to yet.
  document.addEventListener('htmx:afterSettle', listen);
  window.addEventListener('pageshow', function (e) {
    if (e.persisted) {
      listen();
    }
  });
  window.addEventListener('pagehide', function () {
    if (source !== null) {
      source.close();
      source = null;
      listening = {};
    }
  });
})();
