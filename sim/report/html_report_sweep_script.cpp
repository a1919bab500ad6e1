// The sweep page's part of the report script (sim/report/html_report_page.h): the points'
// table with the SLO verdict per point; for a configuration swept at fixed offered load each
// figure against the first axis; and the latency/throughput trade-off curves.
#include "sim/report/html_report_page.h"

namespace servesim {

const char* const kReportScriptSweep = R"js(
  // Each class's objectives from the sweep's context: {cls, index, objective, field, target_ms}.
  function sweepSlos(context) {
    var out = [];
    ((context && context.classes) || []).forEach(function (c, i) {
      (c.slo || []).forEach(function (o) {
        out.push({ cls: c.name, index: i, objective: o.objective, field: o.field, target_ms: o.target_ms });
      });
    });
    return out;
  }
  // A point's figure for a class: the class's own where the row keeps classes (two or more),
  // else the run's, which is then the one class's.
  function classFigure(s, cls, field) {
    var source = s.classes && s.classes[cls] ? s.classes[cls] : s;
    return typeof source[field] === 'number' ? source[field] : null;
  }
  // The objectives judged as the run's verdict judges them: the class's figure at most its target.
  function rowVerdict(s, slos) {
    if (!slos.length) return 'no SLO stated';
    var missed = [], unknown = [];
    slos.forEach(function (o) {
      var v = classFigure(s, o.cls, o.field);
      if (v === null) unknown.push(o.cls + ' ' + o.objective);
      else if (v > o.target_ms) missed.push(o.cls + ' ' + o.objective);
    });
    if (missed.length) return { text: 'missed: ' + missed.join(', '), cls: 'missed' };
    if (unknown.length) return { text: 'not in the table: ' + unknown.join(', '), cls: '' };
    return { text: 'met', cls: 'met' };
  }
  function shortAxis(key) { return key.split('.').pop(); }
  // No axis touches the workload or the stop: every point is offered the same load.
  function fixedLoad(axes) {
    return axes.length > 0 && axes.every(function (a) { return !/^(workload|stop)(\.|$)/.test(a); });
  }
  function seriesStyle(points, i) {
    return { showLine: true, borderColor: color(i), backgroundColor: color(i), borderWidth: 1.5,
             pointRadius: points.map(function (r) { return r.pareto ? 7 : 4; }),
             pointBackgroundColor: points.map(function (r) { return r.summary.saturated ? 'rgba(0,0,0,0)' : color(i); }),
             pointBorderColor: color(i), pointBorderWidth: 2 };
  }
  // The objectives read from `field` as horizontal lines across [lo, hi].
  function flatSloLines(slos, field, lo, hi) {
    if (hi === lo) { lo = lo > 1 ? lo * 0.9 : lo - 0.5; hi = hi > 1 ? hi * 1.1 : hi + 0.5; }
    return slos.filter(function (o) { return o.field === field; }).map(function (o) {
      return sloLine(o.cls, o.objective, o.target_ms, o.index, [{ x: lo, y: o.target_ms }, { x: hi, y: o.target_ms }]);
    });
  }
  // A figure's axis: from 0 with room above the highest point for its label, or logarithmic
  // where the figures span more than 100x.
  function figureAxis(values, title) {
    var type = axisType(values);
    if (type !== 'linear') return { type: type, title: axisTitle(title) };
    return { type: type, title: axisTitle(title), beginAtZero: true, suggestedMax: Math.max.apply(null, values) * 1.1 };
  }
  function valueLabel(v, unit) {
    if (unit === 'USD') return '$' + fmt(v);
    return fmt(v) + (unit === 'ms' ? ' ms' : '');
  }

