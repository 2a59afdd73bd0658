// Browser tests of the advisory screen's CSAF import notes, against the real imaxe-server and
// PostgreSQL (real-server.mjs, the catalog of seed.mjs):
// - POST /v1/advisories:reapply re-reads every CSAF advisory whose bulletin is kept, so a global
//   admin is offered "Re-apply the product mapping" on such an advisory even when its import
//   left nothing out (NVIDIA-5811, DALI: one range, no product left out, no warning), told what
//   it does, and told what became of this advisory after every page was re-read;
// - an advisory of another source (the seeded NVIDIA-5703, published as imaxe JSON) offers none,
//   nor does any advisory to a user who is no global admin.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { startRealServer } from './real-server.mjs';
import { ADMIN, USER } from './seed.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../package.json'));
const { chromium } = require('playwright-core');
const ROOT = path.resolve(here, '../..');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const FEED = path.join(ROOT, 'tests/data/csaf/feed');

let base, srv, browser, adminToken;

before(async () => {
  srv = await startRealServer({ server: process.env.IMAXE_SERVER || path.join(ROOT, 'build/imaxe-server'), logName: 'web-advisories-server.log' });
  base = srv.url;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), '--disable-background-networking', '--disable-component-update', '--disable-default-apps', '--disable-sync', '--disable-dev-shm-usage', '--no-first-run'],
  });
  adminToken = (await call('POST', '/auth/login', { body: ADMIN })).body.access_token;
  const dali = JSON.parse(fs.readFileSync(path.join(FEED, '2026/5811/5811.json'), 'utf8'));
  const r = await call('POST', '/advisories', { token: adminToken, body: dali });
  assert.equal(r.status, 201, JSON.stringify(r.body));
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
  page.done = async () => {
    assert.deepEqual(page.problems, [], 'no errors and no refused requests');
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

async function call(method, p, { token, body } = {}) {
  const res = await fetch(`${base}/v1${p}`, { method, headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(body ? { 'Content-Type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

describe('advisories: re-apply', () => {
  test('a global admin may re-apply on a CSAF advisory whose bulletin is kept, though nothing was left out', async () => {
    const a = (await call('GET', '/advisories/NVIDIA-5811', { token: adminToken })).body;
    assert.equal(a.source, 'csaf');
    assert.equal(a.bulletin_kept, true);
    assert.deepEqual([a.unmapped, a.warnings], [[], []]);
    assert.equal((await call('GET', '/advisories/NVIDIA-5703', { token: adminToken })).body.bulletin_kept, false);

    const page = await newPage();
    await signIn(page, '/advisories/NVIDIA-5811', ADMIN);
    const notes = page.getByRole('region', { name: 'Import notes' });
    await notes.getByText(/left no product out/).waitFor();
    const button = notes.getByRole('button', { name: 'Re-apply the product mapping' });
    // what it does, as its description: every CSAF advisory, not only this one
    const what = await button.getAttribute('aria-describedby');
    assert.match(await page.locator(`#${what}`).innerText(), /every NVIDIA CSAF advisory again from the bulletin kept with it/);
    await button.click();
    await notes.getByRole('status').getByText(/Re-applied: NVIDIA-5811 unchanged \(0 advisories revised\)/).waitFor();

    // an advisory of another source: nothing to re-read, no notes at all
    await page.goto(`${base}/#/advisories/NVIDIA-5703`);
    await page.getByRole('heading', { name: /NVIDIA-5703/ }).first().waitFor();
    await page.getByRole('region', { name: 'Affected components' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Re-apply the product mapping' }).count(), 0);
    await page.done();
  });

  test('a user who is no global admin is offered no re-apply', async () => {
    const page = await newPage();
    await signIn(page, '/advisories/NVIDIA-5811', USER);
    await page.getByRole('region', { name: 'Affected components' }).waitFor();
    await page.waitForTimeout(200);
    assert.equal(await page.getByRole('button', { name: 'Re-apply the product mapping' }).count(), 0);
    assert.equal(await page.getByRole('region', { name: 'Import notes' }).count(), 0);
    await page.done();
  });
});
