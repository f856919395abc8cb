
  // ---- Copy link after every set heading that has none ----
  // The standalone builder writes its own button (button.copy-link, handled
  // by its book.js); mdBook's page has none, so it is added here, after the
  // heading and outside its text, as the builder does.
  function addCopyLinks() {
    var headings = document.querySelectorAll("h3.agentx-set[id]");
    Array.prototype.forEach.call(headings, function (h) {
      var next = h.nextElementSibling;
      if (next && next.querySelector("button.copy-link, button.agentx-copy-link")) return;
      var p = el("p", { "class": "agentx-set-actions" });
      var b = el("button", {
        type: "button", "class": "agentx-copy-link", "data-anchor": h.id,
        "aria-label": "Copy link to " + h.textContent.trim()
      }, "Copy link");
      b.addEventListener("click", function () {
        copyText(location.href.split("#")[0] + "#" + h.id, b, "link to " + h.textContent.trim());
      });
      p.appendChild(b);
      h.parentNode.insertBefore(p, next);
    });
  }

  // Without a selector (a page whose ids were rewritten, as the single
  // file's), a followed link to a set still marks it.
  function markStaticTarget() {
    var h = document.getElementById(hashId());
    if (h && h.classList.contains("agentx-set") && followedLink()) markTargeted(h.parentNode);
  }

  // ---- Start: one selector per data script ----
  function start() {
    addCopyLinks();
    var started = 0;
    var scripts = document.querySelectorAll("script.agentx-selector-data, script.agentx-model-data");
    Array.prototype.forEach.call(scripts, function (s) {
      var mount = s.previousElementSibling;
      if (!mount || !(mount.classList.contains("agentx-selector") || mount.classList.contains("agentx-picker"))) return;
      var data;
      try { data = JSON.parse(s.textContent); } catch (e) { return; }
      if (data.text) expandModelData(data);
      // In a page whose ids were rewritten (the single-file export), the
      // sets are not found under their anchors: leave the page static.
      if (!document.getElementById(data.here || data.section)) return;
      new Selector(data, mount).start();
      started++;
    });
    if (!started) markStaticTarget();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
