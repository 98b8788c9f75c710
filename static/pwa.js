// Registers the service worker (/sw.js) that makes the pages an
// installable app. Browsers without service workers simply skip it.
(function () {
  "use strict";
  if (!("serviceWorker" in navigator)) return;
  window.addEventListener("load", function () {
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(function () {});
  });
})();
