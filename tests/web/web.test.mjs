// Browser tests of the web catalog against the real imaxe-server and a real PostgreSQL:
// real-server.mjs starts a throwaway cluster, the server on a free port and a loopback webhook
// receiver, and seeds a catalog through the /v1 API (seed.mjs). playwright-core drives Debian's
// chromium (headless); axe-core checks every screen; screenshots at 1280 px and 360 px go to
// build/web-screenshots/.
import { test, before, after, describe } from 'node:test';
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

const ROOT = path.resolve(here, '../..');
const SHOTS = process.env.IMX_WEB_SCREENSHOTS || path.join(ROOT, 'build/web-screenshots');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const EMAIL = USER.email;
const PASSWORD = USER.password;

let base, srv, browser, ids;

before(async () => {
  srv = await startRealServer({ server: process.env.IMAXE_SERVER || path.join(ROOT, 'build/imaxe-server') });
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

/** A fresh page that records console errors, page errors and CSP violations. */
async function newPage({ width = 1280, height = 900, colorScheme = 'light' } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, colorScheme, reducedMotion: 'reduce' });
  const page = await context.newPage();
  page.problems = [];
  page.on('console', (m) => m.type() === 'error' && page.problems.push(`console: ${m.text()}`));
  page.on('pageerror', (e) => page.problems.push(`pageerror: ${e.message}`));
  page.on('response', (r) => {
    if (r.status() >= 500) page.problems.push(`HTTP ${r.status()} ${r.url()}`);
  });
  page.done = async () => {
    // 400 from validation tests, 401 before sign-in and for a refused token are expected.
    assert.deepEqual(page.problems.filter((p) => !/Failed to load resource: the server responded with a status of (400|401)/.test(p)), [], 'no console errors');
    await context.close();
  };
  return page;
}

async function signIn(page, next = '') {
  await page.goto(`${base}/#/signin${next ? `?next=${encodeURIComponent(next)}` : ''}`);
  await page.getByLabel('Email').fill(EMAIL);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForFunction(() => sessionStorage.getItem('imaxe.token') && !location.hash.startsWith('#/signin'));
}

async function settle(page) {
  await page.waitForFunction(() => !document.querySelector('main [aria-busy="true"]'), null, { timeout: 10000 });
  await page.waitForTimeout(120);
}

/** Runs axe-core in the page; fails on serious or critical violations. */
async function axeCheck(page, label) {
  await page.evaluate(AXE); // evaluated through the devtools protocol, so the page CSP allows it
  const res = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  const bad = res.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const text = bad.map((v) => `${v.impact} ${v.id}: ${v.help}\n    ${v.nodes.slice(0, 4).map((n) => n.target.join(' ')).join('\n    ')}`).join('\n');
  assert.equal(bad.length, 0, `axe on ${label}:\n${text}`);
}

const rowIds = (page) => page.locator('.results-table tbody tr').evaluateAll((trs) => trs.map((t) => t.dataset.id));

