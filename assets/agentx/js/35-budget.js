
  // ---- The GPU budget: "I have N GPUs on M nodes" (the model page) ----
  // Off by default (both fields empty). With a budget, the picker's
  // hardware, checkpoint and deployment chips narrow to the deployments
  // that fit (`gpus` ≤ N, `nodes` ≤ M: GPUs per node differ by hardware,
  // so both are asked); an empty field is no limit. When nothing fits, a
  // status line says so and names the smallest deployment, and every chip
  // stays. The chosen launch is always among the chips; when a budget
  // rules it out, the picker moves to a launch that fits, by the selector
  // rules (a deployment switch opens its measured launch). Built once,
  // outside the rows the chips are redrawn in, so typing keeps its focus.

  // Whether deployment `i` fits the budget (any, when there is none).
  Selector.prototype.fits = function (i) {
    var b = this.budget, d = this.data.deps[i];
    if (!b) return true;
    return (b.gpus === null || d.gpus <= b.gpus) && (b.nodes === null || d.nodes <= b.nodes);
  };

  // `list` (deployment indices) narrowed to those that fit, and the chosen
  // one; all of `list` when no budget is set, none fits anywhere, or none
  // of `list` fits.
  Selector.prototype.narrowed = function (list) {
    if (!this.budget || !this.anyFits) return list;
    var self = this, chosen = this.choice ? this.choice.dep : -1;
    var out = list.filter(function (i) { return i === chosen || self.fits(i); });
    return out.length ? out : list;
  };

  // `N GPUs on M nodes`, as far as the budget says.
  function budgetText(b) {
    var parts = [];
    if (b.gpus !== null) parts.push(b.gpus + (b.gpus === 1 ? " GPU" : " GPUs"));
    if (b.nodes !== null) parts.push(b.nodes + (b.nodes === 1 ? " node" : " nodes"));
    return parts.join(" on ");
  }
  function sizeText(d) {
    return d.gpus + (d.gpus === 1 ? " GPU" : " GPUs") + " on " + d.nodes + (d.nodes === 1 ? " node" : " nodes");
  }

  // A field's number: a whole number ≥ 0, or null (empty: no limit).
  function fieldValue(input) {
    if (input.value.trim() === "") return null;
    var n = Math.floor(Number(input.value));
    return isFinite(n) ? Math.max(0, n) : null;
  }

  // The budget row: two number fields and a status line.
  Selector.prototype.buildBudget = function () {
    var self = this, id = "agentx-row-budget-" + this.uid;
    var row = el("div", { "class": "agentx-row agentx-row-budget", role: "group", "aria-labelledby": id });
    row.appendChild(el("div", { "class": "agentx-row-title", id: id }, "GPU budget"));
    var fields = el("div", { "class": "agentx-budget-fields" });
    var status = el("div", { "class": "agentx-row-note agentx-budget-status", id: id + "-status",
      role: "status", "aria-live": "polite" });
    function field(cls, before, after) {
      var label = el("label", { "class": "agentx-budget-field" }, before + " ");
      var input = el("input", { type: "number", "class": "agentx-budget-input " + cls, min: "0", step: "1",
        inputmode: "numeric", placeholder: "any", "aria-describedby": status.id });
      label.appendChild(input);
      label.appendChild(document.createTextNode(" " + after));
      fields.appendChild(label);
      input.addEventListener("input", function () { self.setBudget(fieldValue(self.gpusField),
        fieldValue(self.nodesField)); });
      return input;
    }
    this.gpusField = field("agentx-budget-gpus", "I have", "GPUs");
    this.nodesField = field("agentx-budget-nodes", "on", "nodes");
    this.clearBudget = el("button", { type: "button", "class": "agentx-budget-clear", hidden: "" }, "Clear");
    this.clearBudget.addEventListener("click", function () {
      self.gpusField.value = "";
      self.nodesField.value = "";
      self.setBudget(null, null);
      self.gpusField.focus();
    });
    fields.appendChild(this.clearBudget);
    row.appendChild(fields);
    row.appendChild(status);
    this.budgetStatus = status;
    this.budgetRow = row;
    this.showBudget();
    return row;
  };

  // Sets the budget (null, null: off) and narrows the chips to it.
  Selector.prototype.setBudget = function (gpus, nodes) {
    var self = this, deps = this.data.deps;
    this.budget = gpus === null && nodes === null ? null : { gpus: gpus, nodes: nodes };
    var all = deps.map(function (d, i) { return i; });
    var fitting = all.filter(function (i) { return self.fits(i); });
    this.anyFits = fitting.length > 0;
    this.showBudget(fitting);
    if (!this.choice) return;
    if (this.budget && this.anyFits && !this.fits(this.choice.dep)) {
      // The closest launch that fits: same hardware and checkpoint, else
      // same hardware, else the first that fits; its measured launch.
      var now = deps[this.choice.dep];
      var pick = fitting.filter(function (i) { return deps[i].hw === now.hw && deps[i].ckpt === now.ckpt; })[0];
      if (pick === undefined) pick = fitting.filter(function (i) { return deps[i].hw === now.hw; })[0];
      if (pick === undefined) pick = fitting[0];
      this.select(this.initial(pick), "replace");
    } else {
      this.renderChips();
    }
  };

  // The status line and the Clear button, for the budget now.
  Selector.prototype.showBudget = function (fitting) {
    var b = this.budget, deps = this.data.deps, s = this.budgetStatus;
    this.clearBudget.hidden = !b;
    s.classList.toggle("agentx-budget-none", !!b && !this.anyFits);
    if (!b) {
      // One line on a phone: the fields say what to enter.
      s.textContent = "Off: every deployment is shown.";
      return;
    }
    if (this.anyFits) {
      s.textContent = fitting.length + " of " + deps.length + (deps.length === 1 ? " deployment fits " :
        " deployments fit ") + budgetText(b) + ".";
      return;
    }
    var small = deps.slice().sort(function (x, y) { return x.gpus - y.gpus || x.nodes - y.nodes; })[0];
    s.textContent = "No deployment fits " + budgetText(b) + ": the smallest, " + this.data.hw[small.hw] + " · " +
      small.label + ", uses " + sizeText(small) + ". Every deployment is shown.";
  };
