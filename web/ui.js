// Small DOM helpers shared by the screens: an element builder (no innerHTML, no inline
// styles: the CSP forbids them), badges, states, dialogs, toasts and form error mapping.

/** h('a', {href, class, onclick}, ...children): children may be strings, nodes, arrays or falsy. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = Array.isArray(v) ? v.filter(Boolean).join(' ') : v;
    else if (k === 'value' && (tag === 'input' || tag === 'textarea' || tag === 'select')) el.value = v;
    else if (k === 'checked' && tag === 'input') el.checked = !!v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  if (tag === 'select' && attrs && attrs.value !== undefined) el.value = attrs.value;
  return el;
}

export function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false || c === true) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** el.append(...children) that skips null/false children (the DOM's append writes "null"). */
export function put(el, ...children) {
  return append(el, children);
}

export function clear(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

let idSeq = 0;
export const uid = (prefix = 'id') => `${prefix}-${++idSeq}`;

// ---- formatting -------------------------------------------------------------------------

export function fmtDate(s) {
  if (!s) return '—';
  const d = new Date(s);
  if (Number.isNaN(d.getTime())) return String(s);
  return d.toISOString().slice(0, 10);
}

export function fmtDateTime(s) {
  if (!s) return '—';
  const d = new Date(s);
  if (Number.isNaN(d.getTime())) return String(s);
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function fmtNum(n, digits = 0) {
  if (n === null || n === undefined || n === '') return '—';
  return Number(n).toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

export function fmtMoney(n, currency = 'USD', digits = 4) {
  if (n === null || n === undefined) return '—';
  const sym = currency === 'USD' ? '$' : `${currency} `;
  return `${sym}${fmtNum(n, digits)}`;
}

export const humanize = (s) => String(s ?? '').replace(/_/g, ' ');

// ---- badges and chips -------------------------------------------------------------------

// Patch statuses read as the API's own words (ok, patch_available, vulnerable, revoked), so the
// UI, the API and the CLI name a state the same way.
export const PATCH_LABEL = { ok: 'OK', patch_available: 'Patch available', vulnerable: 'Vulnerable', revoked: 'Revoked' };
const BADGE_LABEL = {
  ...PATCH_LABEL,
  current: 'Current',
  behind: 'Behind',
  active: 'Active',
  deprecated: 'Deprecated',
};

/** A coloured status pill; the text always says the state so colour is never the only cue. */
export function badge(value, { kind = 'status', label } = {}) {
  const v = String(value || 'unknown');
  const text = label || BADGE_LABEL[v] || humanize(v);
  return h('span', { class: `badge badge-${kind} is-${v.replace(/[^a-z0-9_-]/gi, '')}` }, text.charAt(0).toUpperCase() + text.slice(1));
}

export function chip(name, version, { title } = {}) {
  if (!name && (version === null || version === undefined || version === '')) return h('span', { class: 'muted' }, '—');
  return h('span', { class: 'chip', title: title || undefined }, name ? h('span', { class: 'chip-name' }, name) : null, h('span', { class: 'chip-ver' }, version ?? '—'));
}

export function imageLabel(img) {
  if (!img) return '—';
  return `${img.family} ${img.version}`;
}

export function imageLink(img) {
  if (!img) return '—';
  return h('a', { href: `#/images/${encodeURIComponent(img.id)}`, class: 'image-link' }, h('span', { class: 'fam' }, img.family), ' ', h('span', { class: 'ver' }, img.version));
}

// ---- states ------------------------------------------------------------------------------

export function loading(text = 'Loading…') {
  return h('div', { class: 'state state-loading', 'aria-busy': 'true', role: 'status' }, text);
}

export function emptyState(title, body, ...actions) {
  return h('div', { class: 'state state-empty' }, h('p', { class: 'state-title' }, title), body ? h('p', {}, body) : null, actions.length ? h('p', { class: 'state-actions' }, actions) : null);
}

/**
 * What someone in no team sees where a screen needs one: what the screen holds, and what to do
 * (a global admin: create a team on the Admin screen; anyone else: ask one). Never an error.
 * what: a sentence saying what the screen holds belongs to a team.
 */
export function noTeamState(what, { admin = false } = {}) {
  return h(
    'div',
    { class: 'state state-empty no-team', role: 'status' },
    h('p', { class: 'state-title' }, 'You are not in a team yet'),
    h('p', {}, `${what} `, admin ? 'As a global admin, create a team and add yourself to it on the Admin screen.' : 'Ask a global admin of imaxe to add you to your team (they do it on the Admin screen, or with imaxe members set TEAM EMAIL --role viewer); sign in again afterwards if this page does not change.'),
    admin ? h('p', { class: 'state-actions' }, h('a', { href: '#/admin', class: 'btn-link' }, 'Open Admin')) : h('p', { class: 'state-actions' }, h('a', { href: '#/account', class: 'btn-link secondary' }, 'Your account')),
  );
}

/** A calm card for an endpoint this server does not have yet. */
export function unavailable(what) {
  return h(
    'div',
    { class: 'state state-unavailable', role: 'status' },
    h('p', { class: 'state-title' }, `${what} is not available on this server yet`),
    h('p', {}, 'This part of imaxe needs an API that this server does not offer yet. Everything else keeps working; check back after the next upgrade.'),
  );
}

/** Renders an API error (or any error) as a readable alert. */
export function errorBox(err, { context } = {}) {
  const e = err || {};
  const list = (e.errors || []).filter((x) => x && x.detail);
  return h(
    'div',
    { class: 'state state-error', role: 'alert' },
    h('p', { class: 'state-title' }, context ? `${context}: ${e.title || 'Something went wrong'}` : e.title || 'Something went wrong'),
    e.detail && e.detail !== e.title ? h('p', {}, e.detail) : !e.title && e.message ? h('p', {}, e.message) : null,
    list.length ? h('ul', {}, list.map((x) => h('li', {}, x.pointer ? h('code', {}, x.pointer) : null, x.pointer ? ' ' : null, x.detail))) : null,
  );
}

/** Either the "not available yet" card or the error alert, as fits the error. */
export function failure(err, what) {
  if (err && err.unavailable) return unavailable(what);
  return errorBox(err, { context: what });
}

// ---- forms ------------------------------------------------------------------------------

/** Maps a JSON pointer (/constraints/0/range) to the form control it names, best match first. */
function controlFor(form, pointer) {
  const parts = String(pointer || '').replace(/^#?\//, '').split('/').filter(Boolean).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  for (let n = parts.length; n > 0; n--) {
    const name = parts.slice(0, n).join('.');
    const el = form.querySelector(`[name="${CSS.escape(name)}"]`) || form.querySelector(`[data-pointer="/${CSS.escape(parts.slice(0, n).join('/'))}"]`);
    if (el) return el;
  }
  return null;
}

export function clearFieldErrors(form) {
  form.querySelectorAll('.field-error').forEach((e) => e.remove());
  form.querySelectorAll('[aria-invalid="true"]').forEach((e) => {
    e.removeAttribute('aria-invalid');
    const d = (e.getAttribute('aria-describedby') || '').split(' ').filter((x) => !x.startsWith('ferr-'));
    if (d.length) e.setAttribute('aria-describedby', d.join(' '));
    else e.removeAttribute('aria-describedby');
  });
  form.querySelectorAll('.form-error').forEach((e) => e.replaceChildren());
}

/**
 * Shows an API error on a form: each field error next to its control (aria-invalid +
 * aria-describedby), the rest in the form's .form-error slot. Focuses the first bad field.
 */
export function showFormError(form, err) {
  clearFieldErrors(form);
  const slot = form.querySelector('.form-error');
  const leftover = [];
  let first = null;
  for (const fe of err.errors || []) {
    const el = controlFor(form, fe.pointer);
    if (!el) {
      leftover.push(fe);
      continue;
    }
    const id = uid('ferr');
    el.setAttribute('aria-invalid', 'true');
    el.setAttribute('aria-describedby', `${el.getAttribute('aria-describedby') || ''} ${id}`.trim());
    const msg = h('small', { class: 'field-error', id }, fe.detail);
    (el.closest('.field') || el.parentElement).append(msg);
    first = first || el;
  }
  if (slot) {
    const shown = { ...err, errors: leftover };
    if (leftover.length || !(err.errors || []).length) slot.replaceChildren(errorBox(shown));
    else slot.replaceChildren(h('p', { class: 'form-error-summary', role: 'alert' }, err.detail || err.title || 'Please fix the highlighted fields.'));
  }
  if (first) first.focus();
}

/** A labelled field: label + control (+ hint) in a .field wrapper. */
export function field(label, control, hint) {
  const id = control.id || uid('f');
  control.id = id;
  let hintEl = null;
  if (hint) {
    const hid = uid('hint');
    hintEl = h('small', { id: hid, class: 'hint' }, hint);
    control.setAttribute('aria-describedby', hid);
  }
  return h('div', { class: 'field' }, h('label', { for: id }, label), control, hintEl);
}

export function debounce(fn, ms = 300) {
  let t;
  return (...a) => {
    clearTimeout(t);
    t = setTimeout(() => fn(...a), ms);
  };
}

/** Sets a button busy while the promise runs. */
export async function busy(button, fn) {
  button.setAttribute('aria-busy', 'true');
  button.disabled = true;
  try {
    return await fn();
  } finally {
    button.removeAttribute('aria-busy');
    button.disabled = false;
  }
}

// ---- copy, toast, dialogs ------------------------------------------------------------------

async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const ta = h('textarea', { class: 'visually-hidden', 'aria-hidden': 'true' }, text);
    document.body.append(ta);
    ta.select();
    let ok = false;
    try {
      ok = document.execCommand('copy');
    } catch {
      ok = false;
    }
    ta.remove();
    return ok;
  }
}

export function copyButton(text, label = 'Copy', { what } = {}) {
  const btn = h('button', { type: 'button', class: 'secondary outline btn-copy', 'aria-label': what ? `Copy ${what}` : label }, label);
  btn.addEventListener('click', async () => {
    const ok = await copyText(typeof text === 'function' ? text() : text);
    btn.textContent = ok ? 'Copied' : 'Press Ctrl+C';
    toast(ok ? `Copied${what ? ` ${what}` : ''} to the clipboard` : 'Copy failed: select the text and press Ctrl+C', ok ? 'ok' : 'warn');
    setTimeout(() => (btn.textContent = label), 1600);
  });
  return btn;
}

export function toast(message, kind = 'ok') {
  const box = document.getElementById('toasts');
  if (!box) return;
  const t = h('div', { class: `toast toast-${kind}` }, message);
  box.append(t);
  setTimeout(() => t.remove(), 4000);
}

/**
 * A modal dialog built on <dialog>. fields: [{name,label,type,required,options,hint}].
 * Resolves to the field values (or true) on confirm, null on cancel.
 */
export function dialog({ title, body, confirmLabel = 'Confirm', danger = false, fields = [] }) {
  return new Promise((resolve) => {
    const titleId = uid('dlg');
    const opener = document.activeElement;
    const controls = fields.map((f) => {
      if (f.type === 'checkbox') return h('div', { class: 'field' }, h('label', { class: 'check-field' }, h('input', { type: 'checkbox', name: f.name, checked: f.checked }), f.label), f.hint ? h('small', { class: 'hint' }, f.hint) : null);
      const c =
        f.type === 'select'
          ? h('select', { name: f.name, required: f.required, value: f.value }, f.options.map((o) => h('option', { value: o.value ?? o }, o.label ?? o)))
          : f.type === 'textarea'
            ? h('textarea', { name: f.name, required: f.required, rows: 3, value: f.value })
            : h('input', { name: f.name, type: f.type || 'text', required: f.required, value: f.value, min: f.min });
      return field(f.label, c, f.hint);
    });
    const form = h(
      'form',
      { method: 'dialog' },
      h('header', {}, h('h2', { id: titleId }, title)),
      body ? h('div', { class: 'dialog-body' }, body) : null,
      controls,
      h('footer', {}, h('button', { type: 'button', class: 'secondary', value: 'cancel', 'data-cancel': '' }, 'Cancel'), h('button', { type: 'submit', class: danger ? 'danger' : '', value: 'ok' }, confirmLabel)),
    );
    const dlg = h('dialog', { 'aria-labelledby': titleId }, h('article', {}, form));
    let done = false;
    const finish = (v) => {
      if (done) return;
      done = true;
      dlg.close();
      dlg.remove();
      // Back to the control that opened the dialog, when it is still on the page.
      if (opener && opener.isConnected && opener !== document.body) opener.focus();
      resolve(v);
    };
    form.querySelector('[data-cancel]').addEventListener('click', () => finish(null));
    dlg.addEventListener('cancel', () => finish(null));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      if (!form.reportValidity()) return;
      const values = Object.fromEntries(new FormData(form).entries());
      finish(fields.length ? values : true);
    });
    document.body.append(dlg);
    dlg.showModal();
    (form.querySelector('input,select,textarea') || form.querySelector('button[type=submit]')).focus();
  });
}

