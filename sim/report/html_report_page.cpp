#include "sim/report/html_report_page.h"

namespace servesim {

const char* const kReportStyle = R"css(
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em auto; max-width: 1100px; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6em; border-bottom: 1px solid #ddd; }
h3 { font-size: 1em; margin: 1em 0 0.3em; }
p.note { color: #555; margin: 0.3em 0 0.8em; }
table { border-collapse: collapse; margin: 0.5em 0; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: right; }
th:first-child, td:first-child { text-align: left; }
th { background: #f4f4f4; }
table.facts th, table.facts td, table.classes th, table.classes td, table.pools th, table.pools td { text-align: left; }
td.met { color: #2ca02c; font-weight: 600; } td.missed { color: #d62728; font-weight: 600; }
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

const char* const kReportScriptCommon = R"js(
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
  // A cell is a value, or {text, cls} for a cell with a class (met / missed).
  function table(parent, headers, rows) {
    var t = el('table', parent);
    var head = el('tr', el('thead', t));
    headers.forEach(function (h) { el('th', head, h); });
    var body = el('tbody', t);
    rows.forEach(function (r) {
      var tr = el('tr', body);
      r.forEach(function (c) {
        if (c !== null && typeof c === 'object') el('td', tr, c.text).className = c.cls;
        else el('td', tr, fmt(c));
      });
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
  // Each point's text (its dataset's pointLabels) drawn beside it, inside the plot area:
  // Chart.js 3 has no point labels of its own, and no plugin for them is vendored. A label
  // goes above right of its point, else below right, above left or below left, the first
  // place inside the plot that no earlier label covers, so points piled together stay legible.
  function labelSpot(p, w, h, area, boxes) {
    var tries = [[p.x + 5, p.y - 4 - h], [p.x + 5, p.y + 4], [p.x - 5 - w, p.y - 4 - h], [p.x - 5 - w, p.y + 4]];
    var inside = tries.filter(function (t) {
      return t[0] >= area.left && t[0] + w <= area.right && t[1] >= area.top && t[1] + h <= area.bottom;
    });
    var free = inside.filter(function (t) {
      return boxes.every(function (b) { return t[0] + w < b[0] || b[0] + b[2] < t[0] || t[1] + h < b[1] || b[1] + b[3] < t[1]; });
    });
    return free[0] || inside[0] || tries[0];
  }
  var pointLabels = {
    id: 'servesimPointLabels',
    afterDatasetsDraw: function (c) {
      var ctx = c.ctx, area = c.chartArea, boxes = [];
      ctx.save();
      ctx.beginPath();
      ctx.rect(area.left, area.top, area.right - area.left, area.bottom - area.top);
      ctx.clip();
      ctx.font = '11px system-ui, sans-serif';
      ctx.textBaseline = 'top';
      c.data.datasets.forEach(function (d, i) {
        if (!d.pointLabels || !c.isDatasetVisible(i)) return;
        ctx.fillStyle = d.borderColor || '#222';
        c.getDatasetMeta(i).data.forEach(function (p, k) {
          var text = d.pointLabels[k];
          if (!text || p.skip) return;
          var w = ctx.measureText(text).width, spot = labelSpot(p, w, 12, area, boxes);
          boxes.push([spot[0], spot[1], w, 12]);
          ctx.fillText(text, spot[0], spot[1]);
        });
      });
      ctx.restore();
    }
  };
  // What the canvas shows, as attributes: a reader's tools (and the browser test) cannot read
  // the drawing itself.
  function markCanvas(canvas, title, datasets) {
    var labels = [], slo = [];
    datasets.forEach(function (d) {
      if (d.pointLabels) labels = labels.concat(d.pointLabels);
      if (d.slo) slo.push(d.label);
    });
    canvas.setAttribute('data-title', title);
    canvas.setAttribute('aria-label', title);
    if (labels.length) canvas.setAttribute('data-point-labels', labels.join('|'));
    if (slo.length) canvas.setAttribute('data-slo-lines', slo.join('|'));
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
    config.plugins = (config.plugins || []).concat([pointLabels]);
    markCanvas(canvas, title, config.data.datasets);
    var c = new Chart(canvas.getContext('2d'), config);
    canvas.addEventListener('dblclick', function () { if (c.resetZoom) c.resetZoom(); });
    charts.push(c);
    return c;
  }
  function axisTitle(text) { return { display: true, text: text }; }

  // "ttft_p99" as "TTFT p99".
  function objectiveName(objective) {
    var parts = objective.split('_');
    return parts[0].toUpperCase() + ' ' + parts.slice(1).join(' ');
  }
  // An SLO target as a dashed line through `points` in its class's colour, an extra dataset
  // (Chart.js 3 draws no annotation lines without a plugin, and none is vendored).
  function sloLine(cls, objective, targetMs, colorIndex, points) {
    return { label: 'SLO ' + cls + ': ' + objectiveName(objective) + ' \u2264 ' + fmt(targetMs) + ' ms', slo: true,
             data: points, showLine: true, fill: false, borderDash: [6, 4], borderWidth: 1.5,
             borderColor: color(colorIndex), backgroundColor: color(colorIndex), pointRadius: 0 };
  }
)js";

const char* const kReportScriptMain = R"js(
  if (data.kind === 'sweep') sweepReport(); else runReport();
  var rendered = charts.filter(function (c) {
    return c.chartArea && c.chartArea.width > 0 && c.chartArea.height > 0 &&
      c.data.datasets.some(function (d) { return d.data.length > 0; });
  }).length;
  document.body.setAttribute('data-charts', String(charts.length));
  document.body.setAttribute('data-rendered', String(rendered));
)js";

}  // namespace servesim
