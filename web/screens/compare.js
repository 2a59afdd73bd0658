// Compare: GET /v1/compare?ids=… for 2–4 images, rows aligned by component and field,
// differing rows highlighted, "show only differences" kept in the URL (?diff=1).
import { api } from '../api.js';
import { h, put, clear, badge, chip, imageLink, loading, failure, emptyState, debounce, humanize, fmtDate, fmtMoney, fmtNum } from '../ui.js';
import { tray, MAX_COMPARE } from '../state.js';
import { inlineBar } from '../charts.js';

export async function render(ctx) {
  ctx.title('Compare');
  const ids = (ctx.params.get('ids') || '').split(',').map((s) => s.trim()).filter(Boolean).slice(0, MAX_COMPARE);
  let onlyDiff = ctx.params.get('diff') === '1';
  const body = h('div', { class: 'compare-body' });
  const setIds = (next) => {
    const p = new URLSearchParams();
    if (next.length) p.set('ids', next.join(','));
    if (onlyDiff) p.set('diff', '1');
    ctx.navigate('/compare', p);
  };

  // Picker: search the catalog and add an image.
  const q = h('input', { type: 'search', placeholder: 'Find an image to add…', 'aria-label': 'Find an image to add to the comparison', autocomplete: 'off' });
  const hits = h('ul', { class: 'picker-hits', role: 'list' });
  const searchHits = debounce(async () => {
    if (!q.value.trim()) return clear(hits);
    try {
      const d = await api('/images', { query: { q: q.value.trim(), limit: 6 }, signal: ctx.signal });
      clear(hits, (d.items || []).filter((i) => !ids.includes(String(i.id))).map((i) => h('li', {}, h('button', { type: 'button', class: 'secondary outline', disabled: ids.length >= MAX_COMPARE, onclick: () => setIds([...ids, String(i.id)]) }, `Add ${i.family} ${i.version}`))));
      if (!hits.children.length) hits.append(h('li', { class: 'muted' }, 'No other images match.'));
    } catch (e) {
      if (e.name !== 'AbortError') clear(hits, h('li', {}, failure(e, 'Search')));
    }
  }, 250);
  q.addEventListener('input', searchHits);
  const picker = h('div', { class: 'picker' }, q, hits);

  put(ctx.root, h('div', { class: 'page-head' }, h('h1', {}, 'Compare images'), h('p', { class: 'lead' }, `Pick 2 to ${MAX_COMPARE} images from the catalog or an image page; rows that differ are highlighted.`)), ids.length < MAX_COMPARE ? picker : null, body);

  if (ids.length < 2) {
    const inTray = tray.items();
    body.append(emptyState(ids.length ? 'Add one more image to compare' : 'Nothing to compare yet', 'Tick “Compare” on catalog rows, or search above.', inTray.length >= 2 ? h('a', { class: 'btn-link', href: ctx.hrefFor('/compare', { ids: inTray.map((x) => x.id).join(',') }) }, `Compare the ${inTray.length} picked images`) : h('a', { class: 'btn-link outline', href: '#/catalog' }, 'Browse the catalog')));
    return;
  }
  body.append(loading('Comparing…'));
  let d;
  try {
    d = await api('/compare', { query: { ids: ids.join(',') }, signal: ctx.signal });
  } catch (e) {
    if (e.name === 'AbortError') return;
    return clear(body, failure(e, 'Comparison'));
  }
  const images = d.images || [];
  const toggle = h('input', { type: 'checkbox', role: 'switch', id: 'only-diff', checked: onlyDiff });
  const countDiff = () => tableEl.querySelectorAll('tbody tr.differs').length;
  // Three or four images do not fit side by side at phone widths: there each row becomes a card
  // whose cells carry their image's name (app.css, .compare-stack), so nothing scrolls sideways.
  const tableEl = h('table', { class: ['data', 'compare-table', onlyDiff && 'only-diff', images.length >= 3 && 'compare-stack'] });
  const cellLabels = images.map((img) => `${img.family} ${img.version}`);
  const labelCells = () => {
    for (const tr of tableEl.querySelectorAll('tbody tr:not(.group-head)')) {
      const tds = [...tr.children].filter((c) => c.tagName === 'TD' && !c.hasAttribute('colspan'));
      tds.forEach((td, i) => td.dataset.label || (td.dataset.label = cellLabels[i] || ''));
    }
  };
  new MutationObserver(labelCells).observe(tableEl, { childList: true, subtree: true });
  const diffCount = h('span', { class: 'muted', role: 'status' });
  const paintCount = () => {
    const n = countDiff();
    diffCount.textContent = `${n} row${n === 1 ? '' : 's'} differ`;
  };
  tableEl.addEventListener('imx-rows', paintCount);
  toggle.addEventListener('change', () => {
    onlyDiff = toggle.checked;
    tableEl.classList.toggle('only-diff', onlyDiff);
    const p = new URLSearchParams(ctx.params);
    if (onlyDiff) p.set('diff', '1');
    else p.delete('diff');
    ctx.setParams(p);
  });

  const cell = (name, v) => {
    if (v === null || v === undefined || v === '') return h('span', { class: 'absent' }, 'absent');
    if (name === 'os_advisories' && Array.isArray(v)) {
      if (!v.length) return h('span', { class: 'absent' }, 'none');
      return h('ul', { class: 'os-advisories' }, v.map((a) => h('li', {}, h('a', { href: `#/advisories/${encodeURIComponent(a.id)}` }, a.id), ' ', (a.packages || []).map((p) => h('span', { class: 'sub' }, ` ${p.name} ${p.version}${p.fixed ? ` → ${p.fixed}` : ''}`)), a.fixed_by ? h('div', { class: 'fixed-by' }, 'Fixed in ', imageLink(a.fixed_by)) : null)));
    }
    if (Array.isArray(v)) return v.length ? v.join(', ') : h('span', { class: 'absent' }, 'none');
    if (name === 'compatibility' && typeof v === 'object') {
      const n = (k, one) => (v[k] ? `${v[k]} ${one}${v[k] === 1 ? '' : 's'}` : null);
      const parts = [n('errors', 'error'), n('warnings', 'warning')].filter(Boolean);
      return h('span', {}, badge(v.ok ? 'ok' : 'error', { kind: 'sev', label: v.ok ? 'OK' : 'Errors' }), parts.length ? ` ${parts.join(', ')}` : '');
    }
    if (typeof v === 'object') return v.name ? `${v.name} ${v.version || ''}` : JSON.stringify(v);
    if (name === 'os') return String(v).replace(':', ' ');
    if (name === 'boot_seconds') return `${v} s`;
    if (name === 'size_gb') return `${v} GB`;
    if (name === 'status') return badge(v);
    if (name === 'patch_status' || name === 'os_patch_status') return badge(v, { kind: 'patch' });
    if (name === 'published_at') return fmtDate(v);
    return String(v);
  };
  const LABELS = { boot_seconds: 'Boot time', size_gb: 'Size', os: 'OS', kernel: 'Kernel', regions: 'Regions', status: 'Status', compatibility: 'Compatibility', patch_status: 'Patch status', os_patch_status: 'OS patch status', os_advisories: 'OS advisories' };
  // Boot time and size get a small bar each (longest = full width), the smallest marked.
  const BARRED = new Set(['boot_seconds', 'size_gb']);
  const withBar = (name, values, v, content) => {
    const nums = values.filter((x) => typeof x === 'number');
    if (!BARRED.has(name) || typeof v !== 'number' || nums.length < 2) return content;
    return h('span', { class: 'bar-cell' }, content, inlineBar(v, Math.max(...nums), { cls: v === Math.min(...nums) ? 'is-best' : '' }));
  };
  const rowFor = (r, kind) =>
    h(
      'tr',
      { class: r.differs ? 'differs' : 'same', dataset: { row: r.name } },
      h('th', { scope: 'row' }, r.differs ? h('span', { class: 'diff-mark', title: 'Differs' }, '≠ ') : null, kind === 'component' ? h('code', {}, r.name) : LABELS[r.name] || humanize(r.name), r.differs ? h('span', { class: 'visually-hidden' }, ' (differs)') : null),
      r.values.map((v) => h('td', {}, kind === 'component' ? (v == null ? h('span', { class: 'absent' }, 'absent') : chip(null, v)) : withBar(r.name, r.values, v, cell(r.name, v)))),
    );
  // GPUs and the publish date come with each image summary; compared here like the rest.
  const same = (vals) => new Set(vals.map((v) => JSON.stringify(v))).size <= 1;
  const gpuSets = images.map((i) => (i.gpus || []).slice().sort());
  const extra = [
    { name: 'gpus', label: 'GPUs', values: images.map((i, k) => gpuSets[k]), differs: !same(gpuSets) },
    { name: 'published_at', label: 'Published', values: images.map((i) => i.published_at), differs: !same(images.map((i) => fmtDate(i.published_at))) },
  ];
  const extraRow = (r) => h('tr', { class: r.differs ? 'differs' : 'same', dataset: { row: r.name } },
    h('th', { scope: 'row' }, r.differs ? h('span', { class: 'diff-mark', title: 'Differs' }, '≠ ') : null, r.label, r.differs ? h('span', { class: 'visually-hidden' }, ' (differs)') : null),
    r.values.map((v) => h('td', {}, r.name === 'gpus' ? (v.length ? h('span', { class: 'gpu-list' }, v.map((g) => h('span', { class: 'gpu-tag' }, g))) : h('span', { class: 'absent' }, 'none')) : h('time', { datetime: v }, fmtDate(v)))));
  const advBody = h('tbody', { class: 'group advisories-group' }, h('tr', { class: 'group-head' }, h('th', { colspan: images.length + 1, scope: 'colgroup' }, 'Advisories')), h('tr', {}, h('td', { colspan: images.length + 1 }, loading('Loading advisories…'))));
  append(tableEl, [
    h('caption', { class: 'visually-hidden' }, 'Side-by-side comparison'),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Image'), images.map((img) => h('th', { scope: 'col' }, imageLink(img), h('div', {}, h('button', { type: 'button', class: 'link-button', 'aria-label': `Remove ${img.family} ${img.version} from the comparison`, onclick: () => setIds(ids.filter((x) => x !== String(img.id))) }, 'Remove')))))),
    h('tbody', { class: 'group' }, h('tr', { class: 'group-head' }, h('th', { colspan: images.length + 1, scope: 'colgroup' }, 'Image')), extra.map(extraRow), (d.fields || []).map((r) => rowFor(r, 'field'))),
    advBody,
    h('tbody', { class: 'group' }, h('tr', { class: 'group-head' }, h('th', { colspan: images.length + 1, scope: 'colgroup' }, 'Components')), (d.components || []).map((r) => rowFor(r, 'component'))),
    costRows(images, d.costs || []),
  ]);
  paintCount();
  advisoryRows(ctx, images, advBody);
  clear(
    body,
    h('div', { class: 'compare-bar' }, h('label', { for: 'only-diff', class: 'switch' }, toggle, ' Show only differences'), diffCount),
    h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': 'Comparison' }, tableEl),
  );
}

