// Requests: ask for a new image. The form checks the stack as you type (POST /v1/compat/check)
// and previews existing matches (GET /v1/images); filing (POST /v1/requests) returns the
// report and matches. Also the team's requests and the publishers' queue with transitions.
import { api } from '../api.js';
import { h, put, clear, badge, imageLink, fmtDate, loading, failure, emptyState, noTeamState, errorBox, table, field, showFormError, clearFieldErrors, debounce, dialog, toast, busy } from '../ui.js';
import { teams, user } from '../state.js';
import { renderFindings } from './image.js';

const STACK = [
  ['nvidia-driver', 'NVIDIA driver', '580'],
  ['cuda', 'CUDA', '12.8'],
  ['cudnn', 'cuDNN', '9'],
  ['pytorch', 'PyTorch', '2.9'],
  ['tensorflow', 'TensorFlow', ''],
  ['python', 'Python', '3.12'],
];
const GPUS = ['H200', 'H100', 'B200', 'A100', 'L40S', 'L4', 'A10G', 'T4', 'V100'];
const TAGS = ['cis', 'fips', 'stig', 'boot-optimized'];
const NEXT = { open: ['approved', 'rejected'], approved: ['building', 'rejected'], building: ['fulfilled', 'rejected'] };
const TRANSITION_LABEL = { approved: 'Approve', rejected: 'Reject', building: 'Start build', fulfilled: 'Mark fulfilled', withdrawn: 'Withdraw' };

const isPublisher = () => user.me?.admin || teams().some((t) => ['publisher', 'admin'].includes(t.role));

/** ">=12.8" -> "12.8": the version compat/check needs from a typed range. */
const bareVersion = (r) => String(r).replace(/^[<>=~!^\s]+/, '').split(',')[0].replace(/\.\*$/, '').trim();

/**
 * Match rows for images, each with its stored compatibility report read from GET /v1/images/{id}
 * (searches and request matches carry none): an image whose report has errors is marked and
 * listed last, never offered as a plain match.
 */
async function matchList(items, signal, attrs = {}) {
  const reports = await Promise.all(items.slice(0, 10).map((i) => api(`/images/${encodeURIComponent(i.id)}`, { signal }).then((d) => d.compatibility || null, () => null)));
  const rows = items.slice(0, 10).map((img, k) => ({ img, bad: reports[k]?.ok === false, errors: reports[k]?.errors || 0 }));
  rows.sort((a, b) => Number(a.bad) - Number(b.bad));
  return h('ul', { class: 'plain match-list', ...attrs }, rows.map(({ img, bad, errors }) => h('li', { class: bad ? 'is-incompatible' : undefined },
    imageLink(img), ' ', badge(img.patch_status, { kind: 'patch' }),
    bad ? [' ', badge('error', { kind: 'sev', label: `${errors} compatibility error${errors === 1 ? '' : 's'}` }), h('span', { class: 'sub' }, ' not a safe match: its stack does not fit together')] : null)));
}

export async function render(ctx) {
  ctx.title('Requests');
  const tab = ctx.params.get('tab') || 'new';
  const tabs = [['new', 'New request'], ['mine', 'Team requests'], ...(isPublisher() ? [['queue', 'Publisher queue']] : [])];
  const nav = h('nav', { class: 'subnav', 'aria-label': 'Requests' }, h('ul', {}, tabs.map(([k, l]) => h('li', {}, h('a', { href: ctx.hrefFor('/requests', { tab: k }), 'aria-current': k === tab ? 'page' : undefined }, l)))));
  put(ctx.root, h('div', { class: 'page-head' }, h('h1', {}, 'Image requests'), h('p', { class: 'lead' }, 'Ask publishers for a GPU-ready stack. It is checked against the compatibility rules as you type, and matched against images that already exist.')), nav);
  if (tab === 'mine') return mine(ctx);
  if (tab === 'queue') return queue(ctx);
  return form(ctx);
}

