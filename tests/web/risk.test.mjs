// Browser tests of pins, exposure and advisories against the real imaxe-server and PostgreSQL
// (catalog-browser.mjs): moving and creating pins; KEV and EPSS ordering on exposure, pins and
// the image page; exposure's CSV exports and one-click move (after the first test moved
// prod-training, one of the three pins is hit); advisories published, imported (OSV, CSAF),
// revised and withdrawn by a global admin.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { useCatalogServer, base, srv, ids, newPage, signIn, sessionHeaders, settle, axeCheck, apiAs, downloadText, fieldError, ROOT } from './catalog-browser.mjs';
import { VIEWER, ADMIN } from './seed.mjs';

useCatalogServer('risk');

describe('web catalog: pins, exposure, advisories', () => {
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
    const pin = await (await fetch(`${base}/v1/pins/${srv.data.pin}`, { headers: await sessionHeaders(page) })).json();
    assert.equal(pin.image.id, ids['torch-new']);
    await page.done();
  });

  test('pins: create with constraints (an API error at its field), a keyboard-only move showing the manifest diff, delete; a viewer is refused', async () => {
    const page = await newPage();
    await signIn(page, `/pins?new=${ids['torch-old']}`);
    await settle(page);
    const form = page.getByRole('form', { name: 'New pin' });
    await form.getByText('pytorch-2.9-ubuntu24.04 2026.01.10 (active)').waitFor();
    await form.getByLabel('Pin name').fill('Not A Name');
    await form.getByRole('button', { name: 'Add a constraint' }).click();
    await form.getByLabel('Constraint 1 component').fill('nvidia-driver');
    await form.getByLabel('Constraint 1 range').fill('~580');
    await form.getByRole('button', { name: 'Create pin' }).click();
    await page.waitForFunction(() => document.querySelector('.pin-form [name="name"]')?.getAttribute('aria-invalid') === 'true');
    assert.match(await fieldError(form, 'Pin name').innerText(), /\S/);
    await form.getByLabel('Pin name').fill('canary');
    await form.getByRole('button', { name: 'Create pin' }).click();
    const card = page.locator('[data-pin="canary"]');
    await card.waitFor();
    assert.match(await card.innerText(), /nvidia-driver\s*~580/);
    assert.equal(await page.evaluate(() => document.activeElement?.closest('[data-pin]')?.dataset.pin), 'canary');

    await card.getByRole('button', { name: 'Move to 2026.03.17' }).click();
    const dlg = page.getByRole('dialog', { name: 'Move canary?' });
    await dlg.getByTestId('move-diff').locator('table').waitFor();
    const diff = await dlg.getByTestId('move-diff').innerText();
    assert.match(diff, /nvidia-driver\s+580\.65\.06\s+580\.95\.05/);
    assert.match(diff, /pytorch\s+2\.9\.0\s+2\.9\.1/);
    assert.doesNotMatch(diff, /\bcuda\b/, 'only what differs');
    // Keyboard only from here: Escape cancels and focus returns to the Move button; Enter opens
    // the dialog again with focus on its confirm button, and Enter moves the pin.
    await page.keyboard.press('Escape');
    await dlg.waitFor({ state: 'detached' });
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Move to 2026.03.17');
    await page.keyboard.press('Enter');
    await dlg.getByTestId('move-diff').locator('table').waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Move pin');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => /Current/.test(document.querySelector('[data-pin="canary"]')?.innerText || ''));
    assert.equal((await apiAs(page, 'GET', '/pins?team=ml-platform')).body.items.find((p) => p.name === 'canary').image.id, ids['torch-new']);

    await card.getByRole('button', { name: 'Delete pin canary' }).click();
    await page.getByRole('dialog', { name: 'Delete canary?' }).getByRole('button', { name: 'Delete pin' }).click();
    await card.waitFor({ state: 'detached' });
    const list = (await apiAs(page, 'GET', '/pins?team=ml-platform')).body.items.map((p) => p.name);
    assert.equal(list.includes('canary'), false);
    await page.done();

    const viewer = await newPage();
    await signIn(viewer, `/pins?new=${ids['torch-old']}`, VIEWER);
    await settle(viewer);
    assert.equal(await viewer.getByRole('button', { name: /^Delete pin/ }).count(), 0);
    const vform = viewer.getByRole('form', { name: 'New pin' });
    await vform.getByLabel('Pin name').fill('viewer-pin');
    await vform.getByRole('button', { name: 'Create pin' }).click();
    await vform.locator('.form-error .state-error').waitFor();
    assert.match(await vform.locator('.form-error').innerText(), /role|member|permission|forbidden/i);
    await viewer.done({ allow: [403] });
  });

  test('exposure: a pin hit by a KEV-listed advisory first with the KEV badge; the end-of-life calendar and its table', async () => {
    // The admin imports a KEV catalog (CISA's format; this test's own entry) listing a CVE of NVIDIA-5703.
    const adminToken = (await (await fetch(`${base}/v1/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: ADMIN.email, password: ADMIN.password }) })).json()).access_token;
    const kev = (released, cve) => ({ title: 'CISA Catalog of Known Exploited Vulnerabilities', catalogVersion: released.slice(0, 10).replaceAll('-', '.'), dateReleased: released, count: 1, vulnerabilities: [{ cveID: cve, vendorProject: 'NVIDIA', product: 'GPU Display Driver', vulnerabilityName: 'NVIDIA GPU Display Driver Vulnerability', dateAdded: released.slice(0, 10), shortDescription: 'Test entry.', requiredAction: 'Apply updates per vendor instructions.', dueDate: '2030-01-21', knownRansomwareCampaignUse: 'Unknown', notes: '', cwes: [] }] });
    const post = (body) => fetch(`${base}/v1/risk-feeds/kev`, { method: 'POST', headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal((await post(kev('2030-01-01T00:00:00.000Z', 'CVE-2025-23282'))).status, 200);
    try {
      const page = await newPage();
      await signIn(page, '/exposure');
      await settle(page);
      const rows = page.locator('tr.exp-row');
      await rows.first().waitFor();
      // Pins hit by the KEV-listed advisory come first, their advisory with the distinct badge.
      const texts = await rows.allInnerTexts();
      const hit = texts.map((t, i) => (/NVIDIA-5703/.test(t) ? i : -1)).filter((i) => i >= 0);
      assert.ok(hit.length >= 1 && hit.length < texts.length, texts.join('\n---\n'));
      assert.deepEqual(hit, hit.map((_, i) => i), 'KEV-hit pins first');
      for (const i of hit) assert.match(texts[i], /KEV: exploited High NVIDIA-5703/);
      assert.equal(await rows.first().locator('.badge.is-kev').count(), 1);
      assert.match(await rows.first().locator('.badge.is-kev').getAttribute('title'), /CVE-2025-23282 in CISA's KEV catalog since 2030-01-01, due 2030-01-21/);
      // The end-of-life calendar: one entry per pin, and the table saying the same, earliest first.
      const eol = page.getByRole('region', { name: 'End of life ahead' });
      const table = eol.getByRole('table', { name: 'End of life of pinned images, earliest first' });
      await table.waitFor();
      const pins = (await apiAs(page, 'GET', '/pins?team=ml-platform')).body.items.filter((p) => p.eol);
      assert.ok(pins.length >= 1, 'the seeded pins have dated stacks');
      const dates = await table.locator('tbody tr td:first-child').allInnerTexts();
      assert.deepEqual(dates, [...dates].sort(), 'earliest first');
      assert.deepEqual([...dates].sort(), pins.map((p) => p.eol.date).sort());
      const first = pins.sort((a, b) => a.eol.date.localeCompare(b.eol.date))[0];
      assert.match(await table.locator('tbody tr').first().innerText(), new RegExp(`${first.eol.date}[\\s\\S]*ml-platform/${first.name}`));
      assert.equal(await eol.locator('.eol-calendar[aria-hidden="true"] .eol-entry').count(), pins.length);
      await axeCheck(page, 'exposure with KEV and end of life');
      await page.done();
    } finally {
      // A later catalog without it: the CVE leaves the catalog (the other tests see no KEV).
      assert.equal((await post(kev('2030-01-02T00:00:00.000Z', 'CVE-2021-44228'))).status, 200);
    }
  });

  test('pins and the image page: KEV-hit pins and exploited advisories first with the KEV badge; EPSS shown', async () => {
    const adminToken = (await (await fetch(`${base}/v1/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: ADMIN.email, password: ADMIN.password }) })).json()).access_token;
    const asAdmin = (method, p, body, type = 'application/json') => fetch(`${base}/v1${p}`, { method, headers: { Authorization: `Bearer ${adminToken}`, ...(body ? { 'Content-Type': type } : {}) }, body: body == null ? undefined : type === 'application/json' ? JSON.stringify(body) : body });
    // CISA's and FIRST's formats, this test's own entries; dated after the exposure test's catalog.
    const kev = (released, cves) => ({ title: 'CISA Catalog of Known Exploited Vulnerabilities', catalogVersion: released.slice(0, 10).replaceAll('-', '.'), dateReleased: released, count: cves.length, vulnerabilities: cves.map((cve) => ({ cveID: cve, vendorProject: 'Example', product: 'Probe', vulnerabilityName: 'Test entry', dateAdded: released.slice(0, 10), shortDescription: 'Test entry.', requiredAction: 'Apply updates per vendor instructions.', dueDate: '2030-02-21', knownRansomwareCampaignUse: 'Unknown', notes: '', cwes: [] })) });
    const epss = (day, rows) => `#model_version:v2025.03.14,score_date:${day}T00:00:00+0000\ncve,epss,percentile\n${rows.map(([c, e, p]) => `${c},${e},${p}`).join('\n')}\n`;
    // An image of its own family with a component only it has, and two advisories on that
    // component: the newer one scored high by EPSS but not exploited, the older one in KEV. The
    // API lists the newer first; the page puts the exploited one first.
    const user = await newPage();
    await signIn(user, '/pins');
    const pub = await apiAs(user, 'POST', '/images', { team: 'ml-platform', family: 'kev-order-probe-ubuntu24.04', version: '2026.04.01', provider: 'oci-container', architecture: 'x86_64', os: { name: 'ubuntu', version: '24.04' }, layer: 'platform', artifacts: [{ region: 'global', id: `ghcr.io/example/kev-order-probe@sha256:${'ab'.repeat(32)}` }], components: [{ name: 'kev-order-probe', version: '1.0.0' }], gpus: ['L4'], instance_families: [], tags: [], description: 'The KEV ordering test image.' });
    assert.equal(pub.status, 201, JSON.stringify(pub.body));
    const image = pub.body.id;
    const advisory = (id, published, cve) => ({ id, title: `Probe advisory ${id}`, published, severity: 'medium', cvss: 5.0, cves: [cve], url: `https://example.com/${id}`, affected: [{ component: 'kev-order-probe', range: '>=1.0, <2.0' }] });
    assert.equal((await asAdmin('POST', '/advisories', advisory('GHSA-kevx-0001', '2026-01-01', 'CVE-2030-0001'))).status, 201);
    assert.equal((await asAdmin('POST', '/advisories', advisory('GHSA-kevx-0002', '2026-03-01', 'CVE-2030-0002'))).status, 201);
    assert.equal((await asAdmin('POST', '/risk-feeds/kev', kev('2030-02-01T00:00:00.000Z', ['CVE-2025-23282', 'CVE-2030-0001']))).status, 200);
    assert.equal((await asAdmin('POST', '/risk-feeds/epss', epss('2030-02-01', [['CVE-2030-0001', '0.01234', '0.50000'], ['CVE-2030-0002', '0.87654', '0.99000'], ['CVE-2025-23282', '0.04200', '0.80000']]), 'text/csv')).status, 200);
    try {
      // Pins: those whose image NVIDIA-5703 hits (its CVE-2025-23282 is in KEV: staging-base, and
      // prod-training until a test moves it) first, though the API lists pins by name
      // (inference first); their advisory with the advisories list's badge and EPSS.
      await user.reload();
      await settle(user);
      const cards = user.locator('li.pin-card');
      await cards.first().waitFor();
      const api = (await apiAs(user, 'GET', '/pins?team=ml-platform')).body.items;
      const kevPins = api.filter((p) => p.kev_count > 0).map((p) => p.name);
      assert.ok(kevPins.includes('staging-base') && kevPins.length < api.length, JSON.stringify(api.map((p) => [p.name, p.kev_count])));
      assert.equal(api[0].kev_count, 0, 'the API does not put a KEV-hit pin first: the page does');
      const shown = await cards.evaluateAll((els) => els.map((e) => e.dataset.pin));
      assert.deepEqual(shown, [...kevPins, ...api.map((p) => p.name).filter((n) => !kevPins.includes(n))]);
      const first = cards.first();
      assert.match(await first.getAttribute('class'), /has-kev/);
      assert.equal(await first.locator('.pin-advisories .badge.is-kev').count(), 1);
      assert.match(await first.locator('.pin-advisories .badge.is-kev').getAttribute('title'), /CVE-2025-23282 in CISA's KEV catalog since 2030-02-01, due 2030-02-21/);
      assert.match(await first.locator('.pin-advisories').innerText(), /KEV: exploited\s+High\s+NVIDIA-5703[\s\S]*EPSS 4\.2% \(CVE-2025-23282\)/);
      assert.equal(await user.locator('li.pin-card.has-kev').count(), kevPins.length);
      assert.equal(await user.locator('li.pin-card:not(.has-kev) .badge.is-kev').count(), 0, 'no badge on pins KEV does not hit');
      await axeCheck(user, 'pins with KEV');

      // The image page: the API lists the newer advisory first; the page the exploited one.
      const patch = (await apiAs(user, 'GET', `/images/${image}/patch`)).body;
      assert.deepEqual(patch.advisories.map((a) => [a.id, !!a.kev]), [['GHSA-kevx-0002', false], ['GHSA-kevx-0001', true]]);
      await user.goto(`${base}/#/images/${image}`);
      await user.getByRole('heading', { level: 1, name: /kev-order-probe/ }).waitFor();
      await settle(user);
      const items = user.locator('#patch ul.advisories > li');
      await items.nth(1).waitFor();
      const texts = await items.allInnerTexts();
      assert.equal(texts.length, 2);
      assert.match(texts[0], /^KEV: exploited\s+Medium\s+GHSA-kevx-0001[\s\S]*EPSS 1\.2% \(CVE-2030-0001\)/);
      assert.match(texts[1], /^Medium\s+GHSA-kevx-0002[\s\S]*EPSS 87\.7% \(CVE-2030-0002\)/);
      assert.equal(await items.nth(0).locator('.badge.is-kev').count(), 1);
      assert.equal(await items.nth(1).locator('.badge.is-kev').count(), 0);
      assert.match(await items.nth(0).locator('.badge.is-kev').getAttribute('title'), /CVE-2030-0001 in CISA's KEV catalog since 2030-02-01, due 2030-02-21/);
      await axeCheck(user, 'image page with KEV');
      await user.done();
    } finally {
      // Later catalogs and scores without them, and the advisories withdrawn: the other tests
      // see neither KEV nor EPSS, and the probe image no advisory.
      assert.equal((await asAdmin('POST', '/risk-feeds/kev', kev('2030-02-02T00:00:00.000Z', ['CVE-2021-44228']))).status, 200);
      assert.equal((await asAdmin('POST', '/risk-feeds/epss', epss('2030-02-02', [['CVE-2021-44228', '0.96886', '0.99760']]), 'text/csv')).status, 200);
      for (const id of ['GHSA-kevx-0001', 'GHSA-kevx-0002']) assert.equal((await asAdmin('DELETE', `/advisories/${id}?reason=test%20done`)).status, 200);
    }
  });

  test('exposure: pinned images with advisories and fixes, a CVE across the catalog with teams, CSV exports, one-click move', async () => {
    const page = await newPage();
    await signIn(page, '/exposure');
    await settle(page);
    const row = page.locator('tr.exp-row', { hasText: 'staging-base' });
    await row.waitFor();
    assert.match(await row.innerText(), /NVIDIA-5703[\s\S]*CVE-2025-23280, CVE-2025-23282[\s\S]*base-gpu-ubuntu24\.04 2026\.03\.01/);
    assert.match(await page.locator('.exposure-summary').first().innerText(), /1 of 3 pinned images is hit by an advisory/);

    const pinsCsv = await downloadText(page, () => page.getByRole('region', { name: /Pinned images of ml-platform/ }).getByRole('button', { name: 'Export CSV' }).click());
    assert.equal(pinsCsv.name, 'imaxe-exposure-ml-platform.csv');
    const lines = pinsCsv.text.trim().split('\r\n');
    assert.equal(lines[0], 'team,pin,image_id,family,version,pin_status,patch_status,advisory,severity,cves,fixed_by,candidate');
    assert.ok(lines.includes(`ml-platform,staging-base,${ids['base-old']},base-gpu-ubuntu24.04,2026.01.05,patch_available,patch_available,NVIDIA-5703,high,CVE-2025-23280 CVE-2025-23282,base-gpu-ubuntu24.04 2026.03.01,base-gpu-ubuntu24.04 2026.03.01`), pinsCsv.text);
    assert.equal(lines.length, 4, 'one line per pin (and per advisory)');

    await page.getByLabel('CVE or advisory id').fill('CVE-2025-23280');
    await page.getByRole('button', { name: 'Find affected images' }).click();
    const hits = page.getByRole('region', { name: 'Images affected by CVE-2025-23280' });
    await hits.waitFor();
    const text = await hits.innerText();
    assert.match(text, /base-gpu-ubuntu24\.04 2026\.01\.05[\s\S]*ml-platform[\s\S]*base-gpu-ubuntu24\.04 2026\.03\.01[\s\S]*ml-platform\/staging-base/);
    assert.match(text, /pytorch-2\.9-ubuntu24\.04 2026\.01\.10/);
    assert.match(page.url(), /cve=CVE-2025-23280/);
    assert.match(await page.locator('.fleet-exposure').innerText(), /CVE-2025-23280 affects \d+ images?, \d+ pins? of \d+ teams?, and \d+ running nodes?/);
    const cveCsv = await downloadText(page, () => page.getByRole('region', { name: 'Who does this CVE hit?' }).getByRole('button', { name: 'Export CSV' }).click());
    assert.match(cveCsv.text, /^advisory,severity,cves,team,family,image_id,version,status,patch_status,fixed_by,pinned_by\r\n/);
    assert.match(cveCsv.text, new RegExp(`NVIDIA-5703,high,CVE-2025-23280 CVE-2025-23282,ml-platform,base-gpu-ubuntu24\\.04,${ids['base-old']},2026\\.01\\.05,active,patch_available,base-gpu-ubuntu24\\.04 2026\\.03\\.01,ml-platform/staging-base\\r\\n`));

    await row.getByRole('button', { name: 'Move ml-platform/staging-base to base-gpu-ubuntu24.04 2026.03.01' }).click();
    await page.waitForFunction(() => /up to date/.test(document.querySelector('tr.exp-row.is-current')?.innerText || '') && !document.querySelector('tr.exp-row.is-patch_available'));
    const pin = (await apiAs(page, 'GET', '/pins?team=ml-platform')).body.items.find((p) => p.name === 'staging-base');
    assert.equal(pin.image.id, ids['base-new']);
    await page.done();
  });

  test('advisories: a global admin publishes from the form (an API error at its row), imports OSV, revises and withdraws; others cannot', async () => {
    const page = await newPage();
    await signIn(page, '/advisories', ADMIN);
    await settle(page);
    await page.getByText('Publish or import an advisory').click();
    const form = page.getByRole('form', { name: 'New advisory' });
    await form.getByLabel('Advisory id').fill('NVIDIA-5614');
    await form.getByLabel('Title').fill('Container Toolkit - February 2025');
    await form.getByLabel('Published').fill('2025-02-11');
    await form.getByLabel('Severity').selectOption('critical');
    await form.getByLabel('CVSS').fill('9.0');
    await form.getByLabel('CVEs').fill('CVE-2025-23359');
    await form.getByLabel('Affected 1 component').fill('nvidia-container-toolkit');
    await form.getByLabel('Affected 1 range').fill('<=one');
    await form.getByRole('button', { name: 'Publish advisory' }).click();
    await page.waitForFunction(() => document.querySelector('[name="affected.0.range"]')?.getAttribute('aria-invalid') === 'true');
    assert.match(await form.locator('.field', { has: page.getByLabel('Affected 1 range') }).locator('.field-error').innerText(), /\S/);
    await form.getByLabel('Affected 1 range').fill('<=1.17.3');
    await form.getByLabel('Affected 1 fixed').fill('1.17.4');
    await form.getByRole('button', { name: 'Publish advisory' }).click();
    await page.getByText(/Published NVIDIA-5614: \d+ images? affected/).waitFor();
    await page.locator('tbody tr', { hasText: 'NVIDIA-5614' }).waitFor();

    const imp = page.getByRole('form', { name: 'Import an OSV advisory' });
    await imp.getByLabel('OSV document').fill(JSON.stringify({ schema_version: '1.6.0', id: 'GHSA-ui-0001', summary: 'Toolkit TOCTOU (UI import)', published: '2025-02-11T00:00:00Z', aliases: ['CVE-2025-23360'], affected: [{ package: { ecosystem: 'Go', name: 'nvidia-container-toolkit' }, ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '1.17.4' }] }] }] }));
    await imp.getByRole('button', { name: 'Import' }).click();
    await imp.locator('.form-error .state-error').waitFor();
    assert.match(await imp.locator('.form-error').innerText(), /database_specific\/severity/);
    const osv = JSON.parse(await imp.getByLabel('OSV document').inputValue());
    osv.database_specific = { severity: 'HIGH' };
    await imp.getByLabel('OSV document').fill(JSON.stringify(osv));
    await imp.getByRole('button', { name: 'Import' }).click();
    await page.getByText(/Published GHSA-ui-0001/).waitFor();
    const a = (await apiAs(page, 'GET', '/advisories/GHSA-ui-0001')).body;
    assert.equal(a.source, 'osv');
    assert.deepEqual(a.affected, [{ component: 'nvidia-container-toolkit', range: '<1.17.4', fixed: '1.17.4' }]);

    // Revise (only what changed, with If-Match; a bad range lands on its row), then withdraw.
    await page.goto(`${base}/#/advisories/NVIDIA-5614`);
    await settle(page);
    await page.getByText('Revise or withdraw').click();
    const rev = page.getByRole('form', { name: 'Revise NVIDIA-5614' });
    assert.equal(await rev.getByLabel('Affected 1 range').inputValue(), '<=1.17.3');
    await rev.getByLabel('Severity').selectOption('high');
    await rev.getByLabel('Affected 1 range').fill('<1.17.x');
    await rev.getByRole('button', { name: 'Save revision' }).click();
    await page.waitForFunction(() => document.querySelector('.advisory-revise [name="affected.0.range"]')?.getAttribute('aria-invalid') === 'true');
    await rev.getByLabel('Affected 1 range').fill('<1.17.4');
    await rev.getByRole('button', { name: 'Save revision' }).click();
    await page.getByText(/revision 2/).waitFor();
    let adv = (await apiAs(page, 'GET', '/advisories/NVIDIA-5614')).body;
    assert.equal(adv.severity, 'high');
    assert.deepEqual(adv.affected, [{ component: 'nvidia-container-toolkit', range: '<1.17.4', fixed: '1.17.4' }]);
    assert.deepEqual(adv.cves, ['CVE-2025-23359'], 'what was not changed stays');
    await page.getByText('Revise or withdraw').click();
    await page.getByRole('button', { name: 'Withdraw…' }).click();
    const wd = page.getByRole('dialog', { name: 'Withdraw NVIDIA-5614?' });
    await wd.getByLabel('Reason').fill('published in error');
    await wd.getByRole('button', { name: 'Withdraw advisory' }).click();
    await page.locator('.notice.is-revoked', { hasText: 'Withdrawn' }).waitFor();
    assert.match(await page.locator('.notice.is-revoked').innerText(), /published in error/);
    adv = (await apiAs(page, 'GET', '/advisories/NVIDIA-5614')).body;
    assert.ok(adv.withdrawn_at);
    assert.equal(await page.getByText('Revise or withdraw').count(), 0, 'a withdrawn advisory is not revised');

    // A global admin's exposure spans every team.
    await page.goto(`${base}/#/exposure?team=*`);
    await settle(page);
    await page.getByRole('heading', { name: 'Pinned images of all teams' }).waitFor();
    assert.match(await page.locator('tr.exp-row', { hasText: 'prod-training' }).innerText(), /ml-platform/);
    await page.done();

    const user = await newPage();
    await signIn(user, '/advisories');
    await settle(user);
    assert.equal(await user.getByRole('form', { name: 'New advisory' }).count(), 0);
    await user.getByText('Global admins publish and import advisories.').waitFor();
    await user.done();
  });

  test('advisories: a global admin imports an NVIDIA CSAF bulletin from a file; a product whose version form the server does not understand is left out and listed, the rest imports', async () => {
    const page = await newPage();
    await signIn(page, '/advisories', ADMIN);
    await settle(page);
    await page.getByText('Publish or import an advisory').click();
    const csaf = page.getByRole('form', { name: 'Import an NVIDIA CSAF bulletin' });
    const dir = path.join(ROOT, 'tests/data/csaf');

    // NVIDIA-5747 with one product renamed to a form no parser knows: that product is left out
    // and listed as unmapped (issue 30: refuse the smallest unit), the rest of the bulletin imports.
    const bad = JSON.parse(fs.readFileSync(path.join(dir, 'nvidia-5747.csaf.json'), 'utf8'));
    let renamed = 0;
    const walk = (n) => {
      if (Array.isArray(n)) return n.forEach(walk);
      if (!n || typeof n !== 'object') return;
      if (n.product_id === 'linuxr580_tesla_all_driver_versions_prior_to_580_126_09' && n.name) {
        n.name = 'All R580 U7 drivers';
        renamed++;
      }
      Object.values(n).forEach(walk);
    };
    walk(bad.product_tree);
    assert.ok(renamed > 0);
    await csaf.getByLabel('CSAF file').setInputFiles({ name: 'nvidia-5747-renamed.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(bad)) });
    await csaf.getByText(/nvidia-5747-renamed\.json/).waitFor();
    await csaf.getByRole('button', { name: 'Import bulletin' }).click();
    await page.getByText(/Published NVIDIA-5747/).waitFor();
    const partial = (await apiAs(page, 'GET', '/advisories/NVIDIA-5747')).body;
    assert.ok(partial.unmapped.some((u) => /All R580 U7 drivers/.test(`${u.product} ${u.text}`)), JSON.stringify(partial.unmapped));
    assert.ok(partial.affected.length > 0);

    // The real NVIDIA-5850: the Container Toolkit range and its fix.
    await csaf.getByLabel('CSAF file').setInputFiles(path.join(dir, 'nvidia-5850.csaf.json'));
    await csaf.getByText(/nvidia-5850\.csaf\.json/).waitFor();
    await csaf.getByRole('button', { name: 'Import bulletin' }).click();
    await page.getByText(/Published NVIDIA-5850/).waitFor();
    const a = (await apiAs(page, 'GET', '/advisories/NVIDIA-5850')).body;
    assert.equal(a.source, 'csaf');
    assert.deepEqual(a.affected, [{ component: 'nvidia-container-toolkit', range: '<1.19.1dev0', fixed: '1.19.1' }]);
    await page.locator('tbody tr', { hasText: 'NVIDIA-5850' }).waitFor();

    // The advisory page shows what the import left out, with why, and what it read with a
    // warning (NVIDIA-5857: DCGM Exporter "0.0 to 4.8.2" fixed in 4.8.2); an admin may re-apply
    // the product mapping, which changes nothing while the mapping has not changed.
    await page.goto(`${base}/#/advisories/NVIDIA-5747`);
    const notes = page.getByRole('region', { name: 'Import notes' });
    await notes.getByRole('heading', { name: /Left out \(\d+\)/ }).waitFor();
    const left = notes.getByRole('list', { name: /Left out/ });
    await left.getByText(/All R580 U7 drivers/).waitFor();
    assert.match(await left.innerText(), /not understood|version/i);
    await notes.getByRole('button', { name: 'Re-apply the product mapping' }).click();
    await notes.getByText(/Re-applied: NVIDIA-5747 unchanged/).waitFor();
    const dcgm = JSON.parse(fs.readFileSync(path.join(dir, 'feed/2026/5857/5857.json'), 'utf8'));
    assert.equal((await apiAs(page, 'POST', '/advisories', dcgm)).status, 201);
    await page.goto(`${base}/#/advisories/NVIDIA-5857`);
    const warned = page.getByRole('list', { name: /Read with a warning/ });
    await warned.waitFor();
    assert.match(await warned.innerText(), /4\.8\.2/);
    await page.done();
  });

  test('advisories: a publisher sees an advisory\'s import notes but no re-apply button', async () => {
    const page = await newPage();
    await signIn(page, '/advisories/NVIDIA-5747');
    const notes = page.getByRole('region', { name: 'Import notes' });
    await notes.getByText(/All R580 U7 drivers/).waitFor();
    assert.equal(await notes.getByRole('button', { name: 'Re-apply the product mapping' }).count(), 0);
    await page.done();
  });
});