/** One row per advisory that hits any of the images (GET /v1/images/{id}/patch each): which
 * image it hits, and the first image that fixes it, so "Patch available" on three images tells
 * which advisories apart. */
async function advisoryRows(ctx, images, tbody) {
  const head = tbody.firstChild;
  let patches;
  try {
    patches = await Promise.all(images.map((img) => api(`/images/${encodeURIComponent(img.id)}/patch`, { signal: ctx.signal })));
  } catch (e) {
    if (e.name === 'AbortError') return;
    return clear(tbody, head, h('tr', {}, h('td', { colspan: images.length + 1 }, failure(e, 'Advisories'))));
  }
  const byId = new Map();
  patches.forEach((p, k) => (p.advisories || []).forEach((a) => {
    if (!byId.has(a.id)) byId.set(a.id, { a, hits: images.map(() => null) });
    byId.get(a.id).hits[k] = a;
  }));
  const order = { critical: 0, high: 1, medium: 2, low: 3 };
  const rows = [...byId.values()].sort((x, y) => (order[x.a.severity] ?? 4) - (order[y.a.severity] ?? 4) || x.a.id.localeCompare(y.a.id));
  clear(tbody, head,
    rows.length
      ? rows.map(({ a, hits }) => {
          const differs = !hits.every((x) => !!x === !!hits[0]);
          return h('tr', { class: differs ? 'differs' : 'same', dataset: { row: `advisory:${a.id}` } },
            h('th', { scope: 'row' }, differs ? h('span', { class: 'diff-mark', title: 'Differs' }, '≠ ') : null, h('a', { href: `#/advisories/${encodeURIComponent(a.id)}` }, a.id), ' ', badge(a.severity, { kind: 'sev' }), differs ? h('span', { class: 'visually-hidden' }, ' (differs)') : null),
            hits.map((x) => h('td', {}, x ? h('span', { class: 'adv-hit' }, h('strong', {}, 'Affected'), x.fixed_by ? h('div', { class: 'sub' }, 'fixed in ', imageLink(x.fixed_by)) : h('div', { class: 'sub' }, 'no fix yet')) : h('span', { class: 'absent' }, 'not affected'))));
        })
      : h('tr', { class: 'same', dataset: { row: 'advisories-none' } }, h('th', { scope: 'row' }, 'Advisories'), images.map(() => h('td', {}, h('span', { class: 'absent' }, 'none')))));
  tbody.closest('table')?.dispatchEvent(new Event('imx-rows'));
}

