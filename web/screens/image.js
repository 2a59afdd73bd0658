// Image page: GET /v1/images/{id} (manifest, compatibility, regions), plus /patch, /lineage
// and /costs, each section failing on its own. Snippets use /v1/images/resolve.
import { api } from '../api.js';
import { h, put, clear, badge, chip, imageLink, fmtDateTime, fmtNum, fmtMoney, loading, failure, errorBox, section, table, copyButton, toast, humanize } from '../ui.js';
import { tray, MAX_COMPARE } from '../state.js';
import { barChart } from '../charts.js';

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
    h('p', { class: 'hint' }, 'Resolves the newest active image of ', h('code', {}, img.family), ' in that region, so scripts follow patches without edits.'),
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
      newer ? h('p', { class: 'notice outdated-parent' }, 'Its parent has a newer image: ', imageLink(newer), '. A rebuild on it would pick up its fixes.') : null,
    );
  } catch (e) {
    if (e.name === 'AbortError') return;
    clear(box, failure(e, 'Lineage'));
  }
}

async function patchStatus(ctx, img, box) {
  const says = { ok: 'No known advisory affects this image.', patch_available: 'A newer image of this family fixes the advisories below.', vulnerable: 'Advisories affect this image and no fixed image exists yet.', revoked: 'This image was revoked; do not launch it.' };
  try {
    const p = await api(`/images/${encodeURIComponent(img.id)}/patch`, { signal: ctx.signal });
    const advs = p.advisories || [];
    clear(
      box,
      h('p', {}, badge(p.status, { kind: 'patch' }), ' ', says[p.status] || ''),
      advs.length
        ? h('ul', { class: 'advisories' }, advs.map((a) => h('li', {}, badge(a.severity, { kind: 'sev' }), ' ', h('a', { href: `#/advisories/${encodeURIComponent(a.id)}` }, a.id), ' ', a.title, (a.cves || []).length ? h('span', { class: 'sub' }, ` (${a.cves.join(', ')})`) : null,
            a.fixed_by ? h('div', { class: 'fixed-by' }, 'Fixed in ', imageLink(a.fixed_by), (a.still_open_in_fix || []).length ? h('span', { class: 'muted' }, ` (still open there: ${a.still_open_in_fix.join(', ')})`) : null) : h('div', { class: 'fixed-by muted' }, 'No fixed image yet'))))
        : null,
    );
  } catch (e) {
    if (e.name === 'AbortError') return;
    clear(box, h('p', {}, badge(img.patch_status, { kind: 'patch' })), failure(e, 'Advisories of this image'));
  }
}

async function costs(ctx, img, box) {
  try {
    const d = await api(`/images/${encodeURIComponent(img.id)}/costs`, { signal: ctx.signal });
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
          barChart({ title: 'Boot time (seconds, median)', labels: rows.map(label), values: rows.map((r) => r.median_boot_seconds), colorVar: '--chart-2', format: (v) => fmtNum(v) })),
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

export async function render(ctx) {
  const id = ctx.args.id;
  let img;
  try {
    img = await api(`/images/${encodeURIComponent(id)}`, { signal: ctx.signal });
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
  const osName = img.os ? `${img.os.name} ${img.os.version || ''}`.trim() : null;

  put(ctx.root, 
    h('nav', { class: 'breadcrumb', 'aria-label': 'Breadcrumb' }, h('a', { href: '#/catalog' }, 'Catalog'), ' / ', h('a', { href: `#/catalog?family=${encodeURIComponent(img.family)}` }, img.family)),
    h(
      'div',
      { class: 'page-head image-head' },
      h('div', {}, h('h1', {}, h('span', { class: 'fam' }, img.family), ' ', h('span', { class: 'ver' }, img.version)), h('p', { class: 'badges' }, badge(img.status), ' ', badge(img.patch_status, { kind: 'patch' }), ' ', img.layer ? badge(img.layer, { kind: 'layer' }) : null, (img.tags || []).map((t) => [' ', h('span', { class: 'tag' }, t)]))),
      h('div', { class: 'head-actions' }, cmpBtn, h('a', { class: 'btn-link outline', href: ctx.hrefFor('/compare', { ids: String(img.id) }) }, 'Compare with…')),
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
      section('Manifest', { id: 'manifest' }, comps.length ? table([{ label: 'Component', cell: (c) => h('code', {}, c.name) }, { label: 'Version', cell: (c) => chip(null, c.version) }], comps, { caption: 'Components in this image' }) : h('p', { class: 'muted' }, 'No components recorded.')),
      section('Compatibility', { id: 'compat' }, img.compatibility ? findings(img.compatibility.findings) : h('p', { class: 'muted' }, 'No compatibility report was stored with this image.')),
      section('Patch status', { id: 'patch' }, patchBox),
      section('Lineage', { id: 'lineage' }, lineageBox),
      section(
        'Regions',
        { id: 'regions' },
        artifacts.length
          ? table([{ label: 'Region', cell: (a) => h('code', {}, a.region) }, { label: 'Artifact id', cell: (a) => h('code', { class: 'artifact' }, a.id) }, { label: 'Copy', cell: (a) => copyButton(a.id, 'Copy', { what: `artifact id for ${a.region}` }) }], artifacts, { caption: 'Artifact ids per region' })
          : h('p', { class: 'muted' }, (img.regions || []).length ? `Available in ${img.regions.join(', ')}.` : 'No regional artifacts.'),
      ),
      section('Use it', { id: 'use' }, snippets(img, artifacts)),
      section('Cost and boot time', { id: 'costs' }, costsBox),
    ),
  );
  patchStatus(ctx, img, patchBox);
  lineage(ctx, img, lineageBox);
  costs(ctx, img, costsBox);
}

