// The imaxe web catalog: a hash router (#/path?query) whose URL holds every screen's state,
// so any view can be bookmarked and shared. Screens live in screens/<name>.js and export
// render(ctx).
import { api, session, setUnauthorizedHandler } from './api.js';
import { h, clear, errorBox, loading, noTeamState } from './ui.js';
import { user, tray, MAX_COMPARE } from './state.js';

const routes = [
  { re: /^\/signin$/, mod: 'signin', nav: null, public: true },
  { re: /^\/catalog$/, mod: 'catalog', nav: 'catalog' },
  { re: /^\/images\/([^/]+)$/, mod: 'image', nav: 'catalog', args: ['id'] },
  { re: /^\/compare$/, mod: 'compare', nav: 'compare' },
  { re: /^\/pins$/, mod: 'pins', nav: 'pins' },
  { re: /^\/advisories$/, mod: 'advisories', nav: 'advisories' },
  { re: /^\/advisories\/([^/]+)$/, mod: 'advisories', nav: 'advisories', args: ['id'] },
  { re: /^\/costs$/, mod: 'costs', nav: 'costs' },
  { re: /^\/requests$/, mod: 'requests', nav: 'requests' },
  { re: /^\/webhooks$/, mod: 'webhooks', nav: 'webhooks' },
  { re: /^\/exposure$/, mod: 'exposure', nav: 'exposure' },
  { re: /^\/fleet$/, mod: 'fleet', nav: 'fleet' },
  { re: /^\/publish$/, mod: 'publish', nav: 'catalog' },
  { re: /^\/account$/, mod: 'account', nav: 'account' },
  { re: /^\/admin$/, mod: 'admin', nav: 'admin' },
];

// Someone in no team reads nothing but their account: the server refuses every catalog read too
// (the viewer role in some team is the least). Each screen then says so and what to do, instead
// of its first refused request. Global admins read everything and get each screen's own state.
const TEAMLESS = {
  catalog: ['Catalog', 'imaxe shows its catalog to the members of a team.'],
  image: ['Image', 'imaxe shows its catalog to the members of a team.'],
  compare: ['Compare', 'imaxe shows its catalog to the members of a team.'],
  advisories: ['Advisories', 'Advisories and the images they hit are shown to the members of a team.'],
  costs: ['Costs', 'Costs come from the measurements of teams.'],
  exposure: ['Exposure', 'Exposure shows the pins of your teams.'],
  fleet: ['Fleet', 'Nodes report to a team.'],
  pins: ['Pins', 'Pins belong to a team.'],
  requests: ['Image requests', 'Image requests are filed by a team.'],
  webhooks: ['Webhooks', 'Webhooks belong to a team.'],
  publish: ['Publish an image', 'Images are published by a team.'],
};

const main = document.getElementById('main');
let current = null; // {controller}
let firstRender = true;
let shown = null; // the hash last rendered (hashchange and popstate both fire on a hash change)