export const confirmDialog = (opts) => dialog(opts).then((v) => !!v);

/** A titled section of a page (h2 + content), with an optional id for in-page links. */
export function section(title, { id, actions, level = 'h2' } = {}, ...content) {
  const hid = id ? `${id}-title` : uid('sec');
  return h('section', { class: 'panel', id, 'aria-labelledby': hid }, h('div', { class: 'panel-head' }, h(level, { id: hid }, title), actions ? h('div', { class: 'panel-actions' }, actions) : null), h('div', { class: 'panel-body' }, content));
}

/** Simple table from column specs [{label, cell(row), class, numeric}]. */
export function table(columns, rows, { caption, rowClass, stack = true } = {}) {
  return h(
    'div',
    { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': caption || 'Table' },
    h(
      'table',
      { class: ['data', stack && 'stack'] },
      caption ? h('caption', { class: 'visually-hidden' }, caption) : null,
      h('thead', {}, h('tr', {}, columns.map((c) => h('th', { scope: 'col', class: [c.class, c.numeric && 'num'] }, c.label)))),
      h('tbody', {}, rows.map((r) => h('tr', { class: rowClass ? rowClass(r) : undefined }, columns.map((c) => h('td', { class: [c.class, c.numeric && 'num'], 'data-label': c.label }, c.cell(r)))))),
    ),
  );
}
