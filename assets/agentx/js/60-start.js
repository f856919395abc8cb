
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
    addCopyLinks();
    var started = 0;
    var scripts = document.querySelectorAll("script.agentx-selector-data, script.agentx-model-data");
    var models = document.querySelectorAll("script.agentx-model-data");
    Array.prototype.forEach.call(scripts, function (s) {
      var mount = s.previousElementSibling;
      if (!mount || !(mount.classList.contains("agentx-selector") || mount.classList.contains("agentx-picker"))) return;
      var data;
      try { data = JSON.parse(s.textContent); } catch (e) { return; }
      // A section showing the same launches as an earlier one on the page
      // names that one's script (site/pages/lazy.rs): parsed again, so each
      // picker has data of its own.
      if (typeof data.like === "number") {
        var like = models[data.like];
        if (!like || like === s) return;
        try { data = JSON.parse(like.textContent); } catch (e) { return; }
      }
      if (data.text) expandModelData(data);
      // In the single file every id carries its chapter's prefix.
      var chapter = mount.closest && mount.closest("section.book-chapter");
      var prefix = chapter ? chapter.id + "--" : "";
      // A picker names its section on its mount (its data is shared by
      // every section showing the same launches); a selector its page.
      if (!document.getElementById(prefix + (data.here || mount.getAttribute("data-section")))) return;
      new Selector(data, mount, prefix).start();
      started++;
    });
    if (!started) markStaticTarget();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
