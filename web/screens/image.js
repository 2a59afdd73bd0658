// Image page: GET /v1/images/{id} (manifest, compatibility, regions), plus /patch, /lineage
// and /costs, each section failing on its own. Snippets use /v1/images/resolve.
import { api, apiAll } from '../api.js';
import { h, put, clear, badge, PATCH_LABEL, chip, imageLink, fmtDateTime, fmtNum, fmtMoney, loading, failure, errorBox, section, table, copyButton, toast, humanize, dialog } from '../ui.js';
import { tray, MAX_COMPARE, teams, user } from '../state.js';
import { barChart, severitySummary, familyTimeline, lineChart } from '../charts.js';
import { kevBadge, epssNote, kevFirst } from './advisories.js';

function dl(pairs) {
  return h('dl', { class: 'facts' }, pairs.filter(([, v]) => v !== undefined && v !== null && v !== '').map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
}

function findings(list) {
  if (!list?.length) return h('p', { class: 'ok-line' }, badge('ok', { kind: 'sev', label: 'OK' }), ' No compatibility findings: this stack fits together.');
  const order = { error: 0, warning: 1, info: 2 };
  return h(
    'ul',
    { class: 'findings' },
    list
      .slice()
      .sort((a, b) => (order[a.severity] ?? 3) - (order[b.severity] ?? 3))
      .map((f) =>
        h(
          'li',
          { class: `finding is-${f.severity}` },
          badge(f.severity, { kind: 'sev' }),
          h('div', { class: 'finding-body' }, h('p', {}, f.message), h('p', { class: 'sub' }, h('code', {}, f.code), (f.components || []).map((c) => [' ', chip(null, typeof c === 'string' ? c : `${c.name} ${c.version ?? ''}`)]), f.source ? [' · ', h('a', { href: f.source, rel: 'noopener noreferrer', target: '_blank' }, 'Source')] : null)),
        ),
      ),
  );
}

export { findings as renderFindings };

function snippets(img, artifacts) {
  const regions = artifacts.map((a) => a.region);
  if (!regions.length) return h('p', { class: 'muted' }, 'This image has no regional artifacts to resolve.');
  const origin = location.origin;
  const regionSel = h('select', { 'aria-label': 'Region for the snippet' }, regions.map((r) => h('option', { value: r }, r)));
  const tabs = [
    ['curl', (r) => `curl -s -H "Authorization: Bearer $IMAXE_TOKEN" \\\n  "${origin}/v1/images/resolve?family=${encodeURIComponent(img.family)}&region=${encodeURIComponent(r)}" \\\n  | jq -r .artifact_id`],
    ['Terraform', (r) => `data "http" "imaxe_image" {\n  url = "${origin}/v1/images/resolve?family=${encodeURIComponent(img.family)}&region=${encodeURIComponent(r)}"\n  request_headers = {\n    Authorization = "Bearer \${var.imaxe_token}"\n  }\n}\n\nlocals {\n  image_id = jsondecode(data.http.imaxe_image.response_body).artifact_id\n}`],
  ];
  let active = 0;
  const code = h('code', {});
  const pre = h('pre', { class: 'snippet', tabindex: '0', 'aria-label': 'Snippet' }, code);
  const tabBtns = tabs.map(([name], i) =>
    h('button', { type: 'button', role: 'tab', class: 'tab', 'aria-selected': String(i === 0), onclick: () => {
      active = i;
      tabBtns.forEach((b, j) => b.setAttribute('aria-selected', String(j === i)));
      paint();
    } }, name),
  );
  const paint = () => (code.textContent = tabs[active][1](regionSel.value));
  regionSel.addEventListener('change', paint);
  paint();
  return h(
    'div',
    { class: 'snippets' },
    h('div', { class: 'snippet-bar' }, h('div', { role: 'tablist', 'aria-label': 'Snippet language', class: 'tabs' }, tabBtns), h('label', { class: 'inline' }, 'Region ', regionSel), copyButton(() => code.textContent, 'Copy', { what: 'snippet' })),
    pre,
    h('p', { class: 'hint' }, 'Resolves the newest active image of ', h('code', {}, img.family), ' in that region, so scripts follow patches without edits. ', h('code', {}, '$IMAXE_TOKEN'), ' is an API token: create one on your ', h('a', { href: '#/account' }, 'Account'), ' page.'),
  );
}

async function lineage(ctx, img, box) {
  try {
    const d = await api(`/images/${encodeURIComponent(img.id)}/lineage`, { signal: ctx.signal });
    const col = (title, items) => h('div', { class: 'lineage-col' }, h('h3', {}, title), items?.length ? h('ul', { class: 'plain' }, items.map((p) => h('li', {}, imageLink(p), ' ', badge(p.layer || p.status, { kind: 'layer' })))) : h('p', { class: 'muted' }, 'None'));
    const newer = d.image?.outdated_parent && d.image.newer_parent;
    clear(
      box,
      h('div', { class: 'lineage' }, col('Built on', d.parents), h('div', { class: 'lineage-self', 'aria-hidden': 'true' }, '→ this image →'), col('Built on this image', d.children)),
      d.next_cursor ? h('p', { class: 'hint' }, `The first ${d.children.length} images built on this one, by id; `, h('code', {}, 'GET /v1/images/' + img.id + '/lineage?cursor=…'), ' lists the rest.') : null,
      newer ? h('p', { class: 'notice outdated-parent' }, 'Its parent has a newer image: ', imageLink(newer), '. A rebuild on it would pick up its fixes.') : null,
    );
  } catch (e) {
    if (e.name === 'AbortError') return;
    clear(box, failure(e, 'Lineage'));
  }
}

/** The advisories grouped by the image that fixes them (one heading per fix, one for "no fixed
 * image yet"), so a dozen unfixed ones read as one group, not a dozen lines. */
function advisoryGroups(advs, item) {
  const groups = new Map();
  // Exploited now (CISA KEV) first: within a group, and the groups holding one before the rest.
  for (const a of kevFirst(advs, (x) => x.kev)) {
    const key = a.fixed_by ? String(a.fixed_by.id) : '';
    if (!groups.has(key)) groups.set(key, { fix: a.fixed_by || null, list: [] });
    groups.get(key).list.push(a);
  }
  const kev = (g) => (g.list.some((a) => a.kev) ? 0 : 1);
  const order = [...groups.values()].sort((x, y) => kev(x) - kev(y) || (x.fix ? 0 : 1) - (y.fix ? 0 : 1));
  return h('div', { class: 'advisory-groups' }, order.map((g) => h('div', { class: 'advisory-group' },
    h('h3', { class: 'group-title' }, g.fix ? ['Fixed in ', imageLink(g.fix), ` (${g.list.length})`] : `No fixed image yet (${g.list.length})`),
    h('ul', { class: 'advisories' }, g.list.map(item)))));
}

async function patchStatus(ctx, img, box) {
  const says = { ok: 'No known advisory affects this image.', patch_available: 'A newer image of this family fixes the advisories below.', vulnerable: 'Advisories affect this image and no fixed image exists yet.', revoked: 'This image was revoked; do not launch it.' };
  try {
    const p = await api(`/images/${encodeURIComponent(img.id)}/patch`, { signal: ctx.signal });
    const advs = p.advisories || [];
    const osAdvs = img.os_packages?.advisories || [];
    const all = [...advs, ...osAdvs].map((a) => ({ severity: a.severity, fixed: !!a.fixed_by }));
    clear(
      box,
      h('p', {}, badge(p.status, { kind: 'patch' }), ' ', says[p.status] || ''),
      all.length ? severitySummary(all, { title: 'Advisories on this image by severity (driver, toolkit and OS)', what: 'advisories' }) : null,
      advs.length
        ? advisoryGroups(advs, (a) => h('li', {}, a.kev ? [kevBadge(a.kev), ' '] : null, badge(a.severity, { kind: 'sev' }), ' ', h('a', { href: `#/advisories/${encodeURIComponent(a.id)}` }, a.id), ' ', a.title, (a.cves || []).length ? h('span', { class: 'sub' }, ` (${a.cves.join(', ')})`) : null, epssNote(a.epss),
            a.fixed_by && (a.still_open_in_fix || []).length ? h('div', { class: 'fixed-by muted' }, `Still open in the fix: ${a.still_open_in_fix.join(', ')}`) : null))
        : null,
    );
  } catch (e) {
    if (e.name === 'AbortError') return;
    clear(box, h('p', {}, badge(img.patch_status, { kind: 'patch' })), failure(e, 'Advisories of this image'));
  }
}

/** The family at a glance: its versions over time (driver, CUDA, patch status), and boot time
 * and cost per 1,000 inferences across them (GET /v1/images?family=…, then /v1/compare for the
 * newest ten: their best measured cost per model). */
async function family(ctx, img, box) {
  try {
    const d = await api('/images', { query: { family: img.family, status: 'any', limit: 40 }, signal: ctx.signal });
    const list = (d.items || []).slice();
    if (!list.some((x) => String(x.id) === String(img.id))) list.push(img);
    // Oldest first: the timeline places each by its publish date.
    list.sort((a, b) => String(a.published_at).localeCompare(String(b.published_at)) || a.id - b.id);
    const versions = list.map((x) => ({ id: x.id, version: x.version, published_at: x.published_at, patch_status: x.patch_status, status: x.status, driver: x.components?.['nvidia-driver'], cuda: x.components?.cuda, boot: x.boot_seconds, current: String(x.id) === String(img.id) }));
    const here = versions.findIndex((v) => v.current);
    const kids = [familyTimeline(img.family, versions, { label: (s) => PATCH_LABEL[s] || humanize(s) })];
    const labels = versions.map((v) => v.version);
    const charts = [lineChart('family-boot', { title: 'Boot time across versions (manifest, seconds)', labels, values: versions.map((v) => v.boot ?? null), fmt: (v) => fmtNum(v), unit: ' s', highlight: here, empty: 'No boot times were published with these versions.' })];
    const recent = versions.slice(-10);
    if (recent.length >= 2) {
      const c = await api('/compare', { query: { ids: recent.map((v) => v.id).join(',') }, signal: ctx.signal });
      const costs = new Map((c.costs || []).map((x) => [String(x.image), x.best_cost_per_1k || {}]));
      const models = [...new Set([...costs.values()].flatMap((m) => Object.keys(m)))].sort((a, b) => recent.filter((v) => costs.get(String(v.id))?.[b] != null).length - recent.filter((v) => costs.get(String(v.id))?.[a] != null).length || a.localeCompare(b));
      const model = models[0];
      charts.push(model
        ? lineChart('family-cost', { title: `Cost per 1,000 inferences across versions (${model}, best measured, USD)`, labels: recent.map((v) => v.version), values: recent.map((v) => costs.get(String(v.id))?.[model] ?? null), fmt: (v) => fmtMoney(v, 'USD', 5), highlight: recent.findIndex((v) => v.current) })
        : h('figure', { class: 'chart chart-fig chart-empty', 'data-chart': 'family-cost' }, h('figcaption', {}, 'Cost per 1,000 inferences across versions'), h('p', { class: 'muted' }, 'Your teams have measured no version of this family yet.')));
    }
    clear(box, kids, h('div', { class: 'charts' }, charts));
  } catch (e) {
    if (e.name === 'AbortError') return;
    clear(box, failure(e, 'Versions of this family'));
  }
}

// The OS half of the patch status, from the image document's os_packages: each distro advisory
// with the packages it hits, the fixed version and the first fixed build.
function osPatches(img) {
  const os = img.os_packages;
  if (!os) return h('p', { class: 'muted' }, 'No OS package inventory was published with this image (a manifest’s packages or SBOM).');
  const says = { ok: 'No known distro advisory affects its packages.', patch_available: 'A newer image of this family fixes the distro advisories below.', vulnerable: 'Distro advisories affect its packages and no fixed image exists yet.', revoked: 'This image was revoked; do not launch it.' };
  const advs = os.advisories || [];
  return h(
    'div',
    {},
    h('p', {}, badge(os.patch_status, { kind: 'patch' }), ' ', says[os.patch_status] || '', h('span', { class: 'sub' }, ` ${os.packages} packages (${(os.ecosystems || []).join(', ')}) from ${os.source === 'cyclonedx' ? 'a CycloneDX SBOM' : os.source === 'spdx' ? 'an SPDX SBOM' : os.source === 'probe' ? 'imaxe probe' : 'the manifest'}.`)),
    advs.length
      ? advisoryGroups(advs, (a) => h('li', { class: 'os-advisory' }, badge(a.severity, { kind: 'sev' }), ' ', h('a', { href: `#/advisories/${encodeURIComponent(a.id)}` }, a.id), ' ', a.title, (a.cves || []).length ? h('span', { class: 'sub' }, ` (${a.cves.join(', ')})`) : null,
          table([{ label: 'Package', cell: (p) => h('code', {}, p.name) }, { label: 'Installed', cell: (p) => chip(null, p.version) }, { label: 'Affected', cell: (p) => h('code', {}, p.range) }, { label: 'Fixed in', cell: (p) => (p.fixed ? chip(null, p.fixed) : h('span', { class: 'muted' }, 'no fix named')) }], a.packages || [], { caption: `Packages ${a.id} hits`, stack: false })))
      : null,
  );
}

async function costs(ctx, img, box) {
  try {
    const d = await apiAll(`/images/${encodeURIComponent(img.id)}/costs`, { signal: ctx.signal });
    const items = d?.items || [];
    if (!items.length) return clear(box, h('p', { class: 'muted' }, 'No cost measurements have been recorded for this image yet.'));
    const models = [...new Set(items.map((i) => i.model))];
    const modelSel = h('select', { 'aria-label': 'Model' }, models.map((m) => h('option', { value: m }, m)));
    const body = h('div', {});
    // One row per instance type and pricing kind; on-demand rows need no label.
    const label = (r) => (r.pricing && r.pricing !== 'on_demand' ? `${r.instance_type} (${r.pricing.replace('_', '-')})` : r.instance_type);
    const paint = () => {
      const rows = items.filter((i) => i.model === modelSel.value);
      const cur = rows[0]?.currency || 'USD';
      clear(
        body,
        h('div', { class: 'charts' },
          barChart({ title: `Cost per 1,000 inferences (${cur}, median)`, labels: rows.map(label), values: rows.map((r) => r.median_cost_per_1k_inferences), format: (v) => fmtMoney(v, cur, 5) }),
          barChart({ title: 'Boot time (seconds, median)', labels: rows.map(label), values: rows.map((r) => r.median_boot_seconds), colorVar: '--chart-2', format: (v) => fmtNum(v), integer: true, empty: 'No boot times were recorded with these measurements.' })),
        table(
          [
            { label: 'Instance type', cell: (r) => h('span', {}, h('code', {}, r.instance_type), r.gpu_model ? h('span', { class: 'sub' }, ` ${r.gpu_model}`) : null) },
            { label: 'Pricing', cell: (r) => humanize(r.pricing) },
            { label: 'Cost / 1k (median)', numeric: true, cell: (r) => fmtMoney(r.median_cost_per_1k_inferences, r.currency, 5) },
            { label: 'Cost / 1k (p90)', numeric: true, cell: (r) => fmtMoney(r.p90_cost_per_1k_inferences, r.currency, 5) },
            { label: 'Throughput /s', numeric: true, cell: (r) => fmtNum(r.median_throughput_per_s, 1) },
            { label: 'p99 latency', numeric: true, cell: (r) => (r.median_latency_p99_ms != null ? `${fmtNum(r.median_latency_p99_ms, 1)} ms` : '—') },
            { label: 'Boot', numeric: true, cell: (r) => (r.median_boot_seconds != null ? `${fmtNum(r.median_boot_seconds)} s` : '—') },
            { label: 'Boot cost', numeric: true, cell: (r) => (r.median_boot_cost != null ? fmtMoney(r.median_boot_cost, r.currency) : '—') },
            { label: 'Runs', numeric: true, cell: (r) => fmtNum(r.measurements) },
          ],
          rows,
          { caption: 'Cost measurements by instance type' },
        ),
        d.basis ? h('p', { class: 'hint' }, d.basis) : null,
      );
    };
    modelSel.addEventListener('change', paint);
    clear(box, models.length > 1 ? h('label', { class: 'inline' }, 'Model ', modelSel) : h('p', { class: 'sub' }, 'Model: ', h('strong', {}, models[0])), body);
    paint();
  } catch (e) {
    if (e.name === 'AbortError') return;
    clear(box, failure(e, 'Cost measurements'));
  }
}

const canChange = (img) => user.me?.admin || teams().some((t) => t.slug === img.team && ['publisher', 'admin'].includes(t.role));

/** The lifecycle panel: status, and for publishers of the image's team deprecate / revoke
 * (with reason, cascade or schedule) / restore, each confirmed with what it will change and
 * sent with If-Match so a change made meanwhile is refused (412), not overwritten. */
function lifecycle(ctx, img, etag, rerender) {
  const label = `${img.family} ${img.version}`;
  const msg = h('div', {});
  const state = h('p', {}, badge(img.status), img.status_reason ? ` ${img.status_reason}` : '', img.revoke_at ? [' · revocation scheduled for ', h('time', { datetime: img.revoke_at }, fmtDateTime(img.revoke_at))] : '');
  if (!canChange(img)) return h('div', {}, state, h('p', { class: 'hint' }, `Only publishers of team ${img.team} deprecate, revoke or restore this image.`));
  const children = async () => {
    try {
      return (await api(`/images/${encodeURIComponent(img.id)}/lineage`, { signal: ctx.signal })).children || [];
    } catch {
      return [];
    }
  };
  const change = async (to) => {
    clear(msg);
    const kids = to === 'revoked' ? await children() : [];
    const body = h('div', {},
      h('p', {}, h('strong', {}, label), ` becomes ${to === 'active' ? 'active again' : to}`, img.status !== to ? ` (now ${img.status})` : '', '.'),
      to === 'deprecated' ? h('p', { class: 'muted' }, 'It stays resolvable; searches and compare show it deprecated, and subscribers get image.deprecated.') : null,
      to === 'revoked' ? h('p', { class: 'muted' }, 'From then on resolve and pins never return it; subscribers get image.revoked. Leave the time empty to revoke now.') : null,
      to === 'revoked' && kids.length ? h('div', {}, h('p', {}, `With cascade, also the ${kids.length} image${kids.length === 1 ? '' : 's'} built on it:`), h('ul', {}, kids.map((k) => h('li', {}, `${k.family} ${k.version}`)))) : null,
      to === 'active' && img.revoke_at ? h('p', { class: 'muted' }, 'The scheduled revocation is cancelled.') : null);
    const fields = [{ name: 'reason', label: to === 'revoked' ? 'Reason (required)' : 'Reason', type: 'textarea', required: to === 'revoked', value: img.status_reason || '' }];
    if (to === 'revoked') {
      fields.push({ name: 'revoke_at', label: 'Revoke at (UTC, optional)', type: 'datetime-local', hint: 'A future time schedules the revocation instead.' });
      if (kids.length) fields.push({ name: 'cascade', label: `Also revoke the ${kids.length} image${kids.length === 1 ? '' : 's'} built on it`, type: 'checkbox' });
    }
    const verb = { deprecated: 'Deprecate', revoked: 'Revoke', active: 'Restore' }[to];
    const v = await dialog({ title: `${verb} ${label}?`, body, fields, confirmLabel: verb, danger: to === 'revoked' });
    if (!v) return;
    const patch = { status: to };
    if (v.reason?.trim()) patch.reason = v.reason.trim();
    if (v.revoke_at) patch.revoke_at = new Date(`${v.revoke_at}Z`).toISOString();
    if (v.cascade) patch.cascade = true;
    try {
      await api(`/images/${encodeURIComponent(img.id)}`, { method: 'PATCH', body: patch, headers: { 'If-Match': etag } });
      toast(`${label}: ${patch.revoke_at ? 'revocation scheduled' : to}`);
      await rerender();
    } catch (e) {
      clear(msg, errorBox(e.status === 412 ? Object.assign(e, { title: 'Someone changed this image meanwhile', detail: 'Nothing was changed. Reload the page to see its current state, then try again.' }) : e, { context: `Could not ${verb.toLowerCase()} the image` }),
        e.status === 412 ? h('button', { type: 'button', class: 'secondary', onclick: rerender }, 'Reload the image') : null);
    }
  };
  const btn = (to, text, cls = 'secondary') => h('button', { type: 'button', class: cls, onclick: () => change(to) }, text);
  return h('div', {}, state,
    h('div', { class: 'lifecycle-actions' },
      img.status === 'active' ? btn('deprecated', 'Deprecate…') : null,
      img.status !== 'revoked' ? btn('revoked', img.revoke_at ? 'Revoke now…' : 'Revoke…', 'secondary outline danger') : null,
      img.status !== 'active' || img.revoke_at ? btn('active', 'Restore…') : null),
    msg);
}

export async function render(ctx) {
  const id = ctx.args.id;
  let img;
  let etag = null;
  try {
    ({ data: img, etag } = await api(`/images/${encodeURIComponent(id)}`, { signal: ctx.signal, meta: true }));
  } catch (e) {
    if (e.name === 'AbortError') return;
    ctx.title('Image');
    if (e.status === 404) return put(ctx.root, h('h1', {}, 'Image not found'), h('p', {}, `There is no image with id ${id}, or you cannot see it. `, h('a', { href: '#/catalog' }, 'Back to the catalog'), '.'));
    return put(ctx.root, h('h1', {}, 'Image'), errorBox(e));
  }
  ctx.title(`${img.family} ${img.version}`);
  // The API keys artifacts by region: {"us-east-1": "ami-…"}.
  const artifacts = Array.isArray(img.artifacts) ? img.artifacts : Object.entries(img.artifacts || {}).map(([region, id]) => ({ region, id }));
  const comps = Array.isArray(img.components) ? img.components : Object.entries(img.components || {}).map(([name, version]) => ({ name, version }));
  const cmpBtn = h('button', { type: 'button', class: 'secondary outline' });
  const paintCmp = () => (cmpBtn.textContent = tray.has(img.id) ? 'Remove from compare' : 'Add to compare');
  cmpBtn.addEventListener('click', () => {
    if (tray.has(img.id)) tray.remove(img.id);
    else if (!tray.add(img)) toast(`You can compare up to ${MAX_COMPARE} images at once`, 'warn');
    paintCmp();
  });
  paintCmp();
  const unsub = tray.subscribe(paintCmp);
  ctx.signal.addEventListener('abort', unsub);

  const patchBox = h('div', {}, loading('Loading advisories…'));
  const lineageBox = h('div', {}, loading('Loading lineage…'));
  const costsBox = h('div', {}, loading('Loading cost measurements…'));
  const familyBox = h('div', {}, loading('Loading the versions of this family…'));
  const osName = img.os ? `${img.os.name} ${img.os.version || ''}`.trim() : null;

  put(ctx.root, 
    h('nav', { class: 'breadcrumb', 'aria-label': 'Breadcrumb' }, h('a', { href: '#/catalog' }, 'Catalog'), ' / ', h('a', { href: `#/catalog?family=${encodeURIComponent(img.family)}` }, img.family)),
    h(
      'div',
      { class: 'page-head image-head' },
      h('div', {}, h('h1', {}, h('span', { class: 'fam' }, img.family), ' ', h('span', { class: 'ver' }, img.version)), h('p', { class: 'badges' }, badge(img.status), ' ', badge(img.patch_status, { kind: 'patch' }), ' ', img.layer ? badge(img.layer, { kind: 'layer' }) : null, (img.tags || []).map((t) => [' ', h('span', { class: 'tag' }, t)]))),
      h('div', { class: 'head-actions' }, cmpBtn, h('a', { class: 'btn-link outline', href: ctx.hrefFor('/compare', { ids: String(img.id) }) }, 'Compare with…'), teams().length && img.status !== 'revoked' ? h('a', { class: 'btn-link outline', href: ctx.hrefFor('/pins', { new: String(img.id) }) }, 'Pin this image…') : null),
    ),
    img.description ? h('p', { class: 'lead' }, img.description) : null,
    img.status !== 'active' && img.status_reason ? h('p', { class: `notice is-${img.status}`, role: 'note' }, `${img.status === 'revoked' ? 'Revoked' : 'Deprecated'}: ${img.status_reason}`) : null,
    img.revoke_at ? h('p', { class: 'notice is-deprecated', role: 'note' }, 'Scheduled for revocation on ', h('time', { datetime: img.revoke_at }, fmtDateTime(img.revoke_at)), img.status_reason ? `: ${img.status_reason}` : '', '.') : null,
    h(
      'div',
      { class: 'image-grid' },
      section('Overview', { id: 'overview' }, dl([
        ['Provider', img.provider],
        ['Architecture', img.architecture],
        ['OS', osName],
        ['Layer', img.layer],
        ['GPUs', (img.gpus || []).length ? h('span', {}, img.gpus.map((g) => h('span', { class: 'gpu-tag' }, g))) : null],
        ['Instance families', (img.instance_families || []).join(', ')],
        ['Size', img.size_gb != null ? `${fmtNum(img.size_gb, 1)} GB` : null],
        ['Boot', img.boot_seconds != null ? `${fmtNum(img.boot_seconds)} s` : null],
        ['Published', img.published_at ? h('time', { datetime: img.published_at }, fmtDateTime(img.published_at)) : null],
        ['Kernel', img.kernel ? h('code', {}, img.kernel) : null],
        ['Publisher', img.team],
        ['Image id', h('code', {}, String(img.id))],
      ])),
      section('Manifest', { id: 'manifest' }, comps.length ? table([{ label: 'Component', cell: (c) => h('code', {}, c.name) }, { label: 'Version', cell: (c) => chip(null, c.version) }], comps, { caption: 'Components in this image', stack: false }) : h('p', { class: 'muted' }, 'No components recorded.')),
      section('Compatibility', { id: 'compat' }, img.compatibility ? findings(img.compatibility.findings) : h('p', { class: 'muted' }, 'No compatibility report was stored with this image.')),
      section('Patch status', { id: 'patch' }, patchBox),
      section('OS patches', { id: 'os-patch' }, osPatches(img)),
      section('Lifecycle', { id: 'lifecycle' }, lifecycle(ctx, img, etag, async () => {
        unsub(); // the page is drawn again, with its own subscription
        ctx.root.replaceChildren();
        await render(ctx);
        document.getElementById('lifecycle-title')?.setAttribute('tabindex', '-1');
        document.getElementById('lifecycle-title')?.focus();
      })),
      section('Lineage', { id: 'lineage' }, lineageBox),
      section(
        'Regions',
        { id: 'regions' },
        artifacts.length
          ? table([{ label: 'Region', cell: (a) => h('code', {}, a.region) }, { label: 'Artifact id', cell: (a) => h('code', { class: 'artifact' }, a.id) }, { label: 'Copy', cell: (a) => copyButton(a.id, 'Copy', { what: `artifact id for ${a.region}` }) }], artifacts, { caption: 'Artifact ids per region', stack: false })
          : h('p', { class: 'muted' }, (img.regions || []).length ? `Available in ${img.regions.join(', ')}.` : 'No regional artifacts.'),
      ),
      section('Use it', { id: 'use' }, snippets(img, artifacts)),
      section('Cost and boot time', { id: 'costs' }, costsBox),
    ),
    section(`The ${img.family} family`, { id: 'family' }, familyBox),
  );
  patchStatus(ctx, img, patchBox);
  lineage(ctx, img, lineageBox);
  costs(ctx, img, costsBox);
  family(ctx, img, familyBox);
}

