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

// ---- SVG charts ---------------------------------------------------------------------------
// Drawn at the width of their box (and again when it changes), so text keeps its size at 390 px
// and at 1280 px. Each sits in a <figure data-chart=…> with a one-line summary and the same
// numbers as text (.chart-alt: a list or a table), so the picture is never the only way in; the
// drawing itself is aria-hidden.

const SVGNS = 'http://www.w3.org/2000/svg';

/** svg('rect', {x, y, class}, ...children): an SVG element (attributes only, no styles). */
export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null && v !== false) el.setAttribute(k, k === 'class' && Array.isArray(v) ? v.filter(Boolean).join(' ') : String(v));
  for (const c of children.flat(Infinity)) if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

/** A box that calls draw(width) -> <svg> now and whenever its width changes. */
function responsive(draw, minWidth = 260) {
  const box = h('div', { class: 'chart-svg', 'aria-hidden': 'true' });
  let last = 0;
  const paint = () => {
    const w = Math.max(minWidth, Math.floor(box.clientWidth || 560));
    if (w === last) return;
    last = w;
    box.replaceChildren(draw(w));
  };
  new ResizeObserver(() => box.isConnected && paint()).observe(box);
  return box;
}

/** The figure around a chart: caption, summary sentence, drawing, and the numbers as text. */
export function chartFigure(name, { title, summary, graphic, alt, altOpen = false }) {
  return h('figure', { class: 'chart chart-fig', 'data-chart': name },
    h('figcaption', {}, title),
    summary ? h('p', { class: 'chart-summary' }, summary) : null,
    graphic,
    alt ? (altOpen ? h('div', { class: 'chart-alt' }, alt) : h('details', { class: 'chart-alt' }, h('summary', {}, 'The numbers behind this chart'), alt)) : null);
}

/** A small table for a chart's numbers: columns [{label, cell(row), num}]. */
export function altTable(caption, columns, rows) {
  return h('table', { class: 'data chart-table' }, h('caption', { class: 'visually-hidden' }, caption),
    h('thead', {}, h('tr', {}, columns.map((c) => h('th', { scope: 'col', class: c.num ? 'num' : undefined }, c.label)))),
    h('tbody', {}, rows.map((r) => h('tr', {}, columns.map((c, i) => h(i ? 'td' : 'th', { scope: i ? undefined : 'row', class: c.num ? 'num' : undefined }, c.cell(r)))))));
}

export const SEVERITY_ORDER = ['critical', 'high', 'medium', 'low'];

/**
 * Advisories by severity: one stacked bar, a segment per severity (the darker part of each
 * has no fixed image yet), and a legend that says every number. items: [{severity, fixed}].
 */
export function severitySummary(items, { title = 'Advisories by severity', what = 'advisories', note, tail } = {}) {
  const counts = SEVERITY_ORDER.map((s) => {
    const of = items.filter((a) => String(a.severity).toLowerCase() === s);
    return { s, n: of.length, open: of.filter((a) => !a.fixed).length, of };
  }).filter((c) => c.n);
  const total = items.length;
  const open = items.filter((a) => !a.fixed).length;
  const plural = (n) => `${n} ${n === 1 ? what.replace(/ies$/, 'y').replace(/s$/, '') : what}`;
  const rest = tail ? tail(items) : open ? `${open} without a fixed image yet` : 'every one has a fixed image';
  const summary = total ? `${plural(total)}: ${counts.map((c) => `${c.n} ${c.s}`).join(', ')}; ${rest}.` : `No ${what}.`;
  const shade = !note; // the darker part of a segment: those without a fix
  const graphic = responsive((w) => {
    const H = 22;
    const g = svg('svg', { width: w, height: H, viewBox: `0 0 ${w} ${H}`, class: 'sev-bar' });
    let x = 0;
    for (const c of counts) {
      const cw = (c.n / total) * w;
      const fixedW = ((c.n - c.open) / c.n) * cw;
      g.append(svg('rect', { x, y: 0, width: Math.max(0, cw - 2), height: H, rx: 3, class: `sev-${c.s}` }));
      if (shade && c.open && cw - fixedW - 2 > 0) g.append(svg('rect', { x: x + fixedW, y: 0, width: cw - fixedW - 2, height: H, class: 'sev-open' }));
      x += cw;
    }
    return g;
  });
  const say = note || ((c) => (c.open ? ` (${c.open} without a fix)` : ' (all fixed)'));
  const legend = h('ul', { class: 'sev-legend' }, counts.map((c) => h('li', { 'data-severity': c.s }, h('span', { class: `swatch sev-${c.s}`, 'aria-hidden': 'true' }), h('strong', {}, `${c.n} ${c.s}`), say(c))));
  return chartFigure('severity', { title, summary, graphic: total ? graphic : null, alt: total ? legend : null, altOpen: true });
}

