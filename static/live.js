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
//
// A part marked data-live-driver="<id>" (a driver's page) is refreshed
// only by events about that driver: data.driver_id, or data.id of a
// driver.* event; an event that names no driver (a reviewed file) may be
// about it, so it refreshes the part too. A part the user is editing (the
// focus in one of its fields, or a field changed and not sent) is not
// swapped under them: it is refreshed once it is left unchanged.
(function () {
  'use strict';

  var source = null;
  var listening = {};
  var pending = new Map(); // event name -> driver ids ('' when none is named)
  var timer = null;
  var owed = new Set(); // parts an event changed while they were being edited
  var backoff = 2000; // before opening a stream the browser gave up on
  var missed = false; // events may have been missed while no stream was open

  function parts() {
    return document.querySelectorAll('[data-live-on]');
  }

  function namesOf(el) {
    return (el.getAttribute('data-live-on') || '').split(/\s+/).filter(Boolean);
  }

  // status shows the "reconnecting" marks while the stream is down; the
  // page's data-live says "open" or "down" (what the browser tests wait for).
  function status(down) {
    document.documentElement.setAttribute('data-live', down ? 'down' : 'open');
    document.querySelectorAll('[data-live-status]').forEach(function (el) {
      el.hidden = !down;
    });
  }

  function concerns(el, names) {
    if (names.has('reset')) {
      return true;
    }
    var driver = el.getAttribute('data-live-driver');
    return namesOf(el).some(function (n) {
      var ids = names.get(n);
      return ids !== undefined && (!driver || ids.has('') || ids.has(driver));
    });
  }

  // busy tells whether the user is editing a field of the part.
  function busy(el) {
    var a = document.activeElement;
    if (a && a !== el && el.contains(a) && /^(INPUT|TEXTAREA|SELECT)$/.test(a.tagName)) {
      return true;
    }
    return Array.prototype.some.call(el.querySelectorAll('input, textarea, select'), function (f) {
      if (f.type === 'checkbox' || f.type === 'radio') {
        return f.checked !== f.defaultChecked;
      }
      if (f.tagName === 'SELECT') {
        return Array.prototype.some.call(f.options, function (o) { return o.selected !== o.defaultSelected; });
      }
      return f.type !== 'hidden' && f.value !== f.defaultValue;
    });
  }

  function refresh(el) {
    if (busy(el)) {
      owed.add(el);
    } else if (window.htmx) {
      owed.delete(el);
      window.htmx.trigger(el, 'live');
    }
  }

  function flush() {
    timer = null;
    var names = pending;
    pending = new Map();
    parts().forEach(function (el) {
      if (concerns(el, names)) {
        refresh(el);
      }
    });
  }

  // settled refreshes the parts owed an update that are no longer edited.
  function settled() {
    setTimeout(function () {
      owed.forEach(function (el) {
        if (!el.isConnected) {
          owed.delete(el);
        } else if (!busy(el)) {
          refresh(el);
        }
      });
    }, 0);
  }

  function heard(name, e) {
    var driver = '';
    try {
      var data = JSON.parse(e.data || '{}').data || {};
      driver = data.driver_id || (name.indexOf('driver.') === 0 ? data.id : '') || '';
    } catch (err) {
      // Not the webhook body (a reset's id): no driver named.
    }
    if (!pending.has(name)) {
      pending.set(name, new Set());
    }
    pending.get(name).add(driver);
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
      var es = new EventSource('/events');
      source = es;
      es.addEventListener('open', function () {
        status(false);
        backoff = 2000;
        if (missed) {
          // A new stream starts at the newest event: what came in between
          // is refetched as after a reset.
          missed = false;
          heard('reset', {});
        }
      });
      es.addEventListener('error', function () {
        status(true);
        if (source === es && es.readyState === 2) {
          // Closed for good (an answer that is not a stream: a proxy's
          // 502, a 429): the browser will not retry, so try again later.
          source = null;
          listening = {};
          missed = true;
          setTimeout(listen, backoff);
          backoff = Math.min(backoff * 2, 60000);
        }
      });
      es.addEventListener('reset', function (e) { heard('reset', e); });
    }
    els.forEach(function (el) {
      namesOf(el).forEach(function (name) {
        if (!listening[name]) {
          listening[name] = true;
          source.addEventListener(name, function (e) { heard(name, e); });
        }
      });
    });
  }

  document.addEventListener('DOMContentLoaded', listen);
  document.addEventListener('focusout', settled);
  document.addEventListener('change', settled);
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