function form(ctx) {
  const all = teams();
  if (!all.length) return put(ctx.root, noTeamState('Image requests are filed by a team.', { admin: user.me?.admin }));
  const title = h('input', { name: 'title', required: true, placeholder: 'PyTorch 2.9 on H200 with CUDA 12.8' });
  const team = all.length ? h('select', { name: 'team' }, all.map((t) => h('option', { value: t.slug }, t.name || t.slug))) : h('input', { name: 'team', required: true });
  const family = h('input', { name: 'family', placeholder: 'pytorch-2.9-ubuntu24.04' });
  const stack = STACK.map(([name, label, ph]) => ({ name, input: h('input', { name: `stack-${name}`, placeholder: ph ? `e.g. ${ph}` : 'optional', autocomplete: 'off', spellcheck: 'false' }), label }));
  const gpuBoxes = GPUS.map((g) => h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'gpus', value: g }), g));
  const tagBoxes = TAGS.map((t) => h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'tags', value: t }), t));
  const os = h('select', { name: 'os' }, ['', 'ubuntu:24.04', 'ubuntu:22.04', 'amazonlinux:2023', 'rocky:9.6', 'debian:12'].map((o) => h('option', { value: o }, o ? o.replace(':', ' ') : 'Any OS')));
  const arch = h('select', { name: 'architecture' }, [['', 'Any architecture'], ['x86_64', 'x86_64'], ['arm64', 'arm64']].map(([v, l]) => h('option', { value: v }, l)));
  const justification = h('textarea', { name: 'justification', rows: 3, placeholder: 'What is it for, and by when?' });
  const compatBox = h('div', { class: 'live-compat', 'aria-live': 'polite' }, h('p', { class: 'muted' }, 'Enter versions to check the stack.'));
  const matchBox = h('div', { class: 'live-matches', 'aria-live': 'polite' });
  const resultBox = h('div', { class: 'request-result' });
  const submit = h('button', { type: 'submit' }, 'File request');

  const f = h(
    'form',
    { class: 'request-form', novalidate: true },
    h('div', { class: 'form-error' }),
    h('div', { class: 'grid-fields' }, field('Title', title), field('Team', team), field('Family', family, 'Optional: the family the image should belong to.')),
    h('fieldset', { class: 'stack', 'data-pointer': '/constraints' }, h('legend', {}, 'Stack'), h('p', { class: 'hint' }, 'A version or a range: 12.8, >=12.4, ~580, 2.9.*'), h('div', { class: 'grid-fields' }, stack.map((s) => field(s.label, s.input)))),
    h('fieldset', { class: 'checks', 'data-pointer': '/gpus' }, h('legend', {}, 'Target GPUs'), h('div', { class: 'check-row' }, gpuBoxes)),
    h('div', { class: 'grid-fields' }, field('Operating system', os), field('Architecture', arch)),
    h('fieldset', { class: 'checks', 'data-pointer': '/tags' }, h('legend', {}, 'Hardening'), h('div', { class: 'check-row' }, tagBoxes)),
    field('Justification', justification),
    submit,
  );

  const collect = () => {
    const constraints = [];
    stack.forEach((s) => s.input.removeAttribute('data-pointer'));
    for (const s of stack) {
      const v = s.input.value.trim();
      if (!v) continue;
      s.input.setAttribute('data-pointer', `/constraints/${constraints.length}/range`);
      constraints.push({ component: s.name, range: v });
    }
    return {
      team: team.value,
      title: title.value.trim(),
      family: family.value.trim() || undefined,
      constraints,
      gpus: gpuBoxes.map((l) => l.querySelector('input')).filter((i) => i.checked).map((i) => i.value),
      os: os.value || undefined,
      architecture: arch.value || undefined,
      tags: tagBoxes.map((l) => l.querySelector('input')).filter((i) => i.checked).map((i) => i.value),
      justification: justification.value.trim() || undefined,
    };
  };

  let seq = 0;
  const live = debounce(async () => {
    const body = collect();
    const my = ++seq;
    if (!body.constraints.length) {
      clear(compatBox, h('p', { class: 'muted' }, 'Enter versions to check the stack.'));
      clear(matchBox);
      return;
    }
    compatBox.setAttribute('aria-busy', 'true');
    const check = api('/compat/check', { method: 'POST', body: { components: body.constraints.map((c) => ({ name: c.component, version: bareVersion(c.range) })), gpus: body.gpus }, signal: ctx.signal })
      .then((d) => {
        if (my !== seq) return;
        clear(compatBox, h('h3', {}, d.ok ? 'Compatible' : 'Compatibility problems'), renderFindings(d.findings));
      })
      .catch((e) => my === seq && e.name !== 'AbortError' && clear(compatBox, failure(e, 'The compatibility check')))
      .finally(() => compatBox.removeAttribute('aria-busy'));
    const query = { component: body.constraints.map((c) => `${c.component}:${c.range}`), gpu: body.gpus[0], arch: body.architecture, os: os.value || undefined, limit: 5 };
    const matches = api('/images', { query, signal: ctx.signal })
      .then(async (d) => {
        if (my !== seq) return;
        const items = d.items || [];
        const list = items.length ? await matchList(items, ctx.signal) : null;
        if (my !== seq) return;
        clear(matchBox, h('h3', {}, 'Existing images that already match'), list || h('p', { class: 'muted' }, 'None yet: a publisher would build it.'));
      })
      .catch((e) => my === seq && e.name !== 'AbortError' && clear(matchBox, failure(e, 'Matching images')));
    await Promise.all([check, matches]);
  }, 350);
  f.addEventListener('input', live);
  f.addEventListener('change', live);

  f.addEventListener('submit', async (e) => {
    e.preventDefault();
    clearFieldErrors(f);
    const body = collect();
    const errors = [];
    if (!body.title) errors.push({ pointer: '/title', detail: 'Give the request a title.' });
    if (!body.team) errors.push({ pointer: '/team', detail: 'Pick a team.' });
    if (!body.constraints.length) errors.push({ pointer: '/constraints', detail: 'Name at least one component version.' });
    if (errors.length) return showFormError(f, { title: 'The request is incomplete', errors });
    await busy(submit, async () => {
      try {
        const r = await api('/requests', { method: 'POST', body });
        toast('Request filed');
        const c = r.compatibility || {};
        const matches = (r.matches || []).map((m) => m.image || m);
        const list = matches.length ? await matchList(matches, ctx.signal, { 'data-testid': 'request-matches' }) : null;
        clear(
          resultBox,
          h('section', { class: 'panel result', 'aria-labelledby': 'req-result', tabindex: '-1' },
            h('div', { class: 'panel-head' }, h('h2', { id: 'req-result' }, `Request ${r.id} filed`), badge(r.state, { kind: 'req' })),
            h('div', { class: 'panel-body' },
              h('h3', {}, 'Compatibility'),
              stackReport(c),
              h('h3', {}, 'Images that already satisfy it'),
              list || h('p', { class: 'muted' }, 'No existing image satisfies it; the publishers will see it in their queue.'))),
        );
        resultBox.querySelector('section').focus();
      } catch (err) {
        showFormError(f, err.unavailable ? { ...err, title: 'Requests are not available on this server yet', errors: [] } : err);
      }
    });
  });

  put(ctx.root, h('div', { class: 'request-layout' }, h('section', { class: 'panel', 'aria-label': 'New request' }, h('div', { class: 'panel-body' }, f)), h('aside', { class: 'panel live', 'aria-label': 'Live check' }, h('div', { class: 'panel-body' }, compatBox, matchBox))), resultBox);
}