const STATUS_SHAPE = { ok: 'circle', patch_available: 'triangle', vulnerable: 'square', revoked: 'cross' };

function marker(kind, cx, cy, r, cls) {
  if (kind === 'triangle') return svg('path', { d: `M${cx},${cy - r * 1.15} L${cx + r * 1.1},${cy + r * 0.85} L${cx - r * 1.1},${cy + r * 0.85} Z`, class: cls });
  if (kind === 'square') return svg('rect', { x: cx - r * 0.9, y: cy - r * 0.9, width: r * 1.8, height: r * 1.8, class: cls });
  if (kind === 'cross') return svg('path', { d: `M${cx - r},${cy - r} L${cx + r},${cy + r} M${cx + r},${cy - r} L${cx - r},${cy + r}`, class: `${cls} is-cross` });
  return svg('circle', { cx, cy, r, class: cls });
}

/**
 * A family's versions in publish order: a marker per version, its shape and colour the patch
 * status, the driver and CUDA written above where they change, the current one ringed.
 * versions: [{id, version, published_at, status, patch_status, driver, cuda, current}].
 */
export function familyTimeline(family, versions, { label = (s) => s } = {}) {
  const n = versions.length;
  const exposed = versions.filter((v) => v.patch_status !== 'ok').length;
  const day = (v) => String(v.published_at || '').slice(0, 10);
  const summary = `${n} version${n === 1 ? '' : 's'} of ${family}, oldest ${versions[0]?.version} (${day(versions[0] || {})}) to newest ${versions[n - 1]?.version} (${day(versions[n - 1] || {})}); ${exposed ? `${exposed} with a patch status other than OK` : 'all OK'}.`;
  // Spaced by publish date, not by order: a gap of months reads as one. Versions all published
  // within a day have no time between them to show, and are spaced by order.
  const ts = versions.map((v) => Date.parse(v.published_at) || 0);
  const t0 = Math.min(...ts);
  const t1 = Math.max(...ts) - t0 >= 86400000 ? Math.max(...ts) : t0;
  const graphic = responsive((w) => {
    const padX = 28;
    const H = 150;
    const y = 78;
    // All on one day: spaced by order, as there is no time between them to show.
    const xs = ts.map((t, i) => (t1 > t0 ? padX + ((t - t0) / (t1 - t0)) * (w - 2 * padX) : n > 1 ? padX + (i * (w - 2 * padX)) / (n - 1) : w / 2));
    const g = svg('svg', { width: w, height: H, viewBox: `0 0 ${w} ${H}`, class: 'timeline' });
    g.append(svg('line', { x1: padX - 10, x2: w - padX + 10, y1: y, y2: y, class: 'axis' }));
    const anchor = (i) => (n === 1 ? 'middle' : i === 0 ? 'start' : i === n - 1 ? 'end' : 'middle');
    // Labels where they fit: the newest always, an older one only clear of the last one drawn
    // (the table below lists every version).
    const labelled = new Set([n - 1]);
    let lastX = xs[n - 1];
    for (let i = n - 2; i >= 0; i--) if (lastX - xs[i] >= 84) labelled.add(i), (lastX = xs[i]);
    let prevStack = '';
    let stackX = -Infinity;
    versions.forEach((v, i) => {
      const stack = `${v.driver ? `R${String(v.driver).split('.')[0]}` : ''}${v.driver && v.cuda ? ' · ' : ''}${v.cuda ? `CUDA ${v.cuda.split('.').slice(0, 2).join('.')}` : ''}`;
      if (stack && stack !== prevStack) {
        g.append(svg('line', { x1: xs[i], x2: xs[i], y1: 34, y2: y - 10, class: 'tick' }));
        if (xs[i] - stackX >= 120) {
          g.append(svg('text', { x: xs[i], y: 28, class: 'stack-label', 'text-anchor': i === 0 || xs[i] < 70 ? 'start' : i === n - 1 || xs[i] > w - 70 ? 'end' : 'middle' }, stack));
          stackX = xs[i];
        }
      }
      prevStack = stack || prevStack;
      if (v.current) g.append(svg('circle', { cx: xs[i], cy: y, r: 12, class: 'current-ring' }));
      g.append(marker(STATUS_SHAPE[v.patch_status] || 'circle', xs[i], y, 6.5, `mark is-${v.patch_status}`));
      if (labelled.has(i)) {
        g.append(svg('text', { x: xs[i], y: y + 28, class: 'ver-label', 'text-anchor': anchor(i) }, v.version));
        g.append(svg('text', { x: xs[i], y: y + 44, class: 'date-label', 'text-anchor': anchor(i) }, day(v)));
      }
    });
    return g;
  });
  const legend = h('ul', { class: 'status-legend', 'aria-hidden': 'true' }, Object.entries(STATUS_SHAPE).map(([s, shape]) => h('li', {}, svgIcon(shape, s), label(s))));
  const alt = altTable(`Versions of ${family}`, [
    { label: 'Version', cell: (v) => (v.current ? h('span', {}, v.version, h('span', { class: 'sub' }, ' (this image)')) : h('a', { href: `#/images/${encodeURIComponent(v.id)}` }, v.version)) },
    { label: 'Published', cell: (v) => day(v) },
    { label: 'Driver', cell: (v) => v.driver || '—' },
    { label: 'CUDA', cell: (v) => v.cuda || '—' },
    { label: 'Patch status', cell: (v) => label(v.patch_status) },
  ], versions);
  return chartFigure('timeline', { title: `Versions of ${family} over time`, summary, graphic: h('div', {}, graphic, legend), alt });
}

