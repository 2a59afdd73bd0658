// Webhooks: subscriptions (GET/POST /v1/webhooks), the secret shown once on create and
// rotate, test pings, enable/disable, delete, and each one's delivery log with redeliver.
import { api } from '../api.js';
import { h, put, clear, badge, fmtDateTime, loading, failure, emptyState, noTeamState, errorBox, table, field, showFormError, clearFieldErrors, confirmDialog, toast, busy, copyButton, chip } from '../ui.js';
import { teams, user } from '../state.js';
import { teamPicker } from './pins.js';

const EVENTS = ['patch.available', 'image.published', 'image.deprecated', 'image.revoked', 'advisory.published', 'pin.moved', 'request.updated', 'image.compatibility_changed', 'ping'];

export async function render(ctx) {
  ctx.title('Webhooks');
  if (!teams().length) return put(ctx.root, h('div', { class: 'page-head' }, h('h1', {}, 'Webhooks'), h('p', { class: 'lead' }, 'Tell your systems when a pinned image has a patch, an image is published or revoked, or a request moves.')), noTeamState('Webhooks belong to a team.', { admin: user.me?.admin }));
  const { team, el: picker } = teamPicker(ctx);
  const secretSlot = h('div', { class: 'secret-slot' });
  const listBox = h('div', {}, loading('Loading webhooks…'));

  const me = user.me || {};
  const role = teams().find((t) => t.slug === team)?.role;
  const isAdmin = me.admin || role === 'admin';
  let pinNames = [];
  try {
    if (team) pinNames = ((await api('/pins', { query: { team, limit: 200 }, signal: ctx.signal })).items || []).map((p) => p.name);
  } catch (e) {
    if (e.name === 'AbortError') throw e;
  }

  /**
   * The subscription form, for creating (no hook) or changing one (PATCH sends only what
   * changed; an emptied filter is sent as [] or null, which removes it).
   */
  function hookForm({ hook, onDone, onCancel }) {
    const url = h('input', { name: 'url', type: 'url', required: true, placeholder: 'https://hooks.example.com/imaxe', inputmode: 'url', value: hook?.url || '' });
    const description = h('input', { name: 'description', placeholder: 'e.g. #ml-ops alerts', maxlength: 500, value: hook?.description || '' });
    const chosen = new Set(hook ? hook.events || [] : ['patch.available']);
    const evBoxes = EVENTS.map((ev) => h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'events', value: ev, checked: chosen.has(ev) }), ev));
    const families = h('input', { name: 'families', placeholder: 'pytorch-2.9-ubuntu24.04, base-gpu-ubuntu24.04', autocomplete: 'off', spellcheck: 'false', value: (hook?.families || []).join(', ') });
    const pinSet = new Set(hook?.pins || []);
    const pinBoxes = pinNames.map((n) => h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'pins', value: n, checked: pinSet.has(n) }), n));
    const severity = h('select', { name: 'min_severity', value: hook?.min_severity || '' }, ['', 'low', 'medium', 'high', 'critical'].map((x) => h('option', { value: x }, x || 'Any severity')));
    const submit = h('button', { type: 'submit' }, hook ? 'Save changes' : 'Create webhook');
    const f = h(
      'form',
      { class: hook ? 'webhook-form webhook-edit' : 'webhook-form', novalidate: true, 'aria-label': hook ? `Change the webhook to ${hook.url}` : 'New webhook' },
      h('div', { class: 'form-error' }),
      field('Endpoint URL', url, hook ? 'A new URL is checked like a new subscription.' : 'HTTPS (plain HTTP only to hosts the server allows). Deliveries are signed (Standard Webhooks) with the secret shown once after creation.'),
      field('Description', description),
      h('fieldset', { class: 'checks', 'data-pointer': '/events' }, h('legend', {}, 'Events'), h('div', { class: 'check-row' }, evBoxes)),
      h('fieldset', { class: 'checks filters' }, h('legend', {}, 'Filters (optional)'),
        field('Families', families, 'Comma-separated. Only events about these families (events about no family still come). Family patch events need this filter.'),
        pinBoxes.length ? h('fieldset', { class: 'checks', 'data-pointer': '/pins' }, h('legend', {}, 'Pins'), h('div', { class: 'check-row' }, pinBoxes), h('small', { class: 'hint' }, 'Only events about these pins; none ticked: every pin.')) : null,
        field('Minimum advisory severity', severity)),
      h('div', { class: 'row-actions' }, submit, onCancel ? h('button', { type: 'button', class: 'secondary outline', onclick: onCancel }, 'Cancel') : null),
    );
    f.addEventListener('submit', async (e) => {
      e.preventDefault();
      clearFieldErrors(f);
      const events = evBoxes.map((l) => l.querySelector('input')).filter((i) => i.checked).map((i) => i.value);
      const fams = families.value.split(',').map((x) => x.trim()).filter(Boolean);
      const pins = pinBoxes.map((l) => l.querySelector('input')).filter((i) => i.checked).map((i) => i.value);
      const errors = [];
      // The server decides what it may reach (https, no private hosts unless allowed): ask it.
      if (!/^https?:\/\/[^\s]+$/i.test(url.value.trim())) errors.push({ pointer: '/url', detail: 'Enter an https:// URL.' });
      if (!events.length) errors.push({ pointer: '/events', detail: 'Pick at least one event.' });
      if (errors.length) return showFormError(f, { title: 'The webhook is incomplete', errors });
      const same = (a, b) => JSON.stringify([...(a || [])].sort()) === JSON.stringify([...(b || [])].sort());
      let body;
      if (!hook) body = { team: team || undefined, url: url.value.trim(), events, description: description.value.trim() || undefined, families: fams.length ? fams : undefined, pins: pins.length ? pins : undefined, min_severity: severity.value || undefined };
      else {
        body = {};
        if (url.value.trim() !== hook.url) body.url = url.value.trim();
        if (description.value.trim() !== (hook.description || '')) body.description = description.value.trim();
        if (!same(events, hook.events)) body.events = events;
        if (!same(fams, hook.families)) body.families = fams;
        if (!same(pins, hook.pins)) body.pins = pins;
        if ((severity.value || null) !== (hook.min_severity || null)) body.min_severity = severity.value || null;
        if (!Object.keys(body).length) return onDone(hook, { unchanged: true });
      }
      await busy(submit, async () => {
        try {
          const saved = await api(hook ? `/webhooks/${encodeURIComponent(hook.id)}` : '/webhooks', { method: hook ? 'PATCH' : 'POST', body });
          await onDone(saved, {});
        } catch (err) {
          showFormError(f, err.unavailable ? { ...err, title: 'Webhooks are not available on this server yet', errors: [] } : err);
        }
      });
    });
    return f;
  }

  const createSlot = h('div', {});
  const resetCreate = () => clear(createSlot, hookForm({ onDone: async (created) => {
    resetCreate();
    await load();
    showSecret(created, created.secret, 'created');
  } }));
  resetCreate();

  const showSecret = (hook, secret, verb) => {
    const box = h(
      'section',
      { class: 'secret-once', 'aria-labelledby': 'secret-title', tabindex: '-1' },
      h('h2', { id: 'secret-title' }, `Signing secret ${verb}`),
      h('p', {}, 'Copy it now and store it with the receiver of ', h('code', {}, hook.url), '. ', h('strong', {}, 'It will not be shown again.')),
      h('div', { class: 'secret-row' }, h('code', { class: 'secret', 'data-testid': 'webhook-secret' }, secret), copyButton(secret, 'Copy', { what: 'signing secret' })),
      h('button', { type: 'button', class: 'secondary', onclick: () => secretSlot.replaceChildren() }, 'I have stored it'),
    );
    secretSlot.replaceChildren(box);
    box.focus();
  };

  put(ctx.root, 
    h('div', { class: 'page-head' }, h('h1', {}, 'Webhooks'), h('p', { class: 'lead' }, 'Tell your systems when a pinned image has a patch, an image is published or revoked, or a request moves.'), picker),
    secretSlot,
    h('div', { class: 'webhooks-layout' },
      h('section', { class: 'panel', 'aria-labelledby': 'new-hook' }, h('div', { class: 'panel-head' }, h('h2', { id: 'new-hook' }, 'New webhook')), h('div', { class: 'panel-body' }, isAdmin ? null : h('p', { class: 'notice', role: 'note' }, `You are ${role || 'not a member'} of ${team}: subscriptions are made by team admins, and the server will refuse.`), createSlot)),
      h('section', { class: 'panel', 'aria-labelledby': 'hooks-title' }, h('div', { class: 'panel-head' }, h('h2', { id: 'hooks-title' }, 'Subscriptions')), h('div', { class: 'panel-body' }, listBox))),
  );

  async function load() {
    try {
      const d = await api('/webhooks', { query: { team: team || undefined }, signal: ctx.signal });
      const items = d.items || [];
      clear(listBox, items.length ? h('ul', { class: 'hook-list' }, items.map(card)) : emptyState('No webhooks yet', 'Create one with the form; a test ping shows up in its delivery log.'));
    } catch (e) {
      if (e.name !== 'AbortError') clear(listBox, failure(e, 'Webhooks'));
    }
  }

  function card(hook) {
    const msg = h('div', {});
    const log = h('div', { class: 'delivery-log' });
    const details = h('details', { 'data-deliveries': hook.id }, h('summary', {}, 'Delivery log'), log);
    // Deliveries are sent in the background: after a ping or a redelivery, poll (briefly) until
    // that delivery has left the pending state.
    const loadLog = async ({ until } = {}) => {
      if (!log.firstChild) log.replaceChildren(loading('Loading deliveries…'));
      try {
        let d;
        for (let i = 0; ; i++) {
          d = await api(`/webhooks/${encodeURIComponent(hook.id)}/deliveries`, { query: { limit: 20 }, signal: ctx.signal });
          const x = until != null && (d.items || []).find((y) => y.id === until);
          if (!x || x.state !== 'pending' || i >= 20) break;
          await new Promise((r) => setTimeout(r, 250));
        }
        const items = d.items || [];
        clear(log, items.length ? table([
          { label: 'Event', cell: (x) => h('code', {}, x.event_type) },
          { label: 'Result', cell: (x) => [badge(x.state, { kind: 'delivery' }), x.last_status ? h('span', { class: 'sub' }, ` HTTP ${x.last_status}`) : null, x.last_error && !x.last_status ? h('span', { class: 'sub' }, ` ${x.last_error}`) : null] },
          { label: 'Attempts', numeric: true, cell: (x) => String((x.attempts || []).length) },
          { label: 'When', cell: (x) => fmtDateTime(x.delivered_at || x.updated_at || x.created_at) },
          { label: 'Actions', cell: (x) => h('button', { type: 'button', class: 'secondary outline small', 'aria-label': `Redeliver ${x.message_id || x.id}`, onclick: async (ev) => {
            try {
              await busy(ev.currentTarget, () => api(`/deliveries/${encodeURIComponent(x.id)}/redeliver`, { method: 'POST' }));
              toast('Queued for redelivery');
              loadLog({ until: x.id });
            } catch (e) {
              clear(msg, errorBox(e, { context: 'Redeliver failed' }));
            }
          } }, 'Redeliver') },
        ], items, { caption: `Deliveries for ${hook.url}` }) : h('p', { class: 'muted' }, 'No deliveries yet. Send a test ping.'));
      } catch (e) {
        if (e.name !== 'AbortError') clear(log, failure(e, 'The delivery log'));
      }
    };
    details.addEventListener('toggle', () => details.open && !log.dataset.loaded && ((log.dataset.loaded = '1'), loadLog()));
    const act = (label, fn, cls = 'secondary outline') => h('button', { type: 'button', class: cls, onclick: async (ev) => {
      clear(msg);
      try {
        await busy(ev.currentTarget, fn);
      } catch (e) {
        clear(msg, e.unavailable ? failure(e, label) : errorBox(e, { context: `${label} failed` }));
      }
    } }, label);
    const active = h('input', { type: 'checkbox', role: 'switch', checked: hook.enabled !== false, 'aria-label': `Deliver to ${hook.url}` });
    active.addEventListener('change', async () => {
      try {
        await api(`/webhooks/${encodeURIComponent(hook.id)}`, { method: 'PATCH', body: { enabled: active.checked } });
        toast(active.checked ? 'Webhook enabled' : 'Webhook paused');
      } catch (e) {
        active.checked = !active.checked;
        clear(msg, errorBox(e, { context: 'Could not change the webhook' }));
      }
    });
    return h(
      'li',
      { class: 'hook-card', 'data-hook': hook.id },
      h('div', { class: 'hook-head' }, h('code', { class: 'hook-url' }, hook.url), h('label', { class: 'switch' }, active, ' Active')),
      hook.description ? h('p', { class: 'sub' }, hook.description) : null,
      h('p', { class: 'hook-events' }, (hook.events || []).map((e) => chip(null, e)), hook.min_severity ? chip('severity ≥', hook.min_severity) : null),
      (hook.families || []).length || (hook.pins || []).length ? h('p', { class: 'hook-filters' }, (hook.families || []).map((f) => chip('family', f)), (hook.pins || []).map((p) => chip('pin', p))) : null,
      !hook.enabled && hook.disabled_reason ? h('p', { class: 'state state-error', role: 'note' }, `Disabled: ${hook.disabled_reason}`) : null,
      hook.enabled && hook.failing_since ? h('p', { class: 'notice is-deprecated', role: 'note' }, 'Failing since ', fmtDateTime(hook.failing_since), '.') : null,
      hook.last_delivery ? h('p', { class: 'sub hook-last' }, 'Last delivery: ', h('code', {}, hook.last_delivery.event_type), ' ', badge(hook.last_delivery.state, { kind: 'delivery' }), hook.last_delivery.last_status ? ` HTTP ${hook.last_delivery.last_status}` : '', ' · ', fmtDateTime(hook.last_delivery.delivered_at || hook.last_delivery.updated_at)) : null,
      h('div', { class: 'row-actions' },
        isAdmin ? h('button', { type: 'button', class: 'secondary', 'aria-label': `Edit the webhook to ${hook.url}`, onclick: () => {
          const li = document.querySelector(`[data-hook="${CSS.escape(String(hook.id))}"]`);
          const back = (focusEdit) => {
            li.replaceWith(card(hook));
            if (focusEdit) document.querySelector(`[data-hook="${CSS.escape(String(hook.id))}"] [aria-label^="Edit"]`)?.focus();
          };
          const editor = hookForm({ hook, onCancel: () => back(true), onDone: async (saved, { unchanged }) => {
            if (unchanged) return back(true);
            toast('Webhook changed');
            Object.assign(hook, saved);
            back(true);
          } });
          li.replaceChildren(h('h3', {}, 'Change ', h('code', {}, hook.url)), editor);
          editor.querySelector('input').focus();
        } }, 'Edit') : null,
        act('Send test ping', async () => {
          const dlv = await api(`/webhooks/${encodeURIComponent(hook.id)}/test`, { method: 'POST' });
          toast('Test ping sent');
          log.dataset.loaded = '1';
          details.open = true;
          await loadLog({ until: dlv?.id });
        }, 'secondary'),
        act('Rotate secret', async () => {
          if (!(await confirmDialog({ title: 'Rotate the signing secret?', body: h('p', {}, 'Deliveries are signed with the new secret from now on; update the receiver right away.'), confirmLabel: 'Rotate' }))) return;
          const r = await api(`/webhooks/${encodeURIComponent(hook.id)}/rotate-secret`, { method: 'POST' });
          showSecret(hook, r.secret, 'rotated');
        }),
        act('Delete', async () => {
          if (!(await confirmDialog({ title: 'Delete this webhook?', body: h('p', {}, 'No more deliveries go to ', h('code', {}, hook.url), '.'), confirmLabel: 'Delete', danger: true }))) return;
          await api(`/webhooks/${encodeURIComponent(hook.id)}`, { method: 'DELETE' });
          toast('Webhook deleted');
          await load();
        }, 'secondary outline danger')),
      msg,
      details,
    );
  }

  await load();
}
