// Account: the caller's API tokens (GET/POST /v1/tokens, DELETE /v1/tokens/{id}; the secret is
// shown once) and their teams' members and roles (GET /v1/teams/{slug}, PUT/DELETE
// /v1/teams/{slug}/members/{email}; team admins change them), and where they are signed in
// (web sessions and CLI sign-ins, with revoke: web/sessions.js).
import { api, apiAll } from '../api.js';
import { h, put, clear, badge, fmtDate, loading, failure, emptyState, noTeamState, errorBox, table, field, showFormError, clearFieldErrors, confirmDialog, toast, busy, copyButton } from '../ui.js';
import { teams, user } from '../state.js';
import { sessionsPanel } from '../sessions.js';

const ROLES = ['viewer', 'member', 'publisher', 'admin'];

const tokenState = (t) => (t.revoked_at ? 'revoked' : t.expires_at && new Date(t.expires_at) < new Date() ? 'expired' : 'active');

export async function render(ctx) {
  ctx.title('Account');
  const me = user.me || {};
  const tokensBox = h('div', {}, loading('Loading tokens…'));
  const teamsBox = h('div', {});
  const secretSlot = h('div', { class: 'secret-slot' });
  const sessions = sessionsPanel({ signal: ctx.signal });
  put(
    ctx.root,
    h('div', { class: 'page-head' }, h('h1', {}, 'Account'), h('p', { class: 'lead' }, 'Signed in as ', h('strong', {}, me.email || 'you'), me.admin ? ' (global admin)' : '', '. API tokens for scripts and CI, and the members of your teams.')),
    secretSlot,
    h('section', { class: 'panel', 'aria-labelledby': 'tokens-title' }, h('div', { class: 'panel-head' }, h('h2', { id: 'tokens-title' }, 'API tokens')), h('div', { class: 'panel-body' }, tokenForm(), tokensBox)),
    sessions.panel,
    teamsBox,
  );

  function tokenForm() {
    const all = teams();
    if (!all.length) return noTeamState('API tokens belong to a team.', { admin: me.admin });
    const name = h('input', { name: 'name', placeholder: 'ci-deploy', autocomplete: 'off', maxlength: 100 });
    const team = h('select', { name: 'team' }, all.map((t) => h('option', { value: t.slug }, `${t.name || t.slug} (you: ${t.role})`)));
    const role = h('select', { name: 'role' }, ROLES.map((r) => h('option', { value: r }, r)));
    const days = h('input', { name: 'expires_in_days', type: 'number', value: '30', inputmode: 'numeric' });
    const submit = h('button', { type: 'submit' }, 'Create token');
    const form = h('form', { class: 'token-form', novalidate: true },
      h('div', { class: 'form-error' }),
      h('div', { class: 'grid-fields' },
        field('Token name', name),
        field('Team', team, 'The token reaches this team only.'),
        field('Role', role, 'At most your own role in the team.'),
        field('Expires after (days)', days, '1 to 365.')),
      submit);
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      clearFieldErrors(form);
      if (!name.value.trim()) return showFormError(form, { title: 'Name the token', errors: [{ pointer: '/name', detail: 'Give the token a name, e.g. the job that uses it.' }] });
      await busy(submit, async () => {
        try {
          const t = await api('/tokens', { method: 'POST', body: { name: name.value.trim(), team: team.value, role: role.value, expires_in_days: days.value === '' ? undefined : Number(days.value) } });
          form.reset();
          days.value = '30';
          await loadTokens();
          showToken(t);
        } catch (err) {
          showFormError(form, err);
        }
      });
    });
    return form;
  }

  function showToken(t) {
    const box = h('section', { class: 'secret-once', 'aria-labelledby': 'token-secret-title', tabindex: '-1' },
      h('h2', { id: 'token-secret-title' }, `API token “${t.name}” created`),
      h('p', {}, `It acts as ${t.role} of ${t.team} until ${fmtDate(t.expires_at)}. Copy it now into your secret store (for example as `, h('code', {}, 'IMAXE_TOKEN'), '). ', h('strong', {}, 'It will not be shown again.')),
      h('div', { class: 'secret-row' }, h('code', { class: 'secret', 'data-testid': 'api-token' }, t.token), copyButton(t.token, 'Copy', { what: 'API token' })),
      h('button', { type: 'button', class: 'secondary', onclick: () => secretSlot.replaceChildren() }, 'I have stored it'));
    secretSlot.replaceChildren(box);
    box.focus();
  }

  async function loadTokens() {
    try {
      const d = await apiAll('/tokens', { signal: ctx.signal });
      const items = d.items || [];
      clear(tokensBox, items.length
        ? table([
            { label: 'Name', cell: (t) => h('strong', {}, t.name) },
            { label: 'Team', cell: (t) => t.team },
            { label: 'Role', cell: (t) => t.role },
            { label: 'Created', cell: (t) => fmtDate(t.created_at) },
            { label: 'Expires', cell: (t) => fmtDate(t.expires_at) },
            { label: 'State', cell: (t) => badge(tokenState(t), { kind: 'token' }) },
            { label: 'Actions', cell: (t) => (tokenState(t) === 'active' ? h('button', { type: 'button', class: 'secondary outline danger small', 'aria-label': `Revoke token ${t.name}`, onclick: () => revoke(t) }, 'Revoke') : '—') },
          ], items, { caption: 'Your API tokens', rowClass: (t) => `token-row is-${tokenState(t)}` })
        : h('p', { class: 'muted' }, 'No API tokens yet.'));
    } catch (e) {
      if (e.name !== 'AbortError') clear(tokensBox, failure(e, 'API tokens'));
    }
  }

  async function revoke(t) {
    const ok = await confirmDialog({ title: `Revoke “${t.name}”?`, body: h('p', {}, `Every script using this token (${t.role} of ${t.team}) is refused from now on. This cannot be undone.`), confirmLabel: 'Revoke token', danger: true });
    if (!ok) return;
    try {
      await api(`/tokens/${encodeURIComponent(t.id)}`, { method: 'DELETE' });
      toast(`Token ${t.name} revoked`);
      await loadTokens();
      document.getElementById('tokens-title')?.focus();
    } catch (e) {
      tokensBox.prepend(errorBox(e, { context: 'Could not revoke the token' }));
    }
  }

  async function loadTeams() {
    const all = teams();
    if (!all.length) return;
    clear(teamsBox, all.map((t) => teamPanel(t)));
  }

  function teamPanel(t) {
    const canManage = me.admin || t.role === 'admin';
    const id = `team-${t.slug}`;
    const body = h('div', {}, loading('Loading members…'));
    const panel = h('section', { class: 'panel team-panel', 'aria-labelledby': `${id}-title`, 'data-team': t.slug },
      h('div', { class: 'panel-head' }, h('h2', { id: `${id}-title`, tabindex: '-1' }, `Team ${t.name || t.slug}`), badge(t.role, { kind: 'role', label: `you: ${t.role}` })),
      h('div', { class: 'panel-body' }, body));
    const load = async () => {
      let d;
      try {
        d = await api(`/teams/${encodeURIComponent(t.slug)}`, { signal: ctx.signal });
      } catch (e) {
        if (e.name !== 'AbortError') clear(body, failure(e, 'Team members'));
        return;
      }
      const msg = h('div', {});
      const roleCell = (m) => {
        if (!canManage || m.email === me.email) return m.role;
        const sel = h('select', { 'aria-label': `Role of ${m.email}`, value: m.role }, ROLES.map((r) => h('option', { value: r }, r)));
        sel.addEventListener('change', async () => {
          clear(msg);
          try {
            await api(`/teams/${encodeURIComponent(t.slug)}/members/${encodeURIComponent(m.email)}`, { method: 'PUT', body: { role: sel.value } });
            toast(`${m.email} is now ${sel.value} of ${t.slug}`);
            m.role = sel.value;
          } catch (e) {
            sel.value = m.role;
            clear(msg, errorBox(e, { context: `Could not change the role of ${m.email}` }));
          }
        });
        return sel;
      };
      const removeBtn = (m) => (canManage && m.email !== me.email
        ? h('button', { type: 'button', class: 'secondary outline danger small', 'aria-label': `Remove ${m.email} from ${t.slug}`, onclick: async () => {
            if (!(await confirmDialog({ title: `Remove ${m.email}?`, body: h('p', {}, `${m.display_name || m.email} loses access to ${t.name || t.slug}'s pins, webhooks, requests and measurements. Their API tokens for the team stop working.`), confirmLabel: 'Remove member', danger: true }))) return;
            try {
              await api(`/teams/${encodeURIComponent(t.slug)}/members/${encodeURIComponent(m.email)}`, { method: 'DELETE' });
              toast(`${m.email} removed from ${t.slug}`);
              await load();
              document.getElementById(`${id}-title`)?.focus();
            } catch (e) {
              clear(msg, errorBox(e, { context: `Could not remove ${m.email}` }));
            }
          } }, 'Remove')
        : null);
      const members = d.members || [];
      clear(body,
        msg,
        members.length ? table([
          { label: 'Member', cell: (m) => h('span', {}, h('strong', {}, m.display_name || m.email), h('div', { class: 'sub' }, m.email)) },
          { label: 'Role', cell: roleCell },
          ...(canManage ? [{ label: 'Actions', cell: (m) => removeBtn(m) || '—' }] : []),
        ], members, { caption: `Members of ${t.slug}` }) : emptyState('No members', null),
        canManage ? addForm(load) : h('p', { class: 'hint' }, 'Only admins of this team change its members and roles.'));
    };

    function addForm(reload) {
      const email = h('input', { name: 'email', type: 'email', autocomplete: 'off', placeholder: 'colleague@example.com' });
      const role = h('select', { name: 'role' }, ROLES.map((r) => h('option', { value: r }, r)));
      const submit = h('button', { type: 'submit' }, 'Add member');
      const form = h('form', { class: 'member-form', novalidate: true, 'aria-label': `Add a member to ${t.slug}` },
        h('div', { class: 'form-error' }),
        h('div', { class: 'grid-fields' }, field('Email', email, 'An existing imaxe user.'), field('Role', role)),
        submit);
      form.addEventListener('submit', async (e) => {
        e.preventDefault();
        clearFieldErrors(form);
        if (!email.value.trim()) return showFormError(form, { title: 'Who?', errors: [{ pointer: '/email', detail: 'Enter the email of the user to add.' }] });
        await busy(submit, async () => {
          try {
            await api(`/teams/${encodeURIComponent(t.slug)}/members/${encodeURIComponent(email.value.trim())}`, { method: 'PUT', body: { role: role.value } });
            toast(`${email.value.trim()} is now ${role.value} of ${t.slug}`);
            await reload();
            document.getElementById(`${id}-title`)?.focus();
          } catch (err) {
            // A path parameter has no pointer: a 404 for the email belongs to its field.
            if (err.status === 404 && !(err.errors || []).length) err.errors = [{ pointer: '/email', detail: err.detail || 'No user has this email.' }];
            showFormError(form, err);
          }
        });
      });
      return form;
    }
    load();
    return panel;
  }

  await Promise.all([loadTokens(), loadTeams(), sessions.load()]);
}
