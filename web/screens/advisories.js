// Advisories: GET /v1/advisories (CVE, severity, component; in the URL) and one advisory with
// the images it affects, by family (GET /v1/advisories/{id} and /affected).
import { api } from '../api.js';
import { h, put, clear, badge, chip, imageLink, fmtDate, loading, failure, emptyState, errorBox, table, debounce } from '../ui.js';

const SEVERITIES = ['critical', 'high', 'medium', 'low'];

export async function render(ctx) {
  if (ctx.args.id) return detail(ctx, ctx.args.id);
  ctx.title('Advisories');
  const params = new URLSearchParams(ctx.params);
  const q = h('input', { type: 'search', name: 'cve', placeholder: 'CVE id, e.g. CVE-2025-23280', 'aria-label': 'CVE', value: params.get('cve') || '', autocomplete: 'off', spellcheck: 'false' });
  const sev = h('select', { name: 'severity', 'aria-label': 'Severity', value: params.get('severity') || '' }, h('option', { value: '' }, 'Any severity'), SEVERITIES.map((s) => h('option', { value: s }, s)));
  const comp = h('input', { type: 'text', name: 'component', placeholder: 'Component, e.g. nvidia-driver', 'aria-label': 'Component', value: params.get('component') || '' });
  const box = h('div', {});
  put(ctx.root, h('div', { class: 'page-head' }, h('h1', {}, 'Advisories'), h('p', { class: 'lead' }, 'Security bulletins for drivers, toolkits and operating systems, and the images they affect.')), h('form', { class: 'toolbar', role: 'search', onsubmit: (e) => e.preventDefault() }, q, sev, comp), box);

  const load = async () => {
    for (const [k, el] of [['cve', q], ['severity', sev], ['component', comp]]) el.value.trim() ? params.set(k, el.value.trim()) : params.delete(k);
    ctx.setParams(params);
    box.replaceChildren(loading('Loading advisories…'));
    try {
      const d = await api('/advisories', { query: Object.fromEntries(params), signal: ctx.signal });
      const items = d.items || [];
      if (!items.length) return clear(box, emptyState('No advisories match', params.toString() ? 'Try a broader search.' : 'No advisory has been published on this server.'));
      clear(
        box,
        table(
          [
            { label: 'Severity', cell: (a) => badge(a.severity, { kind: 'sev' }) },
            { label: 'Advisory', cell: (a) => h('span', {}, h('a', { href: `#/advisories/${encodeURIComponent(a.id)}` }, a.id), h('div', { class: 'sub' }, a.title)) },
            { label: 'CVEs', cell: (a) => (a.cves || []).join(', ') || '—' },
            { label: 'CVSS', numeric: true, cell: (a) => a.cvss ?? '—' },
            { label: 'Images', numeric: true, cell: (a) => (a.affected_images != null ? String(a.affected_images) : '—') },
            { label: 'Published', cell: (a) => fmtDate(a.published) },
          ],
          items,
          { caption: 'Advisories' },
        ),
      );
    } catch (e) {
      if (e.name !== 'AbortError') clear(box, failure(e, 'Advisories'));
    }
  };
  const later = debounce(load, 300);
  q.addEventListener('input', later);
  comp.addEventListener('input', later);
  sev.addEventListener('change', load);
  await load();
}

async function detail(ctx, id) {
  ctx.title(id);
  let a;
  try {
    a = await api(`/advisories/${encodeURIComponent(id)}`, { signal: ctx.signal });
  } catch (e) {
    if (e.name === 'AbortError') return;
    put(ctx.root, h('nav', { class: 'breadcrumb', 'aria-label': 'Breadcrumb' }, h('a', { href: '#/advisories' }, 'Advisories')), h('h1', {}, id), e.status === 404 ? h('p', {}, 'No such advisory.') : errorBox(e));
    return;
  }
  const affected = h('div', {}, loading('Loading affected images…'));
  put(ctx.root, 
    h('nav', { class: 'breadcrumb', 'aria-label': 'Breadcrumb' }, h('a', { href: '#/advisories' }, 'Advisories'), ' / ', a.id),
    h('div', { class: 'page-head' }, h('h1', {}, a.id, ': ', a.title), h('p', { class: 'badges' }, badge(a.severity, { kind: 'sev' }), a.cvss != null ? h('span', { class: 'tag' }, `CVSS ${a.cvss}`) : null, (a.cves || []).map((c) => h('span', { class: 'tag' }, c)))),
    a.description ? h('p', { class: 'lead' }, a.description) : null,
    h('section', { class: 'panel', 'aria-labelledby': 'adv-ranges' }, h('div', { class: 'panel-head' }, h('h2', { id: 'adv-ranges' }, 'Affected components')),
      h('div', { class: 'panel-body' },
        (a.affected || []).length ? h('ul', { class: 'plain' }, a.affected.map((r) => h('li', {}, chip(r.component, r.range), r.fixed ? h('span', { class: 'sub' }, ` fixed in ${r.fixed}`) : null))) : h('p', { class: 'muted' }, 'No ranges recorded.'),
        h('p', { class: 'sub' }, 'Published ', fmtDate(a.published), a.url ? [' · ', h('a', { href: a.url, rel: 'noopener noreferrer', target: '_blank' }, 'Vendor bulletin')] : null))),
    h('section', { class: 'panel', 'aria-labelledby': 'adv-images' }, h('div', { class: 'panel-head' }, h('h2', { id: 'adv-images' }, 'Affected images')), h('div', { class: 'panel-body' }, affected)),
  );
  try {
    const d = await api(`/advisories/${encodeURIComponent(id)}/affected`, { signal: ctx.signal });
    // The answer groups images by family; one row per image, its family named in the link.
    const items = (d.families || []).flatMap((f) => (f.images || []).map((i) => ({ ...i, family: f.family })));
    clear(affected, items.length ? table([
      { label: 'Image', cell: (i) => imageLink(i) },
      { label: 'Status', cell: (i) => badge(i.status) },
      { label: 'Patch', cell: (i) => badge(i.patch_status, { kind: 'patch' }) },
      { label: 'Fixed by', cell: (i) => (i.fixed_by ? imageLink(i.fixed_by) : h('span', { class: 'muted' }, 'not yet')) },
    ], items, { caption: 'Images affected by this advisory' }) : h('p', { class: 'muted' }, 'No image in the catalog is affected.'));
  } catch (e) {
    if (e.name !== 'AbortError') clear(affected, failure(e, 'Affected images'));
  }
}
