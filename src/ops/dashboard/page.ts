/**
 * The dashboard page, one self-contained HTML document: inline style and one inline script (allowed
 * by its hash), uPlot from `/assets/`, live data from `/events` (server-sent events). It only reads;
 * every string from the bot is put in the page as text, never as markup.
 */

import { CHART_AXES_JS } from '../../format/chartAxes.ts'

/**
 * The page's script: the shared number formatting and chart axes (src/format), then the page's own
 * code (kept free of template syntax so it can live in a plain string).
 */
export const DASHBOARD_SCRIPT = `
'use strict';
${CHART_AXES_JS}
(function () {
  var H = 220;
  var samples = [];
  var currency = '';
  var capacity = 900;
  var charts = new Map();
  var pending = false;
  var byId = function (id) { return document.getElementById(id); };
  // By key, for the browser test that reads the rendered tick labels.
  window.perpbotCharts = {};

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function num(n, digits) {
    if (n === null || n === undefined || !isFinite(n)) return '–';
    return Number(n).toLocaleString('en-US', { maximumFractionDigits: digits === undefined ? 6 : digits });
  }
  function time(ms) { return new Date(ms).toISOString().slice(11, 19); }
  function ago(ms, now) { var s = Math.max(0, Math.round((now - ms) / 1000)); return s < 120 ? s + ' s ago' : Math.round(s / 60) + ' min ago'; }
  function fill(tbody, rows) {
    tbody.replaceChildren.apply(tbody, rows);
  }

  function renderInstruments(last) {
    var rows = last.instruments.map(function (i) {
      var tr = el('tr', { 'data-instrument': i.symbol });
      var cls = 'state-' + i.state.split('.')[0];
      tr.appendChild(el('td', null, i.symbol));
      tr.appendChild(el('td', { class: cls }, i.state));
      tr.appendChild(el('td', null, i.reason));
      tr.appendChild(el('td', { class: 'n' }, price(i.index, i.priceDecimals)));
      tr.appendChild(el('td', { class: 'n' }, price(i.mark, i.priceDecimals)));
      tr.appendChild(el('td', { class: 'n bid' }, price(i.bid, i.priceDecimals)));
      tr.appendChild(el('td', { class: 'n ask' }, price(i.ask, i.priceDecimals)));
      tr.appendChild(el('td', { class: 'n' }, quantity(i.position, i.quantityDecimals)));
      tr.appendChild(el('td', { class: 'n' }, i.openOrders));
      return tr;
    });
    fill(byId('instruments').tBodies[0], rows);
  }

  function renderAccount(last) {
    var a = last.account;
    var l = last.limiter;
    var pct = function (b) { return b.capacity > 0 ? num((100 * b.used) / b.capacity, 1) + ' %' : '–'; };
    var cur = currency || undefined;
    var cells = [
      ['net PnL' + (a.since ? ' since ' + new Date(a.since).toISOString().replace('T', ' ').slice(0, 16) + ' UTC' : ''), amount(a.netPnl, cur)], ['realized', amount(a.realizedPnl, cur)], ['unrealized', amount(a.unrealizedPnl, cur)],
      ['fees', amount(a.fees, cur)], ['funding', amount(a.funding, cur)], ['margin ratio', percent(a.marginRatio)],
      ['request weight', l.request.used + ' / ' + l.request.capacity + ' (' + pct(l.request) + ')'],
      ['action weight', l.action.used + ' / ' + l.action.capacity + ' (' + pct(l.action) + ')'],
    ].map(function (c) {
      var d = el('div', { class: 'kv' });
      d.appendChild(el('span', { class: 'k' }, c[0]));
      d.appendChild(el('span', { class: 'v' }, c[1]));
      return d;
    });
    var box = byId('account');
    box.replaceChildren.apply(box, cells);
  }

  function alertItem(a, now) {
    var li = el('li', { class: 'alert sev-' + a.severity + (a.resolved ? ' resolved' : ''), 'data-key': a.key });
    li.appendChild(el('span', { class: 'sev' }, a.resolved ? 'resolved' : a.severity));
    li.appendChild(el('strong', null, a.title));
    li.appendChild(el('span', { class: 'when' }, time(a.at) + ' (' + ago(a.at, now) + ')'));
    li.appendChild(el('div', { class: 'msg' }, a.message));
    return li;
  }
  function renderBoard(b) {
    var now = samples.length ? samples[samples.length - 1].at : Date.now();
    byId('mode').textContent = b.botMode;
    currency = b.currency || currency;
    var open = b.openAlerts.map(function (a) { return alertItem(a, now); });
    var recent = b.recentAlerts.map(function (a) { return alertItem(a, now); });
    if (!open.length) open = [el('li', { class: 'none' }, 'none')];
    if (!recent.length) recent = [el('li', { class: 'none' }, 'none')];
    fill(byId('open-alerts'), open);
    fill(byId('recent-alerts'), recent);
    var rows = b.fills.map(function (f) {
      var tr = el('tr');
      tr.appendChild(el('td', null, time(f.at)));
      tr.appendChild(el('td', null, f.symbol));
      var side = fillSide(f.side);
      // An opening fill realizes nothing: its PnL cell is blank, not 0.
      var opening = f.closes === false || (f.closes === undefined && Number(f.pnl) === 0);
      tr.appendChild(el('td', { class: side === 'buy' ? 'bid' : 'ask' }, side));
      tr.appendChild(el('td', { class: 'n' }, f.qty));
      tr.appendChild(el('td', { class: 'n' }, f.price));
      tr.appendChild(el('td', { class: 'n' }, amount(f.fee, currency || undefined)));
      tr.appendChild(el('td', { class: 'n' }, opening ? '' : amount(f.pnl, currency || undefined)));
      tr.appendChild(el('td', null, (f.maker ? 'maker' : 'taker') + (f.liquidation ? ', liquidation' : '')));
      return tr;
    });
    if (!rows.length) { var tr = el('tr'); tr.appendChild(el('td', { colspan: '8', class: 'none' }, 'no fills yet')); rows = [tr]; }
    fill(byId('fills').tBodies[0], rows);
  }

  function xs() { return samples.map(function (s) { return s.at / 1000; }); }
  function instrumentField(id, field) {
    return samples.map(function (s) {
      for (var k = 0; k < s.instruments.length; k++) if (s.instruments[k].id === id) return s.instruments[k][field];
      return null;
    });
  }
  var axis = { stroke: '#9aa4b2', grid: { stroke: '#2a3140' }, ticks: { stroke: '#2a3140' } };
  function chart(parent, key, title, series, extract, extra) {
    var c = charts.get(key);
    var data = [xs()].concat(extract());
    if (c) { c.plot.setData(data); return; }
    var box = el('div', { class: 'chart', 'data-chart': key });
    byId(parent).appendChild(box);
    var y = (extra && extra.y) || {};
    var opts = {
      title: title,
      width: Math.max(320, box.clientWidth),
      height: H,
      scales: Object.assign({ x: { time: true }, y: { range: perpbotAxes.range } }, (extra && extra.scales) || {}),
      series: [{}].concat(series),
      axes: [perpbotAxes.x(axis), perpbotAxes.y(axis, y.scale, y.suffix)].concat((extra && extra.axes) || []),
    };
    var plot = new uPlot(opts, data, box);
    window.perpbotCharts[key] = plot;
    charts.set(key, { plot: plot, box: box });
  }

  function renderCharts(last) {
    last.instruments.forEach(function (i) {
      chart('instrument-charts', 'i' + i.id, i.symbol + ': our quotes vs index and mark; position',
        [
          { label: 'bid', stroke: '#2bb673' },
          { label: 'ask', stroke: '#f0605d' },
          { label: 'index', stroke: '#f2c14e', width: 2 },
          { label: 'mark', stroke: '#7fc8f8', dash: [5, 4] },
          { label: 'position', stroke: '#b388eb', scale: 'pos', paths: uPlot.paths.stepped({ align: 1 }) },
        ],
        function () {
          return ['bid', 'ask', 'index', 'mark', 'position'].map(function (f) { return instrumentField(i.id, f); });
        },
        { scales: { pos: { auto: true, range: perpbotAxes.range } },
          axes: [Object.assign(perpbotAxes.y(axis), { scale: 'pos', side: 1, grid: { show: false } })] });
    });
    chart('account-charts', 'pnl', 'PnL (' + (currency || 'quote currency') + ')',
      [
        { label: 'net', stroke: '#f2c14e', width: 2 },
        { label: 'realized', stroke: '#2bb673' },
        { label: 'unrealized', stroke: '#7fc8f8' },
        { label: 'fees', stroke: '#f0605d' },
        { label: 'funding', stroke: '#b388eb' },
      ],
      function () {
        return ['netPnl', 'realizedPnl', 'unrealizedPnl', 'fees', 'funding'].map(function (f) {
          return samples.map(function (s) { return s.account[f]; });
        });
      });
    chart('account-charts', 'margin', 'Margin ratio, % (maintenance / equity)',
      [{ label: 'margin ratio', stroke: '#f2c14e' }],
      function () { return [samples.map(function (s) { return s.account.marginRatio; })]; },
      { y: { scale: 100, suffix: '%' } });
    chart('account-charts', 'weights', 'Weight budgets in use (% of the window)',
      [{ label: 'request', stroke: '#7fc8f8' }, { label: 'action', stroke: '#f0605d' }],
      function () {
        return ['request', 'action'].map(function (k) {
          return samples.map(function (s) { var b = s.limiter[k]; return b.capacity > 0 ? (100 * b.used) / b.capacity : null; });
        });
      },
      { scales: { y: { range: [0, 100] } }, y: { suffix: '%' } });
  }

  function render() {
    pending = false;
    var last = samples[samples.length - 1];
    if (!last) return;
    byId('clock').textContent = 'bot time ' + new Date(last.at).toISOString().replace('T', ' ').slice(0, 19) + ' UTC · ' + samples.length + ' samples';
    renderInstruments(last);
    renderAccount(last);
    renderCharts(last);
  }
  function schedule() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(render);
  }

  var es = new EventSource('events');
  var conn = byId('conn');
  es.onopen = function () { conn.textContent = 'live'; conn.className = 'live'; };
  es.onerror = function () { conn.textContent = 'disconnected, retrying…'; conn.className = 'down'; };
  es.addEventListener('snapshot', function (e) {
    var s = JSON.parse(e.data);
    capacity = s.capacity;
    samples = s.samples;
    renderBoard(s.board);
    schedule();
  });
  es.addEventListener('sample', function (e) {
    var u = JSON.parse(e.data);
    samples.push(u.sample);
    if (samples.length > capacity) samples.splice(0, samples.length - capacity);
    if (u.board) renderBoard(u.board);
    schedule();
  });
  window.addEventListener('resize', function () {
    charts.forEach(function (c) { c.plot.setSize({ width: Math.max(320, c.box.clientWidth), height: H }); });
    if (history) history.plot.setSize({ width: Math.max(320, history.box.clientWidth), height: H });
  });

  // The journal's history: PnL per minute and fills beyond the 30-minute timeline, across restarts.
  var history = null;
  function renderHistory(h) {
    var note = byId('history-note');
    var cur = h.currency || currency || undefined;
    note.textContent = h.points.length + ' points (every ' + h.stepMinutes + ' min) and ' + h.fillCount +
      ' fills since ' + new Date(h.since).toISOString().replace('T', ' ').slice(0, 16) + ' UTC; max drawdown ' +
      amount(h.maxDrawdown, cur);
    var data = [h.points.map(function (p) { return p.at / 1000; })].concat(
      ['netPnl', 'realizedPnl', 'unrealizedPnl', 'fees', 'funding'].map(function (f) {
        return h.points.map(function (p) { return p[f]; });
      }));
    if (history) history.plot.setData(data);
    else {
      var box = el('div', { class: 'chart', 'data-chart': 'history' });
      byId('history-charts').appendChild(box);
      var plot = new uPlot({
        title: 'PnL from the journal (' + (currency || 'quote currency') + ')',
        width: Math.max(320, box.clientWidth),
        height: H,
        scales: { x: { time: true }, y: { range: perpbotAxes.range } },
        series: [{}, { label: 'net', stroke: '#f2c14e', width: 2 }, { label: 'realized', stroke: '#2bb673' },
          { label: 'unrealized', stroke: '#7fc8f8' }, { label: 'fees', stroke: '#f0605d' }, { label: 'funding', stroke: '#b388eb' }],
        axes: [perpbotAxes.x(axis), perpbotAxes.y(axis)],
      }, data, box);
      window.perpbotCharts.history = plot;
      history = { plot: plot, box: box };
    }
    var rows = h.fills.map(function (f) {
      var tr = el('tr');
      tr.appendChild(el('td', null, new Date(f.at).toISOString().replace('T', ' ').slice(0, 19)));
      tr.appendChild(el('td', null, f.symbol));
      var side = fillSide(f.side);
      tr.appendChild(el('td', { class: side === 'buy' ? 'bid' : 'ask' }, side));
      tr.appendChild(el('td', { class: 'n' }, f.qty));
      tr.appendChild(el('td', { class: 'n' }, f.price));
      tr.appendChild(el('td', { class: 'n' }, amount(f.fee, cur)));
      tr.appendChild(el('td', { class: 'n' }, Number(f.pnl) === 0 ? '' : amount(f.pnl, cur)));
      tr.appendChild(el('td', null, (f.maker ? 'maker' : 'taker') + (f.liquidation ? ', liquidation' : '')));
      return tr;
    });
    if (!rows.length) { var tr = el('tr'); tr.appendChild(el('td', { colspan: '8', class: 'none' }, 'no fills in the journal')); rows = [tr]; }
    fill(byId('history-fills').tBodies[0], rows);
  }
  function loadHistory() {
    fetch('history?since=' + encodeURIComponent(byId('history-span').value), { credentials: 'same-origin' })
      .then(function (r) {
        if (!r.ok) throw new Error('HTTP ' + r.status);
        return r.json();
      })
      .then(function (h) {
        if (h.journal === false) byId('history-note').textContent = 'no journal (journal.enabled is off)';
        else renderHistory(h);
      })
      .catch(function (e) { byId('history-note').textContent = 'history unavailable: ' + e.message; });
  }
  byId('history-span').addEventListener('change', loadHistory);
  loadHistory();
  setInterval(loadHistory, 60000);
})();
`

