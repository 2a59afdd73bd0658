// Advisories: GET /v1/advisories (CVE, severity, component; in the URL) and one advisory with
// the images it affects, by family (GET /v1/advisories/{id} and /affected).
import { api, apiAll, mergeFamilies } from '../api.js';
import { h, put, clear, badge, chip, imageLink, fmtDate, loading, failure, emptyState, errorBox, table, debounce, field, showFormError, clearFieldErrors, busy, toast, dialog } from '../ui.js';
import { user } from '../state.js';
import { severitySummary } from '../charts.js';

const SEVERITIES = ['critical', 'high', 'medium', 'low'];

// In CISA's Known Exploited Vulnerabilities catalog: exploited now, with CISA's due date (the
// exposure and Pins screens and the image page show the same badge).
export function kevBadge(kev) {
  const el = badge('kev', { kind: 'kev', label: 'KEV: exploited' });
  el.title = `${kev.cve} in CISA's KEV catalog since ${kev.date_added}${kev.due_date ? `, due ${kev.due_date}` : ''}`;
  return el;
}

// FIRST's EPSS: the highest score among the advisory's CVEs, as a percentage and whose it is.
export function epssNote(epss) {
  return epss ? h('div', { class: 'sub epss' }, `EPSS ${(epss.score * 100).toFixed(1)}% (${epss.cve})`) : null;
}

// Exploited now first (CISA KEV), the order given kept otherwise: how the pins and image pages
// list advisories and pins (kev: what makes an item exploited).
export function kevFirst(items, kev) {
  return items.map((x, i) => [x, i]).sort((x, y) => !!kev(y[0]) - !!kev(x[0]) || x[1] - y[1]).map(([x]) => x);
}

