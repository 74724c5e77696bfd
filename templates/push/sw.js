/* Mascarade Online's service worker (served at /sw.js, scope /, by games/web/push.py).

   It shows the site's push notifications (Web Push; the payload is the JSON of
   games/notify/push_delivery.py: title, body, url, tag) and, when one is tapped, focuses the
   window that has its page open or opens it. It has no fetch handler and caches nothing: every
   page comes from the server, so a table is never shown stale. */
"use strict";

self.addEventListener("install", function () { self.skipWaiting(); });
self.addEventListener("activate", function (event) { event.waitUntil(self.clients.claim()); });

function sameSite(url) {
  // Only a path of this site is opened: a payload cannot send the reader elsewhere.
  return typeof url === "string" && url.charAt(0) === "/" && url.charAt(1) !== "/" ? url : "/";
}

self.addEventListener("push", function (event) {
  var data = {};
  try { data = event.data ? event.data.json() : {}; } catch (ignored) { data = {}; }
  var options = {
    body: data.body || "",
    icon: "{{ icon|escapejs }}",
    badge: "{{ badge|escapejs }}",
    data: {url: sameSite(data.url), id: data.id || null}
  };
  // One notification per game: a newer one replaces the older on the device.
  if (data.tag) { options.tag = String(data.tag); options.renotify = true; }
  event.waitUntil(self.registration.showNotification(data.title || "Mascarade Online", options));
});

self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  var path = sameSite(event.notification.data && event.notification.data.url);
  var target = new URL(path, self.location.origin).href;
  event.waitUntil(self.clients.matchAll({type: "window", includeUncontrolled: true})
    .then(function (windows) {
      for (var i = 0; i < windows.length; i += 1) {
        if (windows[i].url.split("#")[0] === target && "focus" in windows[i]) {
          return windows[i].focus();
        }
      }
      return self.clients.openWindow(target);
    }));
});
