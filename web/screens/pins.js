// Pins: a team's named channels (GET /v1/pins?team=), their status and candidate, a move
// with confirmation (PUT /v1/pins/{id}) and each pin's history (GET /v1/pins/{id}).
import { api } from '../api.js';
import { h, put, clear, badge, imageLink, fmtDateTime, loading, failure, emptyState, noTeamState, confirmDialog, toast, errorBox, chip, table, field, showFormError, clearFieldErrors, busy, debounce } from '../ui.js';
import { teams, user } from '../state.js';
import { kevBadge, epssNote, kevFirst } from './advisories.js';

const STATUS_HELP = {
  current: 'On the newest image its constraints allow.',
  behind: 'A newer image of the family satisfies the constraints.',
  patch_available: 'A newer image fixes a security advisory.',
  vulnerable: 'Affected by an advisory with no fixed image yet.',
  revoked: 'The pinned image was revoked.',
};

/** A team as people know it: its name, and its slug beside it when another of your teams has the
 * same name (two "Research" teams stay two choices). */
export function teamLabel(t, all = teams()) {
  const name = t.name || t.slug;
  return all.some((o) => o.slug !== t.slug && (o.name || o.slug) === name) ? `${name} (${t.slug})` : name;
}

export function teamPicker(ctx, label = 'Team') {
  const all = teams();
  const team = ctx.params.get('team') || all[0]?.slug || '';
  if (all.length <= 1) return { team, el: all.length ? h('p', { class: 'team-line' }, `${label}: `, h('strong', {}, teamLabel(all[0], all))) : null };
  const sel = h('select', { 'aria-label': label, value: team }, all.map((t) => h('option', { value: t.slug }, teamLabel(t, all))));
  sel.addEventListener('change', () => {
    const p = new URLSearchParams(ctx.params);
    p.set('team', sel.value);
    ctx.navigate(ctx.path, p);
  });
  return { team, el: h('label', { class: 'inline team-picker' }, `${label} `, sel) };
}

const imgOf = (img) => (img && typeof img === 'object' ? imageLink(img) : img != null ? h('a', { href: `#/images/${encodeURIComponent(img)}` }, `image ${img}`) : '—');

/** The component rows that differ between two images (GET /v1/compare), for a move's dialog. */
async function manifestDiff(fromId, toId, signal) {
  const box = h('div', { class: 'diff-table', 'data-testid': 'move-diff' }, loading('Comparing the two manifests…'));
  api('/compare', { query: { ids: `${fromId},${toId}` }, signal })
    .then((d) => {
      const rows = [...(d.components || []).map((r) => ({ ...r, kind: 'component' })), ...(d.fields || []).filter((r) => ['os', 'kernel', 'patch_status', 'compatibility'].includes(r.name)).map((r) => ({ ...r, kind: 'field' }))].filter((r) => r.differs);
      const show = (v) => (v == null ? h('span', { class: 'absent' }, 'absent') : typeof v === 'object' ? (v.ok === undefined ? JSON.stringify(v) : v.ok ? 'OK' : `${v.errors} error${v.errors === 1 ? '' : 's'}`) : String(v));
      clear(box, rows.length
        ? table([
            { label: 'What', cell: (r) => h('code', {}, r.name) },
            { label: 'Now', cell: (r) => show(r.values[0]) },
            { label: 'After the move', cell: (r) => show(r.values[1]) },
          ], rows, { caption: 'What changes with the move', stack: false })
        : h('p', { class: 'muted' }, 'The two manifests are identical.'));
    })
    .catch((e) => e.name !== 'AbortError' && clear(box, failure(e, 'The manifest diff')));
  return box;
}

function constraintRows(initial = []) {
  const body = h('div', { class: 'rows-body' });
  const renumber = () => [...body.children].forEach((row, i) => {
    const [c, r] = row.querySelectorAll('input');
    c.name = `constraints.${i}.component`;
    r.name = `constraints.${i}.range`;
    c.setAttribute('aria-label', `Constraint ${i + 1} component`);
    r.setAttribute('aria-label', `Constraint ${i + 1} range`);
    row.querySelector('button').setAttribute('aria-label', `Remove constraint ${i + 1}`);
  });
  const add = (v = {}, focus = false) => {
    const c = h('input', { value: v.component || '', placeholder: 'nvidia-driver', list: 'pin-components', autocomplete: 'off' });
    const r = h('input', { value: v.range || '', placeholder: '~580', autocomplete: 'off', spellcheck: 'false' });
    const row = h('div', { class: 'rows-row' }, h('div', { class: 'field' }, c), h('div', { class: 'field' }, r), h('button', { type: 'button', class: 'secondary outline small row-remove', onclick: () => {
      row.remove();
      renumber();
      addBtn.focus();
    } }, 'Remove'));
    body.append(row);
    renumber();
    if (focus) c.focus();
  };
  const addBtn = h('button', { type: 'button', class: 'secondary outline small', onclick: () => add({}, true) }, 'Add a constraint');
  initial.forEach((v) => add(v));
  return {
    el: h('fieldset', { class: 'rows', 'data-pointer': '/constraints' }, h('legend', {}, 'Constraints (optional)'), h('p', { class: 'hint' }, 'The pin only moves to images whose components satisfy these: ~580 (same driver branch), 12.*, >=2.9.'), body, addBtn,
      h('datalist', { id: 'pin-components' }, ['nvidia-driver', 'cuda', 'cudnn', 'nccl', 'pytorch', 'tensorflow', 'python', 'nvidia-container-toolkit'].map((x) => h('option', { value: x })))),
    values: () => [...body.children].map((row) => {
      const [c, r] = row.querySelectorAll('input');
      return { component: c.value.trim(), range: r.value.trim() };
    }).filter((x) => x.component || x.range),
  };
}

