// Browser tests of administration and of the first screens of someone in no team, against the
// real imaxe-server and PostgreSQL (real-server.mjs, the catalog of seed.mjs):
// - the Admin screen creates a team and a user, adds the user to the team, disables and
//   enables a user, renames a team, and filters the audit log by actor, action and time; the
//   new user then signs in with their password and sees their team;
// - a team disabled there refuses its members' writes and reads as before, until enabled; a
//   user's sign-ins (browser and CLI) are listed and revoked by an admin, and by the user on the
//   account screen, where revoking this session signs out;
// - /docs opens with how to get a token (not the HTTP framing rules), and its rate limit agrees
//   with the README: one budget shared by every replica;
// - every screen walked as a user in no team and as a global admin in no team shows what to do
//   and never an error: no error box, no problem text, no refused request.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { startRealServer } from './real-server.mjs';
import { ADMIN } from './seed.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../package.json'));
const { chromium } = require('playwright-core');
const ROOT = path.resolve(here, '../..');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

let base, srv, browser, ids;

before(async () => {
  srv = await startRealServer({ server: process.env.IMAXE_SERVER || path.join(ROOT, 'build/imaxe-server'), logName: 'web-admin-server.log' });
  base = srv.url;
  ids = srv.data.images;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), '--disable-background-networking', '--disable-component-update', '--disable-default-apps', '--disable-sync', '--disable-dev-shm-usage', '--no-first-run'],
  });
});

after(async () => {
  await browser?.close();
  await srv?.stop();
});

/** A page that records console errors, page errors and every 4xx/5xx answer but 401. */
async function newPage() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
  const page = await context.newPage();
  page.problems = [];
  page.on('console', (m) => m.type() === 'error' && !/status of 40[01]/.test(m.text()) && page.problems.push(`console: ${m.text()}`));
  page.on('pageerror', (e) => page.problems.push(`pageerror: ${e.message}`));
  page.on('response', (r) => {
    if (r.status() >= 400 && r.status() !== 401) page.problems.push(`HTTP ${r.status()} ${r.request().method()} ${r.url()}`);
  });
  page.done = async ({ allow = [] } = {}) => {
    const ok = new RegExp(`HTTP (${allow.join('|') || 'none'}) |status of (${allow.join('|') || 'none'})`);
    assert.deepEqual(page.problems.filter((p) => !ok.test(p)), [], 'no errors and no refused requests');
    await context.close();
  };
  return page;
}

async function signIn(page, next, who) {
  await page.goto(`${base}/#/signin?next=${encodeURIComponent(next)}`);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForFunction(() => !location.hash.startsWith('#/signin'));
}

async function settle(page) {
  await page.waitForFunction(() => !document.querySelector('main [aria-busy="true"]'), null, { timeout: 10000 });
  await page.waitForTimeout(150);
}

