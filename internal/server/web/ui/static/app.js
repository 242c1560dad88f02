// Live refresh: pages of running apps re-render their <main> every 2s
// until the app is no longer running.
(function () {
  "use strict";
  function live() { return document.body.getAttribute("data-live") === "1"; }
  function tick() {
    if (!live()) { return; }
    fetch(window.location.href, { headers: { "X-Sparkdx-Partial": "1" }, credentials: "same-origin" })
      .then(function (r) { if (!r.ok) { throw new Error("HTTP " + r.status); } return r.text(); })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var main = doc.querySelector("main");
        if (main) { document.querySelector("main").replaceWith(main); }
        var body = doc.querySelector("body");
        document.body.setAttribute("data-live", body ? body.getAttribute("data-live") : "0");
        document.body.setAttribute("data-refreshed", String(Date.now()));
      })
      .catch(function () { /* keep the page; try again */ })
      .finally(function () { setTimeout(tick, 2000); });
  }
  setTimeout(tick, 2000);
})();