/** The request's stack report: the versions it would use, or which constraint cannot be met. */
function stackReport(c) {
  if (c.satisfiable === false)
    return h('div', { class: 'state state-error', role: 'note' }, h('p', { class: 'state-title' }, 'No known stack satisfies these constraints'),
      (c.unsatisfied || []).length ? h('ul', {}, c.unsatisfied.map((u) => h('li', {}, h('code', {}, `${u.component} ${u.range || ''}`.trim()), ': ', u.reason || u.code))) : null);
  const cand = Object.entries(c.candidate || {});
  return h('div', {},
    cand.length ? h('p', { class: 'sub' }, 'Checked as ', cand.map(([n, v], i) => [i ? ', ' : '', h('code', {}, `${n} ${v}`)])) : null,
    renderFindings(c.report?.findings ?? c.findings));
}

const imageRef = (img) => (img == null ? null : typeof img === 'object' ? imageLink(img) : h('a', { href: `#/images/${encodeURIComponent(img)}` }, `image ${img}`));

function requestTable(items, actions) {
  return table(
    [
      { label: 'Request', cell: (r) => h('span', {}, h('strong', {}, r.title), h('div', { class: 'sub' }, `#${r.id}${r.family ? ` · ${r.family}` : ''}${r.team ? ` · ${r.team}` : ''}`)) },
      { label: 'Stack', cell: (r) => (r.constraints || []).map((c) => `${c.component} ${c.range}`).join(', ') || '—' },
      { label: 'State', cell: (r) => [badge(r.state, { kind: 'req' }), r.image ? [' ', imageRef(r.image)] : null, r.reason ? h('div', { class: 'sub' }, r.reason) : null] },
      { label: 'Matches', numeric: true, cell: (r) => String(r.match_count ?? (r.matches || []).length) },
      { label: 'Filed', cell: (r) => fmtDate(r.created_at) },
      ...(actions ? [{ label: 'Actions', cell: actions }] : []),
    ],
    items,
    { caption: 'Requests' },
  );
}

