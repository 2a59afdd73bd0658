// Pins: a team's named channels (GET /v1/pins?team=), their status and candidate, a move
// with confirmation (PUT /v1/pins/{id}) and each pin's history (GET /v1/pins/{id}).
import { api } from '../api.js';
import { h, clear, badge, imageLink, fmtDateTime, loading, failure, emptyState, confirmDialog, toast, errorBox, chip } from '../ui.js';
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
  ctx.root.append(h('div', { class: 'page-head' }, h('h1', {}, 'Pins'), h('p', { class: 'lead' }, 'Your team’s named channels, where each one stands, and where to move it.'), picker), box);

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
        hist.dataset.loaded = '1';
        clear(hist, history.length ? h('ol', { class: 'timeline' }, history.map((e) => h('li', {}, h('time', { datetime: e.moved_at }, fmtDateTime(e.moved_at)), ' ', imgOf(e.image), e.by ? h('span', { class: 'muted' }, ` by ${e.by}`) : null))) : h('p', { class: 'muted' }, 'No moves recorded yet.'));
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
          await api(`/pins/${encodeURIComponent(pin.id)}`, { method: 'PUT', body: { team: pin.team || team, name: pin.name, image: pin.candidate.id, constraints: pin.constraints || [] } });
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
        (pin.constraints || []).length ? h('p', { class: 'pin-cons' }, pin.constraints.map((c) => chip(c.component, c.range))) : null),
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
