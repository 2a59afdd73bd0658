// Bar charts on top of uPlot (canvas). Each chart sits in a <figure> with a text summary;
// the screens show the same numbers in a table, so the canvas is never the only way in.
import uPlot from './vendor/uplot@1.6.32/dist/uPlot.esm.js';
import { h } from './ui.js';

// Whole-number steps for axes of whole numbers (seconds), so no two ticks round to one label.
const INT_STEPS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000];

const cssVar = (name, fallback) => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;

/**
 * A vertical bar chart: labels[i] -> values[i]. Returns the <figure>; the chart is drawn
 * once the figure is in the document and follows its width.
 */
export function barChart({ title, labels, values, unit, colorVar = '--chart-1', format = (v) => String(v), integer = false, empty = 'No values recorded.' }) {
  // Nothing to draw: say so instead of an empty plot with a made-up axis.
  if (!values.some((v) => v != null)) return h('figure', { class: 'chart chart-empty' }, h('figcaption', {}, title), h('p', { class: 'muted' }, empty));
  const plot = h('div', { class: 'chart-canvas' });
  const best = values.reduce((bi, v, i) => (v != null && (bi < 0 || v < values[bi]) ? i : bi), -1);
  const summary = best >= 0 ? `${title}: lowest is ${labels[best]} at ${format(values[best])}${unit ? ` ${unit}` : ''}, across ${labels.length} instance types.` : title;
  const fig = h('figure', { class: 'chart' }, h('figcaption', {}, title), h('div', { role: 'img', 'aria-label': summary }, plot));
  let chart = null;
  const draw = () => {
    const width = Math.max(240, plot.clientWidth || 480);
    if (chart) {
      chart.setSize({ width, height: 220 });
      return;
    }
    const max = Math.max(...values.filter((v) => v != null), 0);
    const text = cssVar('--pico-muted-color', '#667');
    const grid = cssVar('--chart-grid', 'rgba(128,128,128,.18)');
    const color = cssVar(colorVar, '#4f46e5');
    const xs = labels.map((_, i) => i);
    const crowded = width / Math.max(labels.length, 1) < 96;
    chart = new uPlot(
      {
        width,
        height: 220,
        padding: [10, crowded ? 24 : 10, 0, 0],
        legend: { show: false },
        cursor: { show: false },
        scales: { x: { time: false, range: [-0.6, labels.length - 0.4] }, y: { range: [0, max * 1.15 || 1] } },
        axes: [
          { stroke: text, grid: { show: false }, ticks: { show: false }, splits: () => xs, values: (u, splits) => splits.map((i) => labels[i] ?? ''), font: '11px system-ui, sans-serif', size: crowded ? 64 : 36, rotate: crowded ? -35 : 0 },
          { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { show: false }, values: (u, splits) => splits.map((v, i) => (i && format(splits[i - 1]) === format(v) ? '' : format(v))), font: '11px system-ui, sans-serif', size: 64, ...(integer ? { incrs: INT_STEPS } : {}) },
        ],
        series: [{}, { label: title, fill: color, stroke: color, width: 0, paths: uPlot.paths.bars({ size: [0.62, 56], radius: 0.15 }), points: { show: false } }],
      },
      [xs, values],
      plot,
    );
  };
  const ro = new ResizeObserver(() => {
    if (plot.isConnected) draw();
  });
  ro.observe(plot);
  return fig;
}
