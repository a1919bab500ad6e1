// The run page's part of the report script (sim/report/html_report_page.h): the result
// table, the SLO verdict per class, cost and goodput, the latency distributions with each
// class's SLO targets drawn on them, the latency attribution and the timeline per pool.
#include "sim/report/html_report_page.h"

namespace servesim {

const char* const kReportScriptRun = R"js(
  var quantiles = { p50: 0.5, p90: 0.9, p95: 0.95, p99: 0.99, p999: 0.999 };

  // Every class's objectives as summary.json judged them (its classes' slo_verdict).
  function runSlos(s) {
    var out = [];
    Object.keys(s.classes || {}).forEach(function (cls) {
      var v = s.classes[cls].slo_verdict || {};
      Object.keys(v).forEach(function (o) {
        out.push({ cls: cls, objective: o, field: v[o].field, target_ms: v[o].target_ms, value_ms: v[o].value_ms,
                   met: v[o].met });
      });
    });
    return out;
  }

  // A class's objectives on `metric` ("ttft_ms") as vertical lines at their targets, with a
  // cross at the share a percentile objective asks for: the class's curve must pass left of it.
  function cdfSloLines(slos, metric, names) {
    var out = [];
    slos.forEach(function (o) {
      var i = names.indexOf(o.cls);
      if (i < 0 || o.field.slice(-metric.length - 1) !== '_' + metric) return;
      var q = quantiles[o.field.split('_')[0]];
      var points = [{ x: o.target_ms, y: 0 }].concat(q ? [{ x: o.target_ms, y: q }] : [], [{ x: o.target_ms, y: 1 }]);
      var line = sloLine(o.cls, o.objective, o.target_ms, i, points);
      if (q) {
        line.pointRadius = points.map(function (p, k) { return k === 1 ? 6 : 0; });
        line.pointStyle = 'crossRot';
      }
      out.push(line);
    });
    return out;
  }

  function distributions(parent, dists, slos) {
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
      var lines = cdfSloLines(slos, m[0], names);
      lines.forEach(function (l) { all.push(l.data[0].x); });
      chart(grid, m[1] + ' (CDF)', { type: 'scatter', data: { datasets: datasets.concat(lines) }, options: {
        scales: { x: { type: axisType(all), title: axisTitle('ms') },
                  y: { min: 0, max: 1, title: axisTitle('share of requests') } } } });
    });
  }

  function verdict(parent, s, slos) {
    var rows = [];
    Object.keys(s.classes || {}).forEach(function (cls) {
      var c = s.classes[cls];
      var mine = slos.filter(function (o) { return o.cls === cls; });
      if (!mine.length) rows.push([cls, 'none stated', '', '', '', '', c.slo_attainment]);
      mine.forEach(function (o) {
        rows.push([cls, objectiveName(o.objective), o.field, o.target_ms, o.value_ms,
                   { text: o.met ? 'met' : 'missed', cls: o.met ? 'met' : 'missed' }, c.slo_attainment]);
      });
    });
    var overall = s.slo_verdict;
    if (overall) {
      el('p', parent, overall.met ? 'Every objective met.' : 'Missed: ' + overall.missed.join(', ') + '.').className =
        overall.met ? 'met' : 'missed';
    }
    table(parent, ['class', 'objective', 'figure', 'target, ms', 'value, ms', 'verdict', 'SLO attainment'], rows);
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

  function resultTable(s) {
    var head = section('Result', 'Every figure as in summary.json (docs/metrics.md).');
    table(head, ['figure', 'value'], [
      ['completed', s.completed], ['rejected', s.rejected], ['unfinished', s.unfinished],
      ['requests / s', s.request_throughput], ['output tokens / s', s.output_throughput],
      ['requests / s served over the arrival window', s.sustained_served_rate],
      ['TTFT p50 / p99, ms', fmt(s.p50_ttft_ms) + ' / ' + fmt(s.p99_ttft_ms)],
      ['TPOT p50 / p99, ms', fmt(s.p50_tpot_ms) + ' / ' + fmt(s.p99_tpot_ms)],
      ['ITL p50 / p99, ms', fmt(s.p50_itl_ms) + ' / ' + fmt(s.p99_itl_ms)],
      ['E2E p50 / p99, ms', fmt(s.p50_e2el_ms) + ' / ' + fmt(s.p99_e2el_ms)],
      ['prefix cache hit rate', s.prefix_cache_hit_rate], ['preemptions', s.preemptions],
      ['saturated by', s.saturated ? s.saturated_by : 'not saturated']]);
  }

  function costTable(s) {
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
  }

  function runReport() {
    var s = data.summary;
    var slos = runSlos(s);
    resultTable(s);
    verdict(section('SLO verdict per class', 'Each objective judged on the class\'s own statistic, the figure ' +
                    'summary.json reports (docs/metrics.md, "SLO verdict"); SLO attainment is the share of the ' +
                    'class\'s requests that met every objective one by one. TTFT, TPOT and E2E targets are dashed ' +
                    'lines on the distributions below; ITL objectives judge every gap, which they do not show.'),
            s, slos);
    costTable(s);
    if (data.distributions) {
      distributions(section('Latency distributions per class',
                            'Completed requests (requests.csv); dashed lines are SLO targets. Wheel or drag to ' +
                            'zoom, double-click to reset, click a legend entry to hide it.'), data.distributions, slos);
    }
    attribution(section('Latency attribution', 'Each request\'s TTFT and inter-token gaps split by cause ' +
                        '(docs/metrics.md, "Latency attribution"); the parts sum to the latency.'), s);
    if (data.timeline) {
      timeline(section('Timeline per pool', 'timeseries.csv: sums over each pool\'s replicas (KV: their mean).'),
               data.timeline);
    }
  }
)js";

}  // namespace servesim
