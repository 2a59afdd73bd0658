// Costs: the cheapest image + instance type for a model at a latency target and a daily
// volume (GET /v1/costs). The inputs live in the URL.
import { api } from '../api.js';
import { h, put, clear, imageLink, fmtMoney, fmtNum, loading, failure, emptyState, table, field, showFormError, clearFieldErrors, humanize, busy, toast, errorBox } from '../ui.js';
import { barChart, scatterChart, altTable } from '../charts.js';
import { teams } from '../state.js';

const MEASURE = [
  // name, label, type, placeholder, required (the server says which are; the form only marks them)
  ['image', 'Image id', 'number', 'e.g. 20', true],
  ['instance_type', 'Instance type', 'text', 'e.g. p5.48xlarge', true],
  ['region', 'Region', 'text', 'e.g. us-east-1', false],
  ['gpu_count', 'GPUs', 'number', 'e.g. 8', false],
  ['model', 'Model', 'text', 'e.g. llama-3.1-8b', true],
  ['precision', 'Precision', 'text', 'e.g. bf16', true],
  ['batch_size', 'Batch size', 'number', 'e.g. 16', true],
  ['throughput_per_s', 'Throughput (inferences/s)', 'number', 'e.g. 5200', true],
  ['latency_p50_ms', 'Latency p50 (ms)', 'number', 'e.g. 38', false],
  ['latency_p99_ms', 'Latency p99 (ms)', 'number', 'e.g. 41', false],
  ['boot_seconds', 'Boot (s, launch to ready)', 'number', 'e.g. 70', false],
  ['price_per_hour', 'Price per hour (USD)', 'number', 'the listed price', false],
];

/** Record one measurement (POST /v1/measurements), or import many from a CSV or NDJSON file
 * (POST /v1/measurements:import, all or nothing; errors per line at /lines/N/field). */