  function pointsTable(sweep, axes, slos) {
    var info = section('Points', sweep.points + ' points over ' + axes.join(', ') + ' (' + sweep.mode +
                       '); Pareto objectives ' + (sweep.pareto || []).join(', ') + '. Served req/s counts the ' +
                       'completions over the second half of the arrival span, which the drain does not dilute.');
    table(info, axes.concat(['served req/s', 'out tok/s', 'TTFT p99, ms', 'TPOT p99, ms', 'ITL p99, ms',
                             'USD / 1M output tokens', 'SLO attainment', 'SLO verdict', 'Pareto', 'saturated']),
          (sweep.rows || []).map(function (r) {
            var v = axes.map(function (a) { return r.values[a]; });
            if (r.error) return v.concat(['error: ' + r.error, '', '', '', '', '', '', '', '', '']);
            var s = r.summary;
            return v.concat([s.sustained_served_rate, s.output_throughput, s.p99_ttft_ms, s.p99_tpot_ms, s.p99_itl_ms,
                             s.paid_per_1m_output_tokens, s.slo_attainment, rowVerdict(s, slos), r.pareto ? 'yes' : '',
                             s.saturated ? s.saturated_by : '']);
          }));
  }

  // Where a value of the first axis sits on the chart: itself when every value is a number,
  // else its place among the values (drawn with the value's text as the tick).
  function axisPlaces(values) {
    var numeric = values.every(function (v) { return typeof v === 'number'; });
    var distinct = [];
    values.forEach(function (v) { if (distinct.indexOf(v) < 0) distinct.push(v); });
    return { numeric: numeric, distinct: distinct, at: function (v) { return numeric ? v : distinct.indexOf(v); } };
  }

  function againstAxis(parent, groups, order, first, slos) {
    var values = [];
    order.forEach(function (k) { groups[k].forEach(function (r) { values.push(r.values[first]); }); });
    var places = axisPlaces(values);
    var xs = values.map(places.at);
    var lo = Math.min.apply(null, xs), hi = Math.max.apply(null, xs);
    var grid = el('div', parent);
    grid.className = 'grid';
    [['p99_ttft_ms', 'p99 TTFT', 'ms'], ['p99_tpot_ms', 'p99 TPOT', 'ms'], ['p99_itl_ms', 'p99 ITL', 'ms'],
     ['p99_e2el_ms', 'p99 E2E latency', 'ms'], ['paid_per_1m_output_tokens', 'Cost per 1M output tokens', 'USD'],
     ['slo_attainment', 'SLO attainment', 'share of requests']].forEach(function (m) {
      var ys = [];
      var datasets = order.map(function (key, i) {
        var points = groups[key].filter(function (r) { return typeof r.summary[m[0]] === 'number'; })
          .sort(function (a, b) { return places.at(a.values[first]) - places.at(b.values[first]); });
        points.forEach(function (r) { ys.push(r.summary[m[0]]); });
        return Object.assign(seriesStyle(points, i), { label: key,
          data: points.map(function (r) { return { x: places.at(r.values[first]), y: r.summary[m[0]] }; }),
          pointLabels: points.map(function (r) { return valueLabel(r.summary[m[0]], m[2]); }) });
      });
      if (!ys.length) return;
      var lines = flatSloLines(slos, m[0], lo, hi);
      lines.forEach(function (l) { ys.push(l.data[0].y); });
      // Ticks at the swept values only, each with its text.
      var x = { type: places.numeric ? axisType(xs) : 'linear', title: axisTitle(first), grace: '5%',
                afterBuildTicks: function (axis) {
                  axis.ticks = places.distinct.map(function (v) { return { value: places.at(v) }; });
                },
                ticks: { callback: function (v) { return places.numeric ? fmt(v) : places.distinct[v]; } } };
      chart(grid, m[1] + ' vs ' + shortAxis(first), { type: 'scatter', data: { datasets: datasets.concat(lines) },
        options: { layout: { padding: { right: 12 } },
                   scales: { x: x, y: figureAxis(ys, m[2]) } } });
    });
  }

  // Throughput over the arrival window, where every row has it (sweep.json files written
  // before it was a column have output throughput only).
  function windowedRate(rows) {
    return rows.length > 0 && rows.every(function (r) { return typeof r.summary.sustained_served_rate === 'number'; });
  }

