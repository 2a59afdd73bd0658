// Sign-ins that last, as a panel: the web sessions (browser cookies) and CLI sign-ins (refresh
// tokens) of the signed-in user (GET /v1/sessions, on the account screen) or, for a global admin,
// of any user (GET /v1/users/{id}/sessions, on the admin screen), each with Revoke (DELETE
// /v1/sessions/{id}); an admin also revokes all of a user's at once (DELETE
// /v1/users/{id}/sessions). Revoking the session this page runs on signs out here.
import { api } from './api.js';
import { h, clear, badge, fmtDateTime, loading, failure, emptyState, errorBox, table, confirmDialog, toast } from './ui.js';

const what = (s) => (s.kind === 'cli' ? 'Command line (imaxe login)' : 'Web browser');
const how = (s) => (s.via === 'oidc' ? 'single sign-on' : 'password');

/** A panel listing the sessions of userId (null: the caller's own). signal aborts its loads. */
export function sessionsPanel({ userId = null, email = null, signal } = {}) {
  const titleId = userId ? `sessions-title-${userId}` : 'sessions-title';
  const box = h('div', {}, loading('Loading sign-ins…'));
  const msg = h('div', {});
  const panel = h('section', { class: 'panel sessions-panel', 'aria-labelledby': titleId },
    h('div', { class: 'panel-head' }, h('h2', { id: titleId, tabindex: '-1' }, userId ? `Sign-ins of ${email || `user ${userId}`}` : 'Your sign-ins')),
    h('div', { class: 'panel-body' },
      h('p', { class: 'muted' }, userId
        ? 'Their browser sessions and command-line sign-ins. Revoking one signs them out there on its next request; their API tokens are not affected.'
        : 'Browsers and terminals where you are signed in. Revoke one you do not recognise, or no longer use; API tokens are listed above.'),
      msg, box));
  const path = userId ? `/users/${encodeURIComponent(userId)}/sessions` : '/sessions';

  async function revoke(s) {
    const self = s.current && !userId;
    const ok = await confirmDialog({
      title: self ? 'Sign out here?' : `Revoke this ${s.kind === 'cli' ? 'command-line sign-in' : 'browser session'}?`,
      body: h('p', {}, self ? 'This is the session this page uses: you will be signed out and taken to the sign-in page.' : `Started ${fmtDateTime(s.created_at)}${s.user_agent ? ` from ${s.user_agent}` : ''}. It stops working on its next request.`),
      confirmLabel: self ? 'Sign out' : 'Revoke',
      danger: true,
    });
    if (!ok) return;
    clear(msg);
    try {
      await api(`/sessions/${encodeURIComponent(s.id)}`, { method: 'DELETE' });
      if (self) {
        location.assign('/#/signin');
        return;
      }
      toast('Sign-in revoked');
      await load();
      document.getElementById(titleId)?.focus();
    } catch (e) {
      clear(msg, errorBox(e, { context: 'Could not revoke the sign-in' }));
    }
  }

  async function revokeAll() {
    const ok = await confirmDialog({ title: `Revoke every sign-in of ${email || `user ${userId}`}?`, body: h('p', {}, 'Every browser session and command-line sign-in of theirs stops working on its next request. Their API tokens stay.'), confirmLabel: 'Revoke all', danger: true });
    if (!ok) return;
    clear(msg);
    try {
      const r = await api(`/users/${encodeURIComponent(userId)}/sessions`, { method: 'DELETE' });
      toast(`${r.revoked} sign-in${r.revoked === 1 ? '' : 's'} revoked`);
      await load();
    } catch (e) {
      clear(msg, errorBox(e, { context: 'Could not revoke the sign-ins' }));
    }
  }

  async function load() {
    let d;
    try {
      d = await api(path, { signal });
    } catch (e) {
      if (e.name !== 'AbortError') clear(box, failure(e, 'Sign-ins'));
      return;
    }
    const items = d.items || [];
    clear(box,
      items.length
        ? table([
            { label: 'Where', cell: (s) => h('span', {}, h('strong', {}, what(s)), s.current ? [' ', badge('this session', { kind: 'token' })] : null, h('div', { class: 'sub' }, s.user_agent || 'unknown client')) },
            { label: 'Signed in with', cell: how },
            { label: 'Since', cell: (s) => fmtDateTime(s.created_at) },
            { label: 'Last used', cell: (s) => fmtDateTime(s.last_seen_at) },
            { label: 'Ends if unused', cell: (s) => fmtDateTime(s.expires_at) },
            { label: 'Actions', cell: (s) => h('button', { type: 'button', class: 'secondary outline danger small', 'aria-label': s.current && !userId ? 'Sign out here (this browser session)' : `Revoke the ${s.kind === 'cli' ? 'command-line sign-in' : 'browser session'} ${s.id}`, onclick: () => revoke(s) }, s.current && !userId ? 'Sign out' : 'Revoke') },
          ], items, { caption: userId ? `Sign-ins of ${email || userId}` : 'Your sign-ins', rowClass: () => 'session-row' })
        : emptyState('No live sign-ins', userId ? 'They are not signed in anywhere.' : null),
      userId && items.length ? h('button', { type: 'button', class: 'secondary outline danger', onclick: revokeAll }, 'Revoke all') : null);
  }

  return { panel, load };
}
