// Webhooks: subscriptions (GET/POST /v1/webhooks), the secret shown once on create and
// rotate, test pings, enable/disable, delete, and each one's delivery log with redeliver.
import { api } from '../api.js';
import { h, put, clear, badge, fmtDateTime, loading, failure, emptyState, errorBox, table, field, showFormError, clearFieldErrors, confirmDialog, toast, busy, copyButton, chip } from '../ui.js';
import { teamPicker } from './pins.js';

const EVENTS = ['patch.available', 'image.published', 'image.deprecated', 'image.revoked', 'advisory.published', 'pin.moved', 'request.updated', 'image.compatibility_changed'];

export async function render(ctx) {
  ctx.title('Webhooks');
  const { team, el: picker } = teamPicker(ctx);
  const secretSlot = h('div', { class: 'secret-slot' });
  const listBox = h('div', {}, loading('Loading webhooks…'));

  const url = h('input', { name: 'url', type: 'url', required: true, placeholder: 'https://hooks.example.com/imaxe', inputmode: 'url' });
  const description = h('input', { name: 'description', placeholder: 'e.g. #ml-ops alerts', maxlength: 500 });
  const evBoxes = EVENTS.map((ev) => h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'events', value: ev, checked: ev === 'patch.available' }), ev));
  const severity = h('select', { name: 'min_severity' }, ['', 'low', 'medium', 'high', 'critical'].map((s) => h('option', { value: s }, s || 'Any severity')));
  const submit = h('button', { type: 'submit' }, 'Create webhook');
  const form = h(
    'form',
    { class: 'webhook-form', novalidate: true },
    h('div', { class: 'form-error' }),
    field('Endpoint URL', url, 'HTTPS (plain HTTP only to hosts the server allows). Deliveries are signed (Standard Webhooks) with the secret shown once after creation.'),
    field('Description', description),
    h('fieldset', { class: 'checks', 'data-pointer': '/events' }, h('legend', {}, 'Events'), h('div', { class: 'check-row' }, evBoxes)),
    field('Minimum advisory severity', severity),
    submit,
  );

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

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    clearFieldErrors(form);
    const events = evBoxes.map((l) => l.querySelector('input')).filter((i) => i.checked).map((i) => i.value);
    const errors = [];
    // The server decides what it may reach (https, no private hosts unless allowed): ask it.
    if (!/^https?:\/\/[^\s]+$/i.test(url.value.trim())) errors.push({ pointer: '/url', detail: 'Enter an https:// URL.' });
    if (!events.length) errors.push({ pointer: '/events', detail: 'Pick at least one event.' });
    if (errors.length) return showFormError(form, { title: 'The webhook is incomplete', errors });
    await busy(submit, async () => {
      try {
        const hook = await api('/webhooks', { method: 'POST', body: { team: team || undefined, url: url.value.trim(), events, description: description.value.trim() || undefined, min_severity: severity.value || undefined } });
        form.reset();
        evBoxes[0].querySelector('input').checked = true;
        await load();
        showSecret(hook, hook.secret, 'created');
      } catch (err) {
        showFormError(form, err.unavailable ? { ...err, title: 'Webhooks are not available on this server yet', errors: [] } : err);
      }
    });
  });

  put(ctx.root, 
    h('div', { class: 'page-head' }, h('h1', {}, 'Webhooks'), h('p', { class: 'lead' }, 'Tell your systems when a pinned image has a patch, an image is published or revoked, or a request moves.'), picker),
    secretSlot,
    h('div', { class: 'webhooks-layout' },
      h('section', { class: 'panel', 'aria-labelledby': 'new-hook' }, h('div', { class: 'panel-head' }, h('h2', { id: 'new-hook' }, 'New webhook')), h('div', { class: 'panel-body' }, form)),
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
      !hook.enabled && hook.disabled_reason ? h('p', { class: 'state state-error', role: 'note' }, `Disabled: ${hook.disabled_reason}`) : null,
      hook.enabled && hook.failing_since ? h('p', { class: 'notice is-deprecated', role: 'note' }, 'Failing since ', fmtDateTime(hook.failing_since), '.') : null,
      hook.last_delivery ? h('p', { class: 'sub hook-last' }, 'Last delivery: ', h('code', {}, hook.last_delivery.event_type), ' ', badge(hook.last_delivery.state, { kind: 'delivery' }), hook.last_delivery.last_status ? ` HTTP ${hook.last_delivery.last_status}` : '', ' · ', fmtDateTime(hook.last_delivery.delivered_at || hook.last_delivery.updated_at)) : null,
      h('div', { class: 'row-actions' },
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