  function tradeOff(parent, groups, order, first, slos, windowed) {
    var xField = windowed ? 'sustained_served_rate' : 'output_throughput';
    var xUnit = windowed ? 'req/s' : 'tok/s';
    var grid = el('div', parent);
    grid.className = 'grid';
    [['p99_ttft_ms', 'p99 TTFT'], ['p99_itl_ms', 'p99 ITL'], ['p99_e2el_ms', 'p99 E2E latency']].forEach(function (m) {
      var xs = [], ys = [];
      var datasets = order.map(function (key, i) {
        var points = groups[key];
        return Object.assign(seriesStyle(points, i), { label: key,
          data: points.map(function (r) {
            xs.push(r.summary[xField]);
            ys.push(r.summary[m[0]]);
            return { x: r.summary[xField], y: r.summary[m[0]], point: (first ? first + '=' + r.values[first] : '') };
          }),
          pointLabels: points.map(function (r) { return first ? shortAxis(first) + '=' + r.values[first] : ''; }) });
      });
      var lines = flatSloLines(slos, m[0], Math.min.apply(null, xs), Math.max.apply(null, xs));
      lines.forEach(function (l) { ys.push(l.data[0].y); });
      chart(grid, m[1] + ' vs ' + (windowed ? 'requests served / s' : 'output throughput'), { type: 'scatter',
        data: { datasets: datasets.concat(lines) }, options: {
        scales: { x: { type: axisType(xs), grace: '5%', title: axisTitle(windowed ? 'requests / s served over the ' +
                                                                                   'arrival window' : 'output tokens / s') },
                  y: figureAxis(ys, 'ms') },
        plugins: { tooltip: { callbacks: { label: function (ctx) {
          var p = ctx.raw;
          if (ctx.dataset.slo) return ctx.dataset.label;
          return ctx.dataset.label + (p.point ? ', ' + p.point : '') + ': ' + fmt(p.x) + ' ' + xUnit + ', ' + fmt(p.y) + ' ms';
        } } } } } });
    });
  }

  function sweepReport() {
    var sweep = data.sweep;
    var axes = sweep.axes || [];
    var rows = (sweep.rows || []).filter(function (r) { return !r.error && r.summary; });
    var slos = sweepSlos(sweep.context);
    var first = axes[0];
    var rest = axes.slice(1);
    pointsTable(sweep, axes, slos);
    // One series per value of the other axes, its points in the first axis's order.
    var groups = {};
    var order = [];
    rows.forEach(function (r) {
      var key = rest.map(function (a) { return a + '=' + r.values[a]; }).join(', ') || (first || 'points');
      if (!groups[key]) { groups[key] = []; order.push(key); }
      groups[key].push(r);
    });
    if (fixedLoad(axes) && rows.length) {
      againstAxis(section('Against ' + first, 'No axis touches the workload, so every point is offered the same ' +
                          'load: each figure against ' + first + ', each point labelled with its value. Hollow ' +
                          'points were saturated; dashed lines are the SLO targets of the scenario.'),
                  groups, order, first, slos);
    }
    var windowed = windowedRate(rows);
    tradeOff(section('Trade-off curves', (windowed ? 'Latency against the requests served per second over the ' +
                     'second half of the arrival span (summary.json sustained_served_rate): a point that keeps up ' +
                     'reads its offered rate, one that falls behind reads less, and the drain after the last ' +
                     'arrival does not dilute either. ' : 'Latency against output throughput (this sweep.json has ' +
                     'no sustained_served_rate). ') + 'Each point is labelled with its ' + (first || 'point') +
                     '; large points are on the Pareto front; hollow points were saturated (the queue still ' +
                     'growing) and are off the front; dashed lines are the SLO targets.'),
             groups, order, first, slos, windowed);
  }
)js";

}  // namespace servesim
