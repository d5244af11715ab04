/**
 * The report page's own script (plain browser JS, inlined as text): reads the embedded data and draws
 * the charts with uPlot. Kept apart from report.ts so the renderer stays small and testable.
 */
import { CHART_AXES_JS } from '../../format/chartAxes.ts'

export const REPORT_CLIENT_JS = `${CHART_AXES_JS}
(function () {
  var data = JSON.parse(document.getElementById('sim-data').textContent);
  var currency = data.currency || '';
  var utc = function (ts) { return uPlot.tzDate(new Date(ts * 1e3), 'Etc/UTC'); };
  var width = function () { return Math.min(1100, document.body.clientWidth - 40); };
  var plots = [];
  // By name, for the browser test that reads the rendered tick labels.
  var byName = window.perpbotCharts = {};
  function col(points, i) { return points.map(function (p) { return p.v[i]; }); }
  function secs(points) { return points.map(function (p) { return p.t / 1000; }); }
  function line(label, stroke, extra) {
    var s = { label: label, stroke: stroke, width: 1.5, spanGaps: true };
    for (var k in extra || {}) s[k] = extra[k];
    return s;
  }
  function plot(name, el, title, series, cols, height, yScale, ySuffix) {
    var opts = { title: title, width: width(), height: height || 220, tzDate: utc, series: [{}].concat(series),
      scales: { x: { time: true }, y: { range: perpbotAxes.range } },
      axes: [perpbotAxes.x(), perpbotAxes.y({}, yScale, ySuffix)] };
    var p = new uPlot(opts, cols, el);
    plots.push(p);
    byName[name] = p;
  }
  function merge(points, fills) {
    // Union of sample times and fill times; lines span the gaps, fills are points only.
    var xs = {}, i;
    for (i = 0; i < points.length; i++) xs[points[i].t] = true;
    for (i = 0; i < fills.length; i++) xs[fills[i].t] = true;
    var t = Object.keys(xs).map(Number).sort(function (a, b) { return a - b; });
    var at = {};
    t.forEach(function (x, j) { at[x] = j; });
    var cols = [t.map(function (x) { return x / 1000; })];
    for (var c = 0; c < 3; c++) {
      var arr = t.map(function () { return null; });
      points.forEach(function (p) { arr[at[p.t]] = p.v[c]; });
      cols.push(arr);
    }
    var buys = t.map(function () { return null; }), sells = t.map(function () { return null; });
    fills.forEach(function (f) { (f.buy ? buys : sells)[at[f.t]] = f.price; });
    cols.push(buys, sells);
    return cols;
  }
  var dots = function (color) { return { stroke: color, fill: color, paths: function () { return null; },
    points: { show: true, size: 7, stroke: color, fill: color } }; };
  data.instruments.forEach(function (inst, k) {
    var el = document.getElementById('inst-' + k);
    if (!el) return;
    plot('price:' + inst.symbol, el.querySelector('.price'), inst.symbol + ': index, our best quotes and our fills (' + (currency || 'quote currency') + ')', [
      line('index', '#444'), line('our bid', '#2a7'), line('our ask', '#c44'),
      Object.assign({ label: 'buy fill' }, dots('#070')), Object.assign({ label: 'sell fill' }, dots('#a00'))
    ], merge(inst.series, inst.fills), 260);
    plot('position:' + inst.symbol, el.querySelector('.position'), inst.symbol + ': position (contracts; negative is short)',
      [line('position', '#36c', { fill: 'rgba(51,102,204,0.1)' })], [secs(inst.series), col(inst.series, 3)], 160);
  });
  var acct = data.account;
  plot('pnl', document.getElementById('pnl'), 'PnL (' + (currency || 'quote currency') + '): net = realized + unrealized − fees − funding', [
    line('net', '#000', { width: 2 }), line('realized', '#2a7'), line('unrealized', '#36c'),
    line('fees', '#c80'), line('funding', '#a3a')
  ], [secs(acct), col(acct, 0), col(acct, 1), col(acct, 2), col(acct, 3), col(acct, 4)]);
  plot('margin', document.getElementById('margin'), 'Margin ratio, % (maintenance / account value)',
    [line('margin ratio', '#c44')], [secs(acct), col(acct, 5)], 180, 100, '%');
  var w = data.weights;
  plot('weights', document.getElementById('weights'), 'Weight budgets in use (per minute window)', [
    line('request used', '#36c'), line('request capacity', '#9bd', { dash: [4, 4] }),
    line('action used', '#c80'), line('action capacity', '#ec9', { dash: [4, 4] })
  ], [secs(w), col(w, 0), col(w, 1), col(w, 2), col(w, 3)], 200);
  window.addEventListener('resize', function () {
    plots.forEach(function (p) { p.setSize({ width: width(), height: p.height }); });
  });
})();
`