/**
 * Values over days (exposure history): a line with a point a day, x spaced by date (a day the
 * job missed is a gap in time, not a missing slot), y from zero. points: [{day: 'YYYY-MM-DD',
 * v}]; the numbers are in the table the caller puts beside it (alt, optional).
 */
export function timeChart(name, { title, points, fmt = String, summary, alt, cls = '' }) {
  if (!points.length) return h('figure', { class: 'chart chart-fig chart-empty', 'data-chart': name }, h('figcaption', {}, title), h('p', { class: 'muted' }, 'No days recorded yet.'));
  const ts = points.map((p) => Date.parse(`${p.day}T00:00:00Z`));
  const t0 = Math.min(...ts);
  const t1 = Math.max(...ts);
  const hi = Math.max(...points.map((p) => p.v ?? 0), 1);
  const graphic = responsive((w) => {
    const H = 150;
    const L = 44;
    const R = 14;
    const T = 12;
    const B = 30;
    const X = (t) => (t1 > t0 ? L + ((t - t0) / (t1 - t0)) * (w - L - R) : (L + w - R) / 2);
    const top = Math.ceil(hi * 1.15);
    const Y = (v) => T + (1 - v / top) * (H - T - B);
    const g = svg('svg', { width: w, height: H, viewBox: `0 0 ${w} ${H}`, class: ['line-chart', 'time-chart', cls] });
    const ticks = [...new Set([0, Math.round(top / 2), top])];
    for (const v of ticks) g.append(svg('line', { x1: L, x2: w - R, y1: Y(v), y2: Y(v), class: 'grid' }), svg('text', { x: L - 6, y: Y(v) + 4, 'text-anchor': 'end', class: 'tick-label' }, fmt(v)));
    let d = '';
    points.forEach((p, i) => {
      if (p.v == null) return;
      d += `${d && points[i - 1]?.v != null ? 'L' : 'M'}${X(ts[i]).toFixed(1)},${Y(p.v).toFixed(1)} `;
    });
    g.append(svg('path', { d, class: 'line' }));
    points.forEach((p, i) => p.v != null && g.append(svg('circle', { cx: X(ts[i]), cy: Y(p.v), r: points.length > 40 ? 2 : 3.5, class: 'point' })));
    // Dates: the first and the last, and between them as many as fit 90 px apart.
    const slots = Math.max(1, Math.floor((w - L - R) / 90));
    const shown = t1 > t0 ? Array.from({ length: slots + 1 }, (_, k) => t0 + ((t1 - t0) * k) / slots) : [t0];
    shown.forEach((t, k) => g.append(svg('text', { x: X(t), y: H - 10, 'text-anchor': shown.length === 1 ? 'middle' : k === 0 ? 'start' : k === shown.length - 1 ? 'end' : 'middle', class: 'tick-label' }, new Date(t).toISOString().slice(0, 10))));
    return g;
  });
  return chartFigure(name, { title, summary, graphic, alt });
}

function svgIcon(shape, status) {
  return svg('svg', { width: 14, height: 14, viewBox: '0 0 14 14', class: 'legend-icon', 'aria-hidden': 'true' }, marker(shape, 7, 7, 5, `mark is-${status}`));
}

