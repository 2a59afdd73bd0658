// Pins: a team's named channels (GET /v1/pins?team=), their status and candidate, a move
// with confirmation (PUT /v1/pins/{id}) and each pin's history (GET /v1/pins/{id}).
import { api } from '../api.js';
import { h, put, clear, badge, imageLink, fmtDateTime, loading, failure, emptyState, confirmDialog, toast, errorBox, chip } from '../ui.js';
import { teams } from '../state.js';

const STATUS_HELP = {
  current: 'On the newest image its constraints allow.',
  behind: 'A newer image of the family satisfies the constraints.',
  patch_available: 'A newer image fixes a security advisory.',
  vulnerable: 'Affected by an advisory with no fixed image yet.',
  revoked: 'The pinned image was revoked.',
};

export function teamPicker(ctx, label = 'Team') {
  const all = teams();
  const team = ctx.params.get('team') || all[0]?.slug || '';
  if (all.length <= 1) return { team, el: all.length ? h('p', { class: 'team-line' }, `${label}: `, h('strong', {}, all[0].name || all[0].slug)) : null };
  const sel = h('select', { 'aria-label': label, value: team }, all.map((t) => h('option', { value: t.slug }, t.name || t.slug)));
  sel.addEventListener('change', () => {
    const p = new URLSearchParams(ctx.params);
    p.set('team', sel.value);
    ctx.navigate(ctx.path, p);
  });
  return { team, el: h('label', { class: 'inline team-picker' }, `${label} `, sel) };
}

const imgOf = (img) => (img && typeof img === 'object' ? imageLink(img) : img != null ? h('a', { href: `#/images/${encodeURIComponent(img)}` }, `image ${img}`) : '—');

export async function render(ctx) {
  ctx.title('Pins');
  const { team, el: picker } = teamPicker(ctx);
  const box = h('div', {}, loading('Loading pins…'));
  put(ctx.root, h('div', { class: 'page-head' }, h('h1', {}, 'Pins'), h('p', { class: 'lead' }, 'Your team’s named channels, where each one stands, and where to move it.'), picker), box);

  async function load() {
    let d;
    try {
      d = await api('/pins', { query: { team }, signal: ctx.signal });
    } catch (e) {
      if (e.name === 'AbortError') return;
      return clear(box, failure(e, 'Pins'));
    }
    const pins = d.items || [];
    if (!pins.length) return clear(box, emptyState('No pins yet', 'Pin a channel to an image with the API (POST /v1/pins) and it appears here with its status.'));
    clear(box, h('ul', { class: 'pin-list' }, pins.map(pinCard)));
  }

  function pinCard(pin) {
    const msg = h('div', { class: 'pin-msg' });
    const hist = h('div', { class: 'pin-history' });
    const details = h('details', {}, h('summary', {}, 'History'), hist);
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
        const ok = await confirmDialog({
          title: `Move ${pin.name}?`,
          body: h('div', {}, h('p', {}, 'Move the pin ', h('strong', {}, pin.name), ' from ', h('strong', {}, from), ' to ', h('strong', {}, pin.candidate.version), '.'), h('p', { class: 'muted' }, 'Everything that resolves this pin picks up the new image on its next resolve; webhooks for pin moves fire.')),
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
      { class: `pin-card is-${pin.status}`, 'data-pin': pin.name },
      h('div', { class: 'pin-main' },
        h('h2', { tabindex: '-1' }, pin.name),
        h('p', { class: 'pin-image' }, 'Pinned to ', imgOf(pin.image)),
        (pin.constraints || []).length ? h('p', { class: 'pin-cons' }, pin.constraints.map((c) => chip(c.component, c.range))) : null,
        (pin.advisories || []).length
          ? h('ul', { class: 'plain pin-advisories' }, pin.advisories.map((a) => h('li', {}, badge(a.severity, { kind: 'sev' }), ' ', h('a', { href: `#/advisories/${encodeURIComponent(a.id)}` }, a.id), a.fixed_by ? [' fixed in ', imageLink(a.fixed_by)] : h('span', { class: 'muted' }, ' no fix within the constraints'))))
          : null),
      h('div', { class: 'pin-state' },
        badge(pin.status, { kind: 'pin' }),
        h('p', { class: 'sub' }, STATUS_HELP[pin.status] || ''),
        pin.candidate ? h('p', { class: 'pin-candidate' }, 'Candidate: ', h('a', { href: `#/images/${encodeURIComponent(pin.candidate.id)}` }, pin.candidate.version)) : null,
        action),
      h('div', { class: 'pin-foot' }, msg, details),
    );
  }

  await load();
}
