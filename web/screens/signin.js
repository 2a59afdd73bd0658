// Sign in: POST /v1/auth/session sets the session cookie (every tab is signed in), then back
// where the user was going.
import { api } from '../api.js';
import { h, put, field, showFormError, clearFieldErrors, busy } from '../ui.js';
import { user } from '../state.js';

export async function render(ctx) {
  ctx.title('Sign in');
  const next = ctx.params.get('next') || '/catalog';
  const email = h('input', { name: 'email', type: 'email', autocomplete: 'username', required: true, autofocus: true });
  const password = h('input', { name: 'password', type: 'password', autocomplete: 'current-password', required: true });
  const submit = h('button', { type: 'submit' }, 'Sign in');
  const form = h(
    'form',
    { class: 'signin-form', novalidate: true },
    h('div', { class: 'form-error' }),
    field('Email', email),
    field('Password', password),
    submit,
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    clearFieldErrors(form);
    const missing = [];
    if (!email.value.trim()) missing.push({ pointer: '/email', detail: 'Enter your email address.' });
    if (!password.value) missing.push({ pointer: '/password', detail: 'Enter your password.' });
    if (missing.length) return showFormError(form, { title: 'Both fields are needed', errors: missing });
    await busy(submit, async () => {
      try {
        await api('/auth/session', { method: 'POST', auth: false, body: { email: email.value.trim(), password: password.value } });
        user.me = null;
        ctx.navigate(next.startsWith('/') && !next.startsWith('/signin') ? next.split('?')[0] : '/catalog', new URLSearchParams(next.split('?')[1] || ''));
      } catch (err) {
        if (err.unavailable) err.title = 'Sign-in is not available on this server yet';
        else if (err.status === 401) err.title = err.detail || err.title || 'Wrong email or password';
        showFormError(form, err);
      }
    });
  });
  // Single sign-on, when the server has a provider (GET /v1/auth/providers); without imaxe
  // passwords (IMAXE_LOCAL_PASSWORDS=off) it is the only way in.
  const providers = await api('/auth/providers', { auth: false }).catch(() => ({ local_passwords: true, oidc: false }));
  const sso = providers.oidc
    ? h('p', { class: 'signin-sso' }, h('a', { class: 'button', href: `/v1/auth/oidc/start?next=${encodeURIComponent(next.startsWith('/') && !next.startsWith('/signin') ? next : '/catalog')}` }, `Sign in with ${providers.oidc_name || 'single sign-on'}`))
    : null;
  if (!providers.local_passwords) form.hidden = true;
  put(ctx.root, 
    h(
      'div',
      { class: 'signin' },
      h(
        'div',
        { class: 'signin-intro' },
        h('h1', {}, 'Sign in to imaxe'),
        h('p', { class: 'lead' }, 'The catalog of GPU-ready machine images: drivers, CUDA and frameworks that fit together, patch status you can trust, and the cost of every inference.'),
        ctx.params.get('signed_out') ? h('p', { class: 'notice', role: 'status' }, 'You are signed out.') : null,
      ),
      h('article', { class: 'signin-card' }, sso, form),
    ),
  );
}
