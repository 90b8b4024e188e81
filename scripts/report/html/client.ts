/**
 * The in-page script of report.html (plain ES5-ish JS, inlined): reads the chart data from a JSON
 * element and draws every chart with the bundled uPlot. Text reaches the page only through uPlot,
 * which sets labels with textContent, and canvas text, so nothing here can become markup.
 *
 * Every chart: the same elapsed-time axis (T+m:ss from the run's start, ticks on whole steps from the
 * start), phases shaded behind the data and named, rig-limited periods and scale-outs marked, the same
 * plot width (every chart keeps a right-hand axis of one size, empty when it has no second unit), and
 * y axes from 0. A period value is a step over its period or a bar; a sample is a line through instants.
 */
export const CLIENT_JS = String.raw`(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('rig-data').textContent);
  var palette = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#7f7f7f', '#bcbd22'];
  var phaseFills = ['rgba(31, 119, 180, 0.06)', 'rgba(44, 160, 44, 0.07)', 'rgba(148, 103, 189, 0.07)', 'rgba(255, 127, 14, 0.07)'];
  var charts = [];
  var AXIS = 56;
  function tplus(s) {
    s = Math.round(s);
    var sign = s < 0 ? 'T−' : 'T+';
    s = Math.abs(s);
    var m = Math.floor(s / 60), r = s % 60;
    return sign + m + ':' + (r < 10 ? '0' : '') + r;
  }
  function behind(u) {
    var ctx = u.ctx, top = u.bbox.top, h = u.bbox.height;
    ctx.save();
    ctx.font = (10 * devicePixelRatio) + 'px system-ui, sans-serif';
    ctx.textBaseline = 'top';
    data.phases.forEach(function (p, i) {
      var x0 = u.valToPos(p.from, 'x', true), x1 = u.valToPos(p.to, 'x', true);
      ctx.fillStyle = phaseFills[i % phaseFills.length];
      ctx.fillRect(x0, top, Math.max(1, x1 - x0), h);
      ctx.fillStyle = '#57606a';
      ctx.fillText(p.name, x0 + 3 * devicePixelRatio, top + 2 * devicePixelRatio);
    });
    ctx.fillStyle = 'rgba(214, 39, 40, 0.13)';
    data.rigLimited.forEach(function (b) {
      var x0 = u.valToPos(b[0], 'x', true), x1 = u.valToPos(b[1], 'x', true);
      ctx.fillRect(x0, top, Math.max(1, x1 - x0), h);
    });
    ctx.restore();
  }
  function over(u) {
    var ctx = u.ctx, top = u.bbox.top, h = u.bbox.height;
    ctx.save();
    ctx.strokeStyle = '#ff7f0e';
    ctx.lineWidth = 2 * devicePixelRatio;
    ctx.setLineDash([6, 4]);
    data.scaleOuts.forEach(function (t) {
      var x = u.valToPos(t, 'x', true);
      ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, top + h); ctx.stroke();
    });
    ctx.restore();
  }
  function width(el) { return Math.max(260, el.clientWidth - 8); }
  function fromZero(u, min, max) {
    var lo = Math.min(0, min == null ? 0 : min), hi = max == null || max <= 0 ? 1 : max * 1.08;
    return [lo, hi];
  }
  var stepped = uPlot.paths.stepped({ align: 1 });
  var bars = uPlot.paths.bars({ align: 1, size: [0.92, Infinity] });
  data.charts.forEach(function (c) {
    var el = document.getElementById('chart-' + c.id);
    if (!el) return;
    var k = 0;
    var n = c.x.length;
    var series = [{ value: function (u, v) { return v == null ? '–' : tplus(v - data.start); } }].concat(c.series.map(function (s) {
      var color = s.threshold ? '#999' : palette[k++ % palette.length];
      var opt = { label: s.label, stroke: color, width: s.threshold ? 1 : 1.5, dash: s.threshold ? [5, 5] : undefined,
                  scale: s.scale || 'y', spanGaps: true, points: { show: n <= 40 && s.kind !== 'bars', size: 4 } };
      // A period value is held to the next point, and never bridged over a period without one.
      if (s.kind === 'period') { opt.paths = stepped; opt.spanGaps = false; }
      if (s.kind === 'period' && s.gaps) opt.points.show = true;
      if (s.kind === 'bars') {
        opt.paths = bars;
        opt.fill = color;
        opt.width = 0;
        opt.value = function (u, v, si, i) { var r = s.raw && s.raw[i]; return r == null ? '–' : r; };
      }
      return opt;
    }));
    // Stacked bars: the tallest (last) stack drawn first so each type stays visible on top of it.
    var order = c.series.map(function (s, i) { return i; });
    var axes = [
      { label: 'elapsed (T+0:00 = ' + new Date(data.start * 1000).toISOString().slice(11, 19) + ' UTC)',
        splits: function (u, ai, min, max, incr) {
          var out = [], first = data.start + Math.ceil((min - data.start) / incr) * incr;
          for (var v = first; v <= max + 1e-9; v += incr) out.push(v);
          return out;
        },
        incrs: [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200],
        values: function (u, splits) { return splits.map(function (v) { return tplus(v - data.start); }); },
        space: 60 },
      { label: c.unit, size: AXIS }
    ];
    var scales = { x: { time: false, range: function () { return [data.range[0], data.range[1]]; } }, y: { range: fromZero } };
    if (c.unit2) {
      axes.push({ label: c.unit2, side: 1, scale: 'y2', grid: { show: false }, size: AXIS });
      scales.y2 = { range: fromZero };
    } else {
      // An empty label still takes the label's room, as the second unit's label does on the other charts.
      axes.push({ side: 1, scale: 'y', label: '', grid: { show: false }, ticks: { show: false }, size: AXIS, values: function (u, splits) { return splits.map(function () { return ''; }); } });
    }
    var opts = { width: width(el), height: 220, series: series, axes: axes, scales: scales,
                 cursor: { sync: { key: 'rig' } }, legend: { live: true }, hooks: { drawClear: [behind], draw: [over] } };
    // uPlot breaks a line at null and bridges undefined: only a period without data of its own is a null.
    var columns = [c.x].concat(c.series.map(function (s) {
      if (s.kind !== 'period') return s.values;
      var gaps = {};
      (s.gaps || []).forEach(function (i) { gaps[i] = true; });
      return s.values.map(function (v, i) { return v === null && !gaps[i] ? undefined : v; });
    }));
    if (c.series.some(function (s) { return s.kind === 'bars'; })) {
      // uPlot draws series in order: put the stack tops first so the lower parts are painted over them.
      order.reverse();
      opts.series = [series[0]].concat(order.map(function (i) { return series[i + 1]; }));
      columns = [columns[0]].concat(order.map(function (i) { return columns[i + 1]; }));
    }
    var u = new uPlot(opts, columns, el);
    charts.push({ id: c.id, el: el, u: u });
  });
  window.addEventListener('resize', function () {
    charts.forEach(function (c) { c.u.setSize({ width: width(c.el), height: 220 }); });
  });
  // For the report's browser test and for anyone who wants the numbers from the console.
  window.__rigCharts = charts.map(function (c) { return { id: c.id, uplot: c.u }; });
})();`;
