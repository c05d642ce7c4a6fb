// tambench batch report: sortable, filterable, paginated tables and a drill-down, built from
// the JSON embedded in the page. Every value is inserted as text (textContent), never as HTML.
(function () {
  "use strict";

  var data = JSON.parse(document.getElementById("report-data").textContent);

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }

  // One number format per column, chosen from every value of the column: integers as they
  // are; otherwise the same number of decimals for every row (more for smaller numbers), or,
  // when the column spans magnitudes that fixed decimals cannot show, the same exponent form.
  function numberFormat(values) {
    var nums = values.filter(function (v) { return v !== null && v !== undefined && v !== ""; })
      .map(Number);
    if (nums.every(function (v) { return Number.isInteger(v); })) { return {mode: "int"}; }
    var big = 0, small = Infinity;
    nums.forEach(function (v) {
      var a = Math.abs(v);
      big = Math.max(big, a);
      if (a > 0) { small = Math.min(small, a); }
    });
    if (big >= 1e5 || small < 1e-3) { return {mode: "exp"}; }
    var digits = big >= 1 ? Math.floor(Math.log10(big)) + 1 : 0;
    return {mode: "fixed", decimals: Math.max(0, 4 - digits)};
  }

  function fmt(value, kind, format) {
    if (value === null || value === undefined || value === "") { return ""; }
    if (kind === "pct") { return Number(value).toFixed(1); }
    if (kind === "ci") { return Number(value[0]).toFixed(1) + "–" + Number(value[1]).toFixed(1); }
    if (kind === "num") {
      var v = Number(value);
      if (!format || format.mode === "int") { return String(v); }
      return format.mode === "exp" ? v.toExponential(3) : v.toFixed(format.decimals);
    }
    if (kind === "bool") { return value ? "yes" : "no"; }
    return String(value);
  }

  function isEmpty(v) {
    return v === null || v === undefined || v === "" || (Array.isArray(v) && !v.length);
  }

  function compare(a, b, numeric) {
    var aNull = a === null || a === undefined || a === "";
    var bNull = b === null || b === undefined || b === "";
    if (aNull || bNull) { return aNull === bNull ? 0 : (aNull ? 1 : -1); }
    if (numeric) { return Number(a) - Number(b); }
    return String(a).localeCompare(String(b));
  }

  // A table over rows (arrays), columns {key, label, kind, index}; options: pageSize,
  // statusIndex (a select filter on that column), onRow (click handler).
  function DataTable(container, columns, rows, options) {
    this.container = container;
    var byKey = {};
    columns.forEach(function (c) { byKey[c.key] = c; });
    columns = columns.filter(function (c) { return !c.hidden; });
    // a column with no value in any row is not shown (an interval without bootstrap, ...)
    this.columns = columns.filter(function (c) {
      return rows.some(function (r) { return !isEmpty(r[c.index]); });
    }).map(function (c) {  // a copy per table: each table formats its own rows
      var own = Object.assign({}, c);
      own.format = c.kind === "num" ?
        numberFormat(rows.map(function (r) { return r[c.index]; })) : null;
      var tip = c.tip ? byKey[c.tip] : null;
      own.tipColumn = tip ? {index: tip.index, kind: tip.kind, label: tip.label,
        format: tip.kind === "num" ? numberFormat(rows.map(function (r) {
          return r[tip.index]; })) : null} : null;
      return own;
    });
    this.rows = rows;
    this.options = options || {};
    this.pageSize = this.options.pageSize || 50;
    this.page = 0;
    this.sortIndex = -1;
    this.sortDir = 1;
    this.query = "";
    this.status = "";
    this.build();
    this.refresh();
  }

  DataTable.prototype.build = function () {
    var self = this;
    var bar = el("div", {"class": "toolbar"});
    this.filter = el("input", {"type": "search", "class": "filter",
                               "placeholder": "filter rows", "aria-label": "filter rows"});
    this.filter.addEventListener("input", function () {
      self.query = self.filter.value.toLowerCase();
      self.page = 0;
      self.refresh();
    });
    bar.appendChild(this.filter);
    if (this.options.statusIndex !== undefined) {
      this.select = el("select", {"class": "status-filter", "aria-label": "status"});
      this.select.appendChild(el("option", {"value": ""}, "every status"));
      var seen = {};
      this.rows.forEach(function (r) { seen[r[self.options.statusIndex]] = true; });
      Object.keys(seen).sort().forEach(function (s) {
        self.select.appendChild(el("option", {"value": s}, s));
      });
      this.select.addEventListener("change", function () {
        self.status = self.select.value;
        self.page = 0;
        self.refresh();
      });
      bar.appendChild(this.select);
    }
    this.count = el("span", {"class": "count"});
    bar.appendChild(this.count);
    // Said above the table whenever columns lie beyond the window (the table scrolls).
    this.hint = el("span", {"class": "scroll-hint", "role": "status"});
    bar.appendChild(this.hint);
    this.container.appendChild(bar);
    this.table = el("table", {"class": "data"});
    this.table.appendChild(this.header());
    this.body = el("tbody");
    this.table.appendChild(this.body);
    var scroller = el("div", {"class": "scroller"});
    scroller.appendChild(this.table);
    this.container.appendChild(scroller);
    this.scroller = scroller;
    scroller.addEventListener("scroll", function () { self.queueHint(); });
    window.addEventListener("resize", function () { self.queueHint(); });
    this.pager = el("div", {"class": "pager"});
    this.prev = el("button", {"type": "button", "class": "prev"}, "previous");
    this.next = el("button", {"type": "button", "class": "next"}, "next");
    this.pageLabel = el("span", {"class": "page"});
    this.prev.addEventListener("click", function () { self.page -= 1; self.refresh(); });
    this.next.addEventListener("click", function () { self.page += 1; self.refresh(); });
    this.pager.appendChild(this.prev);
    this.pager.appendChild(this.pageLabel);
    this.pager.appendChild(this.next);
    this.container.appendChild(this.pager);
  };

  // The header: one row, or two when columns are grouped (a group's name spans its columns,
  // whose own short names sit below it; ungrouped columns span both rows).
  DataTable.prototype.header = function () {
    var self = this;
    var grouped = this.columns.some(function (c) { return c.group; });
    var head = el("thead");
    var top = el("tr");
    var sub = el("tr");
    this.headers = [];
    this.columns.forEach(function (c, i) {
      var th = el("th", {"data-col": c.key, "data-index": String(i), "title": "sort by " +
                         (c.group ? c.group + " " : "") + c.label}, c.label);
      if (c.wide) { th.className = "wide"; }
      th.addEventListener("click", function () { self.sortBy(i); });
      self.headers.push(th);
      if (!grouped) { top.appendChild(th); return; }
      if (!c.group) { th.setAttribute("rowspan", "2"); top.appendChild(th); return; }
      var prev = self.columns[i - 1];
      if (!prev || prev.group !== c.group) {
        var span = 1;
        while (i + span < self.columns.length && self.columns[i + span].group === c.group) {
          span += 1;
        }
        top.appendChild(el("th", {"colspan": String(span), "class": "group"}, c.group));
      }
      sub.appendChild(th);
    });
    head.appendChild(top);
    if (grouped) { head.appendChild(sub); }
    return head;
  };

  // The hint is measured once the page is laid out (one layout for every table's hint).
  DataTable.prototype.queueHint = function () {
    var self = this;
    if (this.hintQueued) { return; }
    this.hintQueued = true;
    window.requestAnimationFrame(function () { self.hintQueued = false; self.showHint(); });
  };

  // How many columns lie outside the table's frame, and which way to scroll to see them.
  DataTable.prototype.showHint = function () {
    var frame = this.scroller.getBoundingClientRect();
    var right = 0, left = 0;
    this.headers.forEach(function (th) {
      var box = th.getBoundingClientRect();
      if (box.width === 0) { return; }
      if (box.right > frame.right + 1) { right += 1; } else if (box.left < frame.left - 1) { left += 1; }
    });
    var parts = [];
    if (right) { parts.push(right + " more column(s) to the right"); }
    if (left) { parts.push(left + " to the left"); }
    this.hint.textContent = parts.length ? parts.join(", ") + ": scroll the table sideways" : "";
  };

  DataTable.prototype.sortBy = function (i) {
    this.sortDir = this.sortIndex === i ? -this.sortDir : 1;
    this.sortIndex = i;
    this.page = 0;
    this.headers.forEach(function (th) { th.removeAttribute("aria-sort"); });
    this.headers[i].setAttribute("aria-sort", this.sortDir > 0 ? "ascending" : "descending");
    this.refresh();
  };

  DataTable.prototype.visible = function () {
    var self = this;
    var out = this.rows.filter(function (r) {
      if (self.status && String(r[self.options.statusIndex]) !== self.status) { return false; }
      if (!self.query) { return true; }
      for (var i = 0; i < r.length; i++) {
        var v = r[i];
        if (v !== null && v !== undefined &&
            String(Array.isArray(v) ? v.join(" ") : v).toLowerCase().indexOf(self.query) >= 0) {
          return true;
        }
      }
      return false;
    });
    if (this.sortIndex >= 0) {
      var col = this.columns[this.sortIndex];
      var numeric = col.kind === "num" || col.kind === "pct" || col.kind === "ci";
      var dir = this.sortDir;
      var value = function (r) {
        var v = r[col.index];
        return col.kind === "ci" && v ? v[0] : v;
      };
      out.sort(function (a, b) {
        var c = compare(value(a), value(b), numeric);
        var aNull = a[col.index] === null || a[col.index] === "";
        var bNull = b[col.index] === null || b[col.index] === "";
        return aNull || bNull ? c : dir * c;
      });
    }
    return out;
  };

  DataTable.prototype.refresh = function () {
    var self = this;
    var rows = this.visible();
    var pages = Math.max(1, Math.ceil(rows.length / this.pageSize));
    this.page = Math.min(Math.max(this.page, 0), pages - 1);
    var start = this.page * this.pageSize;
    var shown = rows.slice(start, start + this.pageSize);
    while (this.body.firstChild) { this.body.removeChild(this.body.firstChild); }
    shown.forEach(function (r) {
      var tr = el("tr");
      self.columns.forEach(function (c) {
        var v = r[c.index];
        var numeric = c.kind === "num" || c.kind === "pct" || c.kind === "ci";
        var td = el("td", {"class": (numeric ? "num" : "") + (c.wrap ? " wrap" : "") +
                           (c.wide ? " wide" : "")},
                    Array.isArray(v) && c.kind !== "ci" ? v.join(" | ") : fmt(v, c.kind, c.format));
        if (c.key === "status") { td.className = "status status-" + v; }
        var t = c.tipColumn;
        if (t && !isEmpty(r[t.index])) { td.title = t.label + " " + fmt(r[t.index], t.kind, t.format); }
        tr.appendChild(td);
      });
      if (self.options.onRow) {
        tr.className = "clickable";
        tr.addEventListener("click", function () { self.options.onRow(r); });
      }
      self.body.appendChild(tr);
    });
    this.count.textContent = rows.length + " of " + this.rows.length + " rows";
    this.queueHint();
    this.pageLabel.textContent = "page " + (this.page + 1) + " of " + pages;
    this.prev.disabled = this.page === 0;
    this.next.disabled = this.page >= pages - 1;
    this.pager.style.display = pages > 1 ? "" : "none";
  };

  function columnsOf(spec) {
    return spec.columns.map(function (c, i) {
      return {key: c[0], label: c[1], kind: c[2], hidden: c[3] === true, group: c[4] || null,
              wrap: c[5] === true, tip: c[6] || null, wide: c[7] === true, index: i};
    });
  }

  // --- drill-down ---------------------------------------------------------------------------
  var runs = data.runs;
  var runCols = columnsOf(runs);
  var col = {};
  runCols.forEach(function (c) { col[c.key] = c.index; });
  var drill = document.getElementById("drill");

  function showMessages(target, r) {
    var box = el("div", {"class": "messages"});
    box.appendChild(el("h4", null, r[col.agent] + " / " + r[col.task] + " / " + r[col.run]));
    var lines = [];
    if (r[col.error]) { lines.push("error: " + r[col.error]); }
    (r[col.errors] || []).forEach(function (m) { lines.push(m); });
    (r[col.warnings] || []).forEach(function (m) { lines.push("warning: " + m); });
    if (r[col.judge_note]) { lines.push("judge: " + r[col.judge_note]); }
    if (r[col.submission_path]) { lines.push("submission: " + r[col.submission_path]); }
    if (!lines.length) { lines.push("no messages: " + r[col.status]); }
    var ul = el("ul");
    lines.forEach(function (m) { ul.appendChild(el("li", null, m)); });
    box.appendChild(ul);
    target.appendChild(box);
  }

  function openRun(r) {
    while (drill.firstChild) { drill.removeChild(drill.firstChild); }
    showMessages(drill, r);
    drill.hidden = false;
    drill.scrollIntoView({block: "nearest"});
  }

  function openCell(agent, task) {
    while (drill.firstChild) { drill.removeChild(drill.firstChild); }
    var rows = runs.rows.filter(function (r) {
      return r[col.agent] === agent && r[col.task_key] === task;
    });
    drill.appendChild(el("h3", null, agent + " on " + task + ": " + rows.length + " run(s)"));
    var holder = el("div", {"id": "drill-runs"});
    drill.appendChild(holder);
    var msgs = el("div", {"id": "drill-messages"});
    new DataTable(holder, runCols.filter(function (c) { return !c.hidden; }), rows, {
      pageSize: 25,
      onRow: function (r) {
        while (msgs.firstChild) { msgs.removeChild(msgs.firstChild); }
        showMessages(msgs, r);
      }
    });
    drill.appendChild(msgs);
    rows.forEach(function (r) { showMessages(msgs, r); });
    drill.hidden = false;
    drill.scrollIntoView({block: "nearest"});
  }

  // --- matrix -------------------------------------------------------------------------------
  function buildMatrix(target) {
    var m = data.matrix;
    var table = el("table", {"class": "matrix"});
    var head = el("tr");
    head.appendChild(el("th", null, "agent \\ task"));
    m.tasks.forEach(function (t) { head.appendChild(el("th", {"class": "task", "title": t}, t)); });
    var thead = el("thead");
    thead.appendChild(head);
    table.appendChild(thead);
    var body = el("tbody");
    m.agents.forEach(function (agent, ai) {
      var tr = el("tr");
      tr.appendChild(el("th", null, agent));
      m.tasks.forEach(function (task, ti) {
        var cell = m.cells[ai][ti];
        var td = el("td", {"class": "cell"});
        if (cell) {
          var pct = cell[0];
          td.textContent = pct === null ? "-" : pct.toFixed(1);
          td.title = agent + " on " + task + ": " + cell[1] + " run(s), " + cell[2] +
            " valid, " + cell[3] + " medal(s); rank % " + (pct === null ? "unknown" : pct.toFixed(2));
          if (pct !== null) {
            var hue = Math.round(120 * (1 - Math.min(100, Math.max(0, pct)) / 100));
            td.style.background = "hsl(" + hue + ",60%,85%)";
          }
          td.setAttribute("data-agent", agent);
          td.setAttribute("data-task", task);
          td.className = "cell clickable";
          td.addEventListener("click", function () { openCell(agent, task); });
        }
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
    table.appendChild(body);
    var scroller = el("div", {"class": "scroller"});
    scroller.appendChild(table);
    target.appendChild(scroller);
  }

  function start() {
    new DataTable(document.getElementById("agents-table"), columnsOf(data.agents),
                  data.agents.rows, {pageSize: 100});
    if (data.comparisons.rows.length) {
      new DataTable(document.getElementById("comparisons-table"), columnsOf(data.comparisons),
                    data.comparisons.rows, {pageSize: 50});
    }
    new DataTable(document.getElementById("tasks-table"), columnsOf(data.tasks),
                  data.tasks.rows, {pageSize: 50});
    buildMatrix(document.getElementById("matrix"));
    new DataTable(document.getElementById("runs-table"),
                  runCols.filter(function (c) { return !c.hidden; }), runs.rows,
                  {pageSize: 50, statusIndex: col.status, onRow: openRun});
    document.body.setAttribute("data-ready", "1");
  }

  start();
}());
