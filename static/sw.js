// The service worker of the installed app (served at /sw.js, scope "/").
// The server puts the list of assets to keep, each with its content hash,
// in self.KONVOJ_ASSETS before this file. Only those static files are
// kept on the phone and answered from there first; pages, API answers and
// uploaded files always go to the network and are never stored, so nothing
// of one person is ever left on a shared phone.
importScripts("/static/workbox/workbox-sw.js");

// Workbox loads its modules from Konvoj itself, never from a CDN, and the
// production builds also on localhost.
workbox.setConfig({ modulePathPrefix: "/static/workbox/", debug: false });

workbox.core.setCacheNameDetails({ prefix: "konvoj" });
workbox.core.skipWaiting();
workbox.core.clientsClaim();

// Each URL carries its content hash (?v=...), so it is its own revision.
workbox.precaching.precacheAndRoute(
  self.KONVOJ_ASSETS.map(function (url) { return { url: url, revision: null }; }),
  { ignoreURLParametersMatching: [] },
);
workbox.precaching.cleanupOutdatedCaches();
