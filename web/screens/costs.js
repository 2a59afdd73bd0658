// Costs: the cheapest image + instance type for a model at a latency target and a daily
// volume (GET /v1/costs). The inputs live in the URL.
import { api } from '../api.js';
import { h, clear, imageLink, fmtMoney, fmtNum, loading, failure, emptyState, table, field, showFormError, clearFieldErrors } from '../ui.js';
import { barChart } from '../charts.js';

export async function render(ctx) {
  ctx.title('Costs');
  const p = ctx.params;
  const model = h('input', { name: 'model', required: true, placeholder: 'llama-3.1-8b', value: p.get('model') || '', list: 'cost-models', autocomplete: 'off' });
  const p99 = h('input', { name: 'max_p99_ms', type: 'number', min: 1, step: 1, placeholder: '200', value: p.get('max_p99_ms') || '' });
  const gpu = h('input', { name: 'gpu', placeholder: 'any', value: p.get('gpu') || '' });
  const pricing = h('select', { name: 'pricing', value: p.get('pricing') || 'on-demand' }, ['on-demand', 'spot', 'reserved'].map((x) => h('option', { value: x }, x)));
  const daily = h('input', { name: 'daily_inferences', type: 'number', min: 1, step: 1000, placeholder: '1000000', value: p.get('daily_inferences') || '' });
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
      field('Inferences per day', daily, 'For the monthly cost.')),
    h('datalist', { id: 'cost-models' }, ['resnet50', 'llama-3.1-8b', 'bert-base', 'whisper-large-v3'].map((m) => h('option', { value: m }))),
    h('button', { type: 'submit' }, 'Rank'),
  );
  ctx.root.append(h('div', { class: 'page-head' }, h('h1', {}, 'Costs'), h('p', { class: 'lead' }, 'Which image on which instance type serves your model cheapest within your latency target, from measured runs.')), h('section', { class: 'panel', 'aria-label': 'Ranking inputs' }, h('div', { class: 'panel-body' }, form)), box);

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
      if (!items.length) return clear(box, emptyState('Nothing meets these inputs', p99.value ? `No measured run of ${q.model} stays under ${q.max_p99_ms} ms at p99. Raise the target or drop the GPU filter.` : `No measurements for ${q.model} yet.`));
      const top = items.slice(0, 8);
      clear(
        box,
        h('section', { class: 'panel', 'aria-labelledby': 'rank-title' },
          h('div', { class: 'panel-head' }, h('h2', { id: 'rank-title' }, `Ranking for ${q.model}`)),
          h('div', { class: 'panel-body' },
            h('p', { class: 'winner' }, 'Cheapest: ', imageLink(items[0].image), ' on ', h('code', {}, items[0].instance_type), ` at ${fmtMoney(items[0].cost_per_1k_median)} per 1,000 inferences`, items[0].monthly_cost != null ? ` (${fmtMoney(items[0].monthly_cost, 'USD', 0)} a month)` : '', '.'),
            barChart({ title: 'Cost per 1,000 inferences (median, USD)', labels: top.map((r) => r.instance_type), values: top.map((r) => r.cost_per_1k_median), format: (v) => fmtMoney(v, 'USD', 3) }),
            table([
              { label: '#', numeric: true, cell: (r) => String(items.indexOf(r) + 1) },
              { label: 'Image', cell: (r) => imageLink(r.image) },
              { label: 'Instance type', cell: (r) => h('code', {}, r.instance_type) },
              { label: 'Cost / 1k', numeric: true, cell: (r) => fmtMoney(r.cost_per_1k_median) },
              { label: 'p99 latency', numeric: true, cell: (r) => `${fmtNum(r.latency_p99_median_ms, 1)} ms` },
              { label: 'Runs', numeric: true, cell: (r) => fmtNum(r.measurements) },
              { label: 'Monthly', numeric: true, cell: (r) => (r.monthly_cost != null ? fmtMoney(r.monthly_cost, 'USD', 0) : '—') },
            ], items, { caption: 'Ranking', rowClass: (r) => (r === items[0] ? 'best' : undefined) }))),
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
