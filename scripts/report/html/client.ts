/**
 * The in-page script of report.html (plain ES5-ish JS, inlined): reads the chart data from a JSON
 * element and draws every chart with the bundled uPlot. Text reaches the page only through uPlot,
 * which sets labels with textContent, so nothing here can become markup.
 */
export const CLIENT_JS = String.raw`(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('rig-data').textContent);
  var palette = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#7f7f7f', '#bcbd22'];
  var charts = [];
  function markers(u) {
    var ctx = u.ctx, top = u.bbox.top, h = u.bbox.height;
    ctx.save();
    ctx.fillStyle = 'rgba(214, 39, 40, 0.13)';
    data.rigLimited.forEach(function (b) {
      var x0 = u.valToPos(b[0], 'x', true), x1 = u.valToPos(b[1], 'x', true);
      ctx.fillRect(x0, top, Math.max(1, x1 - x0), h);
    });
    ctx.strokeStyle = '#ff7f0e';
    ctx.lineWidth = 2 * devicePixelRatio;
    ctx.setLineDash([6, 4]);
    data.scaleOuts.forEach(function (t) {
      var x = u.valToPos(t, 'x', true);
      ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, top + h); ctx.stroke();
    });
    ctx.restore();
  }
  function width(el) { return Math.max(320, el.clientWidth - 8); }
  data.charts.forEach(function (c) {
    var el = document.getElementById('chart-' + c.id);
    if (!el) return;
    var k = 0;
    var series = [{}].concat(c.series.map(function (s) {
      var color = s.threshold ? '#999' : palette[k++ % palette.length];
      return { label: s.label, stroke: color, width: s.threshold ? 1 : 1.5, dash: s.threshold ? [5, 5] : undefined,
               scale: s.scale || 'y', spanGaps: true, points: { show: c.x.length <= 40, size: 4 } };
    }));
    var axes = [{}, { label: c.unit, size: 60 }];
    var scales = { x: { time: true, range: function () { return [data.range[0], data.range[1]]; } } };
    if (c.unit2) { axes.push({ label: c.unit2, side: 1, scale: 'y2', grid: { show: false }, size: 50 }); scales.y2 = {}; }
    var opts = { width: width(el), height: 220, series: series, axes: axes, scales: scales,
                 cursor: { sync: { key: 'rig' } }, legend: { live: true }, hooks: { draw: [markers] } };
    var u = new uPlot(opts, [c.x].concat(c.series.map(function (s) { return s.values; })), el);
    charts.push({ id: c.id, el: el, u: u });
  });
  window.addEventListener('resize', function () {
    charts.forEach(function (c) { c.u.setSize({ width: width(c.el), height: 220 }); });
  });
  // For the report's browser test and for anyone who wants the numbers from the console.
  window.__rigCharts = charts.map(function (c) { return { id: c.id, uplot: c.u }; });
})();`;
