// `imaxe login --sso` against a REAL OpenID provider (the certified npm oidc-provider with its
// deviceFlow feature, oidc-provider.mjs) and the real imaxe-server and imaxe command: the CLI
// prints the provider's verification URI and user code and polls; a person completes the
// provider's own pages in headless Chromium (confirm the code, sign in, consent); the CLI then
// holds an access token and a refresh token for the user the `groups` claim put in the mapped
// team. Also: a poll that comes before the interval is answered slow_down with 5 s more, an
// abort at the provider ends the CLI's sign-in as refused, and device ids are single use.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { startRealServer, ROOT } from './real-server.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../package.json'));
const { chromium } = require('playwright-core');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const CLI = path.join(ROOT, 'build/imaxe');

let base, srv, browser, provider, provPort, tmp;

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'imaxe-device-'));
  const port = await freePort();
  provPort = await freePort();
  const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPath = path.join(tmp, 'rsa.json');
  fs.writeFileSync(keyPath, JSON.stringify({ ...privateKey.export({ format: 'jwk' }), kid: 'rsa-d', use: 'sig', alg: 'RS256' }));
  const redirect = `http://127.0.0.1:${port}/v1/auth/oidc/callback`;
  provider = await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(here, 'oidc-provider.mjs'), String(provPort), redirect, keyPath], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the provider did not start: ${out}`)), 20000);
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('ready')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.stderr.on('data', (d) => (out += d));
  });
  srv = await startRealServer({
    seedCatalog: false,
    logName: 'web-oidc-device-server.log',
    env: {
      IMAXE_PORT: String(port),
      IMAXE_OIDC_ISSUER: `http://127.0.0.1:${provPort}`,
      IMAXE_OIDC_CLIENT_ID: 'imaxe',
      IMAXE_OIDC_CLIENT_SECRET: 'imaxe-test-client-secret',
      IMAXE_OIDC_REDIRECT_URL: redirect,
      IMAXE_OIDC_SCOPES: 'openid email profile groups',
      IMAXE_OIDC_GROUP_MAP: 'ml-engineers=ml-platform:member, imaxe-admins=ml-platform:admin',
    },
  });
  base = srv.url;
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--disable-dev-shm-usage', '--no-first-run'] });
});