/**
 * Values across ordered categories (a family's versions) as a line with points, a gap where a
 * value is missing; fmt formats the values and the y ticks, highlight rings one category.
 */
export function lineChart(name, { title, labels, values, fmt = String, unit = '', highlight = -1, empty = 'No values recorded.' }) {
  const pts = values.map((v, i) => (v == null ? null : { i, v }));
  const have = pts.filter(Boolean);
  if (!have.length) return h('figure', { class: 'chart chart-fig chart-empty', 'data-chart': name }, h('figcaption', {}, title), h('p', { class: 'muted' }, empty));
  const lo = Math.min(...have.map((p) => p.v));
  const hi = Math.max(...have.map((p) => p.v));
  const best = have.reduce((a, b) => (b.v < a.v ? b : a));
  const summary = `From ${fmt(have[0].v)}${unit} (${labels[have[0].i]}) to ${fmt(have[have.length - 1].v)}${unit} (${labels[have[have.length - 1].i]}); lowest ${fmt(best.v)}${unit} in ${labels[best.i]}.`;
  const graphic = responsive((w) => {
    const H = 170;
    const L = 64;
    const R = 16;
    const T = 14;
    const B = 40;
    const n = labels.length;
    const x = (i) => (n > 1 ? L + (i * (w - L - R)) / (n - 1) : (L + w - R) / 2);
    const top = hi === lo ? hi * 1.1 || 1 : hi + (hi - lo) * 0.15;
    const bot = hi === lo ? 0 : Math.max(0, lo - (hi - lo) * 0.25);
    const y = (v) => T + (1 - (v - bot) / (top - bot || 1)) * (H - T - B);
    const g = svg('svg', { width: w, height: H, viewBox: `0 0 ${w} ${H}`, class: 'line-chart' });
    for (let k = 0; k <= 3; k++) {
      const v = bot + ((top - bot) * k) / 3;
      g.append(svg('line', { x1: L, x2: w - R, y1: y(v), y2: y(v), class: 'grid' }), svg('text', { x: L - 6, y: y(v) + 4, 'text-anchor': 'end', class: 'tick-label' }, fmt(v)));
    }
    let d = '';
    pts.forEach((p) => {
      if (!p) return;
      d += `${d && pts[p.i - 1] ? 'L' : 'M'}${x(p.i).toFixed(1)},${y(p.v).toFixed(1)} `;
    });
    g.append(svg('path', { d, class: 'line' }));
    have.forEach((p) => g.append(svg('circle', { cx: x(p.i), cy: y(p.v), r: p.i === highlight ? 6 : 4, class: ['point', p.i === highlight && 'is-current'] })));
    const every = Math.max(1, Math.ceil(84 / Math.max((w - L - R) / Math.max(n - 1, 1), 1)));
    labels.forEach((l, i) => {
      if (i % every && i !== n - 1) return;
      g.append(svg('text', { x: x(i), y: H - B + 18, 'text-anchor': n === 1 ? 'middle' : i === 0 ? 'start' : i === n - 1 ? 'end' : 'middle', class: 'tick-label' }, l));
    });
    return g;
  });
  const alt = altTable(title, [{ label: 'Version', cell: (r) => r.l }, { label: title, num: true, cell: (r) => (r.v == null ? '—' : `${fmt(r.v)}${unit}`) }], labels.map((l, i) => ({ l, v: values[i] })));
  return chartFigure(name, { title, summary, graphic, alt });
}

/**
 * Points on two axes (cost against latency): each labelled, the best ringed, an optional
 * vertical limit line (the latency target). points: [{x, y, label, best}].
 */