/** What the images cost, from the caller's teams' measurements: the best median cost per
 * 1,000 inferences per model, and the median measured boot time. */
function costRows(images, costs) {
  const byImage = new Map(costs.map((c) => [String(c.image), c]));
  const per = images.map((img) => byImage.get(String(img.id)) || {});
  const models = [...new Set(per.flatMap((c) => Object.keys(c.best_cost_per_1k || {})))].sort();
  const row = (key, label, values, fmt) => {
    const differs = new Set(values.map((v) => (v == null ? '' : String(v)))).size > 1;
    return h('tr', { class: differs ? 'differs' : 'same', dataset: { row: key } },
      h('th', { scope: 'row' }, differs ? h('span', { class: 'diff-mark', title: 'Differs' }, '≠ ') : null, label, differs ? h('span', { class: 'visually-hidden' }, ' (differs)') : null),
      values.map((v) => h('td', {}, v == null ? h('span', { class: 'absent' }, 'not measured') : barred(values, v, fmt(v)))));
  };
  return h('tbody', { class: 'group' },
    h('tr', { class: 'group-head' }, h('th', { colspan: images.length + 1, scope: 'colgroup' }, 'Costs (your teams’ measurements)')),
    models.map((m) => row(`cost:${m}`, ['Cost / 1k inferences, ', h('code', {}, m)], per.map((c) => c.best_cost_per_1k?.[m] ?? null), (v) => fmtMoney(v, 'USD', 5))),
    row('boot_measured', 'Measured boot (median)', per.map((c) => c.boot_seconds_median ?? null), (v) => `${fmtNum(v)} s`));
}

/** A value with its small bar, the lowest of the row marked. */
function barred(values, v, text) {
  const nums = values.filter((x) => typeof x === 'number');
  if (nums.length < 2) return text;
  return h('span', { class: 'bar-cell' }, text, inlineBar(v, Math.max(...nums), { cls: v === Math.min(...nums) ? 'is-best' : '' }));
}

function append(el, kids) {
  kids.flat().forEach((k) => k && el.append(k));
}
