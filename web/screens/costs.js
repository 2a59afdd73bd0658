// Costs: the cheapest image + instance type for a model at a latency target and a daily
// volume (GET /v1/costs). The inputs live in the URL.
import { api } from '../api.js';
import { h, put, clear, imageLink, fmtMoney, fmtNum, loading, failure, emptyState, table, field, showFormError, clearFieldErrors, humanize } from '../ui.js';
import { barChart } from '../charts.js';

export async function render(ctx) {
  ctx.title('Costs');
  const p = ctx.params;
  const model = h('input', { name: 'model', required: true, placeholder: 'llama-3.1-8b', value: p.get('model') || '', list: 'cost-models', autocomplete: 'off' });
  const p99 = h('input', { name: 'max_p99_ms', type: 'number', min: 1, step: 1, placeholder: '200', value: p.get('max_p99_ms') || '' });
  const gpu = h('input', { name: 'gpu', placeholder: 'any', value: p.get('gpu') || '' });
  const pricing = h('select', { name: 'pricing', value: p.get('pricing') || '' }, [['', 'Any'], ['on_demand', 'On-demand'], ['spot', 'Spot'], ['reserved', 'Reserved']].map(([v, l]) => h('option', { value: v }, l)));
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
  put(ctx.root, h('div', { class: 'page-head' }, h('h1', {}, 'Costs'), h('p', { class: 'lead' }, 'Which image on which instance type serves your model cheapest within your latency target, from measured runs.')), h('section', { class: 'panel', 'aria-label': 'Ranking inputs' }, h('div', { class: 'panel-body' }, form)), box);

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
      const label = (r) => (r.pricing && r.pricing !== 'on_demand' ? `${r.instance_type} (${r.pricing.replace('_', '-')})` : r.instance_type);
      clear(
        box,
        h('section', { class: 'panel', 'aria-labelledby': 'rank-title' },
          h('div', { class: 'panel-head' }, h('h2', { id: 'rank-title' }, `Ranking for ${q.model}`)),
          h('div', { class: 'panel-body' },
            h('p', { class: 'winner' }, 'Cheapest: ', imageLink(best.image), ' on ', h('code', {}, best.instance_type), ` at ${fmtMoney(best.median_cost_per_1k_inferences, best.currency, 5)} per 1,000 inferences`, best.monthly_cost != null ? ` (${fmtMoney(best.monthly_cost, best.currency, 0)} a month)` : '', '.'),
            barChart({ title: `Cost per 1,000 inferences (median, ${best.currency || 'USD'})`, labels: top.map(label), values: top.map((r) => r.median_cost_per_1k_inferences), format: (v) => fmtMoney(v, best.currency, 5) }),
            table([
              { label: '#', numeric: true, cell: (r) => String(r.rank ?? items.indexOf(r) + 1) },
              { label: 'Image', cell: (r) => imageLink(r.image) },
              { label: 'Instance type', cell: (r) => h('span', {}, h('code', {}, r.instance_type), r.gpu_model ? h('span', { class: 'sub' }, ` ${r.gpu_count > 1 ? `${r.gpu_count}× ` : ''}${r.gpu_model}`) : null) },
              { label: 'Pricing', cell: (r) => humanize(r.pricing) },
              { label: 'Cost / 1k', numeric: true, cell: (r) => fmtMoney(r.median_cost_per_1k_inferences, r.currency, 5) },
              { label: 'p99 latency', numeric: true, cell: (r) => (r.median_latency_p99_ms != null ? `${fmtNum(r.median_latency_p99_ms, 1)} ms` : '—') },
              { label: 'Runs', numeric: true, cell: (r) => fmtNum(r.measurements) },
              { label: 'Monthly', numeric: true, cell: (r) => (r.monthly_cost != null ? fmtMoney(r.monthly_cost, r.currency, 0) : '—') },
            ], items, { caption: 'Ranking', rowClass: (r) => (r === best ? 'best' : undefined) }),
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
