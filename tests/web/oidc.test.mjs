// Single sign-on in the browser against a REAL OpenID provider (the certified npm oidc-provider,
// started here on 127.0.0.1: oidc-provider.mjs) and the real imaxe-server: the round trip from
// the sign-in screen through the provider's login page back into the web UI, users provisioned
// on first sign-in with the teams and roles their `groups` claim maps to, a replayed `state`
// refused, and a provider restarted with a new signing key (RS256 -> ES256) still signing in.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { startRealServer } from './real-server.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../package.json'));
const { chromium } = require('playwright-core');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

let base, srv, browser, provider, provPort, redirect, tmp;

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/** A private signing JWK of kty ('RSA' or 'EC') named kid, written to a file; returns the path. */
function keyFile(kty, kid) {
  const { privateKey } = kty === 'EC' ? crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }) : crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid, use: 'sig', alg: kty === 'EC' ? 'ES256' : 'RS256' };
  const file = path.join(tmp, `${kid}.json`);
  fs.writeFileSync(file, JSON.stringify(jwk));
  return file;
}

/** Starts the provider signing with key; resolves when it listens. */
function startProvider(key) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(here, 'oidc-provider.mjs'), String(provPort), redirect, key], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the provider did not start: ${out}`)), 20000);
    const onData = (d) => {
      out += d;
      if (out.includes('ready')) {
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the provider exited (${code}): ${out}`));
    });
  });
}

async function stopProvider() {
  if (!provider || provider.exitCode !== null) return;
  const exited = new Promise((r) => provider.once('exit', r));
  provider.kill('SIGTERM');
  await exited;
}

before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'imaxe-oidc-'));
  const port = await freePort();
  provPort = await freePort();
  redirect = `http://127.0.0.1:${port}/v1/auth/oidc/callback`;
  provider = await startProvider(keyFile('RSA', 'rsa-1'));
  srv = await startRealServer({
    seedCatalog: false,
    logName: 'web-oidc-server.log',
    env: {
      IMAXE_PORT: String(port),
      IMAXE_OIDC_ISSUER: `http://127.0.0.1:${provPort}`,
      IMAXE_OIDC_CLIENT_ID: 'imaxe',
      IMAXE_OIDC_CLIENT_SECRET: 'imaxe-test-client-secret',
      IMAXE_OIDC_REDIRECT_URL: redirect,
      IMAXE_OIDC_SCOPES: 'openid email profile groups',
      IMAXE_OIDC_NAME: 'Corp SSO',
      IMAXE_OIDC_GROUP_MAP: 'ml-engineers=ml-platform:member, imaxe-admins=ml-platform:admin, imaxe-admins=platform-ops:publisher',
    },
  });
  base = srv.url;
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--disable-dev-shm-usage', '--no-first-run'] });
});