export async function render(ctx) {
  ctx.title('Pins');
  const head = h('div', { class: 'page-head' }, h('h1', {}, 'Pins'), h('p', { class: 'lead' }, 'Your team’s named channels, where each one stands, and where to move it.'));
  if (!teams().length) return put(ctx.root, head, noTeamState('Pins belong to a team.', { admin: user.me?.admin }));
  const { team, el: picker } = teamPicker(ctx);
  const box = h('div', {}, loading('Loading pins…'));
  const myRole = teams().find((t) => t.slug === team)?.role;
  const canEdit = user.me?.admin || ['member', 'publisher', 'admin'].includes(myRole);
  head.append(picker || '');
  put(ctx.root, head, team ? newPinPanel() : null, box);

  function newPinPanel() {
    const preset = ctx.params.get('new');
    const name = h('input', { name: 'name', placeholder: 'prod-training', autocomplete: 'off', spellcheck: 'false' });
    const image = h('input', { name: 'image', type: 'number', inputmode: 'numeric', placeholder: 'image id', value: preset || '' });
    const imageHint = h('small', { class: 'hint', 'aria-live': 'polite' }, 'The id on the image page (“Pin this image” there fills it in).');
    const cons = constraintRows();
    const submit = h('button', { type: 'submit' }, 'Create pin');
    const form = h('form', { class: 'pin-form', novalidate: true, 'aria-label': 'New pin' },
      h('div', { class: 'form-error' }),
      h('div', { class: 'grid-fields' }, field('Pin name', name, 'a-z, 0-9, . _ -'), h('div', { class: 'field' }, h('label', { for: 'pin-image' }, 'Image'), Object.assign(image, { id: 'pin-image' }), imageHint)),
      cons.el,
      canEdit ? null : h('p', { class: 'notice', role: 'note' }, `You are ${myRole || 'not a member'} of ${team}: creating pins needs the member role, and the server will refuse.`),
      submit);
    image.setAttribute('aria-describedby', 'pin-image-hint');
    imageHint.id = 'pin-image-hint';
    const describe = debounce(async () => {
      const v = image.value.trim();
      if (!/^\d+$/.test(v)) return;
      try {
        const img = await api(`/images/${v}`, { signal: ctx.signal });
        imageHint.textContent = `${img.family} ${img.version} (${img.status})`;
      } catch {
        imageHint.textContent = 'No image has this id.';
      }
    }, 300);
    image.addEventListener('input', describe);
    if (preset) describe();
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      clearFieldErrors(form);
      const errors = [];
      if (!name.value.trim()) errors.push({ pointer: '/name', detail: 'Name the pin, e.g. prod-training.' });
      if (!/^\d+$/.test(image.value.trim())) errors.push({ pointer: '/image', detail: 'Enter the id of the image to pin.' });
      if (errors.length) return showFormError(form, { title: 'The pin is incomplete', errors });
      await busy(submit, async () => {
        try {
          const pin = await api('/pins', { method: 'POST', body: { team, name: name.value.trim(), image: Number(image.value), constraints: cons.values() } });
          toast(`Pin ${pin.name} created`);
          form.reset();
          const p = new URLSearchParams(ctx.params);
          p.delete('new');
          ctx.setParams(p);
          await load();
          document.querySelector(`[data-pin="${CSS.escape(pin.name)}"] h2`)?.focus();
        } catch (err) {
          showFormError(form, err);
        }
      });
    });
    return h('details', { class: 'panel new-pin', open: preset ? true : undefined }, h('summary', { class: 'panel-head' }, h('h2', {}, 'New pin')), h('div', { class: 'panel-body' }, form));
  }

  async function load() {
    let d;
    try {
      d = await api('/pins', { query: { team }, signal: ctx.signal });
    } catch (e) {
      if (e.name === 'AbortError') return;
      return clear(box, failure(e, 'Pins'));
    }
    // Pins whose image an exploited advisory (CISA KEV) hits come first, as on the exposure screen.
    const pins = kevFirst(d.items || [], (p) => p.kev_count > 0);
    if (!pins.length) return clear(box, emptyState('No pins yet', 'Create one with “New pin” above, or “Pin this image” on an image page.'));
    clear(box, h('ul', { class: 'pin-list' }, pins.map(pinCard)));
  }

  function pinCard(pin) {
    const msg = h('div', { class: 'pin-msg' });
    const hist = h('div', { class: 'pin-history' });
    const details = h('details', {}, h('summary', {}, 'History'), hist);
    // The planner (GET /v1/pins/{id}/plan): every candidate move, safest first, one recommended.
    const planBox = h('div', { class: 'pin-plan' });
    const planDetails = h('details', {}, h('summary', {}, 'Plan the safest move'), planBox);
    planDetails.addEventListener('toggle', async () => {
      if (!planDetails.open || planBox.dataset.loaded) return;
      planBox.append(loading('Weighing the candidates…'));
      try {
        const plan = await api(`/pins/${encodeURIComponent(pin.id)}/plan`, { signal: ctx.signal });
        planBox.dataset.loaded = '1';
        const delta = (d, digits) => (d && d.delta != null ? `${d.delta > 0 ? '+' : ''}${Number(d.delta).toFixed(digits)}` : '—');
        clear(planBox,
          h('p', { class: 'plan-reason', role: 'status' }, plan.recommended != null ? h('strong', {}, `Move to ${(plan.candidates.find((c) => c.recommended) || {}).version}: `) : h('strong', {}, 'Stay: '), plan.reason),
          plan.candidates.length ? table([
            { label: '#', cell: (c) => String(c.rank) },
            { label: 'Image', cell: (c) => h('span', {}, h('a', { href: `#/images/${encodeURIComponent(c.id)}` }, c.version), c.recommended ? [' ', badge('ok', { kind: 'patch', label: 'recommended' })] : null, c.eligible ? null : h('div', { class: 'sub' }, [c.status === 'revoked' ? 'revoked' : null, c.compatible ? null : (c.why_incompatible || []).join('; '), c.satisfies_pin ? null : 'outside the pin’s constraints'].filter(Boolean).join('; '))) },
            { label: 'Closes', cell: (c) => (c.patch.closes.length ? c.patch.closes.map((a) => a.id).join(', ') : '—') },
            { label: 'Still open', cell: (c) => (c.patch.open.length ? c.patch.open.map((a) => `${a.id} (${a.severity})`).join(', ') : 'none') },
            { label: 'Driver branch', cell: (c) => `${c.branch.from || '—'} → ${c.branch.to || '—'}${c.branch.kept ? ' (kept)' : ''}` },
            { label: 'Changes', cell: (c) => Object.keys(c.components || {}).join(', ') || 'none' },
            { label: 'Cost / 1k', cell: (c) => delta(c.cost_per_1k, 4) },
            { label: 'Boot s', cell: (c) => delta(c.boot_seconds, 0) },
          ], plan.candidates, { caption: `Candidate moves for ${pin.name}, safest first` }) : h('p', { class: 'muted' }, 'No newer image in the family.'));
      } catch (e) {
        if (e.name !== 'AbortError') clear(planBox, failure(e, 'The plan'));
      }
    });
    details.addEventListener('toggle', async () => {
      if (!details.open || hist.dataset.loaded) return;
      hist.append(loading('Loading history…'));
      let history = pin.history;
      try {
        if (!history) history = (await api(`/pins/${encodeURIComponent(pin.id)}`, { signal: ctx.signal })).history || [];
        // Moves name images by id: label them with the images this page knows, fetch the rest.
        const known = new Map([pin.image, pin.candidate].filter((x) => x && typeof x === 'object').map((x) => [x.id, x]));
        const ids = [...new Set(history.flatMap((e) => [e.from_image, e.to_image]).filter((x) => x != null && !known.has(x)))];
        await Promise.all(ids.map((id) => api(`/images/${encodeURIComponent(id)}`, { signal: ctx.signal }).then((img) => known.set(id, img), () => {})));
        const ref = (id) => imgOf(known.get(id) || id);
        hist.dataset.loaded = '1';
        clear(hist, history.length ? h('ol', { class: 'timeline' }, history.map((e) => h('li', {}, h('time', { datetime: e.moved_at }, fmtDateTime(e.moved_at)), ' ', e.from_image != null ? [ref(e.from_image), ' → '] : 'pinned to ', ref(e.to_image), e.moved_by ? h('span', { class: 'muted' }, ` by ${e.moved_by}`) : null))) : h('p', { class: 'muted' }, 'No moves recorded yet.'));
      } catch (e) {
        if (e.name !== 'AbortError') clear(hist, failure(e, 'Pin history'));
      }
    });
    let action = null;
    if (pin.candidate) {
      action = h('button', { type: 'button', class: pin.status === 'patch_available' ? '' : 'secondary', 'data-move': pin.name }, `Move to ${pin.candidate.version}`);
      action.addEventListener('click', async () => {
        const from = pin.image && typeof pin.image === 'object' ? pin.image.version : `image ${pin.image}`;
        const fromId = pin.image && typeof pin.image === 'object' ? pin.image.id : pin.image;
        const ok = await confirmDialog({
          title: `Move ${pin.name}?`,
          body: h('div', {}, h('p', {}, 'Move the pin ', h('strong', {}, pin.name), ' from ', h('strong', {}, from), ' to ', h('strong', {}, pin.candidate.version), '.'), await manifestDiff(fromId, pin.candidate.id, ctx.signal), h('p', { class: 'muted' }, 'Everything that resolves this pin picks up the new image on its next resolve; webhooks for pin moves fire.')),
          confirmLabel: 'Move pin',
        });
        if (!ok) return;
        action.setAttribute('aria-busy', 'true');
        action.disabled = true;
        try {
          await api(`/pins/${encodeURIComponent(pin.id)}`, { method: 'PUT', body: { image: pin.candidate.id } });
          toast(`${pin.name} now points at ${pin.candidate.version}`);
          await load();
          document.querySelector(`[data-pin="${CSS.escape(pin.name)}"] h2`)?.focus();
        } catch (e) {
          action.removeAttribute('aria-busy');
          action.disabled = false;
          clear(msg, e.unavailable ? failure(e, 'Moving pins') : errorBox(e, { context: 'Could not move the pin' }));
        }
      });
    }
    return h(
      'li',
      { class: `pin-card is-${pin.status}${pin.kev_count > 0 ? ' has-kev' : ''}`, 'data-pin': pin.name },
      h('div', { class: 'pin-main' },
        h('h2', { tabindex: '-1' }, pin.name),
        h('p', { class: 'pin-image' }, 'Pinned to ', imgOf(pin.image)),
        (pin.constraints || []).length ? h('p', { class: 'pin-cons' }, pin.constraints.map((c) => chip(c.component, c.range))) : null,
        (pin.advisories || []).length
          ? [h('ul', { class: 'plain pin-advisories' }, kevFirst(pin.advisories, (a) => a.kev).map((a) => h('li', {}, a.kev ? [kevBadge(a.kev), ' '] : null, badge(a.severity, { kind: 'sev' }), ' ', h('a', { href: `#/advisories/${encodeURIComponent(a.id)}` }, a.id), a.fixed_by ? [' fixed in ', imageLink(a.fixed_by)] : h('span', { class: 'muted' }, ' no fix within the constraints'), epssNote(a.epss)))),
            pin.advisory_count > pin.advisories.length ? h('p', { class: 'muted' }, `and ${pin.advisory_count - pin.advisories.length} older; the image's patch status lists every one`) : null]
          : null),
      h('div', { class: 'pin-state' },
        badge(pin.status, { kind: 'pin' }),
        h('p', { class: 'sub' }, STATUS_HELP[pin.status] || ''),
        pin.candidate ? h('p', { class: 'pin-candidate' }, 'Candidate: ', h('a', { href: `#/images/${encodeURIComponent(pin.candidate.id)}` }, pin.candidate.version)) : null,
        action,
        canEdit ? h('button', { type: 'button', class: 'secondary outline danger small pin-delete', 'aria-label': `Delete pin ${pin.name}`, onclick: async () => {
        const ok = await confirmDialog({ title: `Delete ${pin.name}?`, body: h('div', {}, h('p', {}, 'The pin ', h('strong', {}, `${team}/${pin.name}`), ' and its history are deleted. Scripts resolving ', h('code', {}, `pin=${team}/${pin.name}`), ' get 404 from now on.')), confirmLabel: 'Delete pin', danger: true });
        if (!ok) return;
        try {
          await api(`/pins/${encodeURIComponent(pin.id)}`, { method: 'DELETE' });
          toast(`Pin ${pin.name} deleted`);
          await load();
          ctx.root.querySelector('h1')?.focus();
        } catch (e) {
          clear(msg, errorBox(e, { context: 'Could not delete the pin' }));
        }
      } }, 'Delete pin') : null),
      h('div', { class: 'pin-foot' }, msg, planDetails, details),
    );
  }

  await load();
}
