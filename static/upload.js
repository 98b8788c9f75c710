// Document uploads (views.UploadPanel): drag-and-drop onto the drop zone, a
// camera button on phones, a size check before anything is sent, and a
// progress bar fed by XMLHttpRequest's upload events. The request speaks
// htmx's protocol (HX-Request, HX-Redirect, HX-Retarget), so the server
// answers it like any htmx request: the document panel, after success or
// with the messages. Without this script the form is a plain multipart
// form post, which works too.
(function () {
  'use strict';

  var kept = ['number', 'valid_from', 'valid_until'];

  function setup(form) {
    if (form.dataset.ready) {
      return;
    }
    form.dataset.ready = 'true';
    var input = form.querySelector('input[type=file][name=file]');
    var zone = form.querySelector('[data-dropzone]');
    var camera = form.querySelector('input[data-camera]');
    var nameOut = form.querySelector('[data-file-name]');

    form.querySelectorAll('[data-js-only]').forEach(function (el) {
      el.hidden = false;
    });
    // The translated buttons and file name replace the browser's control
    // (which stays focusable for the keyboard).
    input.classList.add('sr-only');

    function choose(file) {
      var dt = new DataTransfer();
      dt.items.add(file);
      input.files = dt.files;
      showName();
    }

    function showName() {
      var name = input.files.length ? input.files[0].name : '';
      nameOut.textContent = name ? (form.dataset.selected || '{name}').replace('{name}', name) : nameOut.dataset.empty;
      clientError(form, '');
    }

    input.addEventListener('change', showName);
    if (camera) {
      camera.addEventListener('change', function () {
        if (camera.files.length) {
          choose(camera.files[0]);
          camera.value = '';
        }
      });
    }
    if (zone) {
      ['dragenter', 'dragover'].forEach(function (type) {
        zone.addEventListener(type, function (e) {
          e.preventDefault();
          zone.dataset.over = 'true';
        });
      });
      ['dragleave', 'drop'].forEach(function (type) {
        zone.addEventListener(type, function () {
          delete zone.dataset.over;
        });
      });
      zone.addEventListener('drop', function (e) {
        e.preventDefault();
        if (e.dataTransfer && e.dataTransfer.files.length) {
          choose(e.dataTransfer.files[0]);
        }
      });
    }

    form.addEventListener('submit', function (e) {
      e.preventDefault();
      var file = input.files[0];
      var max = Number(form.dataset.maxBytes || 0);
      if (file && max && file.size > max) {
        clientError(form, form.dataset.tooLarge);
        return;
      }
      send(form);
    });
  }

  // clientError shows (or with '' hides) a message found before sending.
  function clientError(form, text) {
    var out = form.querySelector('[data-client-error]');
    if (!out) {
      return;
    }
    out.textContent = text;
    out.hidden = !text;
  }

  function send(form) {
    var button = form.querySelector('button[type=submit]');
    var progress = form.querySelector('[data-progress]');
    var bar = progress.querySelector('progress');
    var pct = progress.querySelector('[data-progress-text]');
    var values = {};
    kept.forEach(function (name) {
      if (form.elements[name]) {
        values[name] = form.elements[name].value;
      }
    });

    var data = new FormData(form);
    var file = data.get('file');
    if (file && typeof file === 'object' && !file.name && !file.size) {
      // Nothing chosen: let the server say the file is required.
      data.delete('file');
    }

    var xhr = new XMLHttpRequest();
    xhr.open('POST', form.action);
    xhr.setRequestHeader('HX-Request', 'true');
    xhr.setRequestHeader('HX-Current-URL', location.href);
    if (form.elements._csrf) {
      xhr.setRequestHeader('X-CSRF-Token', form.elements._csrf.value);
    }
    xhr.upload.addEventListener('progress', function (e) {
      if (e.lengthComputable) {
        var p = Math.round((e.loaded / e.total) * 100);
        bar.value = p;
        pct.textContent = p + ' %';
      }
    });
    xhr.addEventListener('load', function () {
      var redirect = xhr.getResponseHeader('HX-Redirect');
      if (redirect) {
        location.assign(redirect);
        return;
      }
      var retarget = xhr.getResponseHeader('HX-Retarget');
      if (retarget) {
        // An error page (403, 404, 500…) for the main area.
        var main = document.querySelector(retarget);
        main.innerHTML = xhr.responseText;
        main.scrollIntoView();
        return;
      }
      var panel = document.getElementById(form.dataset.upload);
      var holder = document.createElement('div');
      holder.innerHTML = xhr.responseText;
      var next = holder.firstElementChild;
      panel.replaceWith(next);
      next.querySelectorAll('form[data-upload]').forEach(function (f) {
        setup(f);
        if (xhr.status >= 400) {
          // The fields went to the server inside the stream: put them back.
          Object.keys(values).forEach(function (name) {
            if (f.elements[name] && !f.elements[name].value) {
              f.elements[name].value = values[name];
            }
          });
        }
      });
      var focus = next.querySelector('[aria-invalid=true], [role=alert], [role=status]');
      if (focus) {
        if (!focus.matches('input, select, textarea')) {
          focus.tabIndex = -1;
        }
        focus.focus();
      }
      if (window.htmx) {
        window.htmx.process(next);
      }
    });
    xhr.addEventListener('error', failed);
    xhr.addEventListener('abort', failed);

    function failed() {
      button.disabled = false;
      progress.hidden = true;
      clientError(form, form.dataset.failed);
    }

    button.disabled = true;
    bar.value = 0;
    pct.textContent = '0 %';
    progress.hidden = false;
    clientError(form, '');
    xhr.send(data);
  }

  function init() {
    document.querySelectorAll('form[data-upload]').forEach(setup);
  }
  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', init);
  } else {
    init();
  }
})();