after(async () => {
  await browser?.close();
  await srv?.stop();
  if (provider && provider.exitCode === null) {
    const exited = new Promise((r) => provider.once('exit', r));
    provider.kill('SIGTERM');
    await exited;
  }
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** Starts `imaxe login --sso` with its own config directory; resolves { child, done, uri, code,
 * complete } once it has printed where to go. done resolves { status, stderr } at its exit. */
function startCli(home) {
  const child = spawn(CLI, ['--url', base, 'login', '--sso'], { env: { ...process.env, XDG_CONFIG_HOME: home, HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  const done = new Promise((resolve) => child.on('exit', (status) => resolve({ status, stderr: err })));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the CLI printed no code: ${err}`)), 20000);
    child.stderr.on('data', (d) => {
      err += d;
      const uri = err.match(/open (\S+)\nand enter the code: (\S+)\n/);
      const complete = err.match(/\(or open (\S+)\)/);
      if (uri && complete) {
        clearTimeout(timer);
        resolve({ child, done, uri: uri[1], code: uri[2], complete: complete[1] });
      }
    });
  });
}

/** A person at the provider's pages: confirm the code (or abort), sign in as login, consent. */
async function personSignsIn(url, login, { abort = false } = {}) {
  const context = await browser.newContext();
  // The provider's stock pages import a web font; the tests have no network to fetch it.
  await context.route(/^https?:\/\/(?!127\.0\.0\.1)/, (r) => r.abort());
  const page = await context.newPage();
  await page.goto(url);
  if (abort) {
    await page.getByRole('button', { name: '[ Abort ]' }).click();
    await page.waitForLoadState();
    await context.close();
    return;
  }
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any-password');
  await page.locator('button[type="submit"]').click();
  const consent = page.getByRole('button', { name: 'Continue' });
  await consent.waitFor({ timeout: 15000 });
  await consent.click();
  await page.getByText('Sign-in Success').waitFor({ timeout: 15000 });
  await context.close();
}

const cliJson = (home, ...args) => JSON.parse(execFileSync(CLI, [...args, '-o', 'json'], { env: { ...process.env, XDG_CONFIG_HOME: home, HOME: home } }).toString());

describe('imaxe login --sso (device authorization grant)', () => {
  test('the CLI shows the code, the person signs in at the provider, the CLI holds tokens for the mapped user', async () => {
    const home = fs.mkdtempSync(path.join(tmp, 'cli-'));
    const cli = await startCli(home);
    assert.match(cli.uri, new RegExp(`^http://127\\.0\\.0\\.1:${provPort}/`), 'the provider\'s own verification page');
    assert.ok(cli.complete.includes(encodeURIComponent(cli.code)) || cli.complete.includes(cli.code));
    await personSignsIn(cli.complete, 'ana');
    const { status, stderr } = await cli.done;
    assert.equal(status, 0, stderr);
    assert.match(stderr, /signed in to/);
    const stored = JSON.parse(fs.readFileSync(path.join(home, 'imaxe/config.json'), 'utf8'));
    assert.ok(stored.token && stored.refresh_token, 'an access token and a refresh token are kept');
    assert.match(stored.refresh_token, /^imxr_/);
    const me = cliJson(home, 'api', 'GET', '/v1/me');
    assert.equal(me.email, 'ana@corp.test');
    assert.equal((me.teams || []).find((t) => t.slug === 'ml-platform')?.role, 'member', 'the groups claim mapped');
    // The refresh token is a CLI sign-in of the user's, listed with their sessions.
    const sessions = cliJson(home, 'api', 'GET', '/v1/sessions');
    assert.ok((sessions.items || []).some((s) => s.kind === 'cli' && s.via === 'oidc'), JSON.stringify(sessions));
    const log = fs.readFileSync(path.join(ROOT, 'build/web-oidc-device-server.log'), 'utf8');
    assert.match(log, /oidc-device sign-in of ana@corp\.test/);
  });

  test('a poll before the interval is slow_down with 5 s more; a device id is spent once ended', async () => {
    const start = await fetch(`${base}/v1/auth/oidc/device`, { method: 'POST' });
    assert.equal(start.status, 200);
    assert.equal(start.headers.get('cache-control'), 'no-store');
    const d = await start.json();
    assert.match(d.device_id, /^imxd_/);
    assert.ok(d.user_code && d.verification_uri && d.expires_in > 0 && d.interval >= 1);
    assert.equal(d.device_code, undefined, 'the provider\'s device code stays on the server');
    const poll = () => fetch(`${base}/v1/auth/oidc/device/token`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ device_id: d.device_id }) });
    let r = await poll();
    assert.equal(r.status, 202);
    let w = await r.json();
    assert.deepEqual(w, { status: 'slow_down', interval: d.interval + 5 });
    r = await poll();
    w = await r.json();
    assert.deepEqual(w, { status: 'slow_down', interval: d.interval + 10 }, 'each early poll adds 5 s');
    // Refused at the provider: the next due poll ends it (403), and the id is spent.
    await personSignsIn(d.verification_uri_complete, null, { abort: true });
    await new Promise((res) => setTimeout(res, (d.interval + 10) * 1000 + 200));
    r = await poll();
    assert.equal(r.status, 403, await r.clone().text());
    assert.match((await r.json()).detail, /refused at the identity provider/);
    r = await poll();
    assert.equal(r.status, 400);
    assert.match((await r.json()).detail, /unknown, finished or expired/);
    // Bad input changes nothing.
    const bad = await fetch(`${base}/v1/auth/oidc/device/token`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"device_id":"nope"}' });
    assert.equal(bad.status, 400);
  });

  test('an abort at the provider ends the CLI\'s sign-in as refused', async () => {
    const home = fs.mkdtempSync(path.join(tmp, 'cli-'));
    const cli = await startCli(home);
    await personSignsIn(cli.complete, null, { abort: true });
    const { status, stderr } = await cli.done;
    assert.equal(status, 3, stderr);
    assert.match(stderr, /refused at the identity provider/);
    assert.equal(fs.existsSync(path.join(home, 'imaxe/config.json')), false, 'nothing stored');
  });
});
