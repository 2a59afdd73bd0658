// Catalog: search + facet filters (with counts) over GET /v1/images, results as a dense
// table, cursor paging, sorting, and an empty state that names the filter that emptied it.
import { api } from '../api.js';
import { h, put, clear, badge, PATCH_LABEL, chip, imageLink, fmtDate, fmtNum, loading, failure, emptyState, debounce, toast, humanize } from '../ui.js';
import { tray, MAX_COMPARE } from '../state.js';

const PAGE = 20;

/** URL parameter -> facet in the answer, its label, and how it becomes API query. */
export const FILTERS = [
  // Several GPUs at once (gpu=H100,L4: images with any of them); the list offers every GPU the
  // other filters leave, not only those that share an image with the ones ticked.
  { key: 'gpu', label: 'GPU', facet: 'gpu', multi: true },
  { key: 'cuda', label: 'CUDA', facet: 'cuda', range: true, placeholder: '>=12.4' },
  { key: 'driver', label: 'Driver branch', facet: 'driver_branch', range: true, placeholder: '~580' },
  { key: 'framework', label: 'Framework', facet: 'framework' },
  { key: 'os', label: 'OS', facet: 'os', fmt: (v) => String(v).replace(':', ' ') },
  { key: 'provider', label: 'Provider', facet: 'provider' },
  // Region and patch status come with counts from the API's facets (both search paths); a region
  // can also be typed, and patch status offers its four values when an answer has no facets.
  { key: 'region', label: 'Region', facet: 'region', typed: true, placeholder: 'us-east-1' },
  { key: 'tag', label: 'Tag', facet: 'tag' },
  { key: 'patch_status', label: 'Patch status', facet: 'patch_status', fmt: (v) => PATCH_LABEL[v] || humanize(v), values: ['ok', 'patch_available', 'vulnerable', 'revoked'] },
];
const PLAIN = ['q', 'family', 'arch', 'status', 'layer'];

// The orders GET /v1/images offers (keyset pages need one fixed direction per key).
const SORTS = [
  ['-published_at', 'Newest first'],
  ['family', 'Family A–Z'],
  ['boot_seconds', 'Fastest boot'],
  ['size_gb', 'Smallest'],
];

/** Turns a driver facet value or typed range into a constraint: "R580" / "580" -> "~580". */
function driverConstraint(v) {
  const m = String(v).trim().match(/^R?(\d+)$/i);
  return m ? `~${m[1]}` : String(v).trim();
}

/** "pytorch 2.9" / "pytorch:2.9" -> "pytorch:2.9"; "pytorch" -> "pytorch". */
function frameworkComponent(v) {
  const [name, ver] = String(v).trim().split(/[\s:]+/, 2);
  return ver ? `${name.toLowerCase()}:${ver}` : name.toLowerCase();
}

/** The /v1/images query for URL parameters (without paging). */
export function apiQuery(params, { only } = {}) {
  const q = { component: [] };
  const take = (k) => !only || only.includes(k);
  for (const k of PLAIN) if (take(k) && params.get(k)) q[k] = params.get(k);
  for (const f of FILTERS) {
    const v = params.get(f.key);
    if (!v || !take(f.key)) continue;
    if (f.key === 'cuda') q.component.push(`cuda:${v}`);
    else if (f.key === 'driver') q.component.push(`nvidia-driver:${driverConstraint(v)}`);
    else if (f.key === 'framework') q.component.push(frameworkComponent(v));
    else q[f.key] = v;
  }
  return q;
}

function activeFilters(params) {
  const out = [];
  for (const [k, v] of params) {
    if (!v) continue;
    if (k === 'q') out.push({ key: k, label: 'Search', value: v });
    else {
      const f = FILTERS.find((x) => x.key === k);
      if (f?.multi) splitMulti(v).forEach((one) => out.push({ key: k, label: f.label, value: one, one }));
      else if (f) out.push({ key: k, label: f.label, value: f.fmt ? f.fmt(v) : v });
      else if (PLAIN.includes(k)) out.push({ key: k, label: humanize(k), value: v });
    }
  }
  return out;
}