function recordPanel(ctx, rerank) {
  const mine = teams();
  const team = h('select', { name: 'team' }, mine.map((t) => h('option', { value: t.slug }, `${t.name || t.slug} (you: ${t.role})`)));
  const inputs = Object.fromEntries(MEASURE.map(([name, , type, ph, required]) => [name, h('input', { name, type, required, step: type === 'number' ? 'any' : undefined, placeholder: ph, inputmode: type === 'number' ? 'decimal' : undefined, autocomplete: 'off' })]));
  const pricing = h('select', { name: 'pricing' }, [['on_demand', 'On-demand'], ['spot', 'Spot'], ['reserved', 'Reserved']].map(([v, l]) => h('option', { value: v }, l)));
  const at = h('input', { name: 'measured_at', type: 'datetime-local', value: new Date(Date.now() - 60000).toISOString().slice(0, 16) });
  const out = h('div', { 'aria-live': 'polite' });
  const submit = h('button', { type: 'submit' }, 'Record measurement');
  const form = h('form', { class: 'measure-form', novalidate: true, 'aria-label': 'New measurement' },
    h('div', { class: 'form-error' }),
    h('div', { class: 'grid-fields' }, field('Team', team), MEASURE.map(([name, label]) => field(label, inputs[name])), field('Pricing', pricing), field('Measured at (UTC)', at)),
    submit, out);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    clearFieldErrors(form);
    clear(out);
    const body = { team: team.value, pricing: pricing.value, measured_at: at.value ? new Date(`${at.value}Z`).toISOString() : '' };
    for (const [name, , type] of MEASURE) {
      const v = inputs[name].value.trim();
      if (v !== '') body[name] = type === 'number' ? Number(v) : v;
    }
    await busy(submit, async () => {
      try {
        const m = await api('/measurements', { method: 'POST', body });
        toast('Measurement recorded');
        clear(out, h('p', { class: 'notice', role: 'status', 'data-testid': 'measurement-result' }, `Recorded: ${fmtMoney(m.derived?.cost_per_1k_inferences, m.currency, 5)} per 1,000 inferences`, m.derived?.boot_cost != null ? `, ${fmtMoney(m.derived.boot_cost, m.currency)} per boot` : '', ` at ${fmtMoney(m.price_per_hour, m.currency, 2)} an hour (${m.price_source || 'given'}).`));
        rerank();
      } catch (err) {
        showFormError(form, err);
      }
    });
  });

  const text = h('textarea', { name: 'import', rows: 5, class: 'mono', spellcheck: 'false', placeholder: 'image,instance_type,model,precision,batch_size,throughput_per_s,measured_at\n20,p5.48xlarge,llama-3.1-8b,bf16,16,5200,2026-10-01T10:00:00Z' });
  const file = h('input', { type: 'file', accept: '.csv,.ndjson,.jsonl,text/csv,application/x-ndjson' });
  file.addEventListener('change', async () => {
    if (file.files[0]) text.value = await file.files[0].text();
  });
  const importOut = h('div', { 'aria-live': 'polite', 'data-testid': 'import-result' });
  const importBtn = h('button', { type: 'submit', class: 'secondary' }, 'Import');
  const importForm = h('form', { class: 'measure-import', novalidate: true, 'aria-label': 'Import measurements' },
    field('CSV or NDJSON', text, 'CSV: a header line of field names, then one measurement a line. NDJSON: one JSON object a line. All lines are imported, or none.'),
    h('div', { class: 'field' }, h('label', {}, 'Or choose a file ', file)),
    importBtn, importOut);
  importForm.addEventListener('submit', async (e) => {
    e.preventDefault();
    clear(importOut);
    const body = text.value.trim();
    if (!body) return clear(importOut, h('p', { class: 'form-error-summary', role: 'alert' }, 'Paste or choose the measurements to import.'));
    const ndjson = body.startsWith('{');
    await busy(importBtn, async () => {
      try {
        const d = await api('/measurements:import', { method: 'POST', query: { team: team.value }, text: `${body}\n`, contentType: ndjson ? 'application/x-ndjson' : 'text/csv' });
        toast(`${d.imported} measurements imported`);
        clear(importOut, h('p', { class: 'notice', role: 'status' }, `Imported ${d.imported} measurement${d.imported === 1 ? '' : 's'}.`));
        rerank();
      } catch (err) {
        // One row per line with its problems: /lines/N/field.
        const byLine = new Map();
        for (const x of err.errors || []) {
          const m = String(x.pointer).match(/^\/lines\/(\d+)(?:\/(.*))?$/);
          const key = m ? Number(m[1]) : 0;
          byLine.set(key, [...(byLine.get(key) || []), { field: m?.[2] || '', detail: x.detail }]);
        }
        const lines = body.split(/\r?\n/);
        clear(importOut, byLine.size
          ? h('div', { class: 'state state-error', role: 'alert' }, h('p', { class: 'state-title' }, err.detail || err.title), h('ul', { class: 'import-errors' }, [...byLine].sort((a, b) => a[0] - b[0]).map(([n, list]) => h('li', { 'data-line': n }, n ? [h('strong', {}, `Line ${n}`), lines[n - 1] ? h('code', { class: 'line-text' }, lines[n - 1].slice(0, 120)) : null] : null, h('ul', {}, list.map((x) => h('li', {}, x.field ? [h('code', {}, x.field), ' '] : null, x.detail)))))))
          : errorBox(err, { context: 'Import' }));
      }
    });
  });

  return h('details', { class: 'panel record-measurements' },
    h('summary', { class: 'panel-head' }, h('h2', {}, 'Record or import measurements')),
    h('div', { class: 'panel-body' }, form, h('h3', {}, 'Import'), importForm));
}