after(async () => {
  await browser?.close();
  await srv?.stop();
  await stopProvider();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** Signs in as login through the provider from imaxe's sign-in screen in a fresh browser
 * context. Resolves { page, callback } (the callback URL the provider sent the browser to). */
async function ssoSignIn(login, next = '/pins') {
  const context = await browser.newContext();
  // The provider's stock login page imports a web font; the tests have no network to fetch it.
  await context.route(/^https?:\/\/(?!127\.0\.0\.1)/, (r) => r.abort());
  const page = await context.newPage();
  let callback = null;
  page.on('request', (r) => {
    if (r.url().includes('/v1/auth/oidc/callback')) callback = r.url();
  });
  await page.goto(`${base}/#/signin?next=${encodeURIComponent(next)}`);
  await page.getByRole('link', { name: 'Sign in with Corp SSO' }).click();
  await page.waitForURL(new RegExp(`^http://127\\.0\\.0\\.1:${provPort}/`), { waitUntil: 'commit' });
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any-password');
  await page.locator('button[type="submit"]').click();
  // The provider asks once for consent to share the claims.
  const consent = page.getByRole('button', { name: 'Continue' });
  await Promise.race([consent.waitFor({ timeout: 15000 }).then(() => consent.click()), page.waitForURL(`${base}/**`, { timeout: 15000 })]);
  await page.waitForURL(`${base}/#${next}`, { timeout: 15000, waitUntil: 'commit' });
  return { page, callback };
}

/** GET /v1/me with the page's session cookie. */
async function me(page) {
  const cookies = await page.context().cookies(base);
  const res = await fetch(`${base}/v1/me`, { headers: { Cookie: cookies.map((c) => `${c.name}=${c.value}`).join('; ') } });
  assert.equal(res.status, 200, 'signed in');
  return res.json();
}

const roleIn = (doc, slug) => (doc.teams || []).find((t) => t.slug === slug)?.role || null;

describe('single sign-on', () => {
  test('the groups claim lands a new user in the mapped team and role; a second sign-in is the same user', async () => {
    const { page, callback } = await ssoSignIn('ana');
    assert.ok(callback, 'the provider sent the browser back to the callback');
    const doc = await me(page);
    assert.equal(doc.email, 'ana@corp.test');
    assert.equal(doc.admin, false);
    assert.equal(roleIn(doc, 'ml-platform'), 'member');
    assert.equal(roleIn(doc, 'platform-ops'), null);
    const cookies = await page.context().cookies(base);
    const sess = cookies.find((c) => c.name === 'imaxe_session');
    assert.ok(sess && sess.httpOnly && sess.sameSite === 'Lax', 'the web session cookie');
    assert.ok(!cookies.some((c) => c.name === 'imaxe_oidc'), 'the sign-in cookie is cleared');
    await page.context().close();

    const again = await ssoSignIn('ana', '/webhooks');
    assert.equal((await me(again.page)).id, doc.id, 'the same user');
    await again.page.context().close();

    const bo = await ssoSignIn('bo');
    const bdoc = await me(bo.page);
    assert.equal(roleIn(bdoc, 'ml-platform'), 'admin', 'the highest role among the groups');
    assert.equal(roleIn(bdoc, 'platform-ops'), 'publisher', 'a mapped team is created');
    await bo.page.context().close();

    const cy = await ssoSignIn('cy');
    assert.deepEqual((await me(cy.page)).teams || [], [], 'no mapped group, no team');
    await cy.page.context().close();
  });

  test('a replayed state is refused, in the same browser and without it', async () => {
    const { page, callback } = await ssoSignIn('ana');
    const state = new URL(callback).searchParams.get('state');
    const res = await page.goto(callback);
    assert.equal(res.status(), 400);
    assert.match(await res.text(), /already used/);
    // With the browser-binding cookie copied in too: still spent.
    const fetched = await fetch(callback, { headers: { Cookie: `imaxe_oidc=${state}` }, redirect: 'manual' });
    assert.equal(fetched.status, 400);
    assert.equal(fetched.headers.get('set-cookie'), null, 'no session for a replay');
    // A state nobody issued, and a callback without one.
    assert.equal((await fetch(`${base}/v1/auth/oidc/callback?state=made-up&code=x`, { redirect: 'manual' })).status, 400);
    assert.equal((await fetch(`${base}/v1/auth/oidc/callback?code=x`, { redirect: 'manual' })).status, 400);
    await page.context().close();
  });

  test('the provider restarted with a new signing key (RS256 to ES256): the new key is fetched and sign-in works', async () => {
    await stopProvider();
    provider = await startProvider(keyFile('EC', 'ec-2'));
    const { page } = await ssoSignIn('bo');
    assert.equal((await me(page)).email, 'bo@corp.test');
    await page.context().close();
    const log = fs.readFileSync(path.join(here, '../../build/web-oidc-server.log'), 'utf8');
    assert.equal((log.match(/read 1 signing keys/g) || []).length, 2, 'the keys were read again once');
  });

  test('start: an open redirect in next is refused; the sign-in screen offers the provider', async () => {
    const res = await fetch(`${base}/v1/auth/oidc/start?next=${encodeURIComponent('//evil.example/')}`, { redirect: 'manual' });
    assert.equal(res.status, 400);
    const ok = await fetch(`${base}/v1/auth/oidc/start?next=%2Fpins`, { redirect: 'manual' });
    assert.equal(ok.status, 302);
    const loc = new URL(ok.headers.get('location'));
    assert.equal(loc.origin, `http://127.0.0.1:${provPort}`);
    assert.equal(loc.searchParams.get('code_challenge_method'), 'S256');
    assert.ok(loc.searchParams.get('nonce') && loc.searchParams.get('state'));
    assert.match(ok.headers.get('set-cookie') || '', /imaxe_oidc=[^;]+; Path=\/v1\/auth\/oidc; Max-Age=600; HttpOnly; SameSite=Lax/);
    const providers = await (await fetch(`${base}/v1/auth/providers`)).json();
    assert.deepEqual(providers, { local_passwords: true, oidc: true, oidc_name: 'Corp SSO' });
  });
});