export function scatterChart(name, { title, points, xTitle, yTitle, fmtX = String, fmtY = String, limitX = null, alt }) {
  const have = points.filter((p) => p.x != null && p.y != null);
  if (!have.length) return h('figure', { class: 'chart chart-fig chart-empty', 'data-chart': name }, h('figcaption', {}, title), h('p', { class: 'muted' }, 'No latency was recorded with these measurements.'));
  const best = have.find((p) => p.best) || have[0];
  const summary = `${have.length} combination${have.length === 1 ? '' : 's'}; the cheapest, ${best.label}, costs ${fmtY(best.y)} at ${fmtX(best.x)}${limitX ? `, against a target of ${fmtX(limitX)}` : ''}.`;
  const graphic = responsive((w) => {
    const H = 240;
    const L = 70;
    const R = 18;
    const T = 14;
    const B = 40;
    const xs = have.map((p) => p.x).concat(limitX ? [limitX] : []);
    const ys = have.map((p) => p.y);
    const x0 = 0;
    const x1 = Math.max(...xs) * 1.12 || 1;
    const y0 = 0;
    const y1 = Math.max(...ys) * 1.15 || 1;
    const X = (v) => L + ((v - x0) / (x1 - x0)) * (w - L - R);
    const Y = (v) => T + (1 - (v - y0) / (y1 - y0)) * (H - T - B);
    const g = svg('svg', { width: w, height: H, viewBox: `0 0 ${w} ${H}`, class: 'scatter' });
    for (let k = 0; k <= 4; k++) {
      const yv = y0 + ((y1 - y0) * k) / 4;
      const xv = x0 + ((x1 - x0) * k) / 4;
      g.append(svg('line', { x1: L, x2: w - R, y1: Y(yv), y2: Y(yv), class: 'grid' }), svg('text', { x: L - 6, y: Y(yv) + 4, 'text-anchor': 'end', class: 'tick-label' }, fmtY(yv)));
      if (w >= 480 || k % 2 === 0) g.append(svg('text', { x: X(xv), y: H - B + 16, 'text-anchor': k === 0 ? 'start' : k === 4 ? 'end' : 'middle', class: 'tick-label' }, fmtX(xv)));
    }
    g.append(svg('text', { x: w - R, y: H - 6, 'text-anchor': 'end', class: 'axis-title' }, xTitle));
    if (limitX) g.append(svg('line', { x1: X(limitX), x2: X(limitX), y1: T, y2: H - B, class: 'limit' }), svg('text', { x: X(limitX) - 4, y: T + 10, 'text-anchor': 'end', class: 'limit-label' }, `target ${fmtX(limitX)}`));
    const placed = [];
    have.forEach((p) => {
      const cx = X(p.x);
      const cy = Y(p.y);
      if (p === best) g.append(svg('circle', { cx, cy, r: 10, class: 'current-ring' }));
      g.append(svg('circle', { cx, cy, r: 5, class: ['point', p === best && 'is-best'] }));
      // A label where it does not land on one already drawn; otherwise none (the table has it).
      const right = cx + 8 + p.label.length * 6.2 < w - R;
      const lx = right ? cx + 8 : cx - 8;
      if (!placed.some((q) => Math.abs(q.y - cy) < 12 && Math.abs(q.x - lx) < 90)) {
        placed.push({ x: lx, y: cy });
        g.append(svg('text', { x: lx, y: cy - 7, 'text-anchor': right ? 'start' : 'end', class: 'point-label' }, p.label));
      }
    });
    return g;
  });
  return chartFigure(name, { title, summary: `${summary} ${yTitle} up, ${xTitle} across.`, graphic, alt });
}

/** Horizontal bars with the value written at each bar's end (days since a fix, counts). */
export function hbarChart(name, { title, rows, fmt = String, summary, alt, cls = '' }) {
  const max = Math.max(...rows.map((r) => r.value), 1);
  const graphic = responsive((w) => {
    const rowH = 26;
    const labelW = Math.min(180, Math.floor(w * 0.42));
    const H = rows.length * rowH + 4;
    const g = svg('svg', { width: w, height: H, viewBox: `0 0 ${w} ${H}`, class: ['hbar', cls] });
    rows.forEach((r, i) => {
      const y = i * rowH + 4;
      const bw = Math.max(2, (r.value / max) * (w - labelW - 64));
      const text = r.label.length * 6.4 > labelW - 8 ? `${r.label.slice(0, Math.max(4, Math.floor((labelW - 8) / 6.4) - 1))}…` : r.label;
      g.append(svg('text', { x: labelW - 8, y: y + 15, 'text-anchor': 'end', class: 'tick-label' }, text));
      g.append(svg('rect', { x: labelW, y, width: bw, height: rowH - 8, rx: 3, class: ['bar', r.cls] }));
      g.append(svg('text', { x: labelW + bw + 6, y: y + 14, class: 'value-label' }, fmt(r.value)));
    });
    return g;
  });
  return chartFigure(name, { title, summary, graphic, alt });
}

/** A small inline bar for a table cell (the value is written beside it). */
export function inlineBar(value, max, { cls = '' } = {}) {
  const w = 64;
  const bw = max > 0 && value != null ? Math.max(2, (value / max) * w) : 0;
  return svg('svg', { width: w, height: 8, viewBox: `0 0 ${w} 8`, class: ['inline-bar', cls], 'aria-hidden': 'true' }, svg('rect', { x: 0, y: 0, width: w, height: 8, rx: 2, class: 'track' }), svg('rect', { x: 0, y: 0, width: bw, height: 8, rx: 2, class: 'fill' }));
}