export async function render(ctx) {
  ctx.title('Costs');
  const p = ctx.params;
  // Placeholders say what an empty field means, never a number that reads like a value.
  const model = h('input', { name: 'model', required: true, placeholder: 'e.g. llama-3.1-8b', value: p.get('model') || '', list: 'cost-models', autocomplete: 'off' });
  const p99 = h('input', { name: 'max_p99_ms', type: 'number', min: 1, step: 1, placeholder: 'no limit', value: p.get('max_p99_ms') || '' });
  const gpu = h('input', { name: 'gpu', placeholder: 'any GPU', value: p.get('gpu') || '' });
  const pricing = h('select', { name: 'pricing', value: p.get('pricing') || '' }, [['', 'Any'], ['on_demand', 'On-demand'], ['spot', 'Spot'], ['reserved', 'Reserved']].map(([v, l]) => h('option', { value: v }, l)));
  const daily = h('input', { name: 'daily_inferences', type: 'number', min: 1, step: 1000, placeholder: 'optional', value: p.get('daily_inferences') || '' });
  const box = h('div', {});
  const form = h(
    'form',
    { class: 'cost-form', novalidate: true },
    h('div', { class: 'form-error' }),
    h('div', { class: 'grid-fields' },
      field('Model', model),
      field('Max p99 latency (ms)', p99),
      field('GPU', gpu),
      field('Pricing', pricing),
      field('Inferences per day', daily, 'Gives the monthly cost, e.g. 1000000.')),
    h('datalist', { id: 'cost-models' }, ['resnet50', 'llama-3.1-8b', 'bert-base', 'whisper-large-v3'].map((m) => h('option', { value: m }))),
    h('button', { type: 'submit' }, 'Rank'),
  );
  put(ctx.root, h('div', { class: 'page-head' }, h('h1', {}, 'Costs'), h('p', { class: 'lead' }, 'Which image on which instance type serves your model cheapest within your latency target, from measured runs.')), h('section', { class: 'panel', 'aria-label': 'Ranking inputs' }, h('div', { class: 'panel-body' }, form)), box, teams().length ? recordPanel(ctx, () => model.value.trim() && run()) : null);

  const run = async () => {
    clearFieldErrors(form);
    if (!model.value.trim()) {
      showFormError(form, { title: 'Pick a model', errors: [{ pointer: '/model', detail: 'Enter the model to rank, e.g. llama-3.1-8b.' }] });
      return;
    }
    const q = { model: model.value.trim(), max_p99_ms: p99.value, gpu: gpu.value.trim(), pricing: pricing.value, daily_inferences: daily.value };
    ctx.setParams(Object.fromEntries(Object.entries(q).filter(([, v]) => v)));
    box.replaceChildren(loading('Ranking…'));
    try {
      const d = await api('/costs', { query: q, signal: ctx.signal });
      const items = d.items || [];
      if (!items.length) return clear(box, emptyState('Nothing meets these inputs', d.excluded_by_latency ? `No measured run of ${q.model} stays under ${q.max_p99_ms} ms at p99 (${d.excluded_by_latency} left out). Raise the target or drop the GPU filter.` : `Your teams have no measurements of ${q.model}${q.gpu ? ` on ${q.gpu}` : ''} yet.`));
      const top = items.slice(0, 8);
      const best = items[0];
      const base = (r) => (r.pricing && r.pricing !== 'on_demand' ? `${r.instance_type} (${r.pricing.replace('_', '-')})` : r.instance_type);
      // Two images on one instance type: the version tells their bars and points apart.
      const twice = new Set(items.map(base).filter((l, i, all) => all.indexOf(l) !== i));
      const label = (r) => (twice.has(base(r)) ? `${base(r)} · ${r.image.version}` : base(r));
      clear(
        box,
        h('section', { class: 'panel', 'aria-labelledby': 'rank-title' },
          h('div', { class: 'panel-head' }, h('h2', { id: 'rank-title' }, `Ranking for ${q.model}`)),
          h('div', { class: 'panel-body' },
            h('p', { class: 'winner' }, 'Cheapest: ', imageLink(best.image), ' on ', h('code', {}, best.instance_type), ` at ${fmtMoney(best.median_cost_per_1k_inferences, best.currency, 5)} per 1,000 inferences`, best.monthly_cost != null ? ` (${fmtMoney(best.monthly_cost, best.currency, 0)} a month)` : '', '.'),
            h('div', { class: 'charts' },
              barChart({ title: `Cost per 1,000 inferences (median, ${best.currency || 'USD'})`, labels: top.map(label), values: top.map((r) => r.median_cost_per_1k_inferences), format: (v) => fmtMoney(v, best.currency, 5) }),
              scatterChart('cost-latency', {
                title: 'Cost against p99 latency',
                points: items.map((r) => ({ x: r.median_latency_p99_ms, y: r.median_cost_per_1k_inferences, label: label(r), best: r === best })),
                xTitle: 'p99 latency (ms)',
                yTitle: 'Cost per 1,000 inferences',
                fmtX: (v) => `${fmtNum(v)} ms`,
                fmtY: (v) => fmtMoney(v, best.currency, 4),
                limitX: q.max_p99_ms ? Number(q.max_p99_ms) : null,
                alt: altTable('Cost against p99 latency', [
                  { label: 'Image and instance type', cell: (r) => `${r.image.family} ${r.image.version}, ${label(r)}` },
                  { label: 'p99 latency', num: true, cell: (r) => (r.median_latency_p99_ms != null ? `${fmtNum(r.median_latency_p99_ms, 1)} ms` : '—') },
                  { label: 'Cost / 1k', num: true, cell: (r) => fmtMoney(r.median_cost_per_1k_inferences, r.currency, 5) },
                ], items),
              })),
            table([
              { label: '#', numeric: true, cell: (r) => String(r.rank ?? items.indexOf(r) + 1) },
              { label: 'Image', cell: (r) => imageLink(r.image) },
              { label: 'Instance type', cell: (r) => h('span', {}, h('code', {}, r.instance_type), r.gpu_model ? h('span', { class: 'sub' }, ` ${r.gpu_count > 1 ? `${r.gpu_count}× ` : ''}${r.gpu_model}`) : null) },
              { label: 'Pricing', cell: (r) => humanize(r.pricing) },
              { label: 'Cost / 1k', numeric: true, cell: (r) => fmtMoney(r.median_cost_per_1k_inferences, r.currency, 5) },
              { label: 'p99 latency', numeric: true, cell: (r) => (r.median_latency_p99_ms != null ? `${fmtNum(r.median_latency_p99_ms, 1)} ms` : '—') },
              { label: 'Runs', numeric: true, cell: (r) => fmtNum(r.measurements) },
              q.daily_inferences ? { label: 'Monthly', numeric: true, cell: (r) => (r.monthly_cost != null ? fmtMoney(r.monthly_cost, r.currency, 0) : '—') } : null,
            ].filter(Boolean), items, { caption: 'Ranking', rowClass: (r) => (r === best ? 'best' : undefined) }),
            q.daily_inferences ? null : h('p', { class: 'hint no-monthly' }, 'Enter inferences per day above to see what each would cost a month.'),
            d.excluded_by_latency ? h('p', { class: 'sub' }, `${d.excluded_by_latency} measured combination${d.excluded_by_latency === 1 ? '' : 's'} left out: median p99 above ${q.max_p99_ms} ms.`) : null,
            d.basis ? h('p', { class: 'hint' }, d.basis) : null)),
      );
    } catch (e) {
      if (e.name === 'AbortError') return;
      if (e.errors?.length) showFormError(form, e);
      clear(box, e.errors?.length ? null : failure(e, 'Cost ranking'));
    }
  };
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    run();
  });
  if (p.get('model')) await run();
  else box.append(emptyState('Pick a model to rank', 'Enter a model and, optionally, a latency target and a daily volume.'));
}
