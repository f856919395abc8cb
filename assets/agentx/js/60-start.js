
  // ---- Copy link after every set heading that has none ----
  // Neither the builder's pages nor mdBook's carry the button (it needs
  // JavaScript, and on the largest real pages the buttons were 2-3 KB of
  // the gzipped page), so it is added here, after the heading and outside
  // its text. (An older site's button.copy-link is left as it is.) The
  // builder's Copy buttons in the set are described by its heading here
  // too (the set's id on each of them was 9 KB of the largest page's gzip).
  function addCopyLinks() {
    var headings = document.querySelectorAll("h3.agentx-set[id]");
    Array.prototype.forEach.call(headings, function (h) {
      var set = h.parentNode;
      if (set.classList.contains("agentx-set")) {
        Array.prototype.forEach.call(set.querySelectorAll("button.copy-code:not([aria-describedby])"), function (b) {
          b.setAttribute("aria-describedby", h.id);
        });
      }
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

  // Without a selector (a page without one's data), a followed link to a
  // set still marks it.
  function markStaticTarget() {
    var h = document.getElementById(hashId());
    if (h && h.classList.contains("agentx-set") && followedLink()) markTargeted(h.parentNode);
  }

  // ---- Start: one selector per data script ----
  function start() {
    postDataPart();
    addCopyLinks();
    var started = 0;
    var scripts = document.querySelectorAll("script.agentx-selector-data, script.agentx-model-data");
    // The data of each section's picker so far, by section: a repeat of
    // the same launches names the earlier section (render/model_data.rs),
    // the nearest one before it, so in the single file its own chapter's.
    var bySection = {};
    Array.prototype.forEach.call(scripts, function (s) {
      var mount = s.previousElementSibling;
      if (!mount || !(mount.classList.contains("agentx-selector") || mount.classList.contains("agentx-picker"))) return;
      var data, text = s.textContent, section = mount.getAttribute("data-section");
      try { data = JSON.parse(text); } catch (e) { return; }
      if (data && typeof data.like === "string") {
        text = bySection[data.like];
        if (text === undefined) return;
        data = JSON.parse(text);
      }
      if (section) bySection[section] = text;
      if (data.text) expandModelData(data);
      // In the single file every id carries its chapter's prefix.
      var chapter = mount.closest && mount.closest("section.book-chapter");
      var prefix = chapter ? chapter.id + "--" : "";
      // A picker names its section on its mount (its data is shared by
      // every section showing the same launches); a selector its page.
      if (!document.getElementById(prefix + (data.here || section))) return;
      new Selector(data, mount, prefix).start();
      started++;
    });
    if (!started) markStaticTarget();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