const STYLE = `
:root { color-scheme: dark; }
body { margin: 0; font: 13px/1.4 system-ui, sans-serif; background: #12161f; color: #dde3ea; }
header { display: flex; gap: 16px; align-items: baseline; padding: 10px 16px; background: #1a2030; border-bottom: 1px solid #2a3140; }
header h1 { font-size: 18px; margin: 0; }
#mode { padding: 1px 8px; border-radius: 8px; background: #2a3140; }
#conn.live { color: #2bb673; } #conn.down { color: #f0605d; }
#clock { margin-left: auto; color: #9aa4b2; }
main { padding: 8px 16px 24px; }
h2 { font-size: 14px; margin: 16px 0 6px; color: #9aa4b2; font-weight: 600; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid #232a38; white-space: nowrap; }
td:nth-child(3) { white-space: normal; }
th { color: #9aa4b2; font-weight: 500; }
.n { text-align: right; font-variant-numeric: tabular-nums; }
.bid { color: #2bb673; } .ask { color: #f0605d; }
.state-active { color: #2bb673; } .state-halted { color: #f0605d; } .state-syncing, .state-stopped { color: #f2c14e; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(480px, 1fr)); gap: 12px; }
.chart { background: #171c28; border: 1px solid #232a38; border-radius: 6px; padding: 4px; min-width: 0; }
.uplot { font-family: inherit; } .u-title { font-size: 13px !important; font-weight: 500 !important; }
#account { display: flex; flex-wrap: wrap; gap: 8px 24px; margin-bottom: 8px; }
.kv .k { color: #9aa4b2; margin-right: 6px; } .kv .v { font-variant-numeric: tabular-nums; }
.cols { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; }
ul { list-style: none; margin: 0; padding: 0; }
.alert { border-left: 3px solid #9aa4b2; padding: 4px 8px; margin-bottom: 4px; background: #171c28; }
.alert.sev-warning { border-color: #f2c14e; } .alert.sev-critical { border-color: #f0605d; }
.alert.resolved { border-color: #2bb673; opacity: 0.8; }
.alert .sev { text-transform: uppercase; font-size: 11px; margin-right: 8px; color: #9aa4b2; }
.alert .when { margin-left: 8px; color: #9aa4b2; } .alert .msg { color: #b8c1cc; }
.none { color: #6b7585; }
`