describe('web catalog', () => {
  test('sign in: a wrong password says so next to the form; then in and out', async () => {
    const page = await newPage();
    await page.goto(`${base}/#/pins`);
    await page.getByRole('heading', { name: 'Sign in to imaxe' }).waitFor();
    assert.match(page.url(), /#\/signin\?next=%2Fpins/);
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill('wrong-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('.signin-form .state-error').waitFor();
    assert.match(await page.locator('.signin-form .state-error').innerText(), /the email or the password is wrong/i);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Pins', level: 1 }).waitFor();
    assert.equal(await page.locator('#user-name').innerText(), 'Demo User');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You are signed out.').waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.getItem('imaxe.token')), null);

    // A token the server refuses (expired, revoked) sends the user back to sign in.
    await page.evaluate(() => sessionStorage.setItem('imaxe.token', 'expired-token'));
    await page.goto(`${base}/#/webhooks`);
    await page.getByRole('heading', { name: 'Sign in to imaxe' }).waitFor();
    assert.match(page.url(), /next=%2Fwebhooks/);
    await page.done();
  });

  test('catalog: filter by GPU and CUDA shows exactly the matching images, from the URL too', async () => {
    const page = await newPage();
    await signIn(page);
    await settle(page);
    assert.equal((await rowIds(page)).length, 20, 'first page of 20');
    assert.match(await page.locator('.results-summary').innerText(), /Showing 20 of 23 images/);
    await page.getByRole('button', { name: 'Load more images' }).click();
    await page.waitForFunction(() => document.querySelectorAll('.results-table tbody tr').length > 20);
    assert.equal((await rowIds(page)).length, 23, 'second page through the cursor');

    // Sorting from a column header is kept in the URL.
    await page.getByRole('button', { name: 'Boot', exact: true }).click();
    await settle(page);
    assert.match(page.url(), /sort=boot_seconds/);
    assert.equal((await rowIds(page))[0], String(ids.vllm), 'fastest boot first');
    assert.match(await page.locator('th[aria-sort="ascending"]').innerText(), /^boot$/i);
    await page.getByLabel('Sort by').selectOption('-published_at');
    await settle(page);

    const gpu = page.getByRole('group', { name: 'GPU' });
    await gpu.getByLabel(/^H100/).check();
    await settle(page);
    const cuda = page.getByRole('group', { name: 'CUDA' });
    await cuda.getByLabel(/^12\.8/).check();
    await settle(page);
    assert.match(page.url(), /gpu=H100/);
    assert.match(page.url(), /cuda=12\.8/);
    const expected = [ids['base-old'], ids['torch-old'], ids['torch-new'], ids.vllm].map(String).sort();
    assert.deepEqual((await rowIds(page)).sort(), expected);
    // Facet counts are shown next to each value.
    assert.match(await gpu.innerText(), /H100\s*4/);

    // The URL alone restores the view (bookmarks, shared links).
    await page.reload();
    await settle(page);
    assert.deepEqual((await rowIds(page)).sort(), expected);

    // An empty result names the filter that removed everything.
    await page.goto(`${base}/#/catalog?gpu=T4&cuda=13.0`);
    await page.getByText('the CUDA filter removed everything').waitFor();
    await page.getByRole('button', { name: 'Remove CUDA filter' }).click();
    await settle(page);
    assert.equal((await rowIds(page)).length, 18, 'every T4 image');
    assert.doesNotMatch(page.url(), /cuda=/);
    await page.done();
  });

  test('image page: manifest, compatibility, patch, lineage, regions, snippet, cost charts', async () => {
    const page = await newPage();
    await signIn(page, '/catalog?family=pytorch-2.9-ubuntu24.04');
    await settle(page);
    await page.getByRole('link', { name: /pytorch-2\.9-ubuntu24\.04 2026\.01\.10/ }).click();
    await page.getByRole('heading', { level: 1, name: /pytorch-2\.9-ubuntu24\.04/ }).waitFor();
    await settle(page);
    const patch = page.locator('#patch');
    assert.match(await patch.innerText(), /Patch available/);
    assert.match(await patch.innerText(), /NVIDIA-5703/);
    await patch.getByRole('link', { name: /2026\.03\.17/ }).first().click();
    await page.getByRole('heading', { level: 1, name: /2026\.03\.17/ }).waitFor();
    await settle(page);
    assert.match(await page.locator('#patch').innerText(), /Patched\s+No known advisory/);
    assert.match(await page.locator('#manifest').innerText(), /cuda\s+12\.8\.1/);
    assert.match(await page.locator('#compat').innerText(), /\S/);
    assert.match(await page.locator('#lineage').innerText(), /base-gpu-ubuntu24\.04 2026\.01\.05/);
    assert.match(await page.locator('#lineage').innerText(), /newer image: base-gpu-ubuntu24\.04 2026\.03\.01/);
    assert.match(await page.locator('#regions').innerText(), /us-east-1\s+ami-0/);
    assert.match(await page.locator('#use pre').innerText(), /\/v1\/images\/resolve\?family=pytorch-2\.9-ubuntu24\.04&region=(us-east-1|eu-west-1)/);
    await page.getByRole('tab', { name: 'Terraform' }).click();
    assert.match(await page.locator('#use pre').innerText(), /data "http" "imaxe_image"/);
    assert.equal(await page.locator('#costs canvas').count() >= 2, true, 'two cost charts drawn');
    assert.match(await page.locator('#costs table').innerText(), /p5\.48xlarge/);
    await page.done();
  });

  test('compare: two images side by side, differences highlighted, "only differences" toggle', async () => {
    const page = await newPage();
    await signIn(page, '/catalog?family=pytorch-2.9-ubuntu24.04');
    await settle(page);
    await page.getByLabel('Compare pytorch-2.9-ubuntu24.04 2026.03.17').check();
    await page.getByLabel('Compare pytorch-2.9-ubuntu24.04 2026.01.10').check();
    await page.getByRole('link', { name: 'Compare 2 images' }).click();
    await page.getByRole('heading', { name: 'Compare images' }).waitFor();
    await settle(page);
    const driver = page.locator('tr[data-row="nvidia-driver"]');
    const cudaRow = page.locator('tr[data-row="cuda"]');
    assert.match(await driver.getAttribute('class'), /differs/);
    assert.match(await driver.innerText(), /580\.95\.05[\s\S]*580\.65\.06/);
    assert.match(await cudaRow.getAttribute('class'), /same/);
    assert.match(await page.locator('tr[data-row="boot_seconds"]').getAttribute('class'), /differs/);
    assert.notEqual(await driver.locator('td').first().evaluate((e) => getComputedStyle(e).backgroundColor), await cudaRow.locator('td').first().evaluate((e) => getComputedStyle(e).backgroundColor));
    await page.getByLabel('Show only differences').check();
    assert.equal(await cudaRow.isVisible(), false);
    assert.equal(await driver.isVisible(), true);
    assert.match(page.url(), /diff=1/);
    await page.done();
  });

  test('pins: move a pin to its candidate after confirming; history records it', async () => {
    const page = await newPage();
    await signIn(page, '/pins');
    await settle(page);
    const card = page.locator('[data-pin="prod-training"]');
    assert.match(await card.innerText(), /Patch available/);
    assert.match(await card.innerText(), /NVIDIA-5703 fixed in pytorch-2\.9-ubuntu24\.04 2026\.03\.17/);
    await card.getByRole('button', { name: 'Move to 2026.03.17' }).click();
    const dlg = page.getByRole('dialog', { name: 'Move prod-training?' });
    await dlg.waitFor();
    await dlg.getByRole('button', { name: 'Cancel' }).click();
    assert.match(await card.innerText(), /Patch available/, 'cancel changes nothing');
    await card.getByRole('button', { name: 'Move to 2026.03.17' }).click();
    await dlg.getByRole('button', { name: 'Move pin' }).click();
    await page.waitForFunction(() => /Current/.test(document.querySelector('[data-pin="prod-training"]')?.innerText || ''));
    assert.match(await card.innerText(), /Pinned to pytorch-2\.9-ubuntu24\.04 2026\.03\.17/);
    await card.getByText('History').click();
    await card.locator('.timeline li').nth(1).waitFor();
    assert.match(await card.locator('.timeline').innerText(), /2026\.01\.10 → pytorch-2\.9-ubuntu24\.04 2026\.03\.17 by demo@imaxe\.test/);
    // The server agrees.
    const token = await page.evaluate(() => sessionStorage.getItem('imaxe.token'));
    const pin = await (await fetch(`${base}/v1/pins/${srv.data.pin}`, { headers: { Authorization: `Bearer ${token}` } })).json();
    assert.equal(pin.image.id, ids['torch-new']);
    await page.done();
  });

  test('webhooks: the secret is shown once; a test ping reaches the receiver and shows in the delivery log; API field errors land on the field', async () => {
    const page = await newPage();
    await signIn(page, '/webhooks');
    await settle(page);
    await page.getByLabel('Endpoint URL').fill('https://localhost/hook');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const urlErr = page.locator('.field:has(#' + (await page.getByLabel('Endpoint URL').getAttribute('id')) + ') .field-error');
    await urlErr.waitFor();
    assert.match(await urlErr.innerText(), /local or cloud metadata host/);
    assert.equal(await page.getByLabel('Endpoint URL').getAttribute('aria-invalid'), 'true');

    const hookUrl = `http://127.0.0.1:${srv.receiver.port}/ui-hook`;
    await page.getByLabel('Endpoint URL').fill(hookUrl);
    await page.getByLabel('Description').fill('Made in the browser test');
    await page.getByLabel('image.published').check();
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const secret = page.getByTestId('webhook-secret');
    await secret.waitFor();
    assert.match(await secret.innerText(), /^whsec_/);
    await page.getByRole('button', { name: 'I have stored it' }).click();
    assert.equal(await secret.count(), 0);
    await page.reload();
    await settle(page);
    assert.doesNotMatch(await page.locator('main').innerText(), /whsec_/, 'never shown again');

    const card = page.locator('.hook-card', { hasText: hookUrl });
    await card.getByRole('button', { name: 'Send test ping' }).click();
    await card.locator('.delivery-log tbody tr', { hasText: /Delivered/ }).first().waitFor({ timeout: 10000 });
    assert.match(await card.locator('.delivery-log tbody tr').first().innerText(), /ping\s+Delivered HTTP 204/);
    const got = srv.receiver.received.filter((x) => x.path === '/ui-hook');
    assert.equal(got.length, 1, 'the receiver got exactly the ping');
    assert.equal(got[0].body.type, 'ping');
    assert.match(got[0].headers['webhook-signature'], /^v1,/);
    await page.done();
  });

  test('requests: the stack is checked as you type, and filing shows its matches', async () => {
    const page = await newPage();
    await signIn(page, '/requests');
    await page.getByLabel('Title').fill('CUDA 13 platform image for H100');
    await page.getByLabel('NVIDIA driver').fill('570.172.08');
    await page.getByLabel('CUDA').fill('13.0');
    await page.getByRole('checkbox', { name: 'H100' }).check();
    await page.locator('.live-compat').getByText('driver_too_old_for_cuda').waitFor();
    assert.match(await page.locator('.live-compat').innerText(), /CUDA 13\.0 needs NVIDIA driver 580\.65\.06/);

    await page.getByLabel('NVIDIA driver').fill('580.95.05');
    await page.locator('.live-compat').getByRole('heading', { name: 'Compatible' }).waitFor();
    await page.locator('.live-matches').getByText('base-gpu-ubuntu24.04').waitFor();

    // A bad range comes back from the API as a JSON pointer and lands on its field.
    await page.getByLabel('cuDNN').fill('nine');
    await page.getByRole('button', { name: 'File request' }).click();
    const cudnn = page.getByLabel('cuDNN');
    await page.waitForFunction(() => document.querySelector('[name="stack-cudnn"]')?.getAttribute('aria-invalid') === 'true');
    assert.match(await cudnn.locator('xpath=..').innerText(), /'nine' is not a version/);
    await cudnn.fill('');

    await page.getByRole('button', { name: 'File request' }).click();
    const result = page.locator('.request-result');
    await result.getByText(/Request \d+ filed/).waitFor();
    assert.match(await result.getByTestId('request-matches').innerText(), /base-gpu-ubuntu24\.04 2026\.03\.01/);

    await page.getByRole('link', { name: 'Team requests' }).click();
    await page.getByText('CUDA 13 platform image for H100').waitFor();

    // Publishers of the catalog team move requests through their states from the queue.
    await page.getByRole('link', { name: 'Publisher queue' }).click();
    const row = page.locator('tr', { hasText: 'TensorFlow 2.19 on L4' });
    await row.getByRole('button', { name: 'Approve' }).click();
    const dlg = page.getByRole('dialog');
    await dlg.getByLabel('Comment').fill('Build it on the 24.04 base.');
    await dlg.getByRole('button', { name: 'Approve' }).click();
    await row.getByRole('button', { name: 'Start build' }).waitFor();
    assert.match(await row.innerText(), /Approved/);
    await page.done();
  });

  test('every screen: no serious or critical axe violations; screenshots at 1280 and 360 px', async () => {
    const screens = [
      ['signin', '/signin'],
      ['catalog', '/catalog'],
      ['catalog-filtered', '/catalog?gpu=H100&cuda=12.8'],
      ['catalog-empty', '/catalog?gpu=T4&cuda=13.0'],
      ['image', `/images/${ids['torch-new']}`],
      ['compare', `/compare?ids=${ids['torch-new']},${ids['torch-old']},${ids.tf}`],
      ['pins', '/pins'],
      ['advisories', '/advisories'],
      ['advisory', '/advisories/NVIDIA-5703'],
      ['costs', '/costs?model=llama-3.1-8b&max_p99_ms=200&daily_inferences=1000000'],
      ['requests', '/requests'],
      ['requests-queue', '/requests?tab=queue'],
      ['webhooks', '/webhooks'],
    ];
    for (const [width, scheme] of [[1280, 'light'], [360, 'light'], [1280, 'dark']]) {
      const page = await newPage({ width, height: width > 400 ? 900 : 780, colorScheme: scheme });
      await signIn(page);
      for (const [name, hash] of screens) {
        if (name === 'signin') {
          await page.evaluate(() => sessionStorage.clear());
          await page.goto(`${base}/#/signin`);
        } else {
          if (!(await page.evaluate(() => sessionStorage.getItem('imaxe.token')))) await signIn(page);
          await page.goto(`${base}/#${hash}`);
        }
        await page.locator('main h1').first().waitFor();
        await settle(page);
        if (name === 'requests') {
          await page.getByLabel('CUDA').fill('12.8');
          await page.getByLabel('NVIDIA driver').fill('570.172.08');
          await page.locator('.live-matches h3').waitFor();
        }
        if (scheme === 'light') await axeCheck(page, `${name} at ${width}px`);
        await page.screenshot({ path: path.join(SHOTS, `${name}-${width}${scheme === 'dark' ? '-dark' : ''}.png`), fullPage: true });
      }
      if (width === 360) {
        // The filter drawer and the menu, open.
        await page.goto(`${base}/#/catalog`);
        await settle(page);
        await page.getByRole('button', { name: /^Filters/ }).click();
        await page.waitForTimeout(150);
        await axeCheck(page, 'catalog drawer at 360px');
        await page.screenshot({ path: path.join(SHOTS, 'catalog-drawer-360.png') });
        await page.getByRole('button', { name: 'Close filters' }).click();
        await page.getByRole('button', { name: 'Menu' }).click();
        await page.screenshot({ path: path.join(SHOTS, 'menu-360.png') });
      }
      await page.done();
    }
  });
});
