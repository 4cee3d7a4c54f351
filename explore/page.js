// macepc explore: the execution debugger. Plain JavaScript, no framework,
// no network: everything comes from the JSON embedded in the page.
(function () {
  'use strict';
  var t0 = performance.now();
  // exploreTiming is for benchmarks: load and frame times, in ms.
  var T = window.exploreTiming = { frames: 0, frameMS: 0, maxFrameMS: 0 };
  var D = JSON.parse(document.getElementById('explore-data').textContent);
  var parseMS = performance.now() - t0;
  var $ = function (id) { return document.getElementById(id); };
  var KIND_COLOR = { init: '#999999', app: '#2e8b57', deliver: '#2e6db4', timer: '#d68910', error: '#c0392b', reset: '#8e44ad', fault: '#7f8c8d' };
  var MARK_COLOR = { divergence: '#c0392b', critical: '#c0392b', 'first-diff': '#e67e22', violation: '#8e44ad', end: '#555555' };
  var MARK_BAND = { divergence: '#fde2dd', critical: '#fde2dd', 'first-diff': '#fdebd0', violation: '#efe2f5', end: '#eeeeee' };
  var MARK_ORDER = ['divergence', 'critical', 'first-diff', 'violation', 'end'];
  var ZOOMS = [3, 5, 8, 12, 16, 20, 26, 34];
  var HEAD = 22, GUTTER = 118, LONG = 400;

  // ---- data preparation ----
  function ranges(stepCol, n) { // first index of each step's entries in a column sorted by step
    var first = new Int32Array(n + 1), k = 0;
    for (var s = 0; s <= n; s++) {
      while (k < stepCol.length && stepCol[k] < s) k++;
      first[s] = k;
    }
    return first;
  }
  function prep(e) {
    var n = e.node.length;
    e.n = n;
    e.sendAt = ranges(e.send_step, n);
    e.timerAt = ranges(e.timer_step, n);
    e.noteAt = ranges(e.note_step, n);
    e.chg = [];
    for (var i = 0; i < e.nodes; i++) e.chg.push([]);
    for (var k = 0; k < e.st_step.length; k++) e.chg[e.st_node[k]].push(k);
    e.cache = new Map();
    e.labels = [];
    var seen = {};
    for (i = 0; i < n; i++) {
      var l = e.str[e.label[i]];
      if (!seen[l]) { seen[l] = true; e.labels.push(l); }
    }
    e.texts = null; // built on the first text search
    e.crit = new Uint8Array(n); // on the critical path
    (e.critical || []).forEach(function (s) { if (s >= 0 && s < n) e.crit[s] = 1; });
    e.marks.sort(function (a, b) { return MARK_ORDER.indexOf(a.kind) - MARK_ORDER.indexOf(b.kind) || a.step - b.step; });
    return e;
  }
  D.executions.forEach(prep);

  // ---- Chrome trace-event JSON (package traceevent's mapping) ----
  // traceEvents(e) is a timed execution as the Trace Event Format's
  // events: a track per node, a slice per handler, a flow per delivered
  // message, lost messages and timer changes as instants. Times are µs.
  function traceEvents(e) {
    var us = function (ns) { return ns / 1e3; };
    var ev = [{ name: 'process_name', ph: 'M', ts: 0, pid: 1, tid: 0, args: { name: e.title } }];
    for (var n = 0; n < e.nodes; n++) {
      ev.push({ name: 'thread_name', ph: 'M', ts: 0, pid: 1, tid: n + 1, args: { name: 'n' + n } });
      ev.push({ name: 'thread_sort_index', ph: 'M', ts: 0, pid: 1, tid: n + 1, args: { sort_index: n } });
    }
    var flowEnd = {}; // delivering step -> flow id
    for (var s = 0; s < e.n; s++) {
      for (var k = e.sendAt[s], j = 0; k < e.sendAt[s + 1]; k++, j++) {
        if (e.send_recv[k] >= 0) flowEnd[e.send_recv[k]] = { id: s + '.' + j, type: e.str[e.send_type[k]] };
      }
    }
    for (s = 0; s < e.n; s++) {
      var node = e.node[s];
      if (node < 0) continue;
      var tid = node + 1, start = e.start[s], end = e.start[s] + e.dur[s];
      var args = { step: s };
      if (e.from[s] >= 0) args.from = 'n' + e.from[s];
      ev.push({ name: e.str[e.label[s]], cat: 'handler', ph: 'X', ts: us(start), dur: us(e.dur[s]), pid: 1, tid: tid, args: args });
      var f = flowEnd[s];
      if (f) ev.push({ name: f.type, cat: 'message', ph: 'f', ts: us(start), pid: 1, tid: tid, id: f.id, bp: 'e' });
      for (k = e.sendAt[s], j = 0; k < e.sendAt[s + 1]; k++, j++) {
        var type = e.str[e.send_type[k]], status = D.statuses[e.send_status[k]];
        if (e.send_recv[k] >= 0) ev.push({ name: type, cat: 'message', ph: 's', ts: us(start), pid: 1, tid: tid, id: s + '.' + j, args: { to: 'n' + e.send_to[k] } });
        else if (status !== 'sent') ev.push({ name: status + ' ' + type + ' to n' + e.send_to[k], cat: 'lost', ph: 'i', ts: us(end), pid: 1, tid: tid, s: 't' });
      }
      for (k = e.timerAt[s]; k < e.timerAt[s + 1]; k++) {
        var cancel = e.timer_cancel[k] === 1;
        ev.push({ name: (cancel ? 'cancel timer ' : 'set timer ') + e.str[e.timer_name[k]], cat: 'timer', ph: 'i', ts: us(end), pid: 1, tid: tid, s: 't', args: cancel ? undefined : { fires_us: us(e.timer_at[k]) } });
      }
    }
    return { displayTimeUnit: 'ms', traceEvents: ev };
  }
  window.exploreTrace = function (i) { return traceEvents(D.executions[i]); }; // for tests
  function downloadTrace() {
    V.panes.forEach(function (p) {
      if (!p.e.timed) return;
      var blob = new Blob([JSON.stringify(traceEvents(p.e))], { type: 'application/json' });
      var a = document.createElement('a');
      a.href = URL.createObjectURL(blob);
      a.download = p.e.name + '.trace.json';
      document.body.appendChild(a);
      a.click();
      setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
    });
  }

  function applyDelta(prev, pre, suf, mid) { return prev.slice(0, pre) + mid + prev.slice(prev.length - suf); }
  // entryState is the state of a node after its state entry k.
  function entryState(e, node, pos) {
    var list = e.chg[node], k = list[pos];
    var c = e.cache.get(k);
    if (c !== undefined) return c;
    var s;
    if (e.st_pre[k] < 0) s = e.st_text[k];
    else {
      var prev = pos > 0 ? entryState(e, node, pos - 1) : e.initial[node];
      s = applyDelta(prev, e.st_pre[k], e.st_suf[k], e.st_text[k]);
    }
    if (e.cache.size > 200000) e.cache.clear();
    e.cache.set(k, s);
    return s;
  }
  // stateAt is node's state after step (step -1: the initial state).
  function stateAt(e, step, node) {
    var list = e.chg[node], lo = 0, hi = list.length - 1, pos = -1;
    while (lo <= hi) {
      var mid = (lo + hi) >> 1;
      if (e.st_step[list[mid]] <= step) { pos = mid; lo = mid + 1; } else hi = mid - 1;
    }
    return pos < 0 ? e.initial[node] : entryState(e, node, pos);
  }

  // ---- formatting ----
  // fmtTime is a simulated time in seconds: to the microsecond in the
  // chart's gutter, to the nanosecond (exact) elsewhere.
  // fmtTime is a step's time: exact to the nanosecond in the unit that
  // fits, as timedsim.FormatTime writes the event logs ("58.130860 ms"),
  // or, in the gutter, as the summary rounds it ("58.13 ms").
  function fmtTime(e, ns, exact) {
    if (!e.timed) return (ns / 1e6).toFixed(0);
    if (!exact) return fmtDur(ns);
    var a = Math.abs(ns), u = [1, 0, 'ns'];
    if (a >= 1e9) u = [1e9, 9, 's']; else if (a >= 1e6) u = [1e6, 6, 'ms']; else if (a >= 1e3) u = [1e3, 3, 'µs'];
    var whole = Math.floor(a / u[0]), t = String(whole);
    if (u[1]) t += '.' + String(a - whole * u[0]).padStart(u[1], '0');
    return (ns < 0 ? '-' : '') + t + ' ' + u[2];
  }
  // fmtDur is a duration as internal/units prints it: four significant
  // digits in the unit that fits ("90 ns", "1.724 µs", "747.3 ms").
  function fmtDur(ns) {
    if (ns === 0) return '0 s';
    var us = [[1, 'ns'], [1e3, 'µs'], [1e6, 'ms'], [1e9, 's']], a = Math.abs(ns), u = us[0];
    for (var i = us.length - 1; i > 0; i--) {
      if (+(a / us[i][0]).toPrecision(4) >= 1) { u = us[i]; break; }
    }
    var v = ns / u[0], r = Math.abs(+v.toPrecision(4));
    var dec = r > 0 ? Math.min(Math.max(3 - Math.floor(Math.log10(r)), 0), 3) : 0;
    return String(+v.toFixed(dec)) + ' ' + u[1];
  }
  function nodeName(i) { return i < 0 ? '—' : 'n' + i; }
  function esc(s) { return String(s).replace(/[&<>"]/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]; }); }
  function stepText(e, s) {
    var t = e.str[e.label[s]];
    if (e.desc && e.desc[s]) t = e.desc[s];
    for (var k = e.noteAt[s]; k < e.noteAt[s + 1]; k++) t += ' · ' + e.str[e.note_text[k]];
    return t;
  }

  // ---- view state ----
  var V = {
    view: 0, // index into views
    panes: [], // {e, root, scroll, spacer, canvas, ctx}
    active: 0,
    cur: 0, selNode: -1,
    zoom: 4,
    marks: [], // [{pane, step}]
    vis: null, rowOf: null, lanes: null, laneOf: null,
    filter: { nodes: null, label: '', text: '', re: false },
    syncing: false
  };
  var views = [];
  D.pairs.forEach(function (p, i) { views.push({ name: p.name + ' (side by side)', execs: [p.a, p.b], pair: i }); });
  D.executions.forEach(function (e, i) { views.push({ name: e.name, execs: [i], pair: -1 }); });

  $('title').textContent = 'macepc explore: ' + D.title;
  views.forEach(function (v, i) {
    var o = document.createElement('option');
    o.value = i; o.textContent = v.name;
    $('view').appendChild(o);
  });

  function execOf(p) { return V.panes[p].e; }
  function maxSteps() { var m = 0; V.panes.forEach(function (p) { m = Math.max(m, p.e.n); }); return m; }

  function buildPanes() {
    var v = views[V.view], box = $('panes');
    box.textContent = '';
    V.panes = v.execs.map(function (xi, pi) {
      var e = D.executions[xi];
      var root = document.createElement('div');
      root.className = 'pane';
      var h = document.createElement('h2');
      h.textContent = e.title + ' — ' + e.end;
      h.title = h.textContent;
      var view = document.createElement('div');
      view.className = 'view';
      var sc = document.createElement('div');
      sc.className = 'scroll';
      var spacer = document.createElement('div');
      sc.appendChild(spacer);
      var cv = document.createElement('canvas');
      view.appendChild(sc);
      view.appendChild(cv);
      root.appendChild(h);
      root.appendChild(view);
      box.appendChild(root);
      var pane = { e: e, root: root, scroll: sc, spacer: spacer, canvas: cv, ctx: cv.getContext('2d'), index: pi };
      sc.addEventListener('scroll', function () { onScroll(pane); });
      sc.addEventListener('click', function (ev) { onClick(pane, ev); });
      return pane;
    });
    V.active = Math.min(V.active, V.panes.length - 1);
    // Labels of every shown execution.
    var sel = $('flabel'), keep = V.filter.label, seen = {};
    sel.textContent = '';
    var all = document.createElement('option');
    all.value = ''; all.textContent = 'all';
    sel.appendChild(all);
    V.panes.forEach(function (p) {
      p.e.labels.forEach(function (l) {
        if (seen[l]) return;
        seen[l] = true;
      });
    });
    Object.keys(seen).sort().forEach(function (l) {
      var o = document.createElement('option');
      o.value = l; o.textContent = l;
      sel.appendChild(o);
    });
    V.filter.label = seen[keep] ? keep : '';
    sel.value = V.filter.label;
    fillMarks();
  }

  function fillMarks() {
    var sel = $('marks');
    sel.textContent = '';
    V.panes.forEach(function (p, pi) {
      p.e.marks.forEach(function (m) {
        var o = document.createElement('option');
        o.value = pi + ':' + m.step;
        o.textContent = (V.panes.length > 1 ? p.e.name + ' ' : '') + m.kind + ' @' + m.step + ': ' + m.text;
        o.dataset.kind = m.kind;
        sel.appendChild(o);
      });
    });
  }

  // ---- filters ----
  function parseNodes(text, nodes) {
    text = text.trim();
    if (!text) return null;
    var set = new Set();
    text.split(/[\s,]+/).forEach(function (tok) {
      var m = /^n?(\d+)(?:-n?(\d+))?$/.exec(tok);
      if (!m) return;
      var a = +m[1], b = m[2] === undefined ? a : +m[2];
      for (var i = a; i <= Math.min(b, nodes - 1); i++) set.add(i);
    });
    return set;
  }
  function passes(e, s, f, re) {
    if (s >= e.n) return false;
    if (f.nodes && !f.nodes.has(e.node[s])) return false;
    if (f.label && e.str[e.label[s]] !== f.label) return false;
    if (f.text) {
      var t = stepText(e, s);
      for (var k = e.sendAt[s]; k < e.sendAt[s + 1]; k++) t += ' ' + e.str[e.send_type[k]];
      if (re ? !re.test(t) : t.toLowerCase().indexOf(f.text.toLowerCase()) < 0) return false;
    }
    return true;
  }
  function applyFilters() {
    var f = V.filter, re = null, stat = $('fstat');
    stat.className = '';
    if (f.text && f.re) {
      try { re = new RegExp(f.text, 'i'); } catch (err) {
        stat.className = 'err';
        stat.textContent = 'bad regexp: ' + err.message;
        f = { nodes: f.nodes, label: f.label, text: '', re: false };
      }
    }
    var n = maxSteps(), vis = [], rowOf = new Int32Array(n).fill(-1);
    for (var s = 0; s < n; s++) {
      var ok = false;
      for (var p = 0; p < V.panes.length && !ok; p++) ok = passes(V.panes[p].e, s, f, re);
      if (ok) { rowOf[s] = vis.length; vis.push(s); }
    }
    V.vis = vis; V.rowOf = rowOf;
    // Side by side, a row shows when either execution's step passes; the
    // other one's step is drawn faint if it does not.
    V.used = f; V.re = re;
    V.filtering = !!(f.nodes || f.label || f.text);
    var nodes = 0;
    V.panes.forEach(function (p) { nodes = Math.max(nodes, p.e.nodes); });
    V.lanes = [];
    V.laneOf = new Int32Array(nodes).fill(-1);
    for (var i = 0; i < nodes; i++) {
      if (!f.nodes || f.nodes.has(i)) { V.laneOf[i] = V.lanes.length; V.lanes.push(i); }
    }
    if (stat.className !== 'err') stat.textContent = 'showing ' + vis.length + ' of ' + n + ' steps, ' + V.lanes.length + ' of ' + nodes + ' nodes';
    V.panes.forEach(function (p) { p.long = longArrows(p.e); });
    layout();
  }
  // longArrows are the arrows spanning more than LONG rows: each frame
  // draws those that cross it (the short ones are found from their sends).
  function longArrows(e) {
    var out = [];
    for (var k = 0; k < e.send_step.length; k++) {
      var r = e.send_recv[k];
      if (r < 0) continue;
      var a = V.rowOf[e.send_step[k]], b = V.rowOf[r];
      if (a >= 0 && b >= 0 && b - a > LONG) out.push(k);
    }
    return out;
  }

  // ---- geometry ----
  function rowH() { return ZOOMS[V.zoom]; }
  function laneW(p) {
    var w = p.scroll.clientWidth - GUTTER, n = Math.max(1, V.lanes.length);
    var min = Math.max(14, rowH() * 2);
    return Math.max(min, Math.min(260, Math.floor(w / n)));
  }
  function layout() {
    V.panes.forEach(function (p) {
      var lw = laneW(p);
      p.spacer.style.width = (GUTTER + V.lanes.length * lw) + 'px';
      p.spacer.style.height = (HEAD + V.vis.length * rowH() + 40) + 'px';
      var dpr = window.devicePixelRatio || 1, w = p.scroll.clientWidth, h = p.scroll.clientHeight;
      p.canvas.width = Math.max(1, Math.floor(w * dpr));
      p.canvas.height = Math.max(1, Math.floor(h * dpr));
      p.canvas.style.width = w + 'px';
      p.canvas.style.height = h + 'px';
      p.ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    });
    draw();
  }

  // ---- drawing ----
  var pending = false;
  function draw() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () {
      pending = false;
      var f0 = performance.now();
      T.labels = [];
      V.panes.forEach(drawPane);
      var dt = performance.now() - f0;
      T.frames++;
      T.frameMS += dt;
      T.maxFrameMS = Math.max(T.maxFrameMS, dt);
    });
  }
  function markAt(e, s) {
    for (var i = 0; i < e.marks.length; i++) if (e.marks[i].step === s) return e.marks[i];
    return null;
  }
  // drawLabel writes an event's label right of its dot at x, or left of
  // it when it would run past the pane's right edge W, or, when neither
  // side has the room, shortened with an ellipsis on the roomier side: a
  // label is never cut off at the pane's edge (before, "deliver Vo").
  // T.labels keeps the last frame's label boxes (for the tests).
  function drawLabel(c, label, x, sz, y0, W) {
    var pad = sz / 2 + 7, right = W - 2 - (x + pad), left = x - pad - GUTTER;
    var text = label, tw = c.measureText(text).width, x0, side = 'right';
    if (tw <= right) x0 = x + pad;
    else if (tw <= left) { x0 = x - pad - tw; side = 'left'; } else {
      side = 'shortened';
      var room = Math.max(right, left);
      while (text.length > 1 && c.measureText(text + '…').width > room) text = text.slice(0, -1);
      text += '…';
      tw = c.measureText(text).width;
      x0 = right >= left ? x + pad : x - pad - tw;
    }
    c.fillText(text, x0, y0);
    if (T.labels) T.labels.push({ text: text, side: side, x0: x0, x1: x0 + tw, min: GUTTER, max: W });
  }
  function drawPane(p) {
    var c = p.ctx, e = p.e, RH = rowH(), LW = laneW(p);
    var W = p.scroll.clientWidth, H = p.scroll.clientHeight, top = p.scroll.scrollTop, left = p.scroll.scrollLeft;
    c.clearRect(0, 0, W, H);
    c.font = Math.min(12, Math.max(9, RH - 4)) + 'px "Liberation Sans", Arial, sans-serif';
    c.textBaseline = 'middle';
    var r0 = Math.max(0, Math.floor((top - HEAD) / RH) - 1), r1 = Math.min(V.vis.length - 1, Math.ceil((top + H) / RH));
    var l0 = Math.max(0, Math.floor((left - 0) / LW) - 1), l1 = Math.min(V.lanes.length - 1, Math.ceil((left + W) / LW));
    var laneX = function (node) { var l = V.laneOf[node]; return l < 0 ? -1 : GUTTER + l * LW + LW / 2 - left; };
    var rowY = function (r) { return HEAD + r * RH + RH / 2 - top; };
    // Row backgrounds: marks, the marked steps, the selected step.
    for (var r = r0; r <= r1; r++) {
      var s = V.vis[r], y = HEAD + r * RH - top, m = markAt(e, s), bg = null;
      if (m) bg = MARK_BAND[m.kind] || '#fde2dd';
      V.marks.forEach(function (mk, i) { if (mk.pane === p.index && mk.step === s) bg = i === 0 ? '#dbe8fb' : '#dff3e6'; });
      if (s === V.cur) bg = '#fff3b0';
      if (bg) { c.fillStyle = bg; c.fillRect(0, y, W, RH); }
      if (m) { c.fillStyle = MARK_COLOR[m.kind] || '#555'; c.fillRect(0, y, 4, RH); }
    }
    // Lanes.
    c.strokeStyle = '#e6e6e6';
    c.lineWidth = 1;
    for (var l = l0; l <= l1; l++) {
      var x = Math.round(GUTTER + l * LW + LW / 2 - left) + 0.5;
      if (x < GUTTER) continue;
      c.beginPath(); c.moveTo(x, HEAD); c.lineTo(x, H); c.stroke();
    }
    c.save();
    c.beginPath(); c.rect(GUTTER, HEAD, W - GUTTER, H - HEAD); c.clip();
    // Arrows: short ones from the sends of the rows above and in view,
    // long ones from their list.
    // All the lines make one path and all the heads another: one stroke
    // and one fill, however many messages cross the view.
    var lines = new Path2D(), heads = new Path2D(), hl = Math.min(7, RH / 2 + 3);
    var arrow = function (k, short) {
      var a = V.rowOf[e.send_step[k]], b = V.rowOf[e.send_recv[k]];
      if (a < 0 || b < 0 || b < r0 || a > r1 || (short && b - a > LONG)) return; // a long one comes from p.long
      if (V.laneOf[e.node[e.send_step[k]]] < 0 || V.laneOf[e.send_to[k]] < 0) return;
      var x1 = laneX(e.node[e.send_step[k]]), x2 = laneX(e.send_to[k]), y1 = rowY(a), y2 = rowY(b);
      lines.moveTo(x1, y1); lines.lineTo(x2, y2);
      if (b > r1) return; // its head is out of view
      var ang = Math.atan2(y2 - y1, x2 - x1);
      heads.moveTo(x2, y2);
      heads.lineTo(x2 - hl * Math.cos(ang - 0.4), y2 - hl * Math.sin(ang - 0.4));
      heads.lineTo(x2 - hl * Math.cos(ang + 0.4), y2 - hl * Math.sin(ang + 0.4));
      heads.closePath();
    };
    for (r = Math.max(0, r0 - LONG); r <= r1; r++) {
      s = V.vis[r];
      if (s >= e.n) continue;
      for (var k = e.sendAt[s]; k < e.sendAt[s + 1]; k++) if (e.send_recv[k] >= 0) arrow(k, true);
    }
    for (k = 0; k < p.long.length; k++) arrow(p.long[k], false);
    c.strokeStyle = '#5b8fd0'; c.fillStyle = '#5b8fd0';
    c.stroke(lines);
    c.fill(heads);
    // Events.
    var showText = RH >= 10;
    for (r = r0; r <= r1; r++) {
      s = V.vis[r];
      if (s >= e.n) continue;
      var y0 = rowY(r), node = e.node[s], kind = e.str[e.kind[s]], col = KIND_COLOR[kind] || '#333';
      c.globalAlpha = V.filtering && V.panes.length > 1 && !passes(e, s, V.used, V.re) ? 0.25 : 1;
      if (node < 0) { // a partition or heal: across every lane
        c.strokeStyle = col; c.setLineDash([4, 3]);
        c.beginPath(); c.moveTo(GUTTER, y0); c.lineTo(W, y0); c.stroke(); c.setLineDash([]);
        if (showText) { c.fillStyle = col; c.fillText(e.str[e.label[s]], GUTTER + 6, y0); }
        continue;
      }
      x = laneX(node);
      if (V.laneOf[node] < 0) continue;
      var sz = Math.max(2, Math.min(10, RH - 4));
      c.fillStyle = col;
      if (kind === 'reset') {
        c.strokeStyle = col; c.lineWidth = 2;
        c.beginPath(); c.moveTo(x - sz / 2, y0 - sz / 2); c.lineTo(x + sz / 2, y0 + sz / 2); c.moveTo(x + sz / 2, y0 - sz / 2); c.lineTo(x - sz / 2, y0 + sz / 2); c.stroke();
        c.lineWidth = 1;
      } else if (kind === 'timer') {
        c.beginPath(); c.moveTo(x, y0 - sz / 2); c.lineTo(x + sz / 2, y0 + sz / 2); c.lineTo(x - sz / 2, y0 + sz / 2); c.closePath(); c.fill();
      } else {
        c.fillRect(x - sz / 2, y0 - sz / 2, sz, sz);
      }
      // Sends that reached no delivery: dropped, failed or lost.
      for (k = e.sendAt[s]; k < e.sendAt[s + 1]; k++) {
        if (e.send_recv[k] >= 0) continue;
        var st = D.statuses[e.send_status[k]], tx = laneX(e.send_to[k]);
        var dir = tx >= 0 ? (tx > x ? 1 : -1) : 1, len = Math.min(LW * 0.8, 40);
        var ex = x + dir * len;
        // Never delivered (a reset or a break lost it): dashed blue; lost
        // in the network: dashed red with a cross; a failed send: red
        // with a cross.
        c.strokeStyle = st === 'sent' ? '#9bb7dd' : '#c0392b';
        c.setLineDash(st === 'sent' || st === 'dropped' ? [2, 2] : []);
        c.beginPath(); c.moveTo(x, y0); c.lineTo(ex, y0); c.stroke(); c.setLineDash([]);
        if (st !== 'sent') {
          c.beginPath(); c.moveTo(ex - 3, y0 - 3); c.lineTo(ex + 3, y0 + 3); c.moveTo(ex + 3, y0 - 3); c.lineTo(ex - 3, y0 + 3); c.stroke();
        }
      }
      // Timers set (small ticks left of the event) and notes (a dot).
      if (e.timerAt[s + 1] > e.timerAt[s]) { c.fillStyle = KIND_COLOR.timer; c.fillRect(x - sz / 2 - 5, y0 - 1, 3, 3); }
      if (e.noteAt[s + 1] > e.noteAt[s]) { c.fillStyle = '#8e44ad'; c.beginPath(); c.arc(x + sz / 2 + 3, y0 - sz / 2, 2, 0, 7); c.fill(); }
      if (showText) {
        c.fillStyle = '#333';
        var label = e.str[e.label[s]];
        for (k = e.noteAt[s]; k < e.noteAt[s + 1]; k++) label += ' · ' + e.str[e.note_text[k]];
        drawLabel(c, label, x, sz, y0, W);
      }
    }
    c.globalAlpha = 1;
    c.restore();
    // Gutter: step and time; header: lane names.
    c.fillStyle = '#fafafa'; c.fillRect(0, HEAD, GUTTER - 2, H);
    if (showText || RH >= 8) {
      for (r = r0; r <= r1; r++) {
        s = V.vis[r];
        y0 = rowY(r);
        if (y0 < HEAD) continue;
        var mm = markAt(e, s);
        if (mm) { c.fillStyle = MARK_COLOR[mm.kind] || '#555'; c.fillRect(0, y0 - RH / 2, 4, RH); }
        if (s === V.cur) { c.fillStyle = '#fff3b0'; c.fillRect(4, y0 - RH / 2, GUTTER - 6, RH); }
        if (s < e.n && e.crit[s]) { c.fillStyle = '#2471a3'; c.fillRect(4, y0 - RH / 2 + 1, 3, RH - 2); } // the critical path
        c.fillStyle = s < e.n ? '#555' : '#bbb';
        c.fillText(String(s), 8, y0);
        if (s < e.n && e.timed) c.fillText(fmtTime(e, e.start[s]), 52, y0);
      }
    }
    c.fillStyle = '#f4f4f4'; c.fillRect(0, 0, W, HEAD);
    c.fillStyle = '#333';
    c.fillText(e.timed ? 'step   time' : 'step', 8, HEAD / 2);
    for (l = l0; l <= l1; l++) {
      x = GUTTER + l * LW + LW / 2 - left;
      if (x < GUTTER) continue;
      var nm = nodeName(V.lanes[l]);
      c.fillStyle = V.lanes[l] === V.selNode ? '#c0392b' : '#333';
      if (LW >= 22 || l % Math.ceil(26 / LW) === 0) c.fillText(nm, x - c.measureText(nm).width / 2, HEAD / 2);
    }
  }

  // ---- scrolling and selection ----
  function onScroll(p) {
    if (!V.syncing && V.panes.length > 1) {
      V.syncing = true;
      V.panes.forEach(function (q) { if (q !== p) { q.scroll.scrollTop = p.scroll.scrollTop; q.scroll.scrollLeft = p.scroll.scrollLeft; } });
      V.syncing = false;
    }
    draw();
  }
  function onClick(p, ev) {
    var rect = p.scroll.getBoundingClientRect();
    var y = ev.clientY - rect.top + p.scroll.scrollTop - HEAD, x = ev.clientX - rect.left + p.scroll.scrollLeft;
    var r = Math.floor(y / rowH());
    if (r < 0 || r >= V.vis.length) return;
    V.active = p.index;
    var lane = Math.floor((x - GUTTER) / laneW(p));
    var s = V.vis[r];
    select(s, lane >= 0 && lane < V.lanes.length && ev.clientX - rect.left > GUTTER ? V.lanes[lane] : undefined, false);
  }
  function select(s, node, scroll) {
    var e = execOf(V.active);
    V.cur = Math.max(0, Math.min(s, maxSteps() - 1));
    if (node !== undefined) V.selNode = node;
    else if (V.cur < e.n && e.node[V.cur] >= 0) V.selNode = e.node[V.cur];
    if (scroll !== false) reveal(V.cur);
    draw();
    showSide();
  }
  function reveal(s) {
    var r = V.rowOf[s];
    if (r < 0) return;
    var p = V.panes[V.active], RH = rowH(), y = HEAD + r * RH, h = p.scroll.clientHeight;
    if (y < p.scroll.scrollTop + HEAD || y + RH > p.scroll.scrollTop + h) p.scroll.scrollTop = Math.max(0, y - h / 2);
    var l = V.selNode >= 0 ? V.laneOf[V.selNode] : -1;
    if (l >= 0) {
      var LW = laneW(p), x = GUTTER + l * LW, w = p.scroll.clientWidth;
      if (x - GUTTER < p.scroll.scrollLeft || x + LW > p.scroll.scrollLeft + w) p.scroll.scrollLeft = Math.max(0, x - GUTTER - (w - GUTTER) / 3);
    }
  }
  function visibleStep(from, dir) { // the next visible step after from in direction dir
    var lo = 0, hi = V.vis.length - 1, best = -1;
    if (dir > 0) {
      while (lo <= hi) { var m = (lo + hi) >> 1; if (V.vis[m] > from) { best = m; hi = m - 1; } else lo = m + 1; }
    } else {
      while (lo <= hi) { m = (lo + hi) >> 1; if (V.vis[m] < from) { best = m; lo = m + 1; } else hi = m - 1; }
    }
    return best < 0 ? -1 : V.vis[best];
  }
  function step(dir) {
    var s = visibleStep(V.cur, dir);
    if (s >= 0) select(s);
  }
  function nodeStep(dir) {
    var e = execOf(V.active), node = V.selNode;
    if (node < 0) return;
    for (var s = V.cur + dir; s >= 0 && s < e.n; s += dir) {
      if (e.node[s] === node && V.rowOf[s] >= 0) { select(s, node); return; }
    }
  }
  function jump(text) {
    text = text.trim();
    var e = execOf(V.active), m = /^([0-9.]+)\s*(s|ms)$/.exec(text);
    if (m) {
      var ns = +m[1] * (m[2] === 's' ? 1e9 : 1e6), lo = 0, hi = e.n - 1, best = e.n - 1;
      if (!e.timed) ns = Math.round(ns / 1e6) * 1e6;
      while (lo <= hi) { var mid = (lo + hi) >> 1; if (e.start[mid] >= ns) { best = mid; hi = mid - 1; } else lo = mid + 1; }
      goTo(best);
      return;
    }
    m = /^#?(\d+)$/.exec(text);
    if (m) goTo(+m[1]);
  }
  function goTo(s) { // s, or the nearest visible step after it
    if (V.rowOf[s] === undefined) s = maxSteps() - 1;
    if (V.rowOf[s] < 0) { var t = visibleStep(s, 1); s = t >= 0 ? t : visibleStep(s, -1); }
    if (s >= 0) select(s);
  }
  function jumpMark(advance) {
    var sel = $('marks');
    if (!sel.options.length) return;
    var parts = sel.value.split(':');
    V.active = +parts[0];
    goTo(+parts[1]);
    if (advance) sel.selectedIndex = (sel.selectedIndex + 1) % sel.options.length;
  }
  function markStep() {
    if (V.marks.length >= 2) V.marks = [];
    V.marks.push({ pane: V.active, step: V.cur });
    draw();
    showSide();
  }

  // ---- the side panel ----
  function link(s, text) { return '<a class="step" data-step="' + s + '">' + esc(text === undefined ? 'step ' + s : text) + '</a>'; }
  function showSide() {
    var e = execOf(V.active), s = V.cur, h = '';
    var info = $('stepinfo');
    V.panes.forEach(function (p) { p.root.classList.toggle('active', p.index === V.active); });
    info.dataset.step = s;
    if (s >= e.n) {
      info.innerHTML = '<h3>Step ' + s + '</h3><p class="muted">' + esc(e.name) + ' has only ' + e.n + ' steps.</p>';
    } else {
      var node = e.node[s];
      h += '<h3>Step ' + s + ' of ' + esc(e.name) + (e.timed ? ' · ' + esc(fmtTime(e, e.start[s], true)) + ' (took ' + esc(fmtDur(e.dur[s])) + ')' : '') + '</h3>';
      h += '<div class="mono"><b>' + nodeName(node) + '</b> ' + esc(e.str[e.label[s]]);
      if (e.from[s] >= 0) h += ' from ' + nodeName(e.from[s]);
      if (e.sent_step[s] >= 0) h += ' (sent by ' + link(e.sent_step[s]) + ')';
      h += '</div>';
      if (e.desc && e.desc[s]) h += '<pre>' + esc(e.desc[s]) + '</pre>';
      e.marks.forEach(function (m) { if (m.step === s) h += '<div class="markline">◆ ' + esc(m.kind) + ': ' + esc(m.text) + '</div>'; });
      if (e.crit[s]) h += '<div class="critline">▮ on the critical path: the execution\'s end waited for this step</div>';
      var k;
      for (k = e.sendAt[s]; k < e.sendAt[s + 1]; k++) {
        var st = D.statuses[e.send_status[k]];
        h += '<div class="mono">→ ' + nodeName(e.send_to[k]) + ' ' + esc(e.str[e.send_type[k]]) + ': ' + esc(st);
        if (e.send_recv[k] >= 0) h += ', delivered at ' + link(e.send_recv[k]);
        else if (st === 'sent') h += ', not delivered in this execution';
        h += '</div>';
      }
      for (k = e.timerAt[s]; k < e.timerAt[s + 1]; k++) {
        h += '<div class="mono">timer ' + esc(e.str[e.timer_name[k]]) + (e.timer_cancel[k] ? ' cancelled' : ' set' + (e.timed ? ' for ' + esc(fmtTime(e, e.timer_at[k], true)) : '')) + '</div>';
      }
      for (k = e.noteAt[s]; k < e.noteAt[s + 1]; k++) h += '<div class="mono">note: ' + esc(e.str[e.note_text[k]]) + '</div>';
      info.innerHTML = h;
    }
    showDiff();
    showStates();
  }
  function showStates() {
    var e = execOf(V.active), s = Math.min(V.cur, e.n - 1), other = V.panes.length > 1 ? execOf(1 - V.active) : null;
    var h = '<h3>Every node\'s state after step ' + s + (other ? ' (◀ marks a node whose state differs in ' + esc(other.name) + ')' : '') + '</h3>';
    var shown = 0, limit = 400;
    for (var i = 0; i < V.lanes.length && shown < limit; i++, shown++) {
      var node = V.lanes[i];
      if (node >= e.nodes) continue;
      var st = stateAt(e, s, node), cls = 'st';
      if (s >= 0 && e.node[s] === node) cls += ' changed';
      if (other && node < other.nodes && stateAt(other, Math.min(s, other.n - 1), node) !== st) cls += ' differs';
      h += '<div class="' + cls + '" data-node="' + node + '"><b>' + nodeName(node) + '</b> ' + esc(st || '(no state yet)') + '</div>';
    }
    if (V.lanes.length > limit) h += '<p class="muted">… and ' + (V.lanes.length - limit) + ' more nodes: filter by node to see them.</p>';
    $('states').innerHTML = h;
  }

  // tokens splits a state into fields: at spaces outside brackets and
  // quotes, inside a wrapping Name{…}.
  function tokens(s) {
    var m = /^[A-Za-z_][\w.]*\{([\s\S]*)\}$/.exec(s);
    if (m) s = m[1];
    var out = [], depth = 0, q = false, cur = '';
    for (var i = 0; i < s.length; i++) {
      var ch = s[i];
      if (q) { cur += ch; if (ch === '\\') { cur += s[++i] || ''; } else if (ch === '"') q = false; continue; }
      if (ch === '"') q = true;
      else if ('[{('.indexOf(ch) >= 0) depth++;
      else if (']})'.indexOf(ch) >= 0) depth--;
      if ((ch === ' ' || ch === '\n') && depth <= 0) { if (cur) out.push(cur); cur = ''; continue; }
      cur += ch;
    }
    if (cur) out.push(cur);
    return out;
  }
  // tokenDiff is an LCS diff of two token lists: [op, token] with op
  // ' ', '-' or '+'.
  function tokenDiff(a, b) {
    var n = a.length, m = b.length;
    if (n * m > 4e6) { // too long for LCS: the fields only on one side
      var inB = new Set(b), inA = new Set(a), out = [];
      a.forEach(function (t) { out.push([inB.has(t) ? ' ' : '-', t]); });
      b.forEach(function (t) { if (!inA.has(t)) out.push(['+', t]); });
      return out;
    }
    var L = [];
    for (var i = 0; i <= n; i++) L.push(new Int32Array(m + 1));
    for (i = n - 1; i >= 0; i--) for (var j = m - 1; j >= 0; j--) L[i][j] = a[i] === b[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
    var res = [];
    i = 0; j = 0;
    while (i < n && j < m) {
      if (a[i] === b[j]) { res.push([' ', a[i]]); i++; j++; } else if (L[i + 1][j] >= L[i][j + 1]) res.push(['-', a[i++]]); else res.push(['+', b[j++]]);
    }
    while (i < n) res.push(['-', a[i++]]);
    while (j < m) res.push(['+', b[j++]]);
    return res;
  }
  function showDiff() {
    var box = $('diff');
    if (V.marks.length < 2) {
      box.innerHTML = V.marks.length === 1 ? '<h3>State diff</h3><p class="muted">Marked step ' + V.marks[0].step + ': mark another step (m) to see which node states differ.</p>' : '';
      return;
    }
    var A = V.marks[0], B = V.marks[1], ea = execOf(A.pane), eb = execOf(B.pane);
    var sa = Math.min(A.step, ea.n - 1), sb = Math.min(B.step, eb.n - 1);
    var h = '<h3>State diff: ' + esc(ea.name) + ' after ' + link(sa) + ' (−) → ' + esc(eb.name) + ' after ' + link(sb) + ' (+)</h3>';
    var nodes = Math.max(ea.nodes, eb.nodes), count = 0;
    for (var node = 0; node < nodes; node++) {
      if (V.laneOf[node] < 0) continue;
      var x = node < ea.nodes ? stateAt(ea, sa, node) : '', y = node < eb.nodes ? stateAt(eb, sb, node) : '';
      if (x === y) continue;
      if (++count > 200) continue;
      var d = tokenDiff(tokens(x), tokens(y)), long = d.length > 40;
      h += '<div class="st" data-node="' + node + '"><b>' + nodeName(node) + '</b> ';
      d.forEach(function (t) {
        if (t[0] === '-') h += '<span class="del">' + esc(t[1]) + '</span> ';
        else if (t[0] === '+') h += '<span class="add">' + esc(t[1]) + '</span> ';
        else if (!long) h += '<span class="keep">' + esc(t[1]) + '</span> ';
      });
      h += '</div>';
    }
    if (count === 0) h += '<p class="muted">No node\'s state differs.</p>';
    else if (count > 200) h += '<p class="muted">… and ' + (count - 200) + ' more nodes differ: filter by node.</p>';
    box.innerHTML = h;
  }

  // ---- wiring ----
  function setView(i) {
    V.view = i;
    V.marks = [];
    buildPanes();
    applyFilters();
    select(Math.min(V.cur, maxSteps() - 1));
    $('trace').disabled = !V.panes.some(function (p) { return p.e.timed; });
  }
  $('trace').addEventListener('click', downloadTrace);
  $('view').addEventListener('change', function () { setView(+this.value); });
  $('prev').addEventListener('click', function () { step(-1); });
  $('next').addEventListener('click', function () { step(1); });
  $('nprev').addEventListener('click', function () { nodeStep(-1); });
  $('nnext').addEventListener('click', function () { nodeStep(1); });
  $('go').addEventListener('click', function () { jump($('jump').value); });
  $('jump').addEventListener('keydown', function (ev) { if (ev.key === 'Enter') { jump(this.value); this.blur(); } });
  $('gomark').addEventListener('click', function () { jumpMark(false); });
  $('zin').addEventListener('click', function () { zoom(1); });
  $('zout').addEventListener('click', function () { zoom(-1); });
  $('mark').addEventListener('click', markStep);
  $('unmark').addEventListener('click', function () { V.marks = []; draw(); showSide(); });
  $('fnode').addEventListener('change', function () { V.filter.nodes = parseNodes(this.value, V.laneOf.length); refilter(); });
  $('flabel').addEventListener('change', function () { V.filter.label = this.value; refilter(); });
  $('ftext').addEventListener('change', function () { V.filter.text = this.value; refilter(); });
  $('fre').addEventListener('change', function () { V.filter.re = this.checked; refilter(); });
  $('side').addEventListener('click', function (ev) {
    var a = ev.target.closest('a.step');
    if (a) goTo(+a.dataset.step);
  });
  function refilter() {
    applyFilters();
    goTo(V.cur);
  }
  function zoom(d) {
    var p = V.panes[V.active], r = V.rowOf[V.cur];
    V.zoom = Math.max(0, Math.min(ZOOMS.length - 1, V.zoom + d));
    layout();
    if (r >= 0) p.scroll.scrollTop = Math.max(0, HEAD + r * rowH() - p.scroll.clientHeight / 2);
  }
  document.addEventListener('keydown', function (ev) {
    var t = ev.target;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA')) {
      if (ev.key === 'Escape') t.blur();
      return;
    }
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    var page = Math.max(1, Math.floor(V.panes[V.active].scroll.clientHeight / rowH()) - 2);
    var keys = {
      ArrowDown: function () { step(1); }, j: function () { step(1); },
      ArrowUp: function () { step(-1); }, k: function () { step(-1); },
      n: function () { nodeStep(1); }, p: function () { nodeStep(-1); },
      g: function () { $('jump').focus(); },
      d: function () { jumpMark(true); },
      m: markStep,
      Escape: function () { V.marks = []; draw(); showSide(); },
      '+': function () { zoom(1); }, '=': function () { zoom(1); }, '-': function () { zoom(-1); },
      Home: function () { goTo(0); }, End: function () { goTo(maxSteps() - 1); },
      PageDown: function () { var r = Math.min(V.vis.length - 1, V.rowOf[V.cur] + page); if (r >= 0) select(V.vis[r]); },
      PageUp: function () { var r = Math.max(0, V.rowOf[V.cur] - page); if (V.vis.length) select(V.vis[r]); },
      ArrowLeft: function () { if (V.panes.length > 1) { V.active = 0; showSide(); } },
      ArrowRight: function () { if (V.panes.length > 1) { V.active = 1; showSide(); } }
    };
    var f = keys[ev.key];
    if (f) { ev.preventDefault(); f(); }
  });
  window.addEventListener('resize', layout);

  if (!D.executions.length) {
    $('panes').textContent = 'No execution to show.';
    return;
  }
  setView(0);
  V.panes.forEach(function (p) { drawPane(p); });
  document.body.dataset.ready = '1';
  // openMS counts from the navigation's start (performance's time origin).
  T.parseMS = parseMS;
  T.scriptMS = performance.now() - t0;
  T.openMS = performance.now();
  T.steps = D.executions.map(function (e) { return e.n; });
})();
