// Exposure: which of a team's pinned images advisories hit, and where to move (GET /v1/pins
// with each pin's advisories, fixes and candidate; a one-click move is PUT /v1/pins/{id}), and
// for one CVE or advisory every affected image in the catalog with its team, family and fix
// (GET /v1/advisories?cve= and /v1/advisories/{id}/affected), with the pins, teams and running
// nodes it reaches (/v1/advisories/{id}/exposure). Both export as CSV. Pins hit by an advisory in
// CISA's KEV catalog come first, with the KEV badge; the end-of-life calendar dates each pinned
// image's stack (the pin's eol: GET /v1/pins/{id}/eol), with a table saying the same.
import { api, apiAll, mergeFamilies } from '../api.js';
import { kevBadge } from './advisories.js';
import { h, put, clear, badge, imageLink, fmtDate, loading, failure, emptyState, noTeamState, errorBox, table, toast, busy } from '../ui.js';
import { teams, user } from '../state.js';
import { hbarChart, altTable, timeChart, SEVERITY_ORDER } from '../charts.js';

const ALL = '*';

/** RFC 4180 CSV: every field quoted when it needs to be, CRLF line ends. */
export function toCsv(header, rows) {
  const q = (v) => {
    const s = v == null ? '' : String(v);
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return [header, ...rows].map((r) => r.map(q).join(',')).join('\r\n') + '\r\n';
}

function download(name, text) {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const a = h('a', { href: url, download: name, class: 'visually-hidden' }, name);
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

const ref = (img) => (img ? `${img.family} ${img.version}` : '');

export async function render(ctx) {
  ctx.title('Exposure');
  const me = user.me || {};
  // Global admins see every team (GET /v1/teams lists them all); others their own.
  let all = teams().map((t) => ({ slug: t.slug, name: t.name }));
  if (me.admin) {
    try {
      all = ((await apiAll('/teams', { signal: ctx.signal })).items || []).map((t) => ({ slug: t.slug, name: t.name }));
    } catch (e) {
      if (e.name === 'AbortError') throw e;
    }
  }
  const team = ctx.params.get('team') || all[0]?.slug || '';
  const picker = all.length > 1
    ? h('label', { class: 'inline team-picker' }, 'Team ', h('select', { 'aria-label': 'Team', value: team, onchange: (e) => {
        const p = new URLSearchParams(ctx.params);
        p.set('team', e.target.value);
        ctx.navigate(ctx.path, p);
      } }, all.map((t) => h('option', { value: t.slug }, t.name || t.slug)), h('option', { value: ALL }, me.admin ? 'All teams' : 'All my teams')))
    : null;

  const pinsBox = h('div', {}, loading('Loading pinned images…'));
  const chartBox = h('div', { class: 'exposure-chart' });
  const pinsActions = h('div', { class: 'panel-actions' });
  const cveInput = h('input', { type: 'search', name: 'cve', placeholder: 'CVE-2025-23280 or NVIDIA-5703', 'aria-label': 'CVE or advisory id', value: ctx.params.get('cve') || '', autocomplete: 'off', spellcheck: 'false' });
  const cveBox = h('div', {});
  const cveActions = h('div', { class: 'panel-actions' });
  // End of life ahead: a month-by-month calendar of the pinned images' earliest end of life (for
  // the eye; hidden from assistive technology) and the same dates as a table (for everyone).
  const eolBox = h('div', {}, loading('Loading end-of-life dates…'));
  function eolCalendar() {
    const today = new Date().toISOString().slice(0, 10);
    const daysLeft = (d) => Math.round((Date.parse(`${d}T00:00:00Z`) - Date.parse(`${today}T00:00:00Z`)) / 86400000);
    const dated = pins.filter((p) => p.eol && p.eol.date).sort((a, b) => a.eol.date.localeCompare(b.eol.date) || `${a.team}/${a.name}`.localeCompare(`${b.team}/${b.name}`));
    const undated = pins.length - dated.length;
    if (!dated.length) return clear(eolBox, emptyState('No end of life known', 'No part of a pinned image’s stack has a date in the knowledge tables.'));
    const reaches = (p) => (p.eol.reaches || []).map((r) => `${r.component === 'os' ? r.release : `${r.component} ${r.release}`}`).join(', ');
    const months = new Map();
    for (const p of dated) {
      const m = p.eol.date.slice(0, 7);
      months.set(m, [...(months.get(m) || []), p]);
    }
    const monthName = (m) => new Date(`${m}-01T00:00:00Z`).toLocaleString('en', { month: 'long', year: 'numeric', timeZone: 'UTC' });
    const urgency = (d) => (d < 0 ? 'past' : d <= 30 ? 'soon' : d <= 90 ? 'near' : 'later');
    clear(eolBox,
      h('div', { class: 'eol-calendar', 'aria-hidden': 'true' }, [...months].map(([m, ps]) => h('div', { class: 'eol-month' }, h('div', { class: 'eol-month-name' }, monthName(m)), h('ul', { class: 'plain' }, ps.map((p) => h('li', { class: `eol-entry is-${urgency(daysLeft(p.eol.date))}` }, h('span', { class: 'eol-day' }, p.eol.date.slice(8)), ' ', h('strong', {}, `${p.team}/${p.name}`), h('div', { class: 'sub' }, reaches(p)))))))),
      table([
        { label: 'End of life', cell: (p) => p.eol.date },
        { label: 'Days left', cell: (p) => { const d = daysLeft(p.eol.date); return d < 0 ? `${-d} days ago` : String(d); } },
        { label: 'Pin', cell: (p) => `${p.team}/${p.name}` },
        { label: 'Pinned image', cell: (p) => imageLink(p.image) },
        { label: 'What reaches it', cell: (p) => h('ul', { class: 'plain' }, (p.eol.reaches || []).map((r) => h('li', {}, `${r.component === 'os' ? `OS ${r.release}` : `${r.component} ${r.release}`}`, h('span', { class: 'sub' }, ` (${r.basis === 'aws-dlc' ? 'AWS DLC end of patch' : r.basis === 'nvidia' ? 'NVIDIA' : r.basis}${r.status && r.status !== 'CONFIRMED' ? `, ${r.status.toLowerCase()}` : ''})`)))) },
      ], dated, { caption: 'End of life of pinned images, earliest first', rowClass: () => 'eol-row' }),
      undated ? h('p', { class: 'hint' }, `${undated} pinned image${undated === 1 ? ' has' : 's have'} no dated part in the knowledge tables.`) : null,
    );
  }

  const cveForm = h('form', { class: 'toolbar', role: 'search', 'aria-label': 'Advisory search', onsubmit: (e) => {
    e.preventDefault();
    const p = new URLSearchParams(ctx.params);
    if (cveInput.value.trim()) p.set('cve', cveInput.value.trim());
    else p.delete('cve');
    ctx.setParams(p);
    searchCve();
  } }, cveInput, h('button', { type: 'submit' }, 'Find affected images'));

  put(ctx.root,
    h('div', { class: 'page-head' }, h('h1', {}, 'Exposure'), h('p', { class: 'lead' }, 'Which pinned images security advisories hit, the fix each pin’s constraints allow, and every image a CVE affects.'), picker),
    h('section', { class: 'panel', 'aria-labelledby': 'exp-pins' }, h('div', { class: 'panel-head' }, h('h2', { id: 'exp-pins', tabindex: '-1' }, team === ALL ? 'Pinned images of all teams' : `Pinned images of ${team}`), pinsActions), h('div', { class: 'panel-body' }, pinsBox)),
    h('section', { class: 'panel', 'aria-labelledby': 'exp-eol' }, h('div', { class: 'panel-head' }, h('h2', { id: 'exp-eol' }, 'End of life ahead')), h('div', { class: 'panel-body' }, eolBox)),
    h('section', { class: 'panel', 'aria-labelledby': 'exp-cve' }, h('div', { class: 'panel-head' }, h('h2', { id: 'exp-cve' }, 'Who does this CVE hit?'), cveActions), h('div', { class: 'panel-body' }, cveForm, cveBox)),
  );

  let pins = [];

  async function loadPins() {
    const slugs = team === ALL ? all.map((t) => t.slug) : team ? [team] : [];
    if (!slugs.length) {
      clear(eolBox);
      return clear(pinsBox, noTeamState('Exposure shows the pins of your teams.', { admin: me.admin }));
    }
    try {
      const lists = await Promise.all(slugs.map((slug) => api('/pins', { query: { team: slug, limit: 200 }, signal: ctx.signal }).then((d) => (d.items || []).map((p) => ({ ...p, team: p.team || slug })))));
      // Exploited now first (a pin with an advisory in CISA's KEV catalog), the order kept otherwise.
      pins = lists.flat().map((p, i) => [p, i]).sort((x, y) => (y[0].kev_count > 0) - (x[0].kev_count > 0) || x[1] - y[1]).map(([p]) => p);
    } catch (e) {
      if (e.name !== 'AbortError') {
        clear(pinsBox, failure(e, 'Pins'));
        clear(eolBox);
      }
      return;
    }
    eolCalendar();
    const exposed = pins.filter((p) => (p.advisories || []).length).length;
    clear(pinsActions, pins.length ? h('button', { type: 'button', class: 'secondary outline', onclick: exportPins }, 'Export CSV') : null);
    if (!pins.length) {
      clear(chartBox);
      return clear(pinsBox, emptyState('Nothing pinned', 'Create a pin on the Pins page; its exposure shows here.'));
    }
    exposureChart().catch((e) => e.name !== 'AbortError' && clear(chartBox, failure(e, 'Exposure chart')));
    clear(pinsBox,
      h('p', { class: 'exposure-summary', role: 'status' }, `${exposed} of ${pins.length} pinned image${pins.length === 1 ? '' : 's'} ${exposed === 1 ? 'is' : 'are'} hit by an advisory.`),
      chartBox,
      table([
        { label: 'Pin', cell: (p) => h('span', {}, h('strong', {}, p.name), h('div', { class: 'sub' }, p.team)) },
        // One badge per state: the pin's status is shown only when it says something the
        // image's patch status does not (a pin that is merely behind, say).
        { label: 'Pinned image', cell: (p) => h('span', {}, imageLink(p.image), h('div', {}, badge(p.image?.patch_status, { kind: 'patch' }), p.status !== p.image?.patch_status ? [' ', badge(p.status, { kind: 'pin' })] : null)) },
        { label: 'Advisories', cell: (p) => ((p.advisories || []).length ? h('ul', { class: 'plain' }, p.advisories.map((a) => h('li', {}, a.kev ? [kevBadge(a.kev), ' '] : null, badge(a.severity, { kind: 'sev' }), ' ', h('a', { href: `#/advisories/${encodeURIComponent(a.id)}` }, a.id), (a.cves || []).length ? h('div', { class: 'sub' }, a.cves.join(', ')) : null))) : h('span', { class: 'muted' }, 'none')) },
        { label: 'First fixed in', cell: (p) => ((p.advisories || []).length ? h('ul', { class: 'plain' }, p.advisories.map((a) => h('li', {}, a.fixed_by ? imageLink(a.fixed_by) : h('span', { class: 'muted' }, `no fix for ${a.id} yet`)))) : '—') },
        { label: 'Move', cell: (p) => moveCell(p) },
      ], pins, { caption: 'Pinned images and the advisories that hit them', rowClass: (p) => `exp-row is-${p.status}` }),
    );
  }

  function moveCell(p) {
    if (!p.candidate) return h('span', { class: 'muted' }, p.status === 'current' ? 'up to date' : 'nowhere to move yet');
    const msg = h('div', {});
    const btn = h('button', { type: 'button', class: p.status === 'patch_available' ? 'small' : 'secondary small', 'data-move': `${p.team}/${p.name}`, 'aria-label': `Move ${p.team}/${p.name} to ${ref(p.candidate)}` }, `Move to ${p.candidate.version}`);
    btn.addEventListener('click', async () => {
      clear(msg);
      try {
        await busy(btn, () => api(`/pins/${encodeURIComponent(p.id)}`, { method: 'PUT', body: { image: p.candidate.id } }));
        toast(`${p.name} now points at ${ref(p.candidate)}`);
        await loadPins();
        document.getElementById('exp-pins')?.focus();
      } catch (e) {
        clear(msg, errorBox(e, { context: `Could not move ${p.name}` }));
      }
    });
    return h('div', {}, btn, whyOther(p), msg);
  }

  /** When the move goes somewhere other than the first fixed image, the row says why: the pin
   * moves to the newest image its constraints allow, which may be later than the first fix. */
  function whyOther(p) {
    const fixes = [...new Map((p.advisories || []).filter((a) => a.fixed_by).map((a) => [String(a.fixed_by.id), a.fixed_by])).values()];
    if (!fixes.length || fixes.every((f) => String(f.id) === String(p.candidate.id))) return null;
    const c = p.candidate;
    return h('p', { class: 'sub move-why' }, `${c.version} is the newest image the pin's constraints allow; the advisories were first fixed in ${fixes.map((f) => f.version).join(', ')}.`, c.patch_status ? [' Its patch status: ', badge(c.patch_status, { kind: 'patch' })] : null);
  }

  /** Exposure at a glance: for each exposed pin, the days since an image that fixes it was
   * published (the fix images' published_at, GET /v1/images/{id}), and below it the team's
   * exposure over time (historyCharts). */
  async function exposureChart() {
    const exposed = pins.filter((p) => (p.advisories || []).some((a) => a.fixed_by));
    const unfixed = pins.filter((p) => (p.advisories || []).length && !(p.advisories || []).some((a) => a.fixed_by)).length;
    const note = h('div', { class: 'exposure-history' });
    historyCharts(note).catch((e) => e.name !== 'AbortError' && clear(note, failure(e, 'Exposure over time')));
    if (!exposed.length) return clear(chartBox, note);
    const ids = [...new Set(exposed.flatMap((p) => p.advisories.filter((a) => a.fixed_by).map((a) => String(a.fixed_by.id))))].slice(0, 40);
    const published = new Map();
    await Promise.all(ids.map((id) => api(`/images/${encodeURIComponent(id)}`, { signal: ctx.signal }).then((i) => published.set(id, i.published_at), () => {})));
    const now = Date.now();
    const rows = exposed.map((p) => {
      const firsts = p.advisories.filter((a) => a.fixed_by).map((a) => published.get(String(a.fixed_by.id))).filter(Boolean).sort();
      const since = firsts[0];
      return { label: team === ALL ? `${p.team}/${p.name}` : p.name, since, value: since ? Math.max(0, Math.floor((now - Date.parse(since)) / 86400000)) : 0 };
    }).sort((a, b) => b.value - a.value);
    const days = (n) => `${n} day${n === 1 ? '' : 's'}`;
    clear(chartBox, hbarChart('exposure-days', {
      title: 'Days since a fix was available, per exposed pin',
      summary: `${rows.length} pin${rows.length === 1 ? '' : 's'} could move to a fixed image${rows[0] ? `; the longest has waited ${days(rows[0].value)}` : ''}${unfixed ? `; ${unfixed} more ${unfixed === 1 ? 'has' : 'have'} no fix yet` : ''}.`,
      rows: rows.map((r) => ({ ...r, cls: r.value > 30 ? 'is-old' : '' })),
      fmt: days,
      alt: altTable('Days since a fix was available', [{ label: 'Pin', cell: (r) => r.label }, { label: 'Fix published', cell: (r) => fmtDate(r.since) }, { label: 'Days', num: true, cell: (r) => String(r.value) }], rows),
    }), note);
  }

  /** Exposure over time (GET /v1/teams/{slug}/exposure/history: one snapshot a day): pins and
   * running nodes exposed, and the longest a fix has waited; all teams add up by day. The
   * charts' numbers are in the table after them. */
  async function historyCharts(box) {
    const slugs = team === ALL ? all.map((t) => t.slug) : [team];
    const lists = await Promise.all(slugs.map((slug) => api(`/teams/${encodeURIComponent(slug)}/exposure/history`, { query: { days: 90 }, signal: ctx.signal }).then((d) => d.days || [], (e) => (e.name === 'AbortError' ? Promise.reject(e) : []))));
    const byDay = new Map();
    for (const d of lists.flat()) {
      const x = byDay.get(d.day) || { day: d.day, pins: 0, pinsTotal: 0, nodes: 0, nodesTotal: 0, pinsSev: {}, nodesSev: {}, oldest: null };
      x.pins += d.pins.exposed;
      x.pinsTotal += d.pins.total;
      x.nodes += d.nodes.exposed;
      x.nodesTotal += d.nodes.total;
      for (const s of SEVERITY_ORDER) {
        x.pinsSev[s] = (x.pinsSev[s] || 0) + d.pins[s];
        x.nodesSev[s] = (x.nodesSev[s] || 0) + d.nodes[s];
      }
      if (d.oldest_fix_days != null) x.oldest = Math.max(x.oldest ?? 0, d.oldest_fix_days);
      byDay.set(d.day, x);
    }
    const days = [...byDay.values()].sort((a, b) => a.day.localeCompare(b.day));
    if (!days.length) return clear(box, h('p', { class: 'hint' }, 'Exposure over time starts with the first daily snapshot (the server takes one when it starts and every hour).'));
    const first = days[0];
    const last = days[days.length - 1];
    const trend = (a, b, what) => (b < a ? `down from ${a}` : b > a ? `up from ${a}` : `unchanged since ${first.day}`) + (what ? ` ${what}` : '');
    const n = (v, one, many) => `${v} ${v === 1 ? one : many}`;
    const span = `${first.day} to ${last.day}`;
    const fmtDays = (v) => n(v, 'day', 'days');
    const bySev = (c) => SEVERITY_ORDER.filter((s) => c[s]).map((s) => `${c[s]} ${s}`).join(', ') || '—';
    const rows = days.slice().reverse(); // the tables newest first
    clear(box,
      h('h3', { class: 'chart-group-title' }, team === ALL ? 'Exposure over time, all teams' : `Exposure over time of ${team}`),
      h('div', { class: 'history-charts' },
        timeChart('exposure-pins', {
          title: 'Pins exposed',
          summary: `${n(last.pins, 'pin', 'pins')} of ${last.pinsTotal} exposed on ${last.day}, ${trend(first.pins, last.pins)} (${span}).`,
          points: days.map((d) => ({ day: d.day, v: d.pins })),
          alt: altTable('Pins exposed day by day', [{ label: 'Day', cell: (d) => d.day }, { label: 'Exposed', num: true, cell: (d) => `${d.pins} of ${d.pinsTotal}` }, { label: 'By worst severity', cell: (d) => bySev(d.pinsSev) }], rows),
        }),
        timeChart('exposure-nodes', {
          title: 'Running nodes exposed',
          summary: `${n(last.nodes, 'running node', 'running nodes')} of ${last.nodesTotal} exposed on ${last.day}, ${trend(first.nodes, last.nodes)} (${span}).`,
          points: days.map((d) => ({ day: d.day, v: d.nodes })),
          cls: 'is-nodes',
          alt: altTable('Running nodes exposed day by day', [{ label: 'Day', cell: (d) => d.day }, { label: 'Exposed', num: true, cell: (d) => `${d.nodes} of ${d.nodesTotal}` }, { label: 'By worst severity', cell: (d) => bySev(d.nodesSev) }], rows),
        }),
        timeChart('exposure-wait', {
          title: 'Days since a fix was available (oldest)',
          summary: last.oldest == null ? `No exposed pin had a fix waiting on ${last.day}.` : `On ${last.day} the longest a fix had waited was ${fmtDays(last.oldest)} (${span}).`,
          points: days.map((d) => ({ day: d.day, v: d.oldest })),
          cls: 'is-wait',
          alt: altTable('Oldest fix waiting, day by day', [{ label: 'Day', cell: (d) => d.day }, { label: 'Oldest fix waiting', num: true, cell: (d) => (d.oldest == null ? '—' : fmtDays(d.oldest)) }], rows),
        })));
  }

  function exportPins() {
    const rows = pins.flatMap((p) => {
      const base = [p.team, p.name, p.image?.id, p.image?.family, p.image?.version, p.status, p.image?.patch_status];
      const tail = [ref(p.candidate)];
      if (!(p.advisories || []).length) return [[...base, '', '', '', '', ...tail]];
      return p.advisories.map((a) => [...base, a.id, a.severity, (a.cves || []).join(' '), ref(a.fixed_by), ...tail]);
    });
    download(`imaxe-exposure-${team === ALL ? 'all-teams' : team}.csv`, toCsv(['team', 'pin', 'image_id', 'family', 'version', 'pin_status', 'patch_status', 'advisory', 'severity', 'cves', 'fixed_by', 'candidate'], rows));
  }

  let affectedRows = [];

  async function searchCve() {
    const q = cveInput.value.trim();
    clear(cveActions);
    affectedRows = [];
    if (!q) return clear(cveBox, h('p', { class: 'muted' }, 'Enter a CVE or an advisory id to list every image it affects.'));
    cveBox.replaceChildren(loading('Finding affected images…'));
    try {
      let advisories;
      if (/^CVE-/i.test(q)) advisories = (await api('/advisories', { query: { cve: q.toUpperCase(), limit: 200 }, signal: ctx.signal })).items || [];
      else advisories = [await api(`/advisories/${encodeURIComponent(q)}`, { signal: ctx.signal }).catch((e) => (e.status === 404 ? null : Promise.reject(e)))].filter(Boolean);
      if (!advisories.length) return clear(cveBox, emptyState(`No advisory names ${q}`, 'Check the spelling, or publish the advisory first.'));
      const affected = await Promise.all(advisories.map((a) => apiAll(`/advisories/${encodeURIComponent(a.id)}/affected`, { signal: ctx.signal }, { merge: mergeFamilies }).then((d) => ({ a, families: d.families || [] }))));
      // The answer names images by family; one image per family tells its team.
      const teamOf = new Map();
      const fams = [...new Map(affected.flatMap((x) => x.families.map((f) => [f.family, f]))).values()];
      await Promise.all(fams.map((f) => (f.images?.[0] ? api(`/images/${encodeURIComponent(f.images[0].id)}`, { signal: ctx.signal }).then((img) => teamOf.set(f.family, img.team), () => {}) : null)));
      const pinnedBy = new Map();
      for (const p of pins) if (p.image) pinnedBy.set(p.image.id, [...(pinnedBy.get(p.image.id) || []), `${p.team}/${p.name}`]);
      affectedRows = affected.flatMap(({ a, families }) => families.flatMap((f) => (f.images || []).map((i) => ({ advisory: a, family: f.family, team: teamOf.get(f.family) || '', image: { ...i, family: f.family }, pins: pinnedBy.get(i.id) || [] }))));
      if (!affectedRows.length) return clear(cveBox, emptyState(`${q} affects no image in the catalog`, advisories.map((a) => a.id).join(', ')));
      clear(cveActions, h('button', { type: 'button', class: 'secondary outline', onclick: exportCve }, 'Export CSV'));
      // Running nodes too (GET /v1/advisories/{id}/exposure): what reaches the fleet, not only the catalog.
      const fleet = await Promise.all(advisories.map((a) => api(`/advisories/${encodeURIComponent(a.id)}/exposure`, { signal: ctx.signal }).catch((e) => (e.name === 'AbortError' ? Promise.reject(e) : null))));
      const sum = (k) => fleet.reduce((n, x) => n + (x ? x[k] : 0), 0);
      const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;
      clear(cveBox,
        h('p', { class: 'exposure-summary', role: 'status' }, `${q}: ${affectedRows.length} affected image${affectedRows.length === 1 ? '' : 's'} in ${fams.length} famil${fams.length === 1 ? 'y' : 'ies'}.`),
        fleet.some(Boolean) ? h('p', { class: 'fleet-exposure' }, `${q} affects ${plural(sum('images'), 'image', 'images')}, ${plural(sum('pins'), 'pin', 'pins')} of ${plural(sum('teams'), 'team', 'teams')}, and ${plural(sum('nodes'), 'running node', 'running nodes')} (${sum('your_nodes')} of them yours: `, h('a', { href: '#/fleet' }, 'the fleet'), ').') : null,
        table([
          { label: 'Advisory', cell: (r) => h('span', {}, badge(r.advisory.severity, { kind: 'sev' }), ' ', h('a', { href: `#/advisories/${encodeURIComponent(r.advisory.id)}` }, r.advisory.id)) },
          { label: 'Image', cell: (r) => h('span', {}, imageLink(r.image), h('div', {}, badge(r.image.status), ' ', badge(r.image.patch_status, { kind: 'patch' }))) },
          { label: 'Team', cell: (r) => r.team || '—' },
          { label: 'Fix', cell: (r) => (r.image.fixed_by ? imageLink(r.image.fixed_by) : h('span', { class: 'muted' }, 'not yet')) },
          { label: 'Your pins', cell: (r) => (r.pins.length ? r.pins.join(', ') : '—') },
        ], affectedRows, { caption: `Images affected by ${q}` }));
    } catch (e) {
      if (e.name !== 'AbortError') clear(cveBox, failure(e, 'Affected images'));
    }
  }

  function exportCve() {
    const q = cveInput.value.trim();
    download(`imaxe-affected-${q.replace(/[^A-Za-z0-9._-]+/g, '_')}.csv`, toCsv(
      ['advisory', 'severity', 'cves', 'team', 'family', 'image_id', 'version', 'status', 'patch_status', 'fixed_by', 'pinned_by'],
      affectedRows.map((r) => [r.advisory.id, r.advisory.severity, (r.advisory.cves || []).join(' '), r.team, r.family, r.image.id, r.image.version, r.image.status, r.image.patch_status, ref(r.image.fixed_by), r.pins.join(' ')]),
    ));
  }

  await loadPins();
  await searchCve();
}