export async function render(ctx) {
  if (ctx.args.id) return detail(ctx, ctx.args.id);
  ctx.title('Advisories');
  const params = new URLSearchParams(ctx.params);
  const q = h('input', { type: 'search', name: 'cve', placeholder: 'CVE id, e.g. CVE-2025-23280', 'aria-label': 'CVE', value: params.get('cve') || '', autocomplete: 'off', spellcheck: 'false' });
  const sev = h('select', { name: 'severity', 'aria-label': 'Severity', value: params.get('severity') || '' }, h('option', { value: '' }, 'Any severity'), SEVERITIES.map((s) => h('option', { value: s }, s)));
  const comp = h('input', { type: 'text', name: 'component', placeholder: 'Component, e.g. nvidia-driver', 'aria-label': 'Component', value: params.get('component') || '' });
  const box = h('div', {});
  put(ctx.root, h('div', { class: 'page-head' }, h('h1', {}, 'Advisories'), h('p', { class: 'lead' }, 'Security bulletins for drivers, toolkits and operating systems, and the images they affect.')), user.me?.admin ? publishPanel(ctx, () => load()) : h('p', { class: 'hint' }, 'Global admins publish and import advisories.'), h('form', { class: 'toolbar', role: 'search', 'aria-label': 'Advisory search', onsubmit: (e) => e.preventDefault() }, q, sev, comp), box);

  const load = async () => {
    for (const [k, el] of [['cve', q], ['severity', sev], ['component', comp]]) el.value.trim() ? params.set(k, el.value.trim()) : params.delete(k);
    ctx.setParams(params);
    box.replaceChildren(loading('Loading advisories…'));
    try {
      // Exploited ones first (CISA KEV), then by EPSS: the order security teams triage in.
      const d = await api('/advisories', { query: { sort: 'risk', ...Object.fromEntries(params) }, signal: ctx.signal });
      const items = d.items || [];
      if (!items.length) return clear(box, emptyState('No advisories match', params.toString() ? 'Try a broader search.' : 'No advisory has been published on this server.'));
      const live = items.filter((a) => !a.withdrawn_at);
      const imgs = (list) => list.reduce((n, a) => n + (a.affected_images || 0), 0);
      clear(
        box,
        live.length ? severitySummary(live, {
          title: d.next_cursor ? `Severity of the ${live.length} advisories listed` : 'Advisories by severity',
          note: (c) => ` (${imgs(c.of)} image${imgs(c.of) === 1 ? '' : 's'} affected)`,
          tail: (list) => `${imgs(list)} affected image${imgs(list) === 1 ? '' : 's'} in all${items.length > live.length ? `; ${items.length - live.length} withdrawn left out` : ''}`,
        }) : null,
        table(
          [
            { label: 'Severity', cell: (a) => h('span', { class: 'badges' }, a.kev ? kevBadge(a.kev) : null, badge(a.severity, { kind: 'sev' })) },
            { label: 'Advisory', cell: (a) => h('span', {}, h('a', { href: `#/advisories/${encodeURIComponent(a.id)}` }, a.id), a.withdrawn_at ? [' ', badge('withdrawn')] : null, h('div', { class: 'sub' }, a.title)) },
            { label: 'CVEs', cell: (a) => h('span', {}, (a.cves || []).join(', ') || '—', epssNote(a.epss)) },
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

/**
 * The fields of an advisory (imaxe's form), empty or filled from an advisory: controls named
 * like the JSON pointers the server answers with (affected.0.range). body() is the document.
 */
function advisoryFields(a = null) {
  const id = h('input', { name: 'id', placeholder: 'NVIDIA-5703', autocomplete: 'off', spellcheck: 'false', value: a?.id || '', readonly: a ? true : undefined });
  const title = h('input', { name: 'title', placeholder: 'GPU Display Driver - October 2025', value: a?.title || '' });
  const published = h('input', { name: 'published', type: 'date', value: a?.published || new Date().toISOString().slice(0, 10) });
  const severity = h('select', { name: 'severity', value: a?.severity || 'high' }, SEVERITIES.map((x) => h('option', { value: x }, x)));
  const cvss = h('input', { name: 'cvss', type: 'number', step: '0.1', inputmode: 'decimal', placeholder: '8.2', value: a?.cvss ?? '' });
  const cves = h('input', { name: 'cves', placeholder: 'CVE-2025-23280, CVE-2025-23282', autocomplete: 'off', spellcheck: 'false', value: (a?.cves || []).join(', ') });
  const url = h('input', { name: 'url', type: 'url', placeholder: 'https://nvidia.custhelp.com/…', value: a?.url || '' });
  const rows = h('div', { class: 'rows-body' });
  const renumber = () => [...rows.children].forEach((row, i) => {
    row.querySelectorAll('input').forEach((el) => {
      el.name = `affected.${i}.${el.dataset.col}`;
      el.setAttribute('aria-label', `Affected ${i + 1} ${el.dataset.col}`);
    });
    row.querySelector('.row-remove').setAttribute('aria-label', `Remove affected ${i + 1}`);
  });
  const addRow = (v = {}, focus = false) => {
    const cols = [['component', 'nvidia-driver'], ['range', '>=580, <580.95.05'], ['fixed', '580.95.05 (optional)']].map(([col, ph]) => h('input', { 'data-col': col, placeholder: ph, autocomplete: 'off', spellcheck: 'false', value: v[col] || '' }));
    const row = h('div', { class: 'rows-row rows-4' }, cols.map((c) => h('div', { class: 'field' }, c)), h('button', { type: 'button', class: 'secondary outline small row-remove', onclick: () => {
      row.remove();
      renumber();
      addBtn.focus();
    } }, 'Remove'));
    rows.append(row);
    renumber();
    if (focus) cols[0].focus();
  };
  const addBtn = h('button', { type: 'button', class: 'secondary outline small', onclick: () => addRow({}, true) }, 'Add a component');
  const fill = () => {
    rows.replaceChildren();
    (a?.affected?.length ? a.affected : [{}]).forEach((r) => addRow(r));
  };
  fill();
  return {
    el: [
      h('div', { class: 'grid-fields' }, field('Advisory id', id), field('Title', title), field('Published', published), field('Severity', severity), field('CVSS', cvss), field('CVEs', cves, 'Comma-separated.'), field('Bulletin URL', url)),
      h('fieldset', { class: 'rows', 'data-pointer': '/affected' }, h('legend', {}, 'Affected components'), h('p', { class: 'hint' }, 'Each a component, a version constraint and the version that fixes it.'), rows, addBtn),
    ],
    body: () => ({
      id: id.value.trim(), title: title.value.trim(), published: published.value, severity: severity.value,
      cvss: cvss.value === '' ? undefined : Number(cvss.value),
      cves: cves.value.split(',').map((x) => x.trim()).filter(Boolean),
      url: url.value.trim() || undefined,
      affected: [...rows.children].map((row) => Object.fromEntries([...row.querySelectorAll('input')].map((el) => [el.dataset.col, el.value.trim()]))).map((r) => ({ component: r.component, range: r.range, fixed: r.fixed || undefined })).filter((r) => r.component || r.range),
    }),
    reset() {
      [title, cvss, cves, url].forEach((el) => (el.value = ''));
      if (!a) id.value = '';
      fill();
    },
  };
}

/** Global admins: an advisory from a form, or an OSV document pasted or chosen as a file. */
function publishPanel(ctx, reload) {
  const done = h('div', { 'aria-live': 'polite' });
  const published = (a) => {
    toast(`Advisory ${a.id} published`);
    clear(done, h('p', { class: 'notice', role: 'status' }, 'Published ', h('a', { href: `#/advisories/${encodeURIComponent(a.id)}` }, a.id), `: ${a.affected_images ?? 0} image${a.affected_images === 1 ? '' : 's'} affected.`));
    reload();
  };

  const fields = advisoryFields();
  const submit = h('button', { type: 'submit' }, 'Publish advisory');
  const form = h('form', { class: 'advisory-form', novalidate: true, 'aria-label': 'New advisory' }, h('div', { class: 'form-error' }), fields.el, submit);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    clearFieldErrors(form);
    await busy(submit, async () => {
      try {
        published(await api('/advisories', { method: 'POST', body: fields.body() }));
        fields.reset();
      } catch (err) {
        showFormError(form, err);
      }
    });
  });

  const doc = h('textarea', { name: 'document', rows: 5, class: 'mono', spellcheck: 'false', placeholder: '{"schema_version": "1.6.0", "id": "GHSA-…", …}' });
  const file = h('input', { type: 'file', accept: '.json,application/json' });
  file.addEventListener('change', async () => {
    if (file.files[0]) doc.value = await file.files[0].text();
  });
  const importBtn = h('button', { type: 'submit', class: 'secondary' }, 'Import');
  const importForm = h('form', { class: 'advisory-import', novalidate: true, 'aria-label': 'Import an OSV advisory' },
    h('div', { class: 'form-error' }),
    field('OSV document', doc, 'An osv.dev JSON document: its ECOSYSTEM / SEMVER ranges become constraints, database_specific.severity the severity.'),
    h('div', { class: 'field' }, h('label', {}, 'Or choose a file ', file)),
    importBtn);
  importForm.addEventListener('submit', async (e) => {
    e.preventDefault();
    clearFieldErrors(importForm);
    let body;
    try {
      body = JSON.parse(doc.value);
    } catch (err) {
      return showFormError(importForm, { title: 'Not JSON', errors: [{ pointer: '/document', detail: err.message }] });
    }
    await busy(importBtn, async () => {
      try {
        published(await api('/advisories', { method: 'POST', body }));
        importForm.reset();
      } catch (err) {
        // Pointers name members of the document, not form fields: they are listed in the summary.
        showFormError(importForm, err);
      }
    });
  });

  const csafForm = csafImport(published);

  return h('details', { class: 'panel publish-advisory' },
    h('summary', { class: 'panel-head' }, h('h2', {}, 'Publish or import an advisory')),
    h('div', { class: 'panel-body' }, done, form, h('h3', {}, 'Import OSV'), importForm,
      h('h3', {}, 'Import an NVIDIA CSAF bulletin'), csafForm,
      h('p', { class: 'hint' }, 'Revise or withdraw an advisory from its page.')));
}

/**
 * An NVIDIA security bulletin as a CSAF 2.0 file (github.com/NVIDIA/product-security): POST
 * /v1/advisories recognises it by document.csaf_version. A newer tracking version of an imported
 * bulletin revises its advisory; a version-name form the server does not understand is refused
 * with the product it names, shown in the form's summary.
 */
function csafImport(published) {
  const doc = h('textarea', { name: 'csaf', rows: 5, class: 'mono', spellcheck: 'false', placeholder: '{"document": {"csaf_version": "2.0", …}, "product_tree": …}' });
  const file = h('input', { type: 'file', name: 'csaf-file', accept: '.json,application/json', 'aria-label': 'CSAF file' });
  const chosen = h('p', { class: 'hint', 'aria-live': 'polite' });
  file.addEventListener('change', async () => {
    const f = file.files[0];
    if (!f) return;
    doc.value = await f.text();
    clear(chosen, `${f.name}, ${Math.round(f.size / 1024)} kB`);
  });
  const btn = h('button', { type: 'submit', class: 'secondary' }, 'Import bulletin');
  const formEl = h('form', { class: 'advisory-import-csaf', novalidate: true, 'aria-label': 'Import an NVIDIA CSAF bulletin' },
    h('div', { class: 'form-error' }),
    h('div', { class: 'field' }, h('label', {}, 'CSAF file ', file), chosen),
    field('CSAF document', doc, 'Or paste it. Linux data-centre driver branches, the Container Toolkit, CUDA Toolkit, DCGM and NCCL become affected ranges with their fixed versions; Windows and vGPU products are left out.'),
    btn);
  formEl.addEventListener('submit', async (e) => {
    e.preventDefault();
    clearFieldErrors(formEl);
    let body;
    try {
      body = JSON.parse(doc.value);
    } catch (err) {
      return showFormError(formEl, { title: 'Not JSON', errors: [{ pointer: '/csaf', detail: err.message }] });
    }
    if (!body?.document?.csaf_version) {
      return showFormError(formEl, { title: 'Not a CSAF document', errors: [{ pointer: '/csaf', detail: 'document.csaf_version is missing' }] });
    }
    await busy(btn, async () => {
      try {
        published(await api('/advisories', { method: 'POST', body }));
        formEl.reset();
        clear(chosen);
      } catch (err) {
        // Pointers name members of the bulletin (its product tree), not form fields.
        showFormError(formEl, err);
      }
    });
  });
  return formEl;
}

/** Global admins: revise (PATCH with If-Match; only what changed, affected replaces every
 * range) or withdraw (DELETE with a reason) an advisory. */
function manage(ctx, a, etag) {
  const again = async (focusId) => {
    ctx.root.replaceChildren();
    await detail(ctx, a.id);
    document.getElementById(focusId)?.focus();
  };
  const msg = h('div', {});
  const fields = advisoryFields(a);
  const submit = h('button', { type: 'submit' }, 'Save revision');
  const form = h('form', { class: 'advisory-form advisory-revise', novalidate: true, 'aria-label': `Revise ${a.id}` }, h('div', { class: 'form-error' }), fields.el, submit);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    clearFieldErrors(form);
    const next = fields.body();
    const patch = {};
    for (const k of ['title', 'published', 'severity', 'cvss', 'url']) if ((next[k] ?? null) !== (a[k] ?? null)) patch[k] = next[k];
    if (JSON.stringify(next.cves) !== JSON.stringify(a.cves || [])) patch.cves = next.cves;
    const norm = (list) => JSON.stringify((list || []).map((r) => ({ component: r.component, range: r.range, fixed: r.fixed || undefined })));
    if (norm(next.affected) !== norm(a.affected)) patch.affected = next.affected;
    if (!Object.keys(patch).length) return showFormError(form, { title: 'Nothing changed', detail: 'Change a field to revise the advisory.', errors: [] });
    await busy(submit, async () => {
      try {
        await api(`/advisories/${encodeURIComponent(a.id)}`, { method: 'PATCH', body: patch, headers: { 'If-Match': etag } });
        toast(`${a.id} revised`);
        await again('adv-ranges');
      } catch (err) {
        if (err.status === 412) err.detail = 'Someone revised it meanwhile; nothing was changed. Reload the page and try again.';
        showFormError(form, err);
      }
    });
  });
  const withdraw = h('button', { type: 'button', class: 'secondary outline danger', onclick: async () => {
    clear(msg);
    const v = await dialog({
      title: `Withdraw ${a.id}?`,
      body: h('div', {}, h('p', {}, h('strong', {}, a.id), ' stops affecting the ', String(a.affected_images ?? 'affected'), ' image', a.affected_images === 1 ? '' : 's', ' it names: their patch statuses drop it and it announces nothing new. The advisory stays readable, marked withdrawn.')),
      fields: [{ name: 'reason', label: 'Reason', type: 'textarea', required: true }],
      confirmLabel: 'Withdraw advisory',
      danger: true,
    });
    if (!v) return;
    try {
      await api(`/advisories/${encodeURIComponent(a.id)}`, { method: 'DELETE', query: { reason: v.reason.trim() }, headers: etag ? { 'If-Match': etag } : {} });
      toast(`${a.id} withdrawn`);
      await again('adv-ranges');
    } catch (err) {
      clear(msg, errorBox(err, { context: 'Could not withdraw the advisory' }));
    }
  } }, 'Withdraw…');
  return h('details', { class: 'panel manage-advisory' },
    h('summary', { class: 'panel-head' }, h('h2', {}, 'Revise or withdraw')),
    h('div', { class: 'panel-body' }, form, h('h3', {}, 'Withdraw'), h('p', { class: 'hint' }, 'For a bulletin published in error; a corrected one is a revision.'), withdraw, msg));
}

/** What a CSAF import left out (`unmapped`: product, its version text, why) and what it read
 * with a warning (`warnings`), kept with the advisory (issue 30), and for global admins the
 * re-apply button wherever POST /v1/advisories:reapply acts on this advisory: every CSAF
 * advisory whose bulletin is kept (`bulletin_kept`: a reference update or an upgrade's reading
 * of NVIDIA's version text may change any of them, whether or not the import left products
 * out), and one kept without its bulletin that left products out (reported "no source"). The
 * endpoint re-reads all of them a page at a time, so the button walks every page and then says
 * what became of this one. Nothing when there is neither a note nor the button. */
function importNotes(ctx, a) {
  const unmapped = a.unmapped || [];
  const warnings = a.warnings || [];
  const canReapply = user.me?.admin && !a.withdrawn_at && a.source === 'csaf' && (a.bulletin_kept || unmapped.length > 0);
  if (!unmapped.length && !warnings.length && !canReapply) return null;
  const line = (x, why) => h('li', {}, h('strong', {}, x.product || '—'), x.text ? h('span', {}, ` “${x.text}”`) : null, why ? h('span', { class: 'sub' }, ` — ${why}`) : null);
  const done = h('div', {});
  const reapply = canReapply
    ? [h('p', { class: 'hint', id: 'adv-reapply-what' }, 'Re-apply reads every NVIDIA CSAF advisory again from the bulletin kept with it, through the current product mapping and reading of version text (after a reference update or an upgrade), and revises those whose ranges, left-out products or warnings change; patch status and patch.available follow as for any revision.'),
      h('button', { type: 'button', class: 'btn', 'aria-describedby': 'adv-reapply-what', onclick: (e) => busy(e.currentTarget, async () => {
        try {
          // One transaction per page of at most 100; next_after until the last page (bounded).
          let after = null;
          let mine = null;
          let revised = 0;
          for (let n = 0; n < 1000; n++) {
            const r = await api('/advisories:reapply', { method: 'POST', query: { limit: 100, after: after || undefined } });
            mine = mine || (r.advisories || []).find((x) => x.id === a.id);
            revised += r.revised || 0;
            after = r.next_after;
            if (!after) break;
          }
          const msg = mine?.outcome === 'revised'
            ? `Re-applied: ${mine.affected_images ?? 0} image${mine.affected_images === 1 ? '' : 's'} affected, ${mine.unmapped} product${mine.unmapped === 1 ? '' : 's'} still left out.`
            : `Re-applied: ${a.id} ${mine ? mine.outcome.replace('_', ' ') : 'unchanged'} (${revised} advisor${revised === 1 ? 'y' : 'ies'} revised).`;
          if (mine?.outcome === 'revised') {
            toast(msg);
            await detail(ctx, a.id);
          } else {
            clear(done, h('p', { class: 'notice', role: 'status' }, msg));
          }
        } catch (err) {
          clear(done, errorBox(err));
        }
      }) }, 'Re-apply the product mapping')]
    : null;
  return h('section', { class: 'panel', 'aria-labelledby': 'adv-notes' }, h('div', { class: 'panel-head' }, h('h2', { id: 'adv-notes' }, 'Import notes')),
    h('div', { class: 'panel-body' },
      unmapped.length ? [h('h3', { id: 'adv-unmapped' }, `Left out (${unmapped.length})`), h('p', { class: 'hint' }, 'Products of the bulletin that no catalog component maps to, or whose version text was not understood: they affect no image.'), h('ul', { class: 'plain', 'aria-labelledby': 'adv-unmapped' }, unmapped.map((u) => line(u, u.why)))] : null,
      warnings.length ? [h('h3', { id: 'adv-warnings' }, `Read with a warning (${warnings.length})`), h('ul', { class: 'plain', 'aria-labelledby': 'adv-warnings' }, warnings.map((w) => line(w, w.warning)))] : null,
      !unmapped.length && !warnings.length ? h('p', { class: 'muted' }, 'The import left no product out and read every version without a warning.') : null,
      reapply, done));
}

async function detail(ctx, id) {
  ctx.title(id);
  let a;
  let etag = null;
  try {
    ({ data: a, etag } = await api(`/advisories/${encodeURIComponent(id)}`, { signal: ctx.signal, meta: true }));
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
    a.withdrawn_at ? h('p', { class: 'notice is-revoked', role: 'note' }, `Withdrawn ${fmtDate(a.withdrawn_at)}${a.withdrawn_reason ? `: ${a.withdrawn_reason}` : ''}. It affects no image any more.`) : null,
    user.me?.admin && !a.withdrawn_at ? manage(ctx, a, etag) : null,
    h('section', { class: 'panel', 'aria-labelledby': 'adv-ranges' }, h('div', { class: 'panel-head' }, h('h2', { id: 'adv-ranges' }, 'Affected components')),
      h('div', { class: 'panel-body' },
        (a.affected || []).length ? h('ul', { class: 'plain' }, a.affected.map((r) => h('li', {}, chip(r.component, r.range), r.fixed ? h('span', { class: 'sub' }, ` fixed in ${r.fixed}`) : null))) : h('p', { class: 'muted' }, 'No ranges recorded.'),
        h('p', { class: 'sub' }, 'Published ', fmtDate(a.published), a.revision > 1 ? ` · revision ${a.revision}, ${fmtDate(a.updated_at)}` : '', a.url ? [' · ', h('a', { href: a.url, rel: 'noopener noreferrer', target: '_blank' }, 'Vendor bulletin')] : null))),
    importNotes(ctx, a),
    h('section', { class: 'panel', 'aria-labelledby': 'adv-images' }, h('div', { class: 'panel-head' }, h('h2', { id: 'adv-images' }, 'Affected images')), h('div', { class: 'panel-body' }, affected)),
  );
  try {
    const d = await apiAll(`/advisories/${encodeURIComponent(id)}/affected`, { signal: ctx.signal }, { merge: mergeFamilies });
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