/** "H100,L4" -> ["H100", "L4"]. */
export const splitMulti = (v) => [...new Set(String(v || '').split(',').map((x) => x.trim()).filter(Boolean))];

const slug = (s) => String(s).replace(/[^a-zA-Z0-9_-]+/g, '_');

export async function render(ctx) {
  ctx.title('Catalog');
  let params = new URLSearchParams(ctx.params);
  let cursor = null;
  let rows = [];
  let loadSeq = 0;
  let total = null; // facets.total: the size of the whole matching set
  const countText = () => (total != null && total > rows.length ? `Showing ${rows.length} of ${total} images` : `${rows.length} image${rows.length === 1 ? '' : 's'}`);

  const search = h('input', { type: 'search', name: 'q', placeholder: 'Search images, components…', 'aria-label': 'Search the catalog', value: params.get('q') || '', autocomplete: 'off' });
  const sortSel = h('select', { name: 'sort', 'aria-label': 'Sort by', value: params.get('sort') || '-published_at' }, SORTS.map(([v, l]) => h('option', { value: v }, l)));
  const facetsBox = h('div', { class: 'facets-body' });
  const drawerBtn = h('button', { type: 'button', class: 'secondary outline filters-toggle', 'aria-expanded': 'false', 'aria-controls': 'facets' }, 'Filters');
  const closeBtn = h('button', { type: 'button', class: 'secondary outline drawer-close', 'aria-label': 'Close filters' }, 'Done');
  const sidebar = h('aside', { id: 'facets', class: 'facets', 'aria-label': 'Filters' }, h('div', { class: 'facets-head' }, h('h2', {}, 'Filters'), closeBtn), facetsBox);
  const chips = h('div', { class: 'active-filters', 'aria-label': 'Active filters' });
  const summary = h('p', { class: 'results-summary', role: 'status', 'aria-live': 'polite' });
  const results = h('div', { class: 'results' });
  const more = h('div', { class: 'load-more' });

  const setDrawer = (open) => {
    sidebar.classList.toggle('open', open);
    drawerBtn.setAttribute('aria-expanded', String(open));
    document.body.classList.toggle('drawer-open', open);
    if (open) closeBtn.focus();
  };
  drawerBtn.addEventListener('click', () => setDrawer(true));
  closeBtn.addEventListener('click', () => {
    setDrawer(false);
    drawerBtn.focus();
  });
  sidebar.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && sidebar.classList.contains('open')) {
      setDrawer(false);
      drawerBtn.focus();
    }
  });
  ctx.signal.addEventListener('abort', () => document.body.classList.remove('drawer-open'));

  put(ctx.root, 
    h('div', { class: 'page-head' }, h('h1', {}, 'Catalog'), h('p', { class: 'lead' }, 'GPU-ready images with the driver, CUDA and framework versions they carry.'),
      ctx.me?.admin || (ctx.me?.teams || []).some((t) => ['publisher', 'admin'].includes(t.role)) ? h('a', { class: 'btn-link outline head-link', href: '#/publish' }, 'Publish an image') : null),
    h(
      'div',
      { class: 'catalog' },
      sidebar,
      h(
        'div',
        { class: 'catalog-main' },
        h('form', { class: 'toolbar', role: 'search', onsubmit: (e) => e.preventDefault() }, search, drawerBtn, h('label', { class: 'sort-label' }, h('span', {}, 'Sort'), sortSel)),
        chips,
        summary,
        results,
        more,
      ),
    ),
  );

  const update = (mutate, { push = true } = {}) => {
    mutate(params);
    params.delete('cursor');
    ctx.setParams(params, { push });
    load();
  };

  search.addEventListener('input', debounce(() => update((p) => (search.value.trim() ? p.set('q', search.value.trim()) : p.delete('q')), { push: false }), 300));
  sortSel.addEventListener('change', () => update((p) => (sortSel.value === '-published_at' ? p.delete('sort') : p.set('sort', sortSel.value))));

  function renderChips() {
    const act = activeFilters(params);
    clear(
      chips,
      act.map((f) => h('button', { type: 'button', class: 'filter-chip', 'aria-label': `Remove filter ${f.label}: ${f.value}`, onclick: () => removeFilter(f.key, f.one) }, h('span', { class: 'fc-label' }, `${f.label}:`), ' ', f.value, h('span', { class: 'fc-x', 'aria-hidden': 'true' }, ' ×'))),
      act.length > 1 ? h('button', { type: 'button', class: 'link-button', onclick: () => clearAll(act) }, 'Clear all') : null,
    );
    drawerBtn.textContent = act.length ? `Filters (${act.length})` : 'Filters';
  }

  // The chip that had focus is gone once the chips are redrawn: focus moves to the next chip,
  // or to the search box when none is left, never to <body>.
  function removeFilter(key, one) {
    const fromChip = chips.contains(document.activeElement);
    const keys = activeFilters(params).map((f) => f.key);
    if (key === 'q') search.value = '';
    const rest = one !== undefined ? splitMulti(params.get(key)).filter((x) => x !== one) : [];
    update((p) => (rest.length ? p.set(key, rest.join(',')) : p.delete(key)));
    if (!fromChip) return;
    const next = chips.querySelectorAll('.filter-chip')[Math.min(keys.indexOf(key), chips.querySelectorAll('.filter-chip').length - 1)];
    (next || search).focus();
  }

  function clearAll(act) {
    if (act.some((f) => f.key === 'q')) search.value = '';
    update((p) => act.forEach((f) => p.delete(f.key)));
    search.focus();
  }

  function renderFacets(facets, own = {}) {
    const focusedId = sidebar.contains(document.activeElement) ? document.activeElement.id : null;
    const groups = FILTERS.map((f) => {
      if (f.multi) return multiFacet(f, own[f.facet] || facets?.[f.facet]);
      const selected = params.get(f.key) || '';
      const served = facets?.[f.facet];
      let values = served ? served.slice() : (f.values || []).map((value) => ({ value }));
      const typed = f.range || f.typed;
      // A typed range or value is not one of the facet's values: it is shown in its input with
      // the number of images it matches, not as a struck-through option counting 0.
      const isFacetValue = values.some((v) => String(v.value) === selected);
      if (selected && !isFacetValue && !typed) values.unshift({ value: selected, count: 0 });
      if (!values.length && !typed && !selected) return null;
      const name = `facet-${f.key}`;
      const opt = (value, label, count) => {
        const id = `${name}-${slug(value || 'any')}`;
        const input = h('input', { type: 'radio', name, id, value, checked: selected === String(value) });
        input.addEventListener('change', () => update((p) => (value ? p.set(f.key, value) : p.delete(f.key))));
        return h('li', { class: count === 0 && value ? 'is-zero' : undefined }, h('label', { for: id }, input, h('span', { class: 'facet-value' }, label), count !== undefined ? h('span', { class: 'facet-count', 'aria-label': `${count} images` }, fmtNum(count)) : null));
      };
      const visible = 6;
      const extra = values.length > visible + 1 && !values.slice(visible).some((v) => String(v.value) === selected);
      const list = h('ul', { class: 'facet-list' }, opt('', 'Any'), values.map((v, i) => {
        const li = opt(String(v.value), f.fmt ? f.fmt(v.value) : String(v.value), v.count);
        if (extra && i >= visible) li.classList.add('facet-extra');
        return li;
      }));
      let toggle = null;
      if (extra) {
        toggle = h('button', { type: 'button', class: 'link-button facet-more', 'aria-expanded': 'false' }, `Show ${values.length - visible} more`);
        toggle.addEventListener('click', () => {
          const open = list.classList.toggle('expanded');
          toggle.setAttribute('aria-expanded', String(open));
          toggle.textContent = open ? 'Show fewer' : `Show ${values.length - visible} more`;
        });
      }
      let rangeForm = null;
      let rangeCount = null;
      if (typed) {
        const own = selected && !isFacetValue;
        const input = h('input', { type: 'text', name: `${f.key}-range`, id: `${name}-range`, placeholder: f.placeholder, value: own ? selected : '', 'aria-label': f.range ? `${f.label} version range` : f.label, autocomplete: 'off', spellcheck: 'false' });
        rangeForm = h('form', { class: 'facet-range', onsubmit: (e) => {
          e.preventDefault();
          update((p) => (input.value.trim() ? p.set(f.key, input.value.trim()) : p.delete(f.key)));
        } }, input, h('button', { type: 'submit', class: 'secondary outline', 'aria-label': `Apply ${f.label} filter` }, 'Apply'));
        const n = facets?.total;
        if (own && n != null) rangeCount = h('p', { class: 'facet-range-count', 'data-testid': `range-count-${f.key}` }, h('code', {}, selected), `: ${fmtNum(n)} image${n === 1 ? '' : 's'} match`);
      }
      const showList = values.length || !typed;
      return h('fieldset', { class: 'facet' }, h('legend', {}, f.label), showList ? list : null, toggle, rangeForm, rangeCount);
    }).filter(Boolean);
    clear(facetsBox, groups.length ? groups : h('p', { class: 'muted' }, 'No filters available.'));
    if (focusedId) document.getElementById(focusedId)?.focus();
  }

  /** A facet of checkboxes: each value ticked is kept in the URL as one comma-separated list;
   * the ticked ones come first, so none hides behind "Show more". */
  function multiFacet(f, served) {
    const chosen = splitMulti(params.get(f.key));
    const values = (served || []).slice();
    for (const v of chosen) if (!values.some((x) => String(x.value) === v)) values.push({ value: v, count: 0 });
    if (!values.length) return null;
    const ordered = [...values.filter((v) => chosen.includes(String(v.value))), ...values.filter((v) => !chosen.includes(String(v.value)))];
    const name = `facet-${f.key}`;
    const visible = Math.max(6, chosen.length);
    const extra = ordered.length > visible + 1;
    const list = h('ul', { class: 'facet-list' }, ordered.map((v, i) => {
      const value = String(v.value);
      const id = `${name}-${slug(value)}`;
      const input = h('input', { type: 'checkbox', name, id, value, checked: chosen.includes(value) });
      input.addEventListener('change', () => {
        const next = input.checked ? [...chosen, value] : chosen.filter((x) => x !== value);
        update((p) => (next.length ? p.set(f.key, next.join(',')) : p.delete(f.key)));
      });
      return h('li', { class: [v.count === 0 && !input.checked && 'is-zero', extra && i >= visible && 'facet-extra'] }, h('label', { for: id }, input, h('span', { class: 'facet-value' }, value), v.count !== undefined ? h('span', { class: 'facet-count', 'aria-label': `${v.count} images` }, fmtNum(v.count)) : null));
    }));
    let toggle = null;
    if (extra) {
      toggle = h('button', { type: 'button', class: 'link-button facet-more', 'aria-expanded': 'false' }, `Show ${ordered.length - visible} more`);
      toggle.addEventListener('click', () => {
        const open = list.classList.toggle('expanded');
        toggle.setAttribute('aria-expanded', String(open));
        toggle.textContent = open ? 'Show fewer' : `Show ${ordered.length - visible} more`;
      });
    }
    const any = chosen.length ? h('button', { type: 'button', class: 'link-button facet-clear', onclick: () => update((p) => p.delete(f.key)) }, `Any ${f.label}`) : null;
    return h('fieldset', { class: 'facet' }, h('legend', {}, f.label, chosen.length > 1 ? h('span', { class: 'facet-hint' }, ' (any of)') : null), list, toggle, any);
  }

  function compareBox(img) {
    const id = `cmp-${slug(img.id)}`;
    const input = h('input', { type: 'checkbox', id, checked: tray.has(img.id), 'aria-label': `Compare ${img.family} ${img.version}` });
    input.addEventListener('change', () => {
      if (input.checked && !tray.add(img)) {
        input.checked = false;
        toast(`You can compare up to ${MAX_COMPARE} images at once`, 'warn');
      } else if (!input.checked) tray.remove(img.id);
    });
    return input;
  }

  const frameworkOf = (c = {}) => {
    if (c.pytorch) return chip('PyTorch', c.pytorch);
    if (c.tensorflow) return chip('TF', c.tensorflow);
    if (c.vllm) return chip('vLLM', c.vllm);
    return h('span', { class: 'muted' }, '—');
  };

  /** The GPUs filtered for come first and marked, so a match is never behind "+N"; "+N" shows
   * the rest in place. */
  function gpuCell(gpus) {
    const want = splitMulti(params.get('gpu')).map((x) => x.toLowerCase());
    const hit = (g) => want.includes(g.toLowerCase());
    const order = [...gpus.filter(hit), ...gpus.filter((g) => !hit(g))];
    const n = Math.max(2, order.filter(hit).length);
    const tag = (g) => h('span', { class: ['gpu-tag', hit(g) && 'is-match'] }, g);
    const cell = h('span', { class: 'gpu-list' }, order.slice(0, n).map(tag));
    if (order.length > n) {
      const rest = order.slice(n);
      const more = h('button', { type: 'button', class: 'gpu-more link-button', 'aria-label': `Show ${rest.length} more GPUs: ${rest.join(', ')}` }, `+${rest.length}`);
      more.addEventListener('click', () => more.replaceWith(...rest.map(tag)));
      cell.append(more);
    }
    return cell;
  }

  function row(img) {
    const gpus = img.gpus || [];
    const osName = img.os ? `${img.os.name} ${img.os.version || ''}`.trim() : '—';
    return h(
      'tr',
      { class: `status-row is-${img.status}`, dataset: { id: img.id } },
      h('td', { class: 'col-cmp', 'data-label': 'Compare' }, compareBox(img)),
      h('td', { class: 'col-image', 'data-label': 'Image' }, imageLink(img), h('div', { class: 'sub' }, [img.provider, img.architecture, osName, img.layer].filter(Boolean).join(' · '))),
      h('td', { class: 'col-gpus', 'data-label': 'GPUs' }, gpuCell(gpus)),
      h('td', { class: 'col-ver', 'data-label': 'Driver' }, chip(null, img.components?.['nvidia-driver'])),
      h('td', { class: 'col-ver', 'data-label': 'CUDA' }, chip(null, img.components?.cuda)),
      h('td', { class: 'col-fw', 'data-label': 'Framework' }, frameworkOf(img.components)),
      h('td', { class: 'col-status', 'data-label': 'Status' }, badge(img.patch_status, { kind: 'patch' }), img.status !== 'active' && img.status !== img.patch_status ? badge(img.status) : null),
      h('td', { class: 'col-num num', 'data-label': 'Boot' }, img.boot_seconds != null ? `${fmtNum(img.boot_seconds)} s` : '—'),
      h('td', { class: 'col-date', 'data-label': 'Published' }, h('time', { datetime: img.published_at }, fmtDate(img.published_at))),
    );
  }

  function renderTable() {
    const sort = params.get('sort') || '-published_at';
    // Sortable headers are buttons: each sorts in the one direction the API offers for it.
    const th = (label, cls, key, dir = 'ascending') => {
      if (!key) return h('th', { scope: 'col', class: cls }, label);
      const btn = h('button', { type: 'button', class: 'sort-button', onclick: () => {
        sortSel.value = key;
        update((p) => (key === '-published_at' ? p.delete('sort') : p.set('sort', key)));
      } }, label);
      return h('th', { scope: 'col', class: cls, 'aria-sort': sort === key ? dir : undefined }, btn);
    };
    clear(
      results,
      h(
        'div',
        { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': 'Search results' },
        h(
          'table',
          { class: 'data results-table' },
          h('caption', { class: 'visually-hidden' }, 'Images matching the filters'),
          h('thead', {}, h('tr', {}, th(h('span', { class: 'visually-hidden' }, 'Compare'), 'col-cmp'), th('Image', 'col-image', 'family'), th('GPUs', 'col-gpus'), th('Driver', 'col-ver'), th('CUDA', 'col-ver'), th('Framework', 'col-fw'), th('Status', 'col-status'), th('Boot', 'col-num num', 'boot_seconds'), th('Published', 'col-date', '-published_at', 'descending'))),
          h('tbody', {}, rows.map(row)),
        ),
      ),
    );
  }

  function renderMore() {
    if (!cursor) return clear(more);
    const btn = h('button', { type: 'button', class: 'secondary' }, 'Load more images');
    btn.addEventListener('click', () => loadPage(btn));
    clear(more, btn);
  }

  /** Adds filters one by one (URL order) and names the first after which nothing matches. */
  async function explainEmpty(seq) {
    const act = activeFilters(params);
    if (!act.length) return emptyState('The catalog is empty', 'No image has been published on this server yet.');
    const keys = [];
    for (const f of act) {
      keys.push(f.key);
      let n = 0;
      try {
        const d = await api('/images', { query: { ...apiQuery(params, { only: keys }), limit: 1 }, signal: ctx.signal });
        n = d?.items?.length || 0;
      } catch {
        return null;
      }
      if (seq !== loadSeq) return null;
      if (n === 0) {
        const before = act.slice(0, keys.length - 1);
        const body = before.length
          ? [`With ${before.map((b) => `${b.label} ${b.value}`).join(', ')} there are matching images; adding `, h('strong', {}, `${f.label}: ${f.value}`), ' removed the rest.']
          : ['No image matches ', h('strong', {}, `${f.label}: ${f.value}`), ' on its own.'];
        return emptyState(`No images match — the ${f.label} filter removed everything`, h('span', {}, body), h('button', { type: 'button', onclick: () => removeFilter(f.key) }, `Remove ${f.label} filter`), act.length > 1 ? h('button', { type: 'button', class: 'secondary outline', onclick: () => update((p) => act.forEach((x) => p.delete(x.key))) }, 'Clear all filters') : null);
      }
    }
    return emptyState('No images match these filters', 'Try removing a filter.');
  }

  async function load() {
    const seq = ++loadSeq;
    renderChips();
    rows = [];
    cursor = null;
    clear(more);
    summary.textContent = '';
    results.setAttribute('aria-busy', 'true');
    if (!results.firstChild) results.append(loading('Loading images…'));
    try {
      const d = await api('/images', { query: { ...apiQuery(params), sort: params.get('sort') || undefined, limit: PAGE, facets: true }, signal: ctx.signal });
      if (seq !== loadSeq) return;
      rows = d.items || [];
      cursor = d.next_cursor || null;
      // With GPUs ticked, the GPU list comes from the same search without them, so another GPU
      // can be added (this search's own facet only counts GPUs sharing an image with them).
      const own = {};
      if (params.get('gpu')) {
        const rest = new URLSearchParams(params);
        rest.delete('gpu');
        try {
          own.gpu = (await api('/images', { query: { ...apiQuery(rest), limit: 1, facets: true }, signal: ctx.signal })).facets?.gpu;
        } catch (e) {
          if (e.name === 'AbortError') throw e;
        }
        if (seq !== loadSeq) return;
      }
      renderFacets(d.facets, own);
      if (!rows.length) {
        clear(results, loading('Finding which filter removed everything…'));
        const why = await explainEmpty(seq);
        if (seq !== loadSeq) return;
        clear(results, why || emptyState('No images match these filters', 'Try removing a filter.'));
        summary.textContent = 'No images match.';
      } else {
        renderTable();
        total = d.facets?.total ?? null;
        summary.textContent = countText();
      }
      renderMore();
    } catch (e) {
      if (e.name === 'AbortError' || seq !== loadSeq) return;
      clear(results, failure(e, 'Image search'));
    } finally {
      if (seq === loadSeq) results.removeAttribute('aria-busy');
    }
  }

  async function loadPage(btn) {
    const seq = loadSeq;
    btn.setAttribute('aria-busy', 'true');
    btn.disabled = true;
    try {
      const d = await api('/images', { query: { ...apiQuery(params), sort: params.get('sort') || undefined, limit: PAGE, cursor }, signal: ctx.signal });
      if (seq !== loadSeq) return;
      const start = rows.length;
      rows = rows.concat(d.items || []);
      cursor = d.next_cursor || null;
      renderTable();
      summary.textContent = countText();
      renderMore();
      results.querySelectorAll('tbody tr')[start]?.querySelector('a')?.focus();
    } catch (e) {
      if (e.name === 'AbortError') return;
      clear(more, failure(e, 'Loading more images'));
    }
  }

  await load();
}
