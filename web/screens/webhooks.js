// Webhooks: subscriptions (GET/POST /v1/webhooks), the secret shown once on create and
// rotate, test pings, enable/disable, delete, and each one's delivery log with redeliver.
import { api } from '../api.js';
import { h, clear, badge, fmtDateTime, loading, failure, emptyState, errorBox, table, field, showFormError, clearFieldErrors, confirmDialog, toast, busy, copyButton, chip } from '../ui.js';
import { teamPicker } from './pins.js';

const EVENTS = ['patch.available', 'image.published', 'image.deprecated', 'image.revoked', 'advisory.published', 'request.updated'];

export async function render(ctx) {
  ctx.title('Webhooks');
  const { team, el: picker } = teamPicker(ctx);
  const secretSlot = h('div', { class: 'secret-slot' });
  const listBox = h('div', {}, loading('Loading webhooks…'));

  const url = h('input', { name: 'url', type: 'url', required: true, placeholder: 'https://hooks.example.com/imaxe', inputmode: 'url' });
  const evBoxes = EVENTS.map((ev) => h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'events', value: ev, checked: ev === 'patch.available' }), ev));
  const severity = h('select', { name: 'min_severity' }, ['', 'low', 'medium', 'high', 'critical'].map((s) => h('option', { value: s }, s || 'Any severity')));
  const submit = h('button', { type: 'submit' }, 'Create webhook');
  const form = h(
    'form',
    { class: 'webhook-form', novalidate: true },
    h('div', { class: 'form-error' }),
    field('Endpoint URL', url, 'HTTPS only. Deliveries are signed (Standard Webhooks) with the secret shown once after creation.'),
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
    if (!/^https:\/\/[^\s]+$/i.test(url.value.trim())) errors.push({ pointer: '/url', detail: 'Enter an https:// URL.' });
    if (!events.length) errors.push({ pointer: '/events', detail: 'Pick at least one event.' });
    if (errors.length) return showFormError(form, { title: 'The webhook is incomplete', errors });
    await busy(submit, async () => {
      try {
        const hook = await api('/webhooks', { method: 'POST', body: { team: team || undefined, url: url.value.trim(), events, filters: severity.value ? { min_severity: severity.value } : undefined } });
        form.reset();
        evBoxes[0].querySelector('input').checked = true;
        await load();
        showSecret(hook, hook.secret, 'created');
      } catch (err) {
        showFormError(form, err.unavailable ? { ...err, title: 'Webhooks are not available on this server yet', errors: [] } : err);
      }
    });
  });

  ctx.root.append(
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
    const loadLog = async () => {
      log.replaceChildren(loading('Loading deliveries…'));
      try {
        const d = await api(`/webhooks/${encodeURIComponent(hook.id)}/deliveries`, { signal: ctx.signal });
        const items = d.items || [];
        clear(log, items.length ? table([
          { label: 'Event', cell: (x) => h('code', {}, x.event || x.event_type) },
          { label: 'Result', cell: (x) => [badge(x.status, { kind: 'delivery' }), x.response_status ? h('span', { class: 'sub' }, ` HTTP ${x.response_status}`) : null] },
          { label: 'Attempts', numeric: true, cell: (x) => String(x.attempts ?? '—') },
          { label: 'When', cell: (x) => fmtDateTime(x.last_attempt_at || x.created_at) },
          { label: '', cell: (x) => h('button', { type: 'button', class: 'secondary outline small', onclick: async (ev) => {
            try {
              await busy(ev.currentTarget, () => api(`/deliveries/${encodeURIComponent(x.id)}/redeliver`, { method: 'POST' }));
              toast('Queued for redelivery');
              loadLog();
            } catch (e) {
              clear(msg, errorBox(e, { context: 'Redeliver failed' }));
            }
          } }, 'Redeliver') },
        ], items, { caption: `Deliveries for ${hook.url}` }) : h('p', { class: 'muted' }, 'No deliveries yet. Send a test ping.'));
      } catch (e) {
        if (e.name !== 'AbortError') clear(log, failure(e, 'The delivery log'));
      }
    };
    details.addEventListener('toggle', () => details.open && loadLog());
    const act = (label, fn, cls = 'secondary outline') => h('button', { type: 'button', class: cls, onclick: async (ev) => {
      clear(msg);
      try {
        await busy(ev.currentTarget, fn);
      } catch (e) {
        clear(msg, e.unavailable ? failure(e, label) : errorBox(e, { context: `${label} failed` }));
      }
    } }, label);
    const active = h('input', { type: 'checkbox', role: 'switch', checked: hook.active !== false, 'aria-label': `Deliver to ${hook.url}` });
    active.addEventListener('change', async () => {
      try {
        await api(`/webhooks/${encodeURIComponent(hook.id)}`, { method: 'PATCH', body: { active: active.checked } });
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
      h('p', { class: 'hook-events' }, (hook.events || []).map((e) => chip(null, e))),
      h('div', { class: 'row-actions' },
        act('Send test ping', async () => {
          await api(`/webhooks/${encodeURIComponent(hook.id)}/test`, { method: 'POST' });
          toast('Test ping sent');
          details.open = true;
          await loadLog();
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
