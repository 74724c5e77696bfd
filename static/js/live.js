/* The live part of a page (templates/games/_live.html: #live, a table or its waiting room),
   which htmx refreshes (hx-get, every few seconds): the request carries the ETag of what the
   page shows (If-None-Match), so that the server answers 304 while nothing changed and nothing
   is swapped; when something did, the new part replaces the old one, and what the reader was
   doing there is carried over: the panels opened or closed (<details>), the focus (by the
   element's id, or a panel's summary), the radios and boxes checked, the options selected and
   the text typed (by form, name and value, where the new part has the same field). In a hidden
   tab the refresh waits 30 seconds between requests, and comes at once when the tab shows
   again (htmx's visibilitychange trigger). Without JavaScript nothing refreshes.

   Where the page listens to its game's event stream (templates/games/_live_streamed.html:
   htmx's SSE extension, sse-connect), each "game" message refreshes the live part at once
   (hx-trigger "sse:game"), and the polling stays quiet while the stream is open; when the
   stream is not open (blocked by a proxy, the server restarting, an error) the polling does
   the work again, until the stream opens anew.

   Once the reader sent a form of their own that leaves the page (a join, a form without htmx),
   the live part is no longer refreshed: a refresh then could swap the form away, or reload the
   page (the waiting room does once the game started), and cut the reader's own navigation
   short. Should that navigation not come (stopped by the reader), the refreshes start again
   after LEAVING_MS, or when the page shows again from the browser's cache. */
(function () {
  "use strict";

  var HIDDEN_MS = 30000;
  var LEAVING_MS = 15000;
  var last = 0;
  var saved = null;
  // The reader's own form is on its way (a navigation away from this page).
  var leaving = false;
  var leavingTimer = null;

  document.addEventListener("submit", function (event) {
    if (event.defaultPrevented) { return; }  // (a form htmx sends: the page stays)
    leaving = true;
    clearTimeout(leavingTimer);
    leavingTimer = setTimeout(function () { leaving = false; }, LEAVING_MS);
  });
  // Only a page shown again from the browser's cache: the first load's own pageshow (with
  // persisted false) can come after a click on a page still loading a resource.
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) { leaving = false; }
  });
  // The event stream is open (htmx:sseOpen) and no error came since.
  var streaming = false;

  document.addEventListener("htmx:sseOpen", function () { streaming = true; });
  document.addEventListener("htmx:sseError", function () { streaming = false; });
  document.addEventListener("htmx:sseClose", function () { streaming = false; });

  function polled(event) {
    var config = event.detail && event.detail.requestConfig;
    var cause = config && config.triggeringEvent;
    return !cause || !cause.type ||
      (cause.type.indexOf("sse:") !== 0 && cause.type !== "visibilitychange");
  }

  function live(event) {
    var elt = event.detail && event.detail.elt;
    return elt && elt.id === "live" ? elt : null;
  }

  function panelKey(details, index) {
    if (details.id) { return "#" + details.id; }
    var summary = details.querySelector("summary");
    return "summary:" + (summary ? summary.textContent.trim() : "") + ":" + index;
  }

  function fieldKey(field) {
    var form = field.form;
    var key = (form ? form.getAttribute("action") || "" : "") + "|" + field.name;
    if (field.type === "radio" || field.type === "checkbox") { key += "=" + field.value; }
    return key;
  }

  function fields(root) {
    return Array.prototype.filter.call(root.querySelectorAll("input, select, textarea"),
      function (field) {
        return field.name && field.type !== "hidden" && field.type !== "submit" &&
          field.type !== "button";
      });
  }

  function save(root) {
    var state = {panels: {}, values: {}, focus: null, selection: null};
    root.querySelectorAll("details").forEach(function (details, index) {
      state.panels[panelKey(details, index)] = details.open;
    });
    fields(root).forEach(function (field) {
      var key = fieldKey(field);
      if (field.type === "radio" || field.type === "checkbox") {
        state.values[key] = field.checked;
      } else if (field.tagName === "SELECT") {
        state.values[key] = Array.prototype.map.call(field.selectedOptions,
          function (option) { return option.value; });
      } else {
        state.values[key] = field.value;
      }
    });
    var active = document.activeElement;
    if (active && root.contains(active)) {
      if (active.id) {
        state.focus = "#" + active.id;
      } else if (active.tagName === "SUMMARY" && active.parentElement) {
        var all = Array.prototype.slice.call(root.querySelectorAll("details"));
        state.focus = "summary " + panelKey(active.parentElement,
                                            all.indexOf(active.parentElement));
      }
      if (typeof active.selectionStart === "number") {
        try {
          state.selection = [active.selectionStart, active.selectionEnd];
        } catch (ignored) { state.selection = null; }
      }
    }
    return state;
  }

  function restore(root, state) {
    var summaries = {};
    root.querySelectorAll("details").forEach(function (details, index) {
      var key = panelKey(details, index);
      if (Object.prototype.hasOwnProperty.call(state.panels, key)) {
        details.open = state.panels[key];
      }
      summaries["summary " + key] = details.querySelector("summary");
    });
    fields(root).forEach(function (field) {
      var key = fieldKey(field);
      if (!Object.prototype.hasOwnProperty.call(state.values, key)) { return; }
      var value = state.values[key];
      if (field.type === "radio" || field.type === "checkbox") {
        field.checked = value;
      } else if (field.tagName === "SELECT") {
        Array.prototype.forEach.call(field.options, function (option) {
          option.selected = value.indexOf(option.value) !== -1;
        });
      } else {
        field.value = value;
      }
    });
    if (!state.focus) { return; }
    var target = state.focus.charAt(0) === "#"
      ? document.getElementById(state.focus.slice(1)) : summaries[state.focus];
    var active = document.activeElement;
    if (target && root.contains(target) && active !== target &&
        (!active || active === document.body || !document.contains(active) ||
         root.contains(active))) {
      target.focus({preventScroll: true});
      if (state.selection && typeof target.setSelectionRange === "function") {
        try {
          target.setSelectionRange(state.selection[0], state.selection[1]);
        } catch (ignored) { /* (a field without a selection) */ }
      }
    }
  }

  // A hidden tab asks every 30 seconds only; the ETag of what is shown goes with each request.
  document.addEventListener("htmx:beforeRequest", function (event) {
    if (!live(event)) { return; }
    if (leaving || (streaming && polled(event))) {
      event.preventDefault();
      return;
    }
    var now = Date.now();
    if (document.hidden && now - last < HIDDEN_MS) {
      event.preventDefault();
      return;
    }
    last = now;
  });
  document.addEventListener("htmx:configRequest", function (event) {
    var elt = live(event);
    var etag = elt && elt.getAttribute("data-etag");
    if (etag) { event.detail.headers["If-None-Match"] = etag; }
  });

  // 304 (or the same fragment again): nothing to swap. Otherwise what the reader was doing in
  // the old part is kept for the new one.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var elt = live(event);
    if (!elt) { return; }
    var xhr = event.detail.xhr;
    var etag = xhr && xhr.getResponseHeader("ETag");
    if (!xhr || xhr.status === 304 || !event.detail.serverResponse ||
        (etag && etag === elt.getAttribute("data-etag"))) {
      event.detail.shouldSwap = false;
      return;
    }
    saved = save(elt);
  });
  document.addEventListener("htmx:afterSwap", function () {
    var root = document.getElementById("live");
    if (saved && root) { restore(root, saved); }
    saved = null;
  });
}());
