// The sign-up and log-in forms send the browser's time zone (a hidden input marked
// data-browser-timezone): a new account takes it unless it has one. Without this script the
// input stays empty and the account keeps UTC.
(function () {
  "use strict";
  var zone = "";
  try {
    zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  } catch (e) {
    return;
  }
  if (!zone) {
    return;
  }
  document.querySelectorAll("input[data-browser-timezone]").forEach(function (input) {
    input.value = zone;
  });
})();
