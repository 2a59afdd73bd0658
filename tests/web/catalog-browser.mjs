// The set-up and helpers the catalog's browser test files share (catalog.test.mjs,
// publish.test.mjs, risk.test.mjs, team.test.mjs): each file calls useCatalogServer() once and
// gets, for its run only, a throwaway cluster, the real imaxe-server on a free port, a loopback
// webhook receiver and the catalog of seed.mjs (real-server.mjs), and a headless Debian chromium
// (playwright-core). Each file is its own process (node --test), so each has its own server and
// catalog: a file's tests may rely on what its earlier tests changed, never on another file's.
// base, srv and ids are live bindings, set once the server is up.
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { startRealServer } from './real-server.mjs';
import { USER } from './seed.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../package.json'));
const { chromium } = require('playwright-core');
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export const ROOT = path.resolve(here, '../..');
export const SHOTS = process.env.IMX_WEB_SCREENSHOTS || path.join(ROOT, 'build/web-screenshots');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const EMAIL = USER.email;
export const PASSWORD = USER.password;

/** The server's base URL, what real-server.mjs returned, and the seeded images' ids by key. */
export let base, srv, ids;
let browser;

/** Starts the seeded server and chromium before the file's tests, stops them after;
 * name tells the server's log apart (build/web-NAME-server.log). */
export function useCatalogServer(name) {
  before(async () => {
    srv = await startRealServer({ server: process.env.IMAXE_SERVER || path.join(ROOT, 'build/imaxe-server'), logName: `web-${name}-server.log` });
    base = srv.url;
    ids = srv.data.images;
    fs.mkdirSync(SHOTS, { recursive: true });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-default-apps',
        '--disable-sync',
        '--disable-dev-shm-usage',
        '--no-first-run',
        '--metrics-recording-only',
      ],
    });
  });

  after(async () => {
    await browser?.close();
    await srv?.stop();
  });
}

/** A fresh page that records console errors, page errors and CSP violations. */
export async function newPage({ width = 1280, height = 900, colorScheme = 'light' } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, colorScheme, reducedMotion: 'reduce' });
  const page = await context.newPage();
  page.problems = [];
  page.on('console', (m) => m.type() === 'error' && page.problems.push(`console: ${m.text()}`));
  page.on('pageerror', (e) => page.problems.push(`pageerror: ${e.message}`));
  page.on('response', (r) => {
    if (r.status() >= 500) page.problems.push(`HTTP ${r.status()} ${r.url()}`);
  });
  page.done = async ({ allow = [] } = {}) => {
    // 400 from validation tests, 401 before sign-in and for a refused token are expected; a
    // test of a refusal allows its 403 or 404.
    const ok = new RegExp(`Failed to load resource: the server responded with a status of (${[400, 401, ...allow].join('|')})`);
    assert.deepEqual(page.problems.filter((p) => !ok.test(p)), [], 'no console errors');
    await context.close();
  };
  return page;
}

export async function signIn(page, next = '', who = { email: EMAIL, password: PASSWORD }) {
  await page.goto(`${base}/#/signin${next ? `?next=${encodeURIComponent(next)}` : ''}`);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForFunction(() => document.cookie.includes('imaxe_csrf=') && !location.hash.startsWith('#/signin'));
}

/** The page's session as request headers for Node's fetch: its cookies, and the CSRF token a
 * write made with them needs. */
export async function sessionHeaders(page) {
  const cookies = await page.context().cookies(base);
  const csrf = cookies.find((c) => c.name === 'imaxe_csrf')?.value || '';
  return { Cookie: cookies.map((c) => `${c.name}=${c.value}`).join('; '), 'X-CSRF-Token': csrf };
}

export async function settle(page) {
  await page.waitForFunction(() => !document.querySelector('main [aria-busy="true"]'), null, { timeout: 10000 });
  await page.waitForTimeout(120);
}

/** Runs axe-core in the page; fails on serious or critical violations. */
export async function axeCheck(page, label) {
  await page.evaluate(AXE); // evaluated through the devtools protocol, so the page CSP allows it
  const res = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  const bad = res.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const text = bad.map((v) => `${v.impact} ${v.id}: ${v.help}\n    ${v.nodes.slice(0, 4).map((n) => n.target.join(' ')).join('\n    ')}`).join('\n');
  assert.equal(bad.length, 0, `axe on ${label}:\n${text}`);
}

/** GET/POST /v1... with the page's token: what the server says, beside what the UI shows. */
export async function apiAs(page, method, p, body) {
  const res = await fetch(`${base}/v1${p}`, { method, headers: { ...(await sessionHeaders(page)), ...(body ? { 'Content-Type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  const text = await res.text();
  return { status: res.status, body: text && /json/.test(res.headers.get('content-type') || '') ? JSON.parse(text) : text };
}

/** Presses Tab and checks where focus lands (by the control's name or accessible label). */
export async function tabTo(page, name) {
  await page.keyboard.press('Tab');
  const at = await page.evaluate(() => {
    const e = document.activeElement;
    return e?.name || e?.getAttribute('aria-label') || e?.textContent?.trim() || e?.tagName;
  });
  assert.equal(at, name, `Tab reaches ${name}`);
}

/** The text of a download the page starts with click(). */
export async function downloadText(page, click) {
  const [dl] = await Promise.all([page.waitForEvent('download'), click()]);
  return { name: dl.suggestedFilename(), text: fs.readFileSync(await dl.path(), 'utf8') };
}

/** The error shown next to the control labelled label, within scope (a page or a locator). */
export const fieldError = (scope, label) => scope.locator('.field', { has: (scope.page ? scope.page() : scope).getByLabel(label, { exact: true }) }).locator('.field-error');

/** The ids of the catalog table's rows, in order. */
export const rowIds = (page) => page.locator('.results-table tbody tr').evaluateAll((trs) => trs.map((t) => t.dataset.id));
