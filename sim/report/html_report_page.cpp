#include "sim/report/html_report_page.h"

namespace servesim {

const char* const kReportStyle = R"css(
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em auto; max-width: 1100px; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6em; border-bottom: 1px solid #ddd; }
p.note { color: #555; margin: 0.3em 0 0.8em; }
table { border-collapse: collapse; margin: 0.5em 0; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: right; }
th:first-child, td:first-child { text-align: left; }
th { background: #f4f4f4; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(480px, 1fr)); gap: 1em; }
.chart { position: relative; height: 340px; }
)css";

const char* const kReportErrorHook = R"js(
window.servesimErrors = [];
window.addEventListener('error', function (e) {
  window.servesimErrors.push(String(e.message));
  document.documentElement.setAttribute('data-errors', window.servesimErrors.join(' | '));
});
)js";

const char* const kReportScript = R"js(
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('servesim-data').textContent);
  var root = document.getElementById('report');
  if (window.ChartZoom) Chart.register(window.ChartZoom);
  var charts = [];
  var palette = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f',
                 '#bcbd22', '#17becf'];
  function color(i) { return palette[i % palette.length]; }

  function el(tag, parent, text) {
    var e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function section(title, note) {
    var s = el('section', root);
    el('h2', s, title);
    if (note) el('p', s, note).className = 'note';
    return s;
  }
  function fmt(v) {
    if (v === null || v === undefined) return '-';
    if (typeof v !== 'number') return String(v);
    if (Number.isInteger(v)) return String(v);
    var a = Math.abs(v);
    if (a >= 1000) return v.toFixed(0);
    if (a >= 1) return v.toPrecision(4);
    return v.toPrecision(3);
  }
  function table(parent, headers, rows) {
    var t = el('table', parent);
    var head = el('tr', el('thead', t));
    headers.forEach(function (h) { el('th', head, h); });
    var body = el('tbody', t);
    rows.forEach(function (r) {
      var tr = el('tr', body);
      r.forEach(function (c) { el('td', tr, fmt(c)); });
    });
    return t;
  }
  // Log axes where the values span more than 100x: a sweep from 50 ms to 377 s stays legible.
  function axisType(values) {
    var positive = values.filter(function (v) { return v > 0; });
    if (positive.length < 2) return 'linear';
    var lo = Math.min.apply(null, positive), hi = Math.max.apply(null, positive);
    return hi / lo > 100 ? 'logarithmic' : 'linear';
  }
  function chart(parent, title, config) {
    var box = el('div', parent);
    box.className = 'chart';
    var canvas = el('canvas', box);
    var options = config.options || {};
    options.animation = false;
    options.responsive = true;
    options.maintainAspectRatio = false;
    options.plugins = Object.assign({
      title: { display: true, text: title },
      legend: { position: 'bottom' },
      zoom: { zoom: { wheel: { enabled: true }, drag: { enabled: true }, mode: 'xy' } }
    }, options.plugins || {});
    config.options = options;
    var c = new Chart(canvas.getContext('2d'), config);
    canvas.addEventListener('dblclick', function () { if (c.resetZoom) c.resetZoom(); });
    charts.push(c);
    return c;
  }
  function axisTitle(text) { return { display: true, text: text }; }

  function distributions(parent, dists) {
    var metrics = [['ttft_ms', 'Time to first token'], ['tpot_ms', 'Time per output token (each request\'s mean gap)'],
                   ['e2el_ms', 'End-to-end latency']];
    var grid = el('div', parent);
    grid.className = 'grid';
    metrics.forEach(function (m) {
      var byClass = dists[m[0]] || {};
      var names = Object.keys(byClass).filter(function (n) { return byClass[n].length > 0; });
      if (!names.length) return;
      var all = [];
      var datasets = names.map(function (n, i) {
        byClass[n].forEach(function (p) { all.push(p[0]); });
        return { label: n, data: byClass[n].map(function (p) { return { x: p[0], y: p[1] }; }), showLine: true,
                 pointRadius: 0, borderWidth: 2, borderColor: color(i), backgroundColor: color(i) };
      });
      chart(grid, m[1] + ' (CDF)', { type: 'scatter', data: { datasets: datasets }, options: {
        scales: { x: { type: axisType(all), title: axisTitle('ms') },
                  y: { min: 0, max: 1, title: axisTitle('share of requests') } } } });
    });
  }

  function attribution(parent, summary) {
    var classes = Object.keys(summary.classes || {});
    var labels = ['all'].concat(classes);
    var sources = [summary].concat(classes.map(function (c) { return summary.classes[c]; }));
    var grid = el('div', parent);
    grid.className = 'grid';
    [['ttft_attribution', 'Mean TTFT: where it went'], ['itl_attribution', 'Mean ITL: where it went']]
      .forEach(function (a) {
        var first = summary[a[0]];
        if (!first) return;
        var parts = Object.keys(first);
        var datasets = parts.map(function (p, i) {
          return { label: p.replace(/_ms$/, '').replace(/_/g, ' '), backgroundColor: color(i),
                   data: sources.map(function (s) { return s[a[0]] ? s[a[0]][p] : 0; }) };
        });
        chart(grid, a[1] + ' (ms)', { type: 'bar', data: { labels: labels, datasets: datasets }, options: {
          indexAxis: 'y', scales: { x: { stacked: true, title: axisTitle('ms') }, y: { stacked: true } } } });
      });
  }

  function timeline(parent, pools) {
    var names = Object.keys(pools || {});
    if (!names.length) return false;
    var grid = el('div', parent);
    grid.className = 'grid';
    [['running', 'Running sequences (batch)', 'sequences'], ['kv_percent', 'KV cache occupancy', '% of blocks'],
     ['waiting', 'Waiting requests (queue)', 'requests']].forEach(function (q) {
      var datasets = names.map(function (n, i) {
        var p = pools[n];
        return { label: n, data: p.t.map(function (t, k) { return { x: t, y: p[q[0]][k] }; }), showLine: true,
                 pointRadius: 0, borderWidth: 1.5, borderColor: color(i), backgroundColor: color(i) };
      });
      chart(grid, q[1], { type: 'scatter', data: { datasets: datasets }, options: {
        scales: { x: { title: axisTitle('simulated time, s') }, y: { beginAtZero: true, title: axisTitle(q[2]) } } } });
    });
    return true;
  }

  function runReport() {
    var s = data.summary;
    var head = section('Result', 'Every figure as in summary.json (docs/metrics.md).');
    table(head, ['figure', 'value'], [
      ['completed', s.completed], ['rejected', s.rejected], ['unfinished', s.unfinished],
      ['requests / s', s.request_throughput], ['output tokens / s', s.output_throughput],
      ['TTFT p50 / p99, ms', fmt(s.p50_ttft_ms) + ' / ' + fmt(s.p99_ttft_ms)],
      ['TPOT p50 / p99, ms', fmt(s.p50_tpot_ms) + ' / ' + fmt(s.p99_tpot_ms)],
      ['ITL p50 / p99, ms', fmt(s.p50_itl_ms) + ' / ' + fmt(s.p99_itl_ms)],
      ['E2E p50 / p99, ms', fmt(s.p50_e2el_ms) + ' / ' + fmt(s.p99_e2el_ms)],
      ['prefix cache hit rate', s.prefix_cache_hit_rate], ['preemptions', s.preemptions],
      ['saturated by', s.saturated ? s.saturated_by : 'not saturated']]);
    var classes = Object.keys(s.classes || {});
    var money = section('Cost and SLO goodput per class',
                        'Cost from the pools\' price per GPU-hour; goodput counts the requests that met their class\'s SLO.');
    table(money, ['class', 'completed', 'SLO attainment', 'goodput, req/s', 'USD / 1M input tokens',
                  'USD / 1M cached input', 'USD / 1M output tokens', 'USD / request'],
          [s].concat(classes.map(function (c) { return s.classes[c]; })).map(function (c, i) {
              return [i === 0 ? 'all' : classes[i - 1], c.completed, c.slo_attainment, c.goodput,
                      c.cost_per_1m_input_tokens, c.cost_per_1m_cached_input_tokens, c.cost_per_1m_output_tokens,
                      c.cost_per_request];
          }));
    if (data.distributions) {
      distributions(section('Latency distributions per class',
                            'Completed requests (requests.csv). Wheel or drag to zoom, double-click to reset, ' +
                            'click a legend entry to hide it.'), data.distributions);
    }
    attribution(section('Latency attribution', 'Each request\'s TTFT and inter-token gaps split by cause ' +
                        '(docs/metrics.md, "Latency attribution"); the parts sum to the latency.'), s);
    if (data.timeline) {
      timeline(section('Timeline per pool', 'timeseries.csv: sums over each pool\'s replicas (KV: their mean).'),
               data.timeline);
    }
  }

  function sweepReport() {
    var sweep = data.sweep;
    var axes = sweep.axes || [];
    var rows = (sweep.rows || []).filter(function (r) { return !r.error && r.summary; });
    var first = axes[0];
    var rest = axes.slice(1);
    var info = section('Points', sweep.points + ' points over ' + axes.join(', ') + ' (' + sweep.mode +
                       '); Pareto objectives ' + (sweep.pareto || []).join(', ') + '.');
    table(info, axes.concat(['out tok/s', 'TTFT p99, ms', 'ITL p99, ms', 'Pareto', 'saturated']),
          (sweep.rows || []).map(function (r) {
            var v = axes.map(function (a) { return r.values[a]; });
            if (r.error) return v.concat(['error: ' + r.error, '', '', '', '']);
            var s = r.summary;
            return v.concat([s.output_throughput, s.p99_ttft_ms, s.p99_itl_ms, r.pareto ? 'yes' : '',
                             s.saturated ? s.saturated_by : '']);
          }));
    // One series per value of the other axes, its points in the first axis's order.
    var groups = {};
    var order = [];
    rows.forEach(function (r) {
      var key = rest.map(function (a) { return a + '=' + r.values[a]; }).join(', ') || (first || 'points');
      if (!groups[key]) { groups[key] = []; order.push(key); }
      groups[key].push(r);
    });
    var grid = el('div', section('Trade-off curves', 'Large points are on the Pareto front; hollow points ' +
                                 'were saturated (the queue still growing) and are off the front.'));
    grid.className = 'grid';
    [['p99_ttft_ms', 'p99 TTFT vs output throughput'], ['p99_itl_ms', 'p99 ITL vs output throughput'],
     ['p99_e2el_ms', 'p99 E2E latency vs output throughput']].forEach(function (m) {
      var xs = [], ys = [];
      var datasets = order.map(function (key, i) {
        var points = groups[key];
        return { label: key, showLine: true, borderColor: color(i), backgroundColor: color(i), borderWidth: 1.5,
                 data: points.map(function (r) {
                   xs.push(r.summary.output_throughput);
                   ys.push(r.summary[m[0]]);
                   return { x: r.summary.output_throughput, y: r.summary[m[0]],
                            point: (first ? first + '=' + r.values[first] : '') };
                 }),
                 pointRadius: points.map(function (r) { return r.pareto ? 7 : 4; }),
                 pointBackgroundColor: points.map(function (r) { return r.summary.saturated ? 'rgba(0,0,0,0)' : color(i); }),
                 pointBorderColor: color(i), pointBorderWidth: 2 };
      });
      chart(grid, m[1], { type: 'scatter', data: { datasets: datasets }, options: {
        scales: { x: { type: axisType(xs), title: axisTitle('output tokens / s') },
                  y: { type: axisType(ys), title: axisTitle('ms') } },
        plugins: { tooltip: { callbacks: { label: function (ctx) {
          var p = ctx.raw;
          return ctx.dataset.label + (p.point ? ', ' + p.point : '') + ': ' + fmt(p.x) + ' tok/s, ' + fmt(p.y) + ' ms';
        } } } } } });
    });
  }

  if (data.kind === 'sweep') sweepReport(); else runReport();
  var rendered = charts.filter(function (c) {
    return c.chartArea && c.chartArea.width > 0 && c.chartArea.height > 0 &&
      c.data.datasets.some(function (d) { return d.data.length > 0; });
  }).length;
  document.body.setAttribute('data-charts', String(charts.length));
  document.body.setAttribute('data-rendered', String(rendered));
})();
)js";

}  // namespace servesim