export const DASHBOARD_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>perpbot dashboard</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="assets/uplot.css">
<style>${STYLE}</style>
</head>
<body>
<header><h1>perpbot</h1><span id="mode"></span><span id="conn">connecting…</span><span id="clock"></span></header>
<main>
<section><h2>Instruments</h2>
<table id="instruments"><thead><tr><th>instrument</th><th>state</th><th>reason</th><th class="n">index</th><th class="n">mark</th><th class="n">our bid</th><th class="n">our ask</th><th class="n">position</th><th class="n">orders</th></tr></thead><tbody></tbody></table>
</section>
<section><h2>Quotes against index and mark, position</h2><div id="instrument-charts" class="grid"></div></section>
<section><h2>Account and weight budgets</h2><div id="account"></div><div id="account-charts" class="grid"></div></section>
<section class="cols">
<div><h2>Open alerts</h2><ul id="open-alerts"><li class="none">none</li></ul><h2>Recent alerts</h2><ul id="recent-alerts"><li class="none">none</li></ul></div>
<div><h2>Recent fills</h2><table id="fills"><thead><tr><th>time</th><th>instrument</th><th>side</th><th class="n">qty</th><th class="n">price</th><th class="n">fee</th><th class="n">PnL</th><th></th></tr></thead><tbody></tbody></table></div>
</section>
<section><h2>History from the journal (across restarts)
<select id="history-span"><option value="24h">24 h</option><option value="7d" selected>7 days</option><option value="30d">30 days</option><option value="90d">90 days</option></select>
<span id="history-note" class="none">loading…</span></h2>
<div id="history-charts" class="grid"></div>
<table id="history-fills"><thead><tr><th>time (UTC)</th><th>instrument</th><th>side</th><th class="n">qty</th><th class="n">price</th><th class="n">fee</th><th class="n">PnL</th><th></th></tr></thead><tbody></tbody></table>
</section>
</main>
<script src="assets/uplot.js"></script>
<script>${DASHBOARD_SCRIPT}</script>
<script src="control/controls.js" defer></script>
</body>
</html>
`
