/* The table chat (templates/games/_chat.html): the messages of the chat's feed, which comes with
   the table's live refresh (or the chat's own, before the start and after the end), are brought
   into the list: the new ones added in their place, so that a screen reader reads them out (the
   list is an aria-live region) and nothing else on the page moves, the box being typed in
   included; those hidden by a moderator or muted since are taken out. Ctrl+Enter (Cmd+Enter)
   in the box sends the message, and the box keeps the focus after a message went. Without
   JavaScript the page shows the chat as it was when it loaded, and the form posts and comes
   back. */
(function () {
  "use strict";

  function sync() {
    var feed = document.getElementById("chat-feed");
    var list = document.getElementById("chat-messages");
    if (!feed || !list) { return; }
    var wanted = feed.querySelectorAll("li[data-message]");
    var keep = {};
    wanted.forEach(function (item) { keep[item.getAttribute("data-message")] = true; });
    var shown = {};
    list.querySelectorAll("li[data-message]").forEach(function (item) {
      var id = item.getAttribute("data-message");
      if (keep[id]) { shown[id] = item; } else { item.remove(); }
    });
    var atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 48;
    var added = false;
    var previous = null;
    wanted.forEach(function (item) {
      var current = shown[item.getAttribute("data-message")];
      if (!current) {
        current = item.cloneNode(true);
        if (previous) { previous.after(current); } else { list.prepend(current); }
        added = true;
      }
      previous = current;
    });
    var empty = document.getElementById("chat-empty");
    if (empty) { empty.hidden = list.querySelector("li[data-message]") !== null; }
    if (added && atBottom) { list.scrollTop = list.scrollHeight; }
  }

  // After a message went (or was refused), the box is ready for the next one: the form came
  // back new, and the button pressed went with the old one.
  var sent = false;
  document.addEventListener("htmx:beforeRequest", function (event) {
    if (event.detail && event.detail.elt && event.detail.elt.id === "chat-form") { sent = true; }
  });
  function refocus() {
    if (!sent) { return; }
    sent = false;
    var box = document.getElementById("chat-text");
    var active = document.activeElement;
    if (box && (!active || active === document.body || active.closest("#chat-form"))) {
      box.focus();
    }
  }

  document.addEventListener("htmx:afterSettle", function () { sync(); refocus(); });
  document.addEventListener("keydown", function (event) {
    var box = event.target;
    if (box && box.id === "chat-text" && event.key === "Enter" &&
        (event.ctrlKey || event.metaKey) && box.form) {
      event.preventDefault();
      if (box.form.requestSubmit) { box.form.requestSubmit(); } else { box.form.submit(); }
    }
  });
  function start() {
    var list = document.getElementById("chat-messages");
    if (list) { list.scrollTop = list.scrollHeight; }
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
}());
