// The fleet: what a team's nodes really run (GET /v1/fleet for the counts per image and pin,
// GET /v1/nodes for the nodes, filtered by drift, staleness and GPU, paged by cursor), with the
// drift of each node from the image it booted and the nodes that stopped reporting.
import { api } from '../api.js';
import { h, put, clear, badge, imageLink, loading, failure, emptyState, noTeamState, table, fmtDateTime } from '../ui.js';
import { user } from '../state.js';
import { teamPicker } from './pins.js';

const FILTERS = [
  { key: '', label: 'All nodes' },
  { key: 'drift=true', label: 'Drifted' },
  { key: 'stale=true', label: 'Stale' },
];

function driftCell(n) {
  if (n.drift === null || n.drift === undefined) return h('span', { class: 'muted' }, 'image not in the catalog');
  if (!n.drift) return badge('ok', { kind: 'patch', label: 'as the image says' });
  return h('ul', { class: 'plain' }, (n.drift_items || []).map((d) => h('li', {},
    h('strong', {}, d.name), ' ', h('span', { class: 'sub' }, `${d.state}: image ${d.image ?? '—'}, node ${d.node ?? '—'}`))));
}

export async function render(ctx) {
  ctx.title('Fleet');
  // The same picker as Pins and Webhooks: team names, the slug only to tell two alike apart.
  const { team, el: picker } = teamPicker(ctx);
  const filter = ctx.params.get('show') || '';
  const gpu = ctx.params.get('gpu') || '';
  const setParam = (k, v) => {
    const p = new URLSearchParams(ctx.params);
    if (v) p.set(k, v);
    else p.delete(k);
    ctx.navigate(ctx.path, p);
  };
  const tabs = h('div', { class: 'toolbar', role: 'group', 'aria-label': 'Which nodes' },
    FILTERS.map((f) => h('button', { type: 'button', class: f.key === filter ? 'small' : 'secondary outline small', 'aria-pressed': String(f.key === filter), onclick: () => setParam('show', f.key) }, f.label)),
    h('label', { class: 'inline' }, 'GPU ', h('input', { type: 'search', value: gpu, placeholder: 'H100', 'aria-label': 'GPU model', size: 8, onchange: (e) => setParam('gpu', e.target.value.trim()) })));
  const summary = h('div', {}, loading('Counting nodes…'));
  const nodesBox = h('div', {}, loading('Loading nodes…'));
  const more = h('div', { class: 'panel-actions' });
  // Nothing to count or list without a team: one panel that says what to do instead.
  if (!team) return put(ctx.root, h('div', { class: 'page-head' }, h('h1', {}, 'Fleet')), noTeamState('Nodes report to a team.', { admin: user.me?.admin }));
  put(ctx.root,
    h('div', { class: 'page-head' }, h('h1', {}, 'Fleet'), h('p', { class: 'lead' }, 'What your nodes really run: the image each booted, how it drifts from it, and the nodes that stopped reporting (imaxe probe --report).'), picker),
    h('section', { class: 'panel', 'aria-labelledby': 'fleet-counts' }, h('div', { class: 'panel-head' }, h('h2', { id: 'fleet-counts', tabindex: '-1' }, 'Nodes by image and pin')), h('div', { class: 'panel-body' }, summary)),
    h('section', { class: 'panel', 'aria-labelledby': 'fleet-nodes' }, h('div', { class: 'panel-head' }, h('h2', { id: 'fleet-nodes' }, 'Nodes'), more), h('div', { class: 'panel-body' }, tabs, nodesBox)),
  );
  try {
    const f = await api('/fleet', { query: { team }, signal: ctx.signal });
    clear(summary,
      h('p', { class: 'exposure-summary', role: 'status' }, `${f.nodes} node${f.nodes === 1 ? '' : 's'}: ${f.drifted} drifted, ${f.stale} stale, ${f.unknown_image} on an image the catalog lacks.`),
      f.by_image.length ? table([
        { label: 'Image', cell: (r) => h('span', {}, imageLink(r.image), ' ', badge(r.image.patch_status, { kind: 'patch' })) },
        { label: 'Nodes', cell: (r) => String(r.nodes) },
        { label: 'Drifted', cell: (r) => String(r.drifted) },
        { label: 'Stale', cell: (r) => String(r.stale) },
      ], f.by_image, { caption: 'Nodes per image' }) : null,
      f.by_pin.length ? table([
        { label: 'Pin', cell: (r) => h('span', {}, h('strong', {}, r.name), h('div', { class: 'sub' }, r.team)) },
        { label: 'Nodes on the pinned image', cell: (r) => String(r.nodes) },
        { label: 'Drifted', cell: (r) => String(r.drifted) },
        { label: 'Stale', cell: (r) => String(r.stale) },
      ], f.by_pin, { caption: 'Nodes per pin' }) : null);
  } catch (e) {
    if (e.name === 'AbortError') return;
    clear(summary, failure(e, 'Fleet counts'));
  }
  const rows = [];
  async function load(cursor) {
    const query = { team, limit: 50 };
    if (filter) {
      const [k, v] = filter.split('=');
      query[k] = v;
    }
    if (gpu) query.gpu = gpu;
    if (cursor) query.cursor = cursor;
    let page;
    try {
      page = await api('/nodes', { query, signal: ctx.signal });
    } catch (e) {
      if (e.name !== 'AbortError') clear(nodesBox, failure(e, 'Nodes'));
      return;
    }
    rows.push(...(page.items || []));
    if (!rows.length) {
      clear(more);
      return clear(nodesBox, emptyState('No nodes here', 'Nodes appear once they run imaxe probe --report with a node-report token (deploy/node-reporter, deploy/k8s/node-reporter).'));
    }
    clear(nodesBox, table([
      { label: 'Node', cell: (n) => h('span', {}, h('strong', {}, n.name), h('div', { class: 'sub' }, [n.instance_type, (n.gpus || []).join(', ')].filter(Boolean).join(' · '))) },
      { label: 'Image', cell: (n) => (n.image ? imageLink(n.image) : h('span', { class: 'muted' }, JSON.stringify(n.booted))) },
      { label: 'Drift', cell: driftCell },
      { label: 'Last report', cell: (n) => h('span', {}, fmtDateTime(n.last_seen), n.stale ? h('div', {}, badge('stale', { kind: 'status', label: 'stale' })) : null) },
    ], rows, { caption: 'Nodes and their drift', rowClass: (n) => `node-row${n.drift ? ' is-drifted' : ''}${n.stale ? ' is-stale' : ''}` }));
    clear(more, page.next_cursor ? h('button', { type: 'button', class: 'secondary outline', onclick: () => load(page.next_cursor) }, 'Load more') : null);
  }
  await load(null);
}