async function call(method, p, { token, body } = {}) {
  const res = await fetch(`${base}/v1${p}`, { method, headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(body ? { 'Content-Type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function adminToken() {
  const r = await call('POST', '/auth/login', { body: ADMIN });
  assert.equal(r.status, 200);
  return r.body.access_token;
}

const NEWBIE = { email: 'newbie@imaxe.test', password: 'newbie-password-42', display_name: 'Nia Newbie' };
const LONER = { email: 'loner@imaxe.test', password: 'loner-password-42' };

describe('administration and team-less screens', () => {
  test('the admin screen creates a team and a user, adds the user, and the user signs in to it', async () => {
    const page = await newPage();
    await signIn(page, '/catalog', ADMIN);
    // The Admin link is there for a global admin.
    await page.locator('#admin-nav a').click();
    await page.getByRole('heading', { name: 'Admin', level: 1 }).waitFor();
    await settle(page);

    const teamForm = page.getByRole('form', { name: 'Create a team' });
    await teamForm.getByLabel('Slug').fill('Vision Team');
    await teamForm.getByLabel('Team name').fill('Vision');
    await teamForm.getByRole('button', { name: 'Create team' }).click();
    // The server's refusal of the slug lands on its field, and nothing is created.
    await teamForm.locator('.field-error').first().waitFor();
    assert.match(await teamForm.locator('.field-error').first().innerText(), /a-z, 0-9/);
    await teamForm.getByLabel('Slug').fill('vision');
    await teamForm.getByRole('button', { name: 'Create team' }).click();
    await page.locator('tr.team-row', { hasText: 'vision' }).waitFor();

    const userForm = page.getByRole('form', { name: 'Create a user' });
    await userForm.getByLabel('Email').fill(NEWBIE.email);
    await userForm.getByLabel('Display name').fill(NEWBIE.display_name);
    await userForm.getByLabel('Password').fill(NEWBIE.password);
    await userForm.getByRole('button', { name: 'Create user' }).click();
    await page.locator('tr.user-row', { hasText: NEWBIE.email }).waitFor();

    const memberForm = page.getByRole('form', { name: 'Add a user to a team' });
    await memberForm.getByLabel('User').selectOption(NEWBIE.email);
    await memberForm.getByLabel('Team').selectOption('vision');
    await memberForm.getByLabel('Role').selectOption('member');
    await memberForm.getByRole('button', { name: 'Add to team' }).click();
    await page.locator('tr.member-row', { hasText: NEWBIE.email }).waitFor();
    assert.match(await page.locator('tr.user-row', { hasText: NEWBIE.email }).innerText(), /vision \(member\)/);

    // Renamed, disabled and enabled: each lands in the audit log.
    await page.getByRole('button', { name: 'Rename team vision' }).click();
    await page.getByRole('dialog').getByLabel('Team name').fill('Computer Vision');
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    await page.locator('tr.team-row', { hasText: 'Computer Vision' }).waitFor();
    await page.getByRole('button', { name: `Disable ${NEWBIE.email}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Disable user' }).click();
    await page.getByRole('button', { name: `Enable ${NEWBIE.email}` }).waitFor();
    const tok = await adminToken();
    const listed = await call('GET', `/users?q=${encodeURIComponent(NEWBIE.email)}`, { token: tok });
    assert.ok(listed.body.items[0].disabled_at, 'the API agrees: disabled');
    await page.getByRole('button', { name: `Enable ${NEWBIE.email}` }).click();
    await page.getByRole('button', { name: `Disable ${NEWBIE.email}` }).waitFor();

    // The audit log, filtered by action, then by actor and a time after everything.
    const audit = page.getByRole('form', { name: 'Filter the audit log' });
    await audit.getByLabel('Action').fill('disable');
    await audit.getByRole('button', { name: 'Filter' }).click();
    await page.waitForFunction(() => [...document.querySelectorAll('tr.audit-row')].length === 1);
    assert.match(await page.locator('tr.audit-row').innerText(), /disable[\s\S]*user/);
    assert.match(page.url(), /action=disable/);
    await audit.getByLabel('Action').fill('');
    await audit.getByLabel('Resource').fill('team');
    const me = await call('GET', '/me', { token: tok });
    await audit.getByLabel('Actor').selectOption(String(me.body.id));
    await audit.getByRole('button', { name: 'Filter' }).click();
    await page.waitForFunction(() => [...document.querySelectorAll('tr.audit-row')].length >= 2 && [...document.querySelectorAll('tr.audit-row')].every((r) => /team/.test(r.textContent)));
    const rows = await page.locator('tr.audit-row').allInnerTexts();
    assert.ok(rows.some((r) => /update/.test(r) && /vision/.test(r)), 'the rename is listed');
    assert.ok(rows.some((r) => /create/.test(r) && /vision/.test(r)), 'the creation is listed');
    await audit.getByLabel('Since').fill('2999-01-01T00:00');
    await audit.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No entries match').waitFor();
    assert.equal(await page.locator('main .state-error').count(), 0);
    await page.done({ allow: [400] }); // the refused slug

    // The new user signs in with the password the admin set and sees their team.
    const newbie = await newPage();
    await signIn(newbie, '/pins', NEWBIE);
    await newbie.getByRole('heading', { name: 'Pins', level: 1 }).waitFor();
    await settle(newbie);
    assert.match(await newbie.locator('.team-line').innerText(), /Computer Vision/);
    await newbie.goto(`${base}/#/account`);
    await newbie.getByRole('heading', { name: 'Team Computer Vision' }).waitFor();
    // Not a global admin: no Admin link, and the screen says who administers.
    assert.equal(await newbie.locator('#admin-nav').isVisible(), false);
    await newbie.goto(`${base}/#/admin`);
    await newbie.getByText('Only global admins administer imaxe').waitFor();
    await newbie.done();
  });

  test('a team is disabled and enabled from the admin screen; sign-ins are listed and revoked on the account and admin screens', async () => {
    // NEWBIE (from the test above, whose browser session still lives) signs in twice more:
    // this browser, and a CLI sign-in.
    const cli = await call('POST', '/auth/login', { body: { email: NEWBIE.email, password: NEWBIE.password, refresh: true } });
    assert.equal(cli.status, 200);
    const newbie = await newPage();
    await signIn(newbie, '/account', NEWBIE);
    await newbie.getByRole('heading', { name: 'Your sign-ins' }).waitFor();
    await newbie.locator('tr.session-row').nth(2).waitFor();
    assert.equal(await newbie.locator('tr.session-row').count(), 3);
    assert.equal(await newbie.locator('tr.session-row', { hasText: 'Command line' }).count(), 1);
    assert.match(await newbie.locator('tr.session-row', { hasText: 'This session' }).innerText(), /Web browser[\s\S]*password/);

    const page = await newPage();
    await signIn(page, '/admin', ADMIN);
    await settle(page);
    // Disabled: the row says so, the team's writes are refused with the reason, reads stay.
    await page.getByRole('button', { name: 'Disable team vision' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Disable team' }).click();
    await page.getByRole('button', { name: 'Enable team vision' }).waitFor();
    assert.match(await page.locator('tr.team-row', { hasText: 'vision' }).innerText(), /Disabled/);
    const tok = await adminToken();
    const nt = (await call('POST', '/auth/login', { body: { email: NEWBIE.email, password: NEWBIE.password } })).body.access_token;
    const refused = await call('POST', '/pins', { token: nt, body: { team: 'vision', name: 'p1', image: 1 } });
    assert.equal(refused.status, 403);
    assert.match(refused.body.detail, /Team 'vision' is disabled/);
    assert.equal((await call('GET', '/teams/vision', { token: nt })).status, 200);
    await page.getByRole('button', { name: 'Enable team vision' }).click();
    await page.getByRole('button', { name: 'Disable team vision' }).waitFor();
    assert.equal((await call('GET', '/teams/vision', { token: tok })).body.disabled_at, null);
    const audit = await call('GET', '/audit?resource=team&action=disable&limit=1', { token: tok });
    assert.equal(audit.body.items[0].resource_id, 'vision');

    // The admin lists NEWBIE's sign-ins and revokes the CLI one: its refresh token stops.
    await page.getByRole('button', { name: `Sign-ins of ${NEWBIE.email}` }).click();
    await page.getByRole('heading', { name: `Sign-ins of ${NEWBIE.email}` }).waitFor();
    await page.locator('.sessions-panel tr.session-row').nth(2).waitFor();
    const cliRow = page.locator('.sessions-panel tr.session-row', { hasText: 'Command line' });
    await cliRow.getByRole('button', { name: /Revoke the command-line sign-in/ }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await page.waitForFunction(() => document.querySelectorAll('.sessions-panel tr.session-row').length === 2);
    assert.equal((await call('POST', '/auth/refresh', { body: { refresh_token: cli.body.refresh_token } })).status, 401);
    await page.done();

    // NEWBIE sees the two browser sessions left, and signs out here from the list.
    await newbie.reload();
    await newbie.getByRole('heading', { name: 'Your sign-ins' }).waitFor();
    await newbie.waitForFunction(() => document.querySelectorAll('tr.session-row').length === 2);
    assert.equal(await newbie.locator('tr.session-row', { hasText: 'Command line' }).count(), 0);
    await newbie.locator('tr.session-row', { hasText: 'This session' }).getByRole('button', { name: 'Sign out here (this browser session)' }).click();
    await newbie.getByRole('dialog').getByRole('button', { name: 'Sign out' }).click();
    await newbie.waitForFunction(() => location.hash.startsWith('#/signin'));
    await newbie.done();
  });

  test('/docs opens with how to get a token, and says the rate limit is shared by the replicas', async () => {
    const page = await newPage();
    await page.goto(`${base}/docs`);
    // Redoc renders the whole contract in the page: slow on a loaded machine.
    await page.locator('[data-section-id^="operation/"]').first().waitFor({ timeout: 120000 });
    const sections = await page.evaluate(() => [...document.querySelectorAll('[data-section-id^="section/"]')].map((e) => e.getAttribute('data-section-id')));
    assert.equal(sections[0], 'section/Getting-a-token', `the first section: ${sections.join(', ')}`);
    assert.ok(sections.indexOf('section/HTTP-details') > 0, 'framing rules come later');
    const text = await page.locator('[data-section-id="section/Errors-limits-and-paging"]').innerText();
    assert.match(text, /shared by every replica/);
    assert.doesNotMatch(await page.locator('body').innerText(), /per replica/);
    await page.done();
  });

  // Every screen, and whether it must say "not in a team" to a user in no team and to a global
  // admin in no team (who reads the whole catalog and every team's exposure and requests).
  const NO_TEAM = /not in a team yet/i;
  const SCREENS = [
    ['/catalog', true, false],
    ['/compare', true, false],
    ['/pins', true, true],
    ['/exposure', true, false],
    ['/fleet', true, true],
    ['/advisories', true, false],
    ['/costs', true, false],
    ['/requests', true, true],
    ['/requests?tab=mine', true, false],
    ['/requests?tab=queue', true, false],
    ['/webhooks', true, true],
    ['/publish', true, true],
    ['/account', true, true],
  ];
  const ERROR_TEXT = /bad request|team is required|something went wrong|forbidden|not found|could not|failed|error/i;

  async function walk(who, label, admin) {
    const page = await newPage();
    await signIn(page, '/catalog', who);
    const screens = [...SCREENS, [`/images/${ids['torch-new']}`, true, false]];
    for (const [hash, forUser, forAdmin] of screens) {
      const want = (admin ? forAdmin : forUser) ? NO_TEAM : null;
      await page.goto(`${base}/#${hash}`);
      await page.locator('main h1').first().waitFor();
      await settle(page);
      const text = await page.locator('main').innerText();
      assert.equal(await page.locator('main .state-error, main [role="alert"]').count(), 0, `${label} ${hash}: no error box:\n${text.slice(0, 600)}`);
      assert.doesNotMatch(text, ERROR_TEXT, `${label} ${hash}: no error text`);
      if (want) assert.match(text, want, `${label} ${hash}: says what to do`);
      if (want && !admin) assert.match(text, /ask a global admin/i, `${label} ${hash}: names who to ask`);
      if (want && admin) assert.ok(await page.getByRole('link', { name: 'Open Admin' }).count(), `${label} ${hash}: links to Admin`);
    }
    // No "Pin this image" for someone who has no team to pin it to.
    await page.goto(`${base}/#/images/${ids['torch-new']}`);
    await settle(page);
    assert.equal(await page.getByRole('link', { name: 'Pin this image…' }).count(), 0);
    await page.done();
  }

  test('every screen as a user in no team: what to do, never an error', async () => {
    const tok = await adminToken();
    const r = await call('POST', '/users', { token: tok, body: LONER });
    assert.equal(r.status, 201);
    await walk(LONER, 'team-less user', false);
  });

  test('every screen as a global admin in no team: what to do, never an error', async () => {
    await walk(ADMIN, 'team-less global admin', true);
  });
});
