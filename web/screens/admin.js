// Admin (global admins): users (GET/POST /v1/users, PATCH /v1/users/{id}: name, global admin
// flag, disabled), teams (GET/POST /v1/teams, PATCH /v1/teams/{slug}: name, disabled), memberships
// (PUT/DELETE /v1/teams/{slug}/members/{email}) and the audit log (GET /v1/audit), filtered by
// actor, action and time, with the filters in the URL; a user's sign-ins with revoke
// (web/sessions.js).
import { api, apiAll } from '../api.js';
import { h, put, clear, badge, fmtDateTime, loading, failure, emptyState, errorBox, table, field, showFormError, clearFieldErrors, confirmDialog, dialog, toast, busy } from '../ui.js';
import { user } from '../state.js';
import { sessionsPanel } from '../sessions.js';

const ROLES = ['viewer', 'member', 'publisher', 'admin'];

export async function render(ctx) {
  ctx.title('Admin');
  const me = user.me || {};
  if (!me.admin) {
    put(ctx.root, h('div', { class: 'page-head' }, h('h1', {}, 'Admin')), emptyState('Only global admins administer imaxe', 'Users, teams and the audit log are managed by a global admin. Ask one to add you to a team, or to make you a global admin.'));
    return;
  }
  const usersBox = h('div', {}, loading('Loading users…'));
  const teamsBox = h('div', {}, loading('Loading teams…'));
  const memberBox = h('div', {});
  const sessionsSlot = h('div', { class: 'sessions-slot' });
  const auditBox = h('div', {}, loading('Loading the audit log…'));
  let users = [];
  let allTeams = [];
  let actorSel; // the audit filter's actor list, filled once the users are read

  put(
    ctx.root,
    h('div', { class: 'page-head' }, h('h1', {}, 'Admin'), h('p', { class: 'lead' }, 'People, teams and who belongs where; every change is in the audit log below.')),
    h('section', { class: 'panel', 'aria-labelledby': 'admin-users-title' }, h('div', { class: 'panel-head' }, h('h2', { id: 'admin-users-title', tabindex: '-1' }, 'Users')), h('div', { class: 'panel-body' }, userForm(), usersBox)),
    sessionsSlot,
    h('section', { class: 'panel', 'aria-labelledby': 'admin-teams-title' }, h('div', { class: 'panel-head' }, h('h2', { id: 'admin-teams-title', tabindex: '-1' }, 'Teams')), h('div', { class: 'panel-body' }, teamForm(), teamsBox)),
    h('section', { class: 'panel', 'aria-labelledby': 'admin-members-title' }, h('div', { class: 'panel-head' }, h('h2', { id: 'admin-members-title', tabindex: '-1' }, 'Memberships')), h('div', { class: 'panel-body' }, memberBox)),
    h('section', { class: 'panel', 'aria-labelledby': 'admin-audit-title' }, h('div', { class: 'panel-head' }, h('h2', { id: 'admin-audit-title' }, 'Audit log')), h('div', { class: 'panel-body' }, auditForm(), auditBox)),
  );

  function userForm() {
    const email = h('input', { name: 'email', type: 'email', autocomplete: 'off', placeholder: 'colleague@example.com' });
    const name = h('input', { name: 'display_name', autocomplete: 'off', maxlength: 200 });
    const password = h('input', { name: 'password', type: 'password', autocomplete: 'new-password' });
    const adminBox = h('input', { type: 'checkbox', name: 'admin' });
    const submit = h('button', { type: 'submit' }, 'Create user');
    const form = h('form', { class: 'admin-user-form', novalidate: true, 'aria-label': 'Create a user' },
      h('div', { class: 'form-error' }),
      h('div', { class: 'grid-fields' }, field('Email', email), field('Display name', name), field('Password', password, 'At least 8 characters; tell it to them another way.')),
      h('div', { class: 'field' }, h('label', { class: 'check-field' }, adminBox, 'Global admin')),
      submit);
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      clearFieldErrors(form);
      await busy(submit, async () => {
        try {
          const u = await api('/users', { method: 'POST', body: { email: email.value.trim(), password: password.value, display_name: name.value.trim() || undefined, admin: adminBox.checked || undefined } });
          toast(`User ${u.email} created`);
          form.reset();
          await loadUsers();
        } catch (err) {
          showFormError(form, err);
        }
      });
    });
    return form;
  }

  function teamForm() {
    const slug = h('input', { name: 'slug', autocomplete: 'off', placeholder: 'ml-platform', maxlength: 63 });
    const name = h('input', { name: 'name', autocomplete: 'off', placeholder: 'ML Platform', maxlength: 200 });
    const submit = h('button', { type: 'submit' }, 'Create team');
    const form = h('form', { class: 'admin-team-form', novalidate: true, 'aria-label': 'Create a team' },
      h('div', { class: 'form-error' }),
      h('div', { class: 'grid-fields' }, field('Slug', slug, 'a-z, 0-9 and -; it names the team in the API and never changes.'), field('Team name', name)),
      submit);
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      clearFieldErrors(form);
      await busy(submit, async () => {
        try {
          const t = await api('/teams', { method: 'POST', body: { slug: slug.value.trim(), name: name.value.trim() } });
          toast(`Team ${t.slug} created`);
          form.reset();
          await loadTeams();
        } catch (err) {
          showFormError(form, err);
        }
      });
    });
    return form;
  }

  async function loadUsers() {
    try {
      users = (await apiAll('/users', { signal: ctx.signal })).items || [];
    } catch (e) {
      if (e.name !== 'AbortError') clear(usersBox, failure(e, 'Users'));
      return;
    }
    const msg = h('div', {});
    const change = async (u, body, what) => {
      clear(msg);
      try {
        await api(`/users/${encodeURIComponent(u.id)}`, { method: 'PATCH', body });
        toast(what);
        await Promise.all([loadUsers(), loadAudit()]);
        document.getElementById('admin-users-title')?.focus();
      } catch (e) {
        clear(msg, errorBox(e, { context: `Could not change ${u.email}` }));
      }
    };
    const actions = (u) => {
      const self = u.id === me.id;
      const rename = h('button', { type: 'button', class: 'secondary outline small', 'aria-label': `Rename ${u.email}`, onclick: async () => {
        const v = await dialog({ title: `Rename ${u.email}`, fields: [{ name: 'display_name', label: 'Display name', value: u.display_name }], confirmLabel: 'Save' });
        if (v) await change(u, { display_name: v.display_name }, `${u.email} renamed`);
      } }, 'Rename');
      const signIns = h('button', { type: 'button', class: 'secondary outline small', 'aria-label': `Sign-ins of ${u.email}`, onclick: async () => {
        const p = sessionsPanel({ userId: u.id, email: u.email, signal: ctx.signal });
        sessionsSlot.replaceChildren(p.panel);
        await p.load();
        document.getElementById(`sessions-title-${u.id}`)?.focus();
      } }, 'Sign-ins');
      if (self) return h('span', { class: 'row-actions' }, rename, signIns);
      const toggle = u.disabled_at
        ? h('button', { type: 'button', class: 'secondary outline small', 'aria-label': `Enable ${u.email}`, onclick: () => change(u, { disabled: false }, `${u.email} enabled`) }, 'Enable')
        : h('button', { type: 'button', class: 'secondary outline danger small', 'aria-label': `Disable ${u.email}`, onclick: async () => {
            const ok = await confirmDialog({ title: `Disable ${u.email}?`, body: h('p', {}, 'They cannot sign in any more, and their sign-ins and API tokens stop working on their next request. Enabling them again restores the tokens that have not expired.'), confirmLabel: 'Disable user', danger: true });
            if (ok) await change(u, { disabled: true }, `${u.email} disabled`);
          } }, 'Disable');
      const adminBtn = h('button', { type: 'button', class: 'secondary outline small', 'aria-label': `${u.admin ? 'Take the global admin flag from' : 'Make global admin:'} ${u.email}`, onclick: () => change(u, { admin: !u.admin }, u.admin ? `${u.email} is no longer a global admin` : `${u.email} is a global admin`) }, u.admin ? 'Remove admin' : 'Make admin');
      return h('span', { class: 'row-actions' }, rename, toggle, adminBtn, signIns);
    };
    clear(usersBox, msg, users.length
      ? table([
          { label: 'User', cell: (u) => h('span', {}, h('strong', {}, u.display_name || u.email), h('div', { class: 'sub' }, u.email)) },
          { label: 'Teams', cell: (u) => (u.teams.length ? u.teams.map((t) => `${t.slug} (${t.role})`).join(', ') : h('span', { class: 'muted' }, 'none')) },
          { label: 'Global admin', cell: (u) => (u.admin ? 'yes' : 'no') },
          { label: 'State', cell: (u) => (u.disabled_at ? badge('disabled', { kind: 'token', label: `disabled ${fmtDateTime(u.disabled_at)}` }) : badge('active', { kind: 'token' })) },
          { label: 'Actions', cell: actions },
        ], users, { caption: 'Users', rowClass: (u) => `user-row${u.disabled_at ? ' is-disabled' : ''}` })
      : emptyState('No users', null));
    renderMembers();
    fillActors();
  }

  async function loadTeams() {
    try {
      allTeams = (await apiAll('/teams', { signal: ctx.signal })).items || [];
    } catch (e) {
      if (e.name !== 'AbortError') clear(teamsBox, failure(e, 'Teams'));
      return;
    }
    const msg = h('div', {});
    const rename = (t) => h('button', { type: 'button', class: 'secondary outline small', 'aria-label': `Rename team ${t.slug}`, onclick: async () => {
      const v = await dialog({ title: `Rename team ${t.slug}`, body: h('p', {}, 'The slug stays: scripts and pins keep working.'), fields: [{ name: 'name', label: 'Team name', value: t.name, required: true }], confirmLabel: 'Save' });
      if (!v) return;
      clear(msg);
      try {
        await api(`/teams/${encodeURIComponent(t.slug)}`, { method: 'PATCH', body: { name: v.name } });
        toast(`Team ${t.slug} renamed`);
        await Promise.all([loadTeams(), loadAudit()]);
      } catch (e) {
        clear(msg, errorBox(e, { context: `Could not rename ${t.slug}` }));
      }
    } }, 'Rename');
    const setDisabled = async (t, disabled) => {
      clear(msg);
      try {
        await api(`/teams/${encodeURIComponent(t.slug)}`, { method: 'PATCH', body: { disabled } });
        toast(`Team ${t.slug} ${disabled ? 'disabled' : 'enabled'}`);
        await Promise.all([loadTeams(), loadAudit()]);
        document.getElementById('admin-teams-title')?.focus();
      } catch (e) {
        clear(msg, errorBox(e, { context: `Could not ${disabled ? 'disable' : 'enable'} ${t.slug}` }));
      }
    };
    const toggle = (t) => (t.disabled_at
      ? h('button', { type: 'button', class: 'secondary outline small', 'aria-label': `Enable team ${t.slug}`, onclick: () => setDisabled(t, false) }, 'Enable')
      : h('button', { type: 'button', class: 'secondary outline danger small', 'aria-label': `Disable team ${t.slug}`, onclick: async () => {
          const ok = await confirmDialog({ title: `Disable team ${t.slug}?`, body: h('p', {}, 'Its members can still read its pins and webhooks but cannot change anything in it, and its webhooks stop sending. Nothing is deleted: enabling it again restores everything, and queued deliveries go out then.'), confirmLabel: 'Disable team', danger: true });
          if (ok) await setDisabled(t, true);
        } }, 'Disable'));
    clear(teamsBox, msg, allTeams.length
      ? table([
          { label: 'Slug', cell: (t) => h('code', {}, t.slug) },
          { label: 'Name', cell: (t) => t.name },
          { label: 'Members', cell: (t) => String(users.filter((u) => u.teams.some((x) => x.slug === t.slug)).length) },
          { label: 'Created', cell: (t) => fmtDateTime(t.created_at) },
          { label: 'State', cell: (t) => (t.disabled_at ? badge('disabled', { kind: 'token', label: `disabled ${fmtDateTime(t.disabled_at)}` }) : badge('active', { kind: 'token' })) },
          { label: 'Actions', cell: (t) => h('span', { class: 'row-actions' }, rename(t), toggle(t)) },
        ], allTeams, { caption: 'Teams', rowClass: (t) => `team-row${t.disabled_at ? ' is-disabled' : ''}` })
      : emptyState('No teams yet', 'Create the first team above, then add people to it under Memberships.'));
    renderMembers();
  }

  function renderMembers() {
    const msg = h('div', {});
    const email = h('select', { name: 'email' }, users.filter((u) => !u.disabled_at).map((u) => h('option', { value: u.email }, u.email)));
    const team = h('select', { name: 'team' }, allTeams.map((t) => h('option', { value: t.slug }, t.name ? `${t.name} (${t.slug})` : t.slug)));
    const role = h('select', { name: 'role' }, ROLES.map((r) => h('option', { value: r }, r)));
    const submit = h('button', { type: 'submit' }, 'Add to team');
    const form = h('form', { class: 'admin-member-form', novalidate: true, 'aria-label': 'Add a user to a team' },
      h('div', { class: 'form-error' }),
      h('div', { class: 'grid-fields' }, field('User', email), field('Team', team), field('Role', role, 'An existing member gets this role instead.')),
      submit);
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      clearFieldErrors(form);
      if (!email.value || !team.value) return showFormError(form, { title: 'Pick a user and a team', errors: [] });
      await busy(submit, async () => {
        try {
          await api(`/teams/${encodeURIComponent(team.value)}/members/${encodeURIComponent(email.value)}`, { method: 'PUT', body: { role: role.value } });
          toast(`${email.value} is now ${role.value} of ${team.value}`);
          await Promise.all([loadUsers(), loadAudit()]);
          document.getElementById('admin-members-title')?.focus();
        } catch (err) {
          showFormError(form, err);
        }
      });
    });
    const rows = users.flatMap((u) => u.teams.map((t) => ({ user: u, slug: t.slug, role: t.role })));
    const roleCell = (m) => {
      const sel = h('select', { 'aria-label': `Role of ${m.user.email} in ${m.slug}`, value: m.role }, ROLES.map((r) => h('option', { value: r }, r)));
      sel.addEventListener('change', async () => {
        clear(msg);
        try {
          await api(`/teams/${encodeURIComponent(m.slug)}/members/${encodeURIComponent(m.user.email)}`, { method: 'PUT', body: { role: sel.value } });
          toast(`${m.user.email} is now ${sel.value} of ${m.slug}`);
          m.role = sel.value;
          await loadAudit();
        } catch (e) {
          sel.value = m.role;
          clear(msg, errorBox(e, { context: `Could not change the role of ${m.user.email}` }));
        }
      });
      return sel;
    };
    const remove = (m) => h('button', { type: 'button', class: 'secondary outline danger small', 'aria-label': `Remove ${m.user.email} from ${m.slug}`, onclick: async () => {
      if (!(await confirmDialog({ title: `Remove ${m.user.email} from ${m.slug}?`, body: h('p', {}, 'They lose access to the team’s pins, webhooks, requests and measurements; their API tokens for the team stop working.'), confirmLabel: 'Remove member', danger: true }))) return;
      clear(msg);
      try {
        await api(`/teams/${encodeURIComponent(m.slug)}/members/${encodeURIComponent(m.user.email)}`, { method: 'DELETE' });
        toast(`${m.user.email} removed from ${m.slug}`);
        await Promise.all([loadUsers(), loadAudit()]);
        document.getElementById('admin-members-title')?.focus();
      } catch (e) {
        clear(msg, errorBox(e, { context: `Could not remove ${m.user.email}` }));
      }
    } }, 'Remove');
    clear(memberBox,
      allTeams.length ? form : h('p', { class: 'muted' }, 'Create a team first.'),
      msg,
      rows.length
        ? table([
            { label: 'Team', cell: (m) => h('code', {}, m.slug) },
            { label: 'User', cell: (m) => m.user.email },
            { label: 'Role', cell: roleCell },
            { label: 'Actions', cell: remove },
          ], rows, { caption: 'Memberships', rowClass: () => 'member-row' })
        : emptyState('Nobody is in a team yet', 'Add a user to a team with the form above.'));
  }

  // ---- audit log ------------------------------------------------------------------------------

  function fillActors() {
    if (!actorSel) return;
    const want = ctx.params.get('actor') || '';
    clear(actorSel, h('option', { value: '' }, 'Anyone'), users.map((u) => h('option', { value: String(u.id) }, u.email)));
    actorSel.value = want;
  }

  function auditForm() {
    actorSel = h('select', { name: 'actor' }, h('option', { value: '' }, 'Anyone'));
    const action = h('input', { name: 'action', autocomplete: 'off', placeholder: 'disable', value: ctx.params.get('action') || '' });
    const resource = h('input', { name: 'resource', autocomplete: 'off', placeholder: 'user', value: ctx.params.get('resource') || '' });
    const since = h('input', { name: 'since', type: 'datetime-local', value: ctx.params.get('since') || '' });
    const submit = h('button', { type: 'submit' }, 'Filter');
    const form = h('form', { class: 'admin-audit-form', novalidate: true, 'aria-label': 'Filter the audit log' },
      h('div', { class: 'form-error' }),
      h('div', { class: 'grid-fields' }, field('Actor', actorSel), field('Action', action, 'e.g. create, update, disable, set_role'), field('Resource', resource, 'e.g. user, team, membership, pin'), field('Since', since)),
      submit);
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      ctx.setParams({ actor: actorSel.value, action: action.value.trim(), resource: resource.value.trim(), since: since.value });
      await busy(submit, loadAudit);
    });
    return form;
  }

  async function loadAudit(cursor) {
    const p = ctx.params;
    const sinceLocal = p.get('since');
    const query = { actor: p.get('actor') || undefined, action: p.get('action') || undefined, resource: p.get('resource') || undefined, since: sinceLocal ? new Date(sinceLocal).toISOString() : undefined, limit: 50, cursor };
    let d;
    try {
      d = await api('/audit', { query, signal: ctx.signal });
    } catch (e) {
      if (e.name !== 'AbortError') clear(auditBox, failure(e, 'The audit log'));
      return;
    }
    const items = d.items || [];
    const detail = (a) => {
      const s = a.detail && Object.keys(a.detail).length ? JSON.stringify(a.detail) : '';
      return s ? h('code', { class: 'audit-detail' }, s.length > 160 ? `${s.slice(0, 160)}…` : s) : '—';
    };
    const t = items.length
      ? table([
          { label: 'When', cell: (a) => fmtDateTime(a.at) },
          { label: 'Actor', cell: (a) => a.actor?.email || 'system' },
          { label: 'Action', cell: (a) => h('strong', {}, a.action) },
          { label: 'Resource', cell: (a) => `${a.resource}${a.resource_id ? ` ${a.resource_id}` : ''}` },
          { label: 'Detail', cell: detail },
        ], items, { caption: 'Audit log', rowClass: () => 'audit-row' })
      : emptyState('No entries match', 'Widen the filters: another actor, no action, an earlier time.');
    const more = d.next_cursor ? h('button', { type: 'button', class: 'secondary outline', onclick: () => loadAudit(d.next_cursor) }, 'Older entries') : null;
    clear(auditBox, cursor ? h('p', { class: 'muted' }, 'Older entries:') : null, t, more);
  }

  await loadUsers();
  await Promise.all([loadTeams(), loadAudit()]);
}
