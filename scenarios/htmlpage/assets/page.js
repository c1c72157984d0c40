// idemsim run page: draws the run's data (the JSON in #data) as a
// swimlane sequence diagram on a canvas, with the trace beside it.
// Written by hand, no library (docs/html.md). Times in the data are
// integer nanoseconds of simulated time; the axis shows milliseconds.
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("data").textContent);
  var t0perf = performance.now();

  // Item ids: messages, then marks, then bands, then calls.
  var nM = D.msgs.length, nK = D.marks.length, nB = D.bands.length, nC = D.calls.length;
  var offK = nM, offB = nM + nK, offC = nM + nK + nB, nAll = offC + nC;
  var REF_OFF = [0, offK, offB, offC];
  function refToId(r) { return REF_OFF[r & 3] + (r >> 2); }

  var MSG_LOST = 1, MSG_LATE = 2, MSG_RESP = 4;
  var MARK_NAMES = ["trace line", "transaction state", "epoch bump", "append", "duplicate", "reject", "marker", "fault (instant)", "note", "violation"];
  var MARK_COLORS = ["#8a93a6", "#2f6fd6", "#7a2fd6", "#1f9d55", "#d98a00", "#c0392b", "#0b7a75", "#6b4f2a", "#5c6370", "#e0002a"];
  var CALL_NAMES = ["application send", "acknowledgement", "failure", "transaction outcome"];
  var BAND_COLORS = { pause: "rgba(240,160,40,.28)", crash: "rgba(200,40,40,.25)", partition: "rgba(120,80,200,.22)", stall: "rgba(40,140,200,.25)" };
  var COL = { req: "#2b3a55", resp: "#4f7fbf", lost: "#c0392b", late: "#e07b00", call: "#9aa3b5", path: "#e0002a", sel: "#ff00aa", dim: "rgba(150,158,175,.18)" };

  // Line -> item, for the trace panel.
  var lineItem = new Int32Array(D.lines.length).fill(-1);
  function setLine(l, id) { if (l >= 0 && l < lineItem.length && lineItem[l] < 0) lineItem[l] = id; }
  D.msgs.forEach(function (m, i) { setLine(m[5], i); setLine(m[6], i); });
  D.marks.forEach(function (m, i) { setLine(m[3], offK + i); });
  D.bands.forEach(function (b, i) { setLine(b[3], offB + i); });
  D.calls.forEach(function (c, i) { setLine(c[4], offC + i); (c[6] || []).forEach(function (l) { setLine(l, offC + i); }); });
  function lineAt(l) { var m = /^t=([0-9.]+)s /.exec(D.lines[l]); return m ? Math.round(parseFloat(m[1]) * 1e9) : 0; }

  // Texts the data leaves out, read from the trace line they came from
  // (data.go: msgText, and a mark whose text is its line's).
  function lineText(l) { var i = l.indexOf(" "); return l.slice(0, 2) === "t=" && i >= 0 ? l.slice(i + 1) : l; }
  D.msgs.forEach(function (m) {
    if (m[8] === "" && m[5] >= 0) { var l = D.lines[m[5]], a = l.indexOf(" send "), z = l.lastIndexOf(" -> "); if (a >= 0 && z >= a + 6) m[8] = l.slice(a + 6, z); }
  });
  D.marks.forEach(function (k) { if (k[4] === "" && k[3] >= 0) k[4] = lineText(D.lines[k[3]]); });

  var records = {};
  D.records.forEach(function (r) { records[r[0]] = r[1]; });

  var st = {
    laneOn: D.lanes.map(function () { return true; }),
    kindOn: D.kinds.map(function () { return true; }),
    calls: true, dim: false, record: "", path: null, pathLines: null,
    selected: -1, hover: -1, t0: 0, scale: 1, w: 0, h: 0
  };
  var stats = { arrows: 0, lost: 0, late: 0, highlighted: 0, marks: 0, bands: 0, calls: 0, drawMs: 0, frames: 0 };

  var canvas = document.getElementById("canvas"), ctx = canvas.getContext("2d");
  var diagram = document.getElementById("diagram"), tip = document.getElementById("tip");
  var GUTTER = 84, AXIS = 34, PAD = 16;
  // The fitted view ends shortly after the last thing that happens (the
  // run may end long after, when its last timer fires): the run's end is
  // a dashed line when in view.
  var lastT = 0;
  D.msgs.forEach(function (m) { lastT = Math.max(lastT, m[1]); });
  D.marks.forEach(function (m) { lastT = Math.max(lastT, m[0]); });
  D.bands.forEach(function (b) { lastT = Math.max(lastT, b[1]); });
  D.calls.forEach(function (c) { lastT = Math.max(lastT, c[0]); });
  var fitEnd = Math.min(D.end, lastT * 1.03) || D.end || 1;
  var laneY = [], laneH = 30;

  function layout() {
    var vis = 0;
    st.laneOn.forEach(function (on) { if (on) vis++; });
    laneH = Math.max(16, Math.min(56, (st.h - AXIS - 8) / Math.max(vis, 1)));
    var y = AXIS + laneH / 2, j = 0;
    laneY = st.laneOn.map(function (on) { if (!on) return -1; var v = y + j * laneH; j++; return v; });
  }
  function X(t) { return GUTTER + (t - st.t0) * st.scale; }
  function T(x) { return st.t0 + (x - GUTTER) / st.scale; }

  function resize() {
    var r = diagram.getBoundingClientRect(), dpr = window.devicePixelRatio || 1;
    st.w = Math.max(200, Math.floor(r.width)); st.h = Math.max(120, Math.floor(r.height));
    canvas.width = st.w * dpr; canvas.height = st.h * dpr;
    canvas.style.width = st.w + "px"; canvas.style.height = st.h + "px";
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    layout();
  }
  function fit() {
    st.t0 = 0; st.scale = (st.w - GUTTER - PAD) / Math.max(fitEnd, 1);
    draw();
  }
  function zoomAt(x, f) {
    var t = T(x);
    var minScale = (st.w - GUTTER - PAD) / Math.max(D.end, 1) / 4, maxScale = 50; // 50 px per ns: far past any event
    st.scale = Math.min(maxScale, Math.max(minScale, st.scale * f));
    st.t0 = t - (x - GUTTER) / st.scale;
    draw();
  }

  function msgVisible(m) {
    return laneY[m[2]] >= 0 && laneY[m[3]] >= 0 && st.kindOn[m[4]];
  }
  function inPath(id) { return st.path !== null && st.path.has(id); }

  // ticks: a round step in ms for about one label per 110 px.
  function tickStep(msPerPx) {
    var raw = msPerPx * 110, p = Math.pow(10, Math.floor(Math.log10(raw))), n = raw / p;
    return (n < 2 ? 2 : n < 5 ? 5 : 10) * p;
  }
  function fmtMs(ms, step) {
    var d = step >= 1 ? 0 : Math.min(6, Math.ceil(-Math.log10(step)));
    return ms.toFixed(d);
  }

  var pending = false;
  function draw() { if (!pending) { pending = true; requestAnimationFrame(function () { pending = false; render(); }); } }

  function arrowHead(p, x1, y1, x2, y2, s) {
    var a = Math.atan2(y2 - y1, x2 - x1);
    p.moveTo(x2, y2); p.lineTo(x2 - s * Math.cos(a - 0.45), y2 - s * Math.sin(a - 0.45));
    p.moveTo(x2, y2); p.lineTo(x2 - s * Math.cos(a + 0.45), y2 - s * Math.sin(a + 0.45));
  }
  function cross(p, x, y, s) {
    p.moveTo(x - s, y - s); p.lineTo(x + s, y + s); p.moveTo(x - s, y + s); p.lineTo(x + s, y - s);
  }

  function render() {
    var start = performance.now();
    var w = st.w, h = st.h, tA = T(GUTTER - 4), tB = T(w);
    ctx.clearRect(0, 0, w, h);
    ctx.font = "11px system-ui, sans-serif";
    // lanes
    ctx.lineWidth = 1;
    for (var i = 0; i < D.lanes.length; i++) {
      var y = laneY[i]; if (y < 0) continue;
      ctx.strokeStyle = D.lanes[i][1] === "app" ? "#e4e7ee" : "#cfd4de";
      ctx.beginPath(); ctx.moveTo(GUTTER, y + 0.5); ctx.lineTo(w, y + 0.5); ctx.stroke();
    }
    // the fault plan's end and the run's end
    [[D.planEnd, "plan end"], [D.end, "run end"]].forEach(function (e) {
      if (e[0] <= 0 || e[0] < tA || e[0] > tB) return;
      ctx.strokeStyle = "#aab"; ctx.setLineDash([3, 4]);
      ctx.beginPath(); ctx.moveTo(X(e[0]), AXIS); ctx.lineTo(X(e[0]), h); ctx.stroke(); ctx.setLineDash([]);
      ctx.fillStyle = "#778"; ctx.fillText(e[1], X(e[0]) + 3, h - 4);
    });
    var dimAll = st.dim && st.path !== null;
    // bands
    var nb = 0;
    for (i = 0; i < nB; i++) {
      var b = D.bands[i], y2 = laneY[b[2]];
      if (y2 < 0 || b[1] < tA || b[0] > tB) continue;
      var verb = b[4].split(" ")[0], id = offB + i;
      ctx.fillStyle = dimAll && !inPath(id) ? "rgba(160,160,170,.10)" : (BAND_COLORS[verb] || "rgba(120,120,120,.22)");
      var bx = Math.max(X(b[0]), GUTTER), bw = Math.max(2, X(b[1]) - bx);
      ctx.fillRect(bx, y2 - laneH * 0.42, bw, laneH * 0.84);
      if (id === st.selected) { ctx.strokeStyle = COL.sel; ctx.lineWidth = 2; ctx.strokeRect(bx, y2 - laneH * 0.42, bw, laneH * 0.84); ctx.lineWidth = 1; }
      if (bw > 40) { ctx.fillStyle = "#4a3a20"; ctx.fillText(b[4], bx + 3, y2 - laneH * 0.42 + 11, bw - 6); }
      nb++;
    }
    // calls (application <-> producer)
    var nc = 0;
    if (st.calls) {
      var pc = new Path2D(), pcd = new Path2D(), pcp = new Path2D();
      for (i = 0; i < nC; i++) {
        var c = D.calls[i];
        if (c[0] < tA || c[0] > tB || laneY[c[1]] < 0 || laneY[c[2]] < 0) continue;
        var cid = offC + i, pp = inPath(cid) ? pcp : (dimAll ? pcd : pc);
        var cx = X(c[0]);
        pp.moveTo(cx, laneY[c[1]]); pp.lineTo(cx, laneY[c[2]]);
        if (Math.abs(laneY[c[2]] - laneY[c[1]]) > 12) arrowHead(pp, cx, laneY[c[1]], cx, laneY[c[2]], 4);
        nc++;
      }
      if (nc < 1500) ctx.setLineDash([2, 2]); // dashing thousands of lines costs a frame
      ctx.strokeStyle = COL.dim; ctx.stroke(pcd);
      ctx.strokeStyle = COL.call; ctx.stroke(pc);
      ctx.setLineDash([]);
      ctx.strokeStyle = COL.path; ctx.lineWidth = 2; ctx.stroke(pcp); ctx.lineWidth = 1;
    }
    // messages, batched by style
    var P = { req: new Path2D(), resp: new Path2D(), lost: new Path2D(), late: new Path2D(), dim: new Path2D(), path: new Path2D() };
    var na = 0, nl = 0, nlate = 0, nh = 0, lateLabels = [];
    for (i = 0; i < nM; i++) {
      var m = D.msgs[i];
      if (!msgVisible(m) || m[1] < tA || m[0] > tB) continue;
      var x1 = X(m[0]), y1 = laneY[m[2]], x2 = X(m[1]), y3 = laneY[m[3]];
      var lost = m[7] & MSG_LOST, late = m[7] & MSG_LATE;
      if (lost && m[1] === m[0]) { x2 = x1 + Math.min(18, Math.max(8, laneH * 0.5)); y3 = y1 + (y3 - y1) * 0.25; }
      var key = inPath(i) ? "path" : dimAll ? "dim" : lost ? "lost" : late ? "late" : (m[7] & MSG_RESP) ? "resp" : "req";
      var p = P[key];
      p.moveTo(x1, y1); p.lineTo(x2, y3);
      if (lost) { cross(p, x2, y3, 4); nl++; } else if (Math.abs(x2 - x1) + Math.abs(y3 - y1) > 12) arrowHead(p, x1, y1, x2, y3, 6);
      if (late) { nlate++; if (x2 - x1 > 30 || Math.abs(y3 - y1) > 30) lateLabels.push([(x1 + x2) / 2, (y1 + y3) / 2]); }
      if (key === "path") nh++;
      na++;
    }
    ctx.lineWidth = 1;
    ctx.strokeStyle = COL.dim; ctx.stroke(P.dim);
    ctx.strokeStyle = COL.req; ctx.stroke(P.req);
    ctx.strokeStyle = COL.resp; ctx.stroke(P.resp);
    ctx.lineWidth = 1.5;
    ctx.strokeStyle = COL.lost; ctx.stroke(P.lost);
    ctx.strokeStyle = COL.late; ctx.stroke(P.late);
    ctx.lineWidth = 2.5; ctx.strokeStyle = COL.path; ctx.stroke(P.path);
    ctx.lineWidth = 1;
    ctx.fillStyle = COL.late;
    lateLabels.forEach(function (q) { ctx.fillText("late", q[0] + 3, q[1] - 3); });
    // marks, batched by colour: one path per class (and one for the
    // dimmed), filled once
    var nk = 0, MP = [], dimP = new Path2D(), ringP = new Path2D(), violLines = new Path2D();
    for (i = 0; i < MARK_COLORS.length; i++) MP.push(new Path2D());
    for (i = 0; i < nK; i++) {
      var k = D.marks[i], ky = laneY[k[1]];
      if (ky < 0 || k[0] < tA || k[0] > tB) continue;
      var kid = offK + i, kx = X(k[0]), cls = k[2], on = inPath(kid);
      var mp = dimAll && !on && cls !== 9 ? dimP : MP[cls];
      if (cls === 9) { // violation: a red triangle and a line through every lane
        violLines.moveTo(kx, AXIS); violLines.lineTo(kx, h);
        mp.moveTo(kx, ky - 9); mp.lineTo(kx + 7, ky + 5); mp.lineTo(kx - 7, ky + 5); mp.closePath();
      } else if (cls === 2) { // epoch bump: a diamond
        mp.moveTo(kx, ky - 6); mp.lineTo(kx + 5, ky); mp.lineTo(kx, ky + 6); mp.lineTo(kx - 5, ky); mp.closePath();
      } else if (cls === 1) { // transaction state: a square
        mp.rect(kx - 3.5, ky - 3.5, 7, 7);
      } else if (cls >= 3 && cls <= 6) { // broker verdicts and markers: a bar
        mp.rect(kx - 1.5, ky - 7, 3, 14);
      } else {
        var rr = cls === 0 ? 2 : 3; mp.moveTo(kx + rr, ky); mp.arc(kx, ky, rr, 0, 6.2832);
      }
      if (on) { ringP.moveTo(kx + 8, ky); ringP.arc(kx, ky, 8, 0, 6.2832); nh++; }
      nk++;
    }
    ctx.strokeStyle = "rgba(224,0,42,.35)"; ctx.stroke(violLines);
    ctx.fillStyle = COL.dim; ctx.fill(dimP);
    for (i = 0; i < MP.length; i++) { ctx.fillStyle = MARK_COLORS[i]; ctx.fill(MP[i]); }
    ctx.strokeStyle = COL.path; ctx.lineWidth = 2; ctx.stroke(ringP); ctx.lineWidth = 1;
    drawSelection();
    // axis and lane labels, over the drawing
    ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, w, AXIS); ctx.fillRect(0, AXIS, GUTTER - 2, h);
    ctx.strokeStyle = "#99a"; ctx.beginPath(); ctx.moveTo(GUTTER, AXIS - 0.5); ctx.lineTo(w, AXIS - 0.5); ctx.stroke();
    var msPerPx = 1 / (st.scale * 1e6), step = tickStep(msPerPx), first = Math.ceil(T(GUTTER) / 1e6 / step) * step;
    ctx.fillStyle = "#334"; ctx.textAlign = "center";
    for (var ms = first; X(ms * 1e6) <= w; ms += step) {
      var tx = X(ms * 1e6);
      ctx.beginPath(); ctx.moveTo(tx, AXIS - 5); ctx.lineTo(tx, AXIS); ctx.stroke();
      ctx.fillText(fmtMs(ms, step), tx, AXIS - 8);
    }
    ctx.textAlign = "left"; ctx.fillStyle = "#556";
    ctx.fillText("simulated time (ms)", GUTTER + 4, 11);
    for (i = 0; i < D.lanes.length; i++) {
      if (laneY[i] < 0) continue;
      ctx.fillStyle = D.lanes[i][1] === "app" ? "#889" : "#1d2330";
      ctx.fillText(D.lanes[i][0], 6, laneY[i] + 4);
      ctx.fillStyle = "#99a"; ctx.font = "10px system-ui, sans-serif"; ctx.fillText(D.lanes[i][1], 6, laneY[i] + 14, GUTTER - 10); ctx.font = "11px system-ui, sans-serif";
    }
    stats.arrows = na; stats.lost = nl; stats.late = nlate; stats.highlighted = nh; stats.marks = nk; stats.bands = nb; stats.calls = nc;
    stats.frames++; stats.drawMs = performance.now() - start;
    document.getElementById("status").textContent = na + " of " + nM + " messages in view, " + (T(w) - T(GUTTER) >= 1e6 ? ((T(w) - T(GUTTER)) / 1e6).toFixed(1) + " ms wide" : ((T(w) - T(GUTTER)) / 1e3).toFixed(1) + " µs wide");
  }

  function itemGeom(id) {
    // [x, y] of the item's anchor (an arrow's middle) in canvas pixels.
    if (id < offK) { var m = D.msgs[id]; return [(X(m[0]) + X(m[1])) / 2, (laneY[m[2]] + laneY[m[3]]) / 2]; }
    if (id < offB) { var k = D.marks[id - offK]; return [X(k[0]), laneY[k[1]]]; }
    if (id < offC) { var b = D.bands[id - offB]; return [X((b[0] + b[1]) / 2), laneY[b[2]]]; }
    var c = D.calls[id - offC]; return [X(c[0]), (laneY[c[1]] + laneY[c[2]]) / 2];
  }
  function drawSelection() {
    var id = st.selected; if (id < 0 || !visible(id)) return;
    ctx.strokeStyle = COL.sel; ctx.lineWidth = 3;
    ctx.beginPath();
    if (id < offK) {
      var m = D.msgs[id], x1 = X(m[0]), x2 = X(m[1]), y1 = laneY[m[2]], y2 = laneY[m[3]];
      if ((m[7] & MSG_LOST) && m[1] === m[0]) { x2 = x1 + Math.min(18, Math.max(8, laneH * 0.5)); y2 = y1 + (y2 - y1) * 0.25; }
      ctx.moveTo(x1, y1); ctx.lineTo(x2, y2);
    } else {
      var g = itemGeom(id); ctx.arc(g[0], g[1], 9, 0, 6.2832);
    }
    ctx.stroke(); ctx.lineWidth = 1;
  }
  function visible(id) {
    if (id < offK) return msgVisible(D.msgs[id]);
    if (id < offB) return laneY[D.marks[id - offK][1]] >= 0;
    if (id < offC) return laneY[D.bands[id - offB][2]] >= 0;
    var c = D.calls[id - offC]; return st.calls && laneY[c[1]] >= 0 && laneY[c[2]] >= 0;
  }

  // hit test: the item nearest (x, y) within 6 px.
  function segDist(px, py, x1, y1, x2, y2) {
    var dx = x2 - x1, dy = y2 - y1, l = dx * dx + dy * dy, t = l ? ((px - x1) * dx + (py - y1) * dy) / l : 0;
    t = Math.max(0, Math.min(1, t));
    var ex = x1 + t * dx - px, ey = y1 + t * dy - py; return Math.sqrt(ex * ex + ey * ey);
  }
  function hit(x, y) {
    var best = -1, bd = 6, i, d, tA = T(x - 40), tB = T(x + 40);
    for (i = 0; i < nK; i++) { var k = D.marks[i]; if (k[0] < tA || k[0] > tB || laneY[k[1]] < 0) continue; d = Math.hypot(X(k[0]) - x, laneY[k[1]] - y) - 2; if (d < bd) { bd = d; best = offK + i; } }
    for (i = 0; i < nM; i++) {
      var m = D.msgs[i]; if (!msgVisible(m) || m[1] < tA && m[0] < tA || m[0] > tB) continue;
      var x1 = X(m[0]), x2 = X(m[1]), y1 = laneY[m[2]], y2 = laneY[m[3]];
      if ((m[7] & MSG_LOST) && m[1] === m[0]) { x2 = x1 + Math.min(18, Math.max(8, laneH * 0.5)); y2 = y1 + (y2 - y1) * 0.25; }
      d = segDist(x, y, x1, y1, x2, y2); if (d < bd) { bd = d; best = i; }
    }
    if (st.calls) for (i = 0; i < nC; i++) { var c = D.calls[i]; if (c[0] < tA || c[0] > tB || laneY[c[1]] < 0 || laneY[c[2]] < 0) continue; d = segDist(x, y, X(c[0]), laneY[c[1]], X(c[0]), laneY[c[2]]); if (d < bd) { bd = d; best = offC + i; } }
    if (best < 0) for (i = 0; i < nB; i++) { var b = D.bands[i]; if (laneY[b[2]] < 0) continue; if (x >= X(b[0]) && x <= X(b[1]) && Math.abs(y - laneY[b[2]]) < laneH * 0.42) { best = offB + i; } }
    return best;
  }

  function fmtT(ns) { return (ns / 1e6).toFixed(3) + " ms"; }
  function itemLines(id) {
    if (id < offK) return [D.msgs[id][5], D.msgs[id][6]];
    if (id < offB) return [D.marks[id - offK][3]];
    if (id < offC) return [D.bands[id - offB][3]];
    var c = D.calls[id - offC]; return [c[4]].concat(c[6] || []);
  }
  function itemTime(id) {
    if (id < offK) return D.msgs[id][0];
    if (id < offB) return D.marks[id - offK][0];
    if (id < offC) return D.bands[id - offB][0];
    return D.calls[id - offC][0];
  }
  function shortText(id) {
    if (id < offK) { var m = D.msgs[id]; return D.lanes[m[2]][0] + " → " + D.lanes[m[3]][0] + "  " + m[8] + (m[7] & MSG_LOST ? "  LOST " + m[9] : "") + (m[7] & MSG_LATE ? "  late" : ""); }
    if (id < offB) { var k = D.marks[id - offK]; return D.lanes[k[1]][0] + "  " + k[4]; }
    if (id < offC) { var b = D.bands[id - offB]; return D.lanes[b[2]][0] + "  " + b[4]; }
    var c = D.calls[id - offC]; return D.lanes[c[1]][0] + " → " + D.lanes[c[2]][0] + "  " + c[5];
  }
  function fields(id) {
    var f = [];
    if (id < offK) {
      var m = D.msgs[id];
      f.push(["item", (m[7] & MSG_RESP ? "response" : "request") + " message"], ["kind", D.kinds[m[4]]], ["message", m[8]], ["from → to", D.lanes[m[2]][0] + " → " + D.lanes[m[3]][0]], ["sent", fmtT(m[0])]);
      if (m[7] & MSG_LOST) f.push(["fate", "lost: " + m[9]], ["lost at", fmtT(m[1])]);
      else f.push(["arrived", fmtT(m[1])], ["transit", fmtT(m[1] - m[0])]);
      if (m[7] & MSG_LATE) f.push(["late", "transit over 10 × the run's median"]);
    } else if (id < offB) {
      var k = D.marks[id - offK]; f.push(["item", MARK_NAMES[k[2]]], ["lane", D.lanes[k[1]][0]], ["at", fmtT(k[0])], ["text", k[4]]);
    } else if (id < offC) {
      var b = D.bands[id - offB]; f.push(["item", "fault interval"], ["lane", D.lanes[b[2]][0]], ["action", b[4]], ["from", fmtT(b[0])], ["until", fmtT(b[1])], ["length", fmtT(b[1] - b[0])]);
    } else {
      var c = D.calls[id - offC]; f.push(["item", CALL_NAMES[c[3]] + " (a local call, not a message)"], ["from → to", D.lanes[c[1]][0] + " → " + D.lanes[c[2]][0]], ["at", fmtT(c[0])], ["text", c[5]]);
    }
    var ls = itemLines(id);
    ls.slice(0, 20).forEach(function (l, j) { if (l >= 0) f.push([id < offK && j ? "arrival line" : "trace line", (l + 1) + ": " + D.lines[l]]); });
    if (ls.length > 20) f.push(["", "… and " + (ls.length - 20) + " more lines"]);
    return f;
  }
  function showDetails(id) {
    var el = document.getElementById("details");
    if (id < 0) { el.innerHTML = '<p class="hint">Nothing selected.</p>'; return; }
    var t = document.createElement("table");
    fields(id).forEach(function (r) {
      var tr = t.insertRow(), th = document.createElement("th"); th.textContent = r[0]; tr.appendChild(th);
      tr.insertCell().textContent = r[1];
    });
    el.replaceChildren(t);
  }

  // trace panel: only the lines in view are in the DOM.
  var traceEl = document.getElementById("trace"), LH = 16;
  var spacer = document.createElement("div"); spacer.className = "spacer"; spacer.style.height = (D.lines.length * LH) + "px";
  traceEl.appendChild(spacer);
  var selLine = -1, traceKey = "";
  function renderTrace() {
    var top = traceEl.scrollTop, a = Math.max(0, Math.floor(top / LH) - 10), b = Math.min(D.lines.length, Math.ceil((top + traceEl.clientHeight) / LH) + 10);
    // The same lines with the same marks: keep the elements (a click
    // under way keeps its target).
    var key = a + ":" + b + ":" + selLine + ":" + st.record;
    if (key === traceKey) return;
    traceKey = key;
    var frag = document.createDocumentFragment();
    for (var l = a; l < b; l++) {
      var d = document.createElement("div");
      d.className = "ln" + (lineItem[l] < 0 ? " none" : "") + (l === selLine ? " sel" : "") + (st.pathLines && st.pathLines.has(l) ? " path" : "");
      d.style.top = (l * LH) + "px"; d.dataset.line = l; d.textContent = D.lines[l];
      frag.appendChild(d);
    }
    spacer.replaceChildren(frag);
  }
  traceEl.addEventListener("scroll", function () { requestAnimationFrame(renderTrace); });
  function scrollTraceTo(l) {
    if (l < 0) return;
    var y = l * LH;
    if (y < traceEl.scrollTop || y > traceEl.scrollTop + traceEl.clientHeight - LH) traceEl.scrollTop = Math.max(0, y - traceEl.clientHeight / 3);
  }
  traceEl.addEventListener("click", function (e) {
    var d = e.target.closest(".ln"); if (!d) return;
    selectLine(parseInt(d.dataset.line, 10));
  });

  function select(id, fromTrace) {
    st.selected = id;
    showDetails(id);
    var ls = id >= 0 ? itemLines(id) : [];
    if (!fromTrace) { selLine = ls[0] >= 0 ? ls[0] : -1; scrollTraceTo(selLine); }
    renderTrace();
    draw();
  }
  function centerOn(t) {
    var x = X(t);
    if (x < GUTTER + 20 || x > st.w - 20) st.t0 = t - (st.w - GUTTER) / 2 / st.scale;
  }
  function selectLine(l) {
    selLine = l;
    var id = lineItem[l];
    centerOn(id >= 0 ? itemTime(id) : lineAt(l));
    if (id >= 0 && !visible(id)) id = -1;
    select(id, true);
  }

  function setRecord(name) {
    st.record = name;
    var refs = records[name];
    if (!refs) { st.path = null; st.pathLines = null; }
    else {
      st.path = new Set(refs.map(refToId));
      st.pathLines = new Set();
      st.path.forEach(function (id) { itemLines(id).forEach(function (l) { if (l >= 0) st.pathLines.add(l); }); });
    }
    renderTrace(); draw();
  }

  // UI wiring
  function checkboxes(el, names, on, onChange) {
    names.forEach(function (n, i) {
      var lab = document.createElement("label"), cb = document.createElement("input");
      cb.type = "checkbox"; cb.checked = true; cb.dataset.i = i;
      cb.addEventListener("change", function () { on[i] = cb.checked; onChange(); });
      lab.appendChild(cb); lab.appendChild(document.createTextNode(" " + n)); el.appendChild(lab);
    });
  }
  checkboxes(document.getElementById("lanefilter"), D.lanes.map(function (l) { return l[0] + " (" + l[1] + ")"; }), st.laneOn, function () { layout(); draw(); });
  checkboxes(document.getElementById("kindfilter"), D.kinds, st.kindOn, draw);
  var dl = document.getElementById("recordlist"), recIn = document.getElementById("record");
  var dlf = document.createDocumentFragment();
  D.records.forEach(function (r) { var o = document.createElement("option"); o.value = r[0]; dlf.appendChild(o); });
  dl.appendChild(dlf);
  recIn.addEventListener("input", function () { setRecord(recIn.value.trim()); });
  document.getElementById("dim").addEventListener("change", function (e) { st.dim = e.target.checked; draw(); });
  document.getElementById("calls").addEventListener("change", function (e) { st.calls = e.target.checked; draw(); });
  document.getElementById("fit").addEventListener("click", fit);
  document.getElementById("fitpath").addEventListener("click", function () {
    if (!st.path || st.path.size === 0) return;
    var a = Infinity, z = -Infinity;
    st.path.forEach(function (id) {
      var t1 = itemTime(id), t2 = t1;
      if (id < offK) t2 = D.msgs[id][1]; else if (id >= offB && id < offC) t2 = D.bands[id - offB][1];
      a = Math.min(a, t1); z = Math.max(z, t2);
    });
    var pad = Math.max((z - a) * 0.05, 1e6);
    st.scale = (st.w - GUTTER - PAD) / (z - a + 2 * pad); st.t0 = a - pad;
    draw();
  });
  document.getElementById("zoomin").addEventListener("click", function () { zoomAt((GUTTER + st.w) / 2, 2); });
  document.getElementById("zoomout").addEventListener("click", function () { zoomAt((GUTTER + st.w) / 2, 0.5); });
  var copyBtn = document.getElementById("copy");
  if (copyBtn) copyBtn.addEventListener("click", function () {
    var text = document.getElementById("repro").textContent, out = document.getElementById("copied");
    function fallback() {
      var ta = document.createElement("textarea"); ta.value = text; document.body.appendChild(ta); ta.select();
      var ok = false; try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      ta.remove(); out.textContent = ok ? "copied" : "select the command to copy it";
    }
    if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(text).then(function () { out.textContent = "copied"; }, fallback);
    else fallback();
  });

  // pan (drag) and zoom (wheel)
  var drag = null, moved = false;
  canvas.addEventListener("mousedown", function (e) { drag = { x: e.clientX, t0: st.t0 }; moved = false; diagram.classList.add("dragging"); });
  window.addEventListener("mouseup", function () { drag = null; diagram.classList.remove("dragging"); });
  function local(e) { var r = canvas.getBoundingClientRect(); return [e.clientX - r.left, e.clientY - r.top]; }
  var hoverPending = null;
  canvas.addEventListener("mousemove", function (e) {
    if (drag) {
      if (Math.abs(e.clientX - drag.x) > 2) moved = true;
      st.t0 = drag.t0 - (e.clientX - drag.x) / st.scale; tip.hidden = true; draw(); return;
    }
    var p = local(e);
    if (hoverPending) return;
    hoverPending = p;
    requestAnimationFrame(function () {
      var q = hoverPending; hoverPending = null;
      var id = hit(q[0], q[1]);
      st.hover = id;
      if (id < 0) { tip.hidden = true; return; }
      tip.textContent = shortText(id); tip.hidden = false;
      tip.style.left = Math.min(q[0] + 12, st.w - 200) + "px"; tip.style.top = (q[1] + 14) + "px";
    });
  });
  canvas.addEventListener("mouseleave", function () { tip.hidden = true; });
  canvas.addEventListener("click", function (e) {
    if (moved) return;
    var p = local(e); select(hit(p[0], p[1]), false);
  });
  canvas.addEventListener("wheel", function (e) {
    e.preventDefault();
    var p = local(e);
    if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) { st.t0 += (e.deltaX || e.deltaY) / st.scale; draw(); return; }
    zoomAt(p[0], Math.exp(-e.deltaY * 0.0015));
  }, { passive: false });
  window.addEventListener("resize", function () { resize(); draw(); renderTrace(); });

  // legend
  var lg = document.getElementById("legend");
  var items = [["request", COL.req], ["response", COL.resp], ["lost (ends in ×)", COL.lost], ["late (transit > 10 × median)", COL.late], ["app call (dotted)", COL.call], ["record path", COL.path], ["selected", COL.sel],
    ["append", MARK_COLORS[3]], ["duplicate", MARK_COLORS[4]], ["reject", MARK_COLORS[5]], ["marker", MARK_COLORS[6]], ["txn state ■", MARK_COLORS[1]], ["epoch bump ◆", MARK_COLORS[2]], ["violation ▲", MARK_COLORS[9]],
    ["pause", BAND_COLORS.pause], ["crash", BAND_COLORS.crash], ["partition", BAND_COLORS.partition], ["stall", BAND_COLORS.stall]];
  items.forEach(function (it) {
    var s = document.createElement("span"), i = document.createElement("i"); s.className = "k";
    i.style.background = it[1]; s.appendChild(i); s.appendChild(document.createTextNode(it[0])); lg.appendChild(s);
  });

  resize();
  st.t0 = 0; st.scale = (st.w - GUTTER - PAD) / Math.max(fitEnd, 1);
  var first = D.violations.length ? D.violations[0][3] : "";
  if (first && records[first]) { recIn.value = first; setRecord(first); }
  renderTrace();
  render();

  // For the browser tests and the benchmark (docs/html.md).
  window.idemsimPage = {
    data: D, state: st, stats: stats, lineItem: lineItem,
    ready: true, loadMs: performance.now() - t0perf,
    itemPoint: function (id) { return itemGeom(id); },
    msgOfLine: function (l) { var id = lineItem[l]; return id >= 0 && id < offK ? id : -1; },
    scrollTraceTo: function (l) { traceEl.scrollTop = Math.max(0, l * LH - traceEl.clientHeight / 3); renderTrace(); },
    renderNow: function () { render(); return stats.drawMs; },
    pan: function (px) { var s = performance.now(); st.t0 -= px / st.scale; render(); return performance.now() - s; },
    zoom: function (f) { zoomAt((GUTTER + st.w) / 2, f); render(); }
  };
})();