async function mine(ctx) {
  // The API lists the requests of the caller's teams and those addressed to them; this tab
  // shows the ones the caller's teams filed.
  const mineSlugs = new Set(teams().map((t) => t.slug));
  if (!mineSlugs.size && !user.me?.admin) return put(ctx.root, noTeamState('Image requests are filed by a team.', { admin: false }));
  const box = h('div', {}, loading('Loading requests…'));
  put(ctx.root, box);
  try {
    const d = await api('/requests', { query: { limit: 200 }, signal: ctx.signal });
    const items = (d.items || []).filter((r) => user.me?.admin || mineSlugs.has(r.team));
    clear(box, items.length ? requestTable(items) : emptyState('No requests yet', 'File one from the New request tab.'));
  } catch (e) {
    if (e.name !== 'AbortError') clear(box, failure(e, 'Requests'));
  }
}

async function queue(ctx) {
  const box = h('div', {}, loading('Loading the queue…'));
  const msg = h('div', {});
  put(ctx.root, msg, box);
  const load = async () => {
    try {
      const d = await api('/requests', { query: { state: ctx.params.get('state') || undefined, limit: 200 }, signal: ctx.signal });
      // Addressed to a team the caller publishes for, and still moving.
      const pub = new Set(teams().filter((t) => ['publisher', 'admin'].includes(t.role)).map((t) => t.slug));
      const items = (d.items || []).filter((r) => NEXT[r.state] && (user.me?.admin || pub.has(r.catalog_team)));
      clear(box, items.length ? requestTable(items, (r) => h('div', { class: 'row-actions' }, NEXT[r.state].map((to) => h('button', { type: 'button', class: to === 'rejected' ? 'secondary outline' : 'secondary', onclick: () => move(r, to) }, TRANSITION_LABEL[to] || to)))) : emptyState('The queue is empty', 'No request is waiting for a publisher.'));
    } catch (e) {
      if (e.name !== 'AbortError') clear(box, failure(e, 'The publisher queue'));
    }
  };
  const move = async (r, to) => {
    const fields = [{ name: 'comment', label: to === 'rejected' ? 'Reason' : 'Comment', type: 'textarea', required: to === 'rejected' }];
    if (to === 'fulfilled') fields.unshift({ name: 'image', label: 'Image id that fulfils it', required: true });
    const v = await dialog({ title: `${TRANSITION_LABEL[to]}: ${r.title}`, confirmLabel: TRANSITION_LABEL[to], danger: to === 'rejected', fields });
    if (!v) return;
    try {
      await api(`/requests/${encodeURIComponent(r.id)}/transitions`, { method: 'POST', body: { to, comment: v.comment || undefined, image: v.image ? Number(v.image) : undefined } });
      toast(`Request ${r.id}: ${to}`);
      clear(msg);
      await load();
    } catch (e) {
      clear(msg, errorBox(e, { context: `Could not move request ${r.id}` }));
    }
  };
  await load();
}
