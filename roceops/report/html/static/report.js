/* roceops report: show a device's findings on click or keyboard focus; filter by check and status; open a group
   from its overview tile. Hand-written, no dependencies; without it the page still shows the map and tables. */
(function () {
  "use strict";
  var rows = Array.prototype.slice.call(document.querySelectorAll("#findings tbody tr"));
  var devs = Array.prototype.slice.call(document.querySelectorAll(".map .dev"));
  var panel = document.getElementById("panel");
  var selected = null;

  function show(g) {
    if (!panel) { return; }
    var name = g.getAttribute("data-device");
    if (selected) { selected.classList.remove("sel"); }
    selected = g;
    g.classList.add("sel");
    document.getElementById("panel-h").textContent = name;
    var mine = rows.filter(function (r) { return r.getAttribute("data-device") === name; });
    var label = g.getAttribute("aria-label") || name;
    document.getElementById("panel-status").textContent =
      label + (mine.length ? "" : " (no findings)");
    var body = document.getElementById("panel-rows");
    body.textContent = "";
    mine.forEach(function (r) { body.appendChild(r.cloneNode(true)); });
    panel.hidden = false;
  }

  document.addEventListener("click", function (e) {
    var g = e.target.closest && e.target.closest(".map .dev");
    if (g) { show(g); return; }
    var tile = e.target.closest && e.target.closest(".map .tile");
    if (tile) {
      var box = document.getElementById("g-" + tile.getAttribute("data-group"));
      if (box) { box.open = true; box.scrollIntoView(); e.preventDefault(); }
    }
  });
  document.addEventListener("focusin", function (e) {
    var g = e.target.closest && e.target.closest(".map .dev");
    if (g) { show(g); }
  });
  document.addEventListener("keydown", function (e) {
    var t = e.target;
    if ((e.key === "Enter" || e.key === " ") && t.classList && t.classList.contains("tile")) {
      t.dispatchEvent(new MouseEvent("click", {bubbles: true}));
      e.preventDefault();
    }
  });

  var form = document.getElementById("filters");
  if (!form) { return; }
  var fc = document.getElementById("f-check");
  var fs = document.getElementById("f-status");
  function apply() {
    var c = fc.value, s = fs.value, shown = 0;
    rows.forEach(function (r) {
      var ok = (!c || r.getAttribute("data-check") === c) && (!s || r.getAttribute("data-status") === s);
      r.classList.toggle("hide", !ok);
      shown += ok ? 1 : 0;
    });
    devs.forEach(function (g) {
      var checks = (g.getAttribute("data-checks") || "").split(" ");
      var ok = (!c || checks.indexOf(c) >= 0) && (!s || g.getAttribute("data-status") === s);
      g.classList.toggle("dim", !ok);
    });
    document.getElementById("f-count").textContent = (c || s) ? shown + " findings shown" : "";
  }
  fc.addEventListener("change", apply);
  fs.addEventListener("change", apply);
  form.hidden = false;
}());