/** Splits location.hash into a path and its query parameters. */
function parseHash() {
  const raw = location.hash.replace(/^#/, '') || '/catalog';
  const i = raw.indexOf('?');
  const path = i < 0 ? raw : raw.slice(0, i);
  return { path: path || '/catalog', params: new URLSearchParams(i < 0 ? '' : raw.slice(i + 1)) };
}

export function hrefFor(path, params) {
  const qs = params ? new URLSearchParams(params).toString() : '';
  return `#${path}${qs ? `?${qs}` : ''}`;
}

export function navigate(path, params) {
  location.hash = hrefFor(path, params);
}

function signInRedirect() {
  const { path } = parseHash();
  if (path === '/signin') return render({ force: true });
  const next = location.hash.replace(/^#/, '') || '/catalog';
  location.replace(hrefFor('/signin', { next }));
}

setUnauthorizedHandler(() => {
  user.me = null;
  updateUserMenu();
  signInRedirect();
});

function updateUserMenu() {
  const menu = document.getElementById('user-menu');
  const me = user.me;
  menu.hidden = !session.token;
  document.getElementById('user-name').textContent = me ? me.display_name || me.email : '';
  // The admin screen is for global admins; the server refuses everyone else anyway.
  document.getElementById('admin-nav').hidden = !me?.admin;
}

function updateNav(key) {
  document.querySelectorAll('[data-nav]').forEach((a) => {
    if (a.dataset.nav === key) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  });
  document.body.classList.toggle('signed-out', !session.token);
}

async function loadMe(signal) {
  if (user.me || !session.token) return;
  try {
    user.me = await api('/me', { signal });
  } catch (e) {
    // A server without /v1/me yet still lets the catalog work.
    if (e.name === 'AbortError' || e.status === 401) throw e;
    user.me = null;
  }
}

async function render({ force = false } = {}) {
  if (!force && location.hash === shown) return;
  shown = location.hash;
  const { path, params } = parseHash();
  const route = routes.find((r) => r.re.test(path));
  current?.controller.abort();
  const controller = new AbortController();
  current = { controller };
  closeNav();
  if (!route) {
    updateNav(null);
    clear(main, h('h1', { tabindex: '-1' }, 'Page not found'), h('p', {}, 'There is nothing at ', h('code', {}, path), '. ', h('a', { href: '#/catalog' }, 'Back to the catalog'), '.'));
    return;
  }
  if (!route.public && !session.token) {
    signInRedirect();
    return;
  }
  updateNav(route.nav);
  const args = {};
  const m = path.match(route.re);
  (route.args || []).forEach((name, i) => (args[name] = decodeURIComponent(m[i + 1])));
  clear(main, loading());
  try {
    if (!route.public) await loadMe(controller.signal);
    updateUserMenu();
    const me = user.me;
    if (!route.public && me && !me.admin && !(me.teams || []).length && TEAMLESS[route.mod]) {
      const [title, what] = TEAMLESS[route.mod];
      document.title = `${title} · imaxe`;
      clear(main, h('div', { class: 'page-head' }, h('h1', {}, title)), noTeamState(what));
      firstRender = false;
      return;
    }
    const mod = await import(`./screens/${route.mod}.js`);
    if (controller.signal.aborted) return;
    main.replaceChildren();
    const ctx = {
      root: main,
      path,
      params,
      args,
      signal: controller.signal,
      me: user.me,
      navigate,
      hrefFor,
      /** Rewrites the query of the current URL without re-rendering (the screen updates itself). */
      setParams(next, { push = false } = {}) {
        const clean = new URLSearchParams();
        for (const [k, v] of next instanceof URLSearchParams ? next : new URLSearchParams(next)) if (v !== '') clean.append(k, v);
        const url = hrefFor(path, clean);
        if (url === location.hash) return;
        history[push ? 'pushState' : 'replaceState'](null, '', url);
        shown = location.hash;
        ctx.params = clean;
      },
      title(t) {
        document.title = t ? `${t} · imaxe` : 'imaxe';
      },
    };
    await mod.render(ctx);
    if (!firstRender) {
      const h1 = main.querySelector('h1');
      if (h1) {
        h1.setAttribute('tabindex', '-1');
        h1.focus({ preventScroll: true });
      }
      window.scrollTo(0, 0);
    }
    firstRender = false;
  } catch (e) {
    if (e.name === 'AbortError' || controller.signal.aborted) return;
    if (e.status === 401) return;
    console.warn('screen failed', e);
    clear(main, h('h1', {}, 'Something went wrong'), errorBox(e));
  }
}

// ---- header: mobile menu, sign out, skip link ----------------------------------------------

const navToggle = document.getElementById('nav-toggle');
const siteNav = document.getElementById('site-nav');
function closeNav() {
  navToggle.setAttribute('aria-expanded', 'false');
  siteNav.classList.remove('open');
}
navToggle.addEventListener('click', () => {
  const open = navToggle.getAttribute('aria-expanded') !== 'true';
  navToggle.setAttribute('aria-expanded', String(open));
  siteNav.classList.toggle('open', open);
});
document.addEventListener('keydown', (e) => {
  if (e.key === 'Escape' && siteNav.classList.contains('open')) {
    closeNav();
    navToggle.focus();
  }
});
document.getElementById('sign-out').addEventListener('click', async () => {
  // The server ends the session (for every tab) and clears its cookies; a failure (already
  // ended, server unreachable) still signs this browser out.
  await api('/auth/session', { method: 'DELETE', auth: false }).catch(() => {});
  session.clear();
  user.me = null;
  tray.clear();
  updateUserMenu();
  navigate('/signin', { signed_out: '1' });
});
document.getElementById('skip-link').addEventListener('click', (e) => {
  e.preventDefault();
  (main.querySelector('h1') || main).focus();
});

// ---- compare tray --------------------------------------------------------------------------

// The tray is open on the screens where images are picked (catalog, image page) unless the user
// hid it; elsewhere it is a small "Compare N" button, so it never sits over a form or a table.
// The page keeps room below its content for whatever the tray takes (--tray-space), so the last
// row or button can always be scrolled clear of it.
const TRAY_OPEN_ON = new Set(['/catalog']);
const trayHidden = {
  get: () => sessionStorage.getItem('imaxe.tray.hidden') === '1',
  set: (v) => (v ? sessionStorage.setItem('imaxe.tray.hidden', '1') : sessionStorage.removeItem('imaxe.tray.hidden')),
};
const trayEl = document.getElementById('compare-tray');
new ResizeObserver(() => document.documentElement.style.setProperty('--tray-space', `${trayEl.hidden ? 0 : trayEl.offsetHeight}px`)).observe(trayEl);

function renderTray(items = tray.items()) {
  const el = trayEl;
  const { path } = parseHash();
  el.hidden = items.length === 0 || path === '/compare' || !session.token;
  document.documentElement.style.setProperty('--tray-space', `${el.hidden ? 0 : el.offsetHeight}px`);
  if (el.hidden) return;
  const ids = items.map((x) => x.id).join(',');
  const open = !trayHidden.get() && (TRAY_OPEN_ON.has(path) || path.startsWith('/images/'));
  el.classList.toggle('is-collapsed', !open);
  const toggle = (v) => {
    const had = el.contains(document.activeElement);
    trayHidden.set(!v);
    renderTray();
    if (had) el.querySelector('.tray-toggle')?.focus();
  };
  if (!open) {
    clear(
      el,
      h('button', { type: 'button', class: 'tray-toggle secondary', 'aria-expanded': 'false', 'aria-label': `Show the comparison tray: ${items.length} image${items.length === 1 ? '' : 's'} picked`, onclick: () => toggle(true) }, `Compare ${items.length}`, h('span', { 'aria-hidden': 'true' }, ' ▴')),
      items.length >= 2 ? h('a', { href: hrefFor('/compare', { ids }), class: 'btn-link tray-go' }, 'Compare') : null,
    );
  } else {
    clear(
      el,
      h('span', { class: 'tray-label' }, `Compare ${items.length}/${MAX_COMPARE}:`),
      h('ul', { class: 'tray-items' }, items.map((x) => h('li', {}, h('span', {}, `${x.family} ${x.version}`), h('button', { type: 'button', class: 'tray-remove', 'aria-label': `Remove ${x.family} ${x.version} from comparison`, onclick: () => tray.remove(x.id) }, '×')))),
      h('div', { class: 'tray-actions' },
        items.length >= 2 ? h('a', { href: hrefFor('/compare', { ids }), class: 'btn-link tray-go' }, `Compare ${items.length} images`) : h('span', { class: 'tray-hint' }, 'Pick one more image'),
        h('button', { type: 'button', class: 'secondary outline', onclick: () => tray.clear() }, 'Clear'),
        h('button', { type: 'button', class: 'secondary outline tray-toggle', 'aria-expanded': 'true', 'aria-label': 'Hide the comparison tray', onclick: () => toggle(false) }, 'Hide')),
    );
  }
  document.documentElement.style.setProperty('--tray-space', `${el.offsetHeight}px`);
}
tray.subscribe(renderTray);

window.addEventListener('hashchange', () => {
  render();
  renderTray();
});
window.addEventListener('popstate', () => {
  render();
  renderTray();
});
render();
renderTray();
