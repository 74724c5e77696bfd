/* Web Push on this device (games/web/push.py): on every page, the service worker (/sw.js) is
   registered where the browser has them (it shows the pushes; it caches nothing). On the
   profile and on a table's one-tap offer, a form [data-push-subscribe] (hidden until this
   script shows it: without JavaScript, or in a browser without Web Push, there is nothing to
   offer) asks the browser's permission, subscribes with the site's key (data-key), and posts
   the subscription to the form's action; the answer is read out in its [data-push-status].
   An offer [data-push-offer] is not shown on a device that is already subscribed, and its
   "not now" form [data-push-not-now] hides it. */
(function () {
  "use strict";

  var canPush = "serviceWorker" in navigator && "PushManager" in window &&
    "Notification" in window && window.isSecureContext;

  function registration() {
    return navigator.serviceWorker.register("/sw.js", {scope: "/"}).then(function () {
      return navigator.serviceWorker.ready;
    });
  }

  function keyBytes(base64url) {
    var padded = base64url.replace(/-/g, "+").replace(/_/g, "/") +
      "===".slice((base64url.length + 3) % 4);
    var raw = window.atob(padded);
    var bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i += 1) { bytes[i] = raw.charCodeAt(i); }
    return bytes;
  }

  function say(box, text, isError) {
    var status = box.querySelector("[data-push-status]");
    if (!status) { return; }
    status.textContent = text;
    status.classList.toggle("field-error", Boolean(isError));
  }

  function post(form) {
    return fetch(form.action, {
      method: "POST", body: new FormData(form), credentials: "same-origin",
      headers: {"Accept": "application/json"}
    }).then(function (response) {
      return response.json().then(function (body) {
        if (!response.ok) { throw new Error(body.detail || response.statusText); }
        return body;
      });
    });
  }

  function setUp(form) {
    var box = form.closest("[data-push-box]") || form;
    var offer = form.closest("[data-push-offer]");
    if (!canPush) {
      var none = box.querySelector("[data-push-unsupported]");
      if (none) { none.hidden = false; }
      return;
    }
    registration().then(function (reg) {
      return reg.pushManager.getSubscription();
    }).then(function (current) {
      if (offer && current) { return; }  // (this device is on already: nothing to offer)
      form.hidden = false;
      if (offer) { offer.hidden = false; }
      if (Notification.permission === "denied") {
        say(box, form.getAttribute("data-denied"), true);
      }
    }).catch(function () { /* no service worker here: nothing is offered */ });

    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var button = form.querySelector("button");
      if (button) { button.disabled = true; }
      say(box, form.getAttribute("data-working"), false);
      Notification.requestPermission().then(function (permission) {
        if (permission !== "granted") { throw new Error(form.getAttribute("data-denied")); }
        return registration();
      }).then(function (reg) {
        return reg.pushManager.getSubscription().then(function (current) {
          return current || reg.pushManager.subscribe({
            userVisibleOnly: true, applicationServerKey: keyBytes(form.getAttribute("data-key"))
          });
        });
      }).then(function (subscription) {
        form.elements.subscription.value = JSON.stringify(subscription.toJSON ?
          subscription.toJSON() : subscription);
        return post(form);
      }).then(function (body) {
        say(box, body.detail, false);
        if (!offer) { window.setTimeout(function () { window.location.reload(); }, 1200); }
        else { form.hidden = true; }
      }).catch(function (error) {
        say(box, (error && error.message) || form.getAttribute("data-failed"), true);
      }).then(function () {
        if (button) { button.disabled = false; }
      });
    });
  }

  if (canPush) {
    registration().catch(function () { /* (a browser that refuses it: nothing to show) */ });
  }
  document.querySelectorAll("form[data-push-subscribe]").forEach(setUp);
  document.querySelectorAll("form[data-push-not-now]").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var offer = form.closest("[data-push-offer]");
      post(form).then(function () { if (offer) { offer.hidden = true; } })
        .catch(function () { form.submit(); });
    });
  });
})();
