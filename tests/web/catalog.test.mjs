// Browser tests of signing in and of the catalog screen against the real imaxe-server and
// PostgreSQL (catalog-browser.mjs): sign-in and sessions, the catalog's filters, sort, paging and
// URL, the layout at 1280 and 390 px (last: it adds images with names as long as the API takes),
// and the API docs page. tests/web/README.md lists every file's scenarios.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { useCatalogServer, base, ids, newPage, signIn, sessionHeaders, settle, apiAs, rowIds, SHOTS, EMAIL, PASSWORD } from './catalog-browser.mjs';
import { ADMIN, seedLongNames } from './seed.mjs';

useCatalogServer('catalog');

describe('web catalog: sign-in, the catalog, layout', () => {
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
    // Signing out ended the session on the server and cleared both cookies.
    assert.deepEqual((await page.context().cookies(base)).filter((c) => c.name.startsWith('imaxe_')), []);

    // A session the server refuses (expired, revoked) sends the user back to sign in.
    await page.context().addCookies([
      { name: 'imaxe_session', value: 'expired-session', url: base },
      { name: 'imaxe_csrf', value: 'x', url: base },
    ]);
    await page.goto(`${base}/#/webhooks`);
    await page.getByRole('heading', { name: 'Sign in to imaxe' }).waitFor();
    assert.match(page.url(), /next=%2Fwebhooks/);
    await page.done();
  });

  test('session: one HttpOnly cookie signs in every tab and a reopened bookmark; a write needs the CSRF token; sign-out ends it everywhere', async () => {
    const page = await newPage();
    await signIn(page, '/pins');
    await page.getByRole('heading', { name: 'Pins', level: 1 }).waitFor();
    const cookies = await page.context().cookies(base);
    const sess = cookies.find((c) => c.name === 'imaxe_session');
    assert.ok(sess, 'a session cookie');
    assert.equal(sess.httpOnly, true);
    assert.equal(sess.sameSite, 'Lax');
    assert.ok(sess.expires > Date.now() / 1000 + 3600, 'it outlives the tab (a persistent cookie)');
    assert.equal(await page.evaluate(() => document.cookie.includes('imaxe_session')), false, 'the page cannot read it');
    assert.equal(await page.evaluate(() => Object.keys(sessionStorage).filter((k) => /token/.test(k)).length), 0, 'no token in the tab');
    // A second tab (a bookmark opened later) is signed in without a sign-in screen.
    const tab = await page.context().newPage();
    await tab.goto(`${base}/#/webhooks`);
    await tab.locator('main h1').first().waitFor();
    assert.doesNotMatch(await tab.locator('main h1').first().innerText(), /Sign in/);
    // A write with the cookie but without the header is refused.
    const cookie = cookies.map((c) => `${c.name}=${c.value}`).join('; ');
    const refused = await fetch(`${base}/v1/tokens`, { method: 'POST', headers: { Cookie: cookie, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'csrf', team: 'ml-platform', role: 'viewer' }) });
    assert.equal(refused.status, 403);
    // Signing out in one tab signs the other out too: its next screen asks to sign in.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You are signed out.').waitFor();
    assert.equal((await fetch(`${base}/v1/me`, { headers: { Cookie: cookie } })).status, 401, 'ended on the server');
    await tab.goto(`${base}/#/pins`);
    await tab.getByRole('heading', { name: 'Sign in to imaxe' }).waitFor();
    await tab.close();
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

  test('catalog: a typed CUDA range counts what it matches; patch status and region filters; focus survives "Clear all"', async () => {
    const page = await newPage();
    await signIn(page, '/catalog?gpu=L4');
    await settle(page);
    const cuda = page.getByRole('group', { name: 'CUDA' });
    await cuda.getByLabel('CUDA version range').fill('>=12.8');
    await cuda.getByRole('button', { name: 'Apply CUDA filter' }).click();
    await settle(page);
    const expected = [ids['base-old'], ids['base-new'], ids.tf].map(String).sort();
    assert.deepEqual((await rowIds(page)).sort(), expected);
    // The typed range is not offered as a struck-through option that counts 0.
    assert.equal(await cuda.locator('li.is-zero').count(), 0);
    assert.equal(await cuda.getByRole('radio', { name: />=12\.8/ }).count(), 0);
    assert.match(await page.getByTestId('range-count-cuda').innerText(), />=12\.8: 3 images match/);

    // Patch status and region come with the server's counts for the 3 matching images.
    const patch = page.getByRole('group', { name: 'Patch status' });
    const patchCounts = await patch.locator('.facet-count').allInnerTexts();
    assert.ok(patchCounts.length >= 1, 'patch status facet counts are shown');
    assert.equal(patchCounts.reduce((a, n) => a + Number(n), 0), 3, 'one patch status per matching image');
    assert.equal(await patch.locator('li', { hasText: 'Patch available' }).locator('.facet-count').innerText(), '1');
    const regionCounts = await page.getByRole('group', { name: 'Region' }).locator('.facet-count').allInnerTexts();
    assert.ok(regionCounts.length >= 1, 'region facet counts are shown');
    await patch.getByLabel('Patch available').check();
    await settle(page);
    assert.match(page.url(), /patch_status=patch_available/);
    assert.deepEqual(await rowIds(page), [String(ids['base-old'])]);

    await page.getByRole('button', { name: 'Clear all' }).click();
    await settle(page);
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Search the catalog', 'focus moves to the search box, not <body>');
    assert.equal((await rowIds(page)).length, 20);

    const region = page.getByRole('group', { name: 'Region' });
    await region.getByRole('textbox', { name: 'Region' }).fill('us-west-2');
    await region.getByRole('button', { name: 'Apply Region filter' }).click();
    await settle(page);
    assert.deepEqual(await rowIds(page), [String(ids['base-new'])]);
    // Removing the last chip by keyboard leaves focus in the page too.
    await page.getByRole('button', { name: 'Remove filter Region: us-west-2' }).focus();
    await page.keyboard.press('Enter');
    await settle(page);
    assert.notEqual(await page.evaluate(() => document.activeElement?.tagName), 'BODY');
    await page.done();
  });

  test('layout: the catalog table fits at 1280 px with a long family name; nothing scrolls sideways at 390 px', async () => {
    const page = await newPage();
    await signIn(page, '/catalog');
    const res = await fetch(`${base}/v1/images`, {
      method: 'POST',
      headers: { ...(await sessionHeaders(page)), 'Content-Type': 'application/json' },
      body: JSON.stringify({ team: 'ml-platform', family: 'pytorch-2.9-cu128-ubuntu24.04-efa-hardened-fips', version: '2026.04.01', provider: 'aws', architecture: 'x86_64', os: { name: 'ubuntu', version: '24.04' }, layer: 'model', artifacts: [{ region: 'us-east-1', id: 'ami-0aaaabbbbccccdddd' }], components: [{ name: 'nvidia-driver', version: '580.95.05' }, { name: 'cuda', version: '12.8.1' }, { name: 'pytorch', version: '2.9.1' }], gpus: ['RTX PRO 6000', 'H100 NVL', 'L40S'], tags: ['fips'], boot_seconds: 90, size_gb: 64 }),
    });
    assert.equal(res.status, 201, await res.text());
    const overflow = () => page.evaluate(() => ({
      page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      tables: [...document.querySelectorAll('main .table-wrap')].map((t) => t.scrollWidth - t.clientWidth).filter((d) => d > 1),
    }));
    for (const hash of ['/catalog', '/catalog?status=any']) {
      await page.goto(`${base}/#${hash}`);
      await settle(page);
      assert.deepEqual(await overflow(), { page: 0, tables: [] }, `${hash} at 1280 px`);
    }
    await page.done();

    const narrow = await newPage({ width: 390, height: 800 });
    await signIn(narrow, '/catalog');
    for (const hash of ['/catalog', '/advisories', '/advisories/NVIDIA-5703', '/requests', '/requests?tab=queue', '/requests?tab=mine', '/pins', '/webhooks', `/images/${ids['torch-new']}`, `/compare?ids=${ids['torch-new']},${ids['torch-old']}`, '/costs?model=llama-3.1-8b']) {
      await narrow.goto(`${base}/#${hash}`);
      await narrow.locator('main h1').first().waitFor();
      await settle(narrow);
      const o = await narrow.evaluate(() => ({
        page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
        tables: [...document.querySelectorAll('main .table-wrap')].map((t) => t.scrollWidth - t.clientWidth).filter((d) => d > 1),
      }));
      assert.deepEqual(o, { page: 0, tables: [] }, `${hash} at 390 px`);
    }
    await narrow.done();
  });

  test('api docs: the header links to /docs, which renders every operation of /openapi.json offline, CSP relaxed only there', async () => {
    const spec = await (await fetch(`${base}/openapi.json`)).json();
    const ops = Object.values(spec.paths).flatMap((item) => Object.entries(item).filter(([m]) => ['get', 'put', 'post', 'delete', 'patch'].includes(m)).map(([, op]) => op.operationId));
    assert.ok(ops.length > 60, `the spec lists ${ops.length} operations`);
    const page = await newPage();
    const outside = [];
    page.on('request', (r) => { if (!r.url().startsWith(base) && !r.url().startsWith('data:') && !r.url().startsWith('blob:')) outside.push(r.url()); });
    await signIn(page);
    await page.locator('#api-docs-link').click();
    await page.waitForURL(`${base}/docs`);
    await page.locator('[data-section-id^="operation/"]').first().waitFor({ timeout: 30000 });
    const rendered = await page.evaluate(() => [...document.querySelectorAll('[data-section-id^="operation/"]')].map((e) => e.getAttribute('data-section-id').slice('operation/'.length)));
    const missing = ops.filter((id) => !rendered.includes(id));
    assert.deepEqual(missing, [], 'every operation of the spec is on the page');
    await page.getByRole('heading', { name: 'Create a pin, a team\'s named channel to an image (members of the team)' }).first().waitFor();
    assert.deepEqual(outside, [], 'nothing is fetched from another origin');
    const docs = await fetch(`${base}/docs`);
    assert.match(docs.headers.get('content-security-policy'), /style-src 'self' 'unsafe-inline'/);
    assert.doesNotMatch(docs.headers.get('content-security-policy'), /script-src[^;]*unsafe/);
    const home = await fetch(`${base}/`);
    assert.doesNotMatch(home.headers.get('content-security-policy'), /unsafe-inline/);
    await page.screenshot({ path: path.join(SHOTS, 'docs-1280.png') });
    await page.done();
  });

  test('layout: with names as long as the API takes, no screen scrolls sideways at 390 px; the GPU filtered for is shown; one word per patch status', async () => {
    const page = await newPage({ width: 390, height: 800 });
    await signIn(page, '/catalog');
    const token = (await (await fetch(`${base}/v1/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: EMAIL, password: PASSWORD }) })).json()).access_token;
    const adminToken = (await (await fetch(`${base}/v1/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: ADMIN.email, password: ADMIN.password }) })).json()).access_token;
    const long = await seedLongNames(base, { token, adminToken });
    const screens = ['/catalog', '/catalog?status=any', `/catalog?gpu=${encodeURIComponent('H100 NVL 94GB PCIe')}`, `/images/${long.image}`, `/compare?ids=${long.image},${ids['torch-new']}`, '/pins', `/pins?new=${long.image}`,
      '/exposure', `/exposure?cve=${long.advisory}`, '/advisories', `/advisories/${long.advisory}`, '/costs', '/costs?model=llama-3.1-70b-instruct-long-model-name', '/requests', '/requests?tab=queue', '/webhooks', '/publish', '/account', '/fleet'];
    for (const hash of screens) {
      await page.goto(`${base}/#${hash}`);
      await page.locator('main h1').first().waitFor();
      await settle(page);
      const o = await page.evaluate(() => ({ scroll: document.scrollingElement.scrollWidth, client: document.scrollingElement.clientWidth }));
      assert.ok(o.scroll <= o.client, `${hash} scrolls sideways at 390 px: ${o.scroll} > ${o.client}`);
      assert.doesNotMatch(await page.locator('main').innerText(), /\bPatched\b/, `${hash}: patch statuses use the API's words`);
    }
    // The GPU filtered for leads its row, marked, not behind "+N".
    await page.goto(`${base}/#/catalog?gpu=${encodeURIComponent('H100 NVL 94GB PCIe')}`);
    await settle(page);
    const row = page.locator('.results-table tbody tr', { hasText: long.family }).first();
    const first = row.locator('.col-gpus .gpu-tag').first();
    assert.equal(await first.innerText(), 'H100 NVL 94GB PCIe');
    assert.match(await first.getAttribute('class'), /is-match/);
    assert.ok(await first.isVisible());
    const more = row.getByRole('button', { name: /^Show \d+ more GPUs/ });
    await more.click();
    assert.equal(await row.locator('.col-gpus .gpu-tag').count(), 8, '+N unfolds every GPU in place');
    // The patch-status filter reads the API's words: OK, Patch available, Vulnerable, Revoked.
    await page.goto(`${base}/#/catalog`);
    await settle(page);
    await page.getByRole('button', { name: /^Filters/ }).click();
    const patch = page.getByRole('group', { name: 'Patch status' });
    assert.ok(await patch.getByLabel(/^OK/).count(), 'OK, not Patched');
    assert.equal(await patch.getByText(/Patched|patch available/).count(), 0);
    await page.done();

    // At 1280 px the filters are part of the page, not a box with its own scroll bar.
    const wide = await newPage({ width: 1280, height: 700 });
    await signIn(wide, '/catalog');
    await settle(wide);
    const facets = await wide.locator('#facets').evaluate((e) => ({ overflow: getComputedStyle(e).overflowY, scroll: e.scrollHeight, client: e.clientHeight, position: getComputedStyle(e).position }));
    assert.notEqual(facets.position, 'sticky');
    assert.ok(!['auto', 'scroll'].includes(facets.overflow) && facets.scroll <= facets.client + 1, `filters scroll on their own: ${JSON.stringify(facets)}`);
    // Several GPUs at once: ticking L4 beside H100 lists the images with either, as the API does.
    await wide.goto(`${base}/#/catalog?gpu=H100`);
    await settle(wide);
    const gpuGroup = wide.getByRole('group', { name: /^GPU/ });
    await gpuGroup.getByRole('checkbox', { name: /^L4 \d/ }).check();
    await settle(wide);
    assert.match(wide.url(), /gpu=H100%2CL4/);
    const either = (await apiAs(wide, 'GET', '/images?gpu=H100,L4&limit=200')).body.items.map((i) => String(i.id)).sort();
    assert.ok(either.length > (await apiAs(wide, 'GET', '/images?gpu=H100&limit=200')).body.items.length, 'the list adds L4 images');
    while (await wide.getByRole('button', { name: 'Load more images' }).count()) {
      await wide.getByRole('button', { name: 'Load more images' }).click();
      await settle(wide);
    }
    assert.deepEqual((await rowIds(wide)).sort(), either);
    assert.equal(await wide.getByRole('button', { name: /^Remove filter GPU: (H100|L4)$/ }).count(), 2, 'a chip per GPU');
    assert.ok(await gpuGroup.getByRole('checkbox', { name: /^H100 \d/ }).isChecked());
    await wide.getByRole('button', { name: 'Remove filter GPU: H100' }).click();
    await settle(wide);
    assert.match(wide.url(), /gpu=L4(&|$)/);
    // The move offered and the fix shown agree, or the row says why they differ.
    await wide.goto(`${base}/#/exposure`);
    await settle(wide);
    const pins = (await apiAs(wide, 'GET', '/pins?team=ml-platform&limit=200')).body.items;
    for (const p of pins.filter((x) => x.candidate && (x.advisories || []).some((a) => a.fixed_by))) {
      const r = wide.locator('tr.exp-row', { hasText: p.name }).first();
      const agree = p.advisories.filter((a) => a.fixed_by).every((a) => a.fixed_by.id === p.candidate.id);
      assert.equal(await r.locator('.move-why').count(), agree ? 0 : 1, `${p.name}: the move and the fix ${agree ? 'agree' : 'differ, and the row says why'}`);
      // One badge per state: the image's patch status once; the pin's only when it says more.
      const badges = await r.locator('td').nth(1).locator('.badge').allInnerTexts();
      assert.equal(new Set(badges).size, badges.length, `${p.name}: no badge twice (${badges})`);
    }
    // Costs: no placeholder reads like a value.
    await wide.goto(`${base}/#/costs`);
    await settle(wide);
    for (const ph of await wide.locator('.cost-form input').evaluateAll((els) => els.map((e) => e.placeholder))) assert.doesNotMatch(ph, /^[\d.,\s]+$/, `placeholder "${ph}" looks like a value`);
    await wide.done();
  });
});
