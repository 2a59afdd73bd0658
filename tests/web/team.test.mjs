// Browser tests of a team's settings and records against the real imaxe-server and PostgreSQL
// (catalog-browser.mjs): webhooks (a signed ping to the loopback receiver, filters), API tokens
// and members, measurements, the fleet's nodes and drift; then every screen at 1280 px, 390 px
// and dark, axe-clean, with screenshots in build/web-screenshots/.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { useCatalogServer, base, srv, ids, newPage, signIn, settle, axeCheck, apiAs, fieldError, SHOTS } from './catalog-browser.mjs';
import { USER, VIEWER, ADMIN } from './seed.mjs';

useCatalogServer('team');

describe('web catalog: webhooks, account, measurements, fleet, every screen', () => {
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

  test('account: an API token shown once that works, then revoked; server errors at their fields; members and roles; a viewer is capped', async () => {
    const page = await newPage();
    await signIn(page, '/account');
    await settle(page);
    const form = page.locator('.token-form');
    await form.getByLabel('Token name').fill('ci-deploy');
    await form.getByLabel('Role').selectOption('viewer');
    await form.getByLabel('Expires after (days)').fill('400');
    await form.getByRole('button', { name: 'Create token' }).click();
    await page.waitForFunction(() => document.querySelector('[name="expires_in_days"]')?.getAttribute('aria-invalid') === 'true');
    assert.match(await fieldError(form, 'Expires after (days)').innerText(), /from 1 to 365/);
    await form.getByLabel('Expires after (days)').fill('30');
    await form.getByRole('button', { name: 'Create token' }).click();
    const secret = page.getByTestId('api-token');
    await secret.waitFor();
    const token = await secret.innerText();
    assert.match(token, /^imx_/);
    const me = await fetch(`${base}/v1/me`, { headers: { Authorization: `Bearer ${token}` } });
    assert.equal(me.status, 200, 'the token works');
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.reload();
    await settle(page);
    assert.doesNotMatch(await page.locator('main').innerText(), /imx_/, 'never shown again');
    await page.getByRole('button', { name: 'Revoke token ci-deploy' }).click();
    await page.getByRole('dialog', { name: 'Revoke “ci-deploy”?' }).getByRole('button', { name: 'Revoke token' }).click();
    await page.locator('tr.token-row.is-revoked').waitFor();
    assert.equal((await fetch(`${base}/v1/me`, { headers: { Authorization: `Bearer ${token}` } })).status, 401, 'refused at once');

    const team = page.locator('[data-team="ml-platform"]');
    await team.getByText('viewer@imaxe.test').waitFor();
    await team.getByLabel('Email').fill('nobody@imaxe.test');
    await team.getByRole('button', { name: 'Add member' }).click();
    await team.locator('.member-form .field-error').waitFor();
    await team.getByLabel('Role of viewer@imaxe.test').selectOption('member');
    await page.getByText('viewer@imaxe.test is now member of ml-platform').waitFor();
    const detail = (await apiAs(page, 'GET', '/teams/ml-platform')).body;
    assert.equal(detail.members.find((m) => m.email === VIEWER.email).role, 'member');
    await apiAs(page, 'PUT', `/teams/ml-platform/members/${encodeURIComponent(VIEWER.email)}`, { role: 'viewer' });
    await page.done({ allow: [404] });

    const viewer = await newPage();
    await signIn(viewer, '/account', VIEWER);
    await settle(viewer);
    const vform = viewer.locator('.token-form');
    await vform.getByLabel('Token name').fill('too-strong');
    await vform.getByLabel('Role').selectOption('admin');
    await vform.getByRole('button', { name: 'Create token' }).click();
    await viewer.waitForFunction(() => document.querySelector('.token-form [name="role"]')?.getAttribute('aria-invalid') === 'true');
    assert.match(await fieldError(vform, 'Role').innerText(), /exceeds your role/);
    const vteam = viewer.locator('[data-team="ml-platform"]');
    await vteam.getByText('Only admins of this team change its members and roles.').waitFor();
    assert.equal(await vteam.locator('select').count(), 0);
    await viewer.done();
  });

  test('webhooks: edit a subscription: families, pins and severity filters; an API error at its field; a viewer is refused', async () => {
    const page = await newPage();
    await signIn(page, '/webhooks');
    await settle(page);
    const hookUrl = `http://127.0.0.1:${srv.receiver.port}/existing`;
    await page.getByRole('button', { name: `Edit the webhook to ${hookUrl}` }).click();
    const form = page.getByRole('form', { name: `Change the webhook to ${hookUrl}` });
    await form.getByLabel('Endpoint URL').fill('https://localhost/hook');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await page.waitForFunction(() => document.querySelector('.webhook-edit [name="url"]')?.getAttribute('aria-invalid') === 'true');
    assert.match(await fieldError(form, 'Endpoint URL').innerText(), /local or cloud metadata host/);
    await form.getByLabel('Endpoint URL').fill(hookUrl);
    await form.getByLabel('Families').fill('pytorch-2.9-ubuntu24.04, base-gpu-ubuntu24.04');
    await form.getByLabel('prod-training').check();
    await form.getByLabel('Minimum advisory severity').selectOption('high');
    await form.getByLabel('image.revoked').check();
    await form.getByRole('button', { name: 'Save changes' }).click();
    const card = page.locator('.hook-card', { hasText: hookUrl });
    await card.locator('.hook-filters').waitFor();
    assert.match(await card.innerText(), /family\s*pytorch-2\.9-ubuntu24\.04[\s\S]*pin\s*prod-training/);
    assert.match(await card.innerText(), /severity ≥\s*high/);
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), `Edit the webhook to ${hookUrl}`, 'focus back on Edit');
    const hook = (await apiAs(page, 'GET', '/webhooks?team=ml-platform')).body.items.find((x) => x.url === hookUrl);
    assert.deepEqual(hook.families.slice().sort(), ['base-gpu-ubuntu24.04', 'pytorch-2.9-ubuntu24.04']);
    assert.deepEqual(hook.pins, ['prod-training']);
    assert.equal(hook.min_severity, 'high');
    assert.deepEqual(hook.events.slice().sort(), ['image.revoked', 'patch.available', 'ping']);

    // Emptied filters are removed, not left as they were.
    await page.getByRole('button', { name: `Edit the webhook to ${hookUrl}` }).click();
    await form.getByLabel('Families').fill('');
    await form.getByLabel('Minimum advisory severity').selectOption('');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('button', { name: `Edit the webhook to ${hookUrl}` }).waitFor();
    const after = (await apiAs(page, 'GET', `/webhooks/${hook.id}`)).body;
    assert.deepEqual(after.families, []);
    assert.equal(after.min_severity, null);
    await page.done();

    const viewer = await newPage();
    await signIn(viewer, '/webhooks', VIEWER);
    await settle(viewer);
    assert.equal(await viewer.getByRole('button', { name: /^Edit the webhook/ }).count(), 0);
    await viewer.getByLabel('Endpoint URL').fill(`http://127.0.0.1:${srv.receiver.port}/viewer`);
    await viewer.getByRole('button', { name: 'Create webhook' }).click();
    await viewer.locator('.webhook-form .form-error .state-error').waitFor();
    assert.match(await viewer.locator('.webhook-form .form-error').innerText(), /admin/i);
    await viewer.done({ allow: [403] });
  });

  test('measurements: record one (an API error at its field), import CSV with per-line errors, then all of it; a viewer is refused', async () => {
    const page = await newPage();
    await signIn(page, '/costs?model=resnet50');
    await settle(page);
    await page.getByText('Record or import measurements').click();
    const form = page.getByRole('form', { name: 'New measurement' });
    await form.getByLabel('Team').selectOption('ml-platform');
    await form.getByLabel('Image id').fill(String(ids['torch-new']));
    await form.getByLabel('Instance type').fill('p5.48xlarge');
    await form.getByLabel('Region').fill('us-east-1');
    await form.getByLabel('GPUs').fill('8');
    await form.getByLabel('Model').fill('resnet50');
    await form.getByLabel('Precision').fill('fp16');
    await form.getByLabel('Batch size').fill('64');
    await form.getByLabel('Throughput (inferences/s)').fill('21000');
    await form.getByLabel('Latency p50 (ms)').fill('9');
    await form.getByLabel('Latency p99 (ms)').fill('4');
    await form.getByRole('button', { name: 'Record measurement' }).click();
    await page.waitForFunction(() => document.querySelector('.measure-form [aria-invalid="true"]'));
    assert.match(await form.locator('.field-error').first().innerText(), /p50|p99/);
    await form.getByLabel('Latency p99 (ms)').fill('14');
    await form.getByRole('button', { name: 'Record measurement' }).click();
    await page.getByTestId('measurement-result').waitFor();
    assert.match(await page.getByTestId('measurement-result').innerText(), /Recorded: \$0\.\d+ per 1,000 inferences/);

    const imp = page.getByRole('form', { name: 'Import measurements' });
    const head = 'image,instance_type,region,model,precision,batch_size,throughput_per_s,latency_p50_ms,latency_p99_ms,measured_at';
    await imp.getByLabel('CSV or NDJSON').fill([head, `${ids['torch-old']},p5.48xlarge,us-east-1,resnet50,fp16,64,19000,10,15,2026-10-03T10:00:00Z`, `${ids['torch-old']},p5.48xlarge,us-east-1,resnet50,fp16,64,-5,10,15,2026-10-03T11:00:00Z`].join('\n'));
    await imp.getByRole('button', { name: 'Import' }).click();
    const bad = page.getByTestId('import-result').locator('li[data-line="3"]');
    await bad.waitFor();
    assert.match(await bad.innerText(), /Line 3[\s\S]*throughput_per_s/);
    assert.equal(await page.getByTestId('import-result').locator('li[data-line="2"]').count(), 0, 'only the bad line is named');
    await imp.getByLabel('CSV or NDJSON').fill([head, `${ids['torch-old']},p5.48xlarge,us-east-1,resnet50,fp16,64,19000,10,15,2026-10-03T10:00:00Z`, `${ids['torch-old']},p5.48xlarge,us-east-1,resnet50,fp16,64,18500,10,16,2026-10-03T11:00:00Z`].join('\n'));
    await imp.getByRole('button', { name: 'Import' }).click();
    await page.getByTestId('import-result').getByText('Imported 2 measurements.').waitFor();
    const list = (await apiAs(page, 'GET', `/measurements?team=ml-platform&model=resnet50&image=${ids['torch-old']}`)).body;
    assert.equal(list.items.length, 2);
    await page.done();

    const viewer = await newPage();
    await signIn(viewer, '/costs', VIEWER);
    await viewer.getByText('Record or import measurements').click();
    const vform = viewer.getByRole('form', { name: 'New measurement' });
    for (const [label, v] of [['Image id', String(ids['torch-new'])], ['Instance type', 'p5.48xlarge'], ['Model', 'resnet50'], ['Precision', 'fp16'], ['Batch size', '8'], ['Throughput (inferences/s)', '100']]) await vform.getByLabel(label).fill(v);
    await vform.getByRole('button', { name: 'Record measurement' }).click();
    await vform.locator('.form-error .state-error').waitFor();
    assert.match(await vform.locator('.form-error').innerText(), /member/i);
    await viewer.done({ allow: [403] });
  });

  test('fleet: nodes reported with a node-report token, counts per image, the drifted node and what drifts; the pin plan', async () => {
    const page = await newPage();
    await signIn(page, '/catalog');
    await settle(page);
    const tok = await apiAs(page, 'POST', '/tokens', { name: 'web-nodes', team: 'ml-platform', role: 'member', scope: 'node-report' });
    assert.equal(tok.status, 201);
    const img = (await apiAs(page, 'GET', `/images/${ids['base-new']}`)).body;
    const driver = img.components['nvidia-driver'];
    // Node 1 runs exactly what the image lists; node 2 another driver.
    const report = (name, version) => ({ name, image: { id: ids['base-new'] }, instance_type: 'p5.48xlarge', probe: {
      architecture: img.architecture, os: img.os, kernel: img.kernel, gpus: ['H100'],
      components: Object.entries(img.components).map(([n, v]) => ({ name: n, version: n === 'nvidia-driver' ? version : v })) } });
    const body = [report('web-node-1', driver), report('web-node-2', '575.57.08')].map((r) => JSON.stringify(r)).join('\n') + '\n';
    const res = await fetch(`${base}/v1/nodes/reports`, { method: 'POST', headers: { Authorization: `Bearer ${tok.body.token}`, 'Content-Type': 'application/x-ndjson' }, body });
    assert.equal(res.status, 200, await res.text());
    await page.goto(`${base}/#/fleet?team=ml-platform`);
    await settle(page);
    assert.match(await page.locator('.exposure-summary').first().innerText(), /2 nodes: 1 drifted, 0 stale/);
    const drifted = page.locator('tr.node-row.is-drifted');
    assert.equal(await drifted.count(), 1);
    assert.match(await drifted.innerText(), /web-node-2[\s\S]*nvidia-driver[\s\S]*575\.57\.08/);
    await page.getByRole('button', { name: 'Drifted' }).click();
    await settle(page);
    assert.match(page.url(), /show=drift%3Dtrue|show=drift=true/);
    assert.equal(await page.locator('tr.node-row').count(), 1);
    await axeCheck(page, 'fleet');
    // The team picker names teams as the other screens do; a slug only tells two alike apart.
    const pickerTexts = async () => (await page.locator('.team-picker select option').allInnerTexts()).map((t) => t.trim()).sort();
    assert.deepEqual(await pickerTexts(), ['ML Platform', 'Research']);
    const adminToken = (await (await fetch(`${base}/v1/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: ADMIN.email, password: ADMIN.password }) })).json()).access_token;
    const asAdmin = (method, p, body) => fetch(`${base}/v1${p}`, { method, headers: { Authorization: `Bearer ${adminToken}`, ...(body ? { 'Content-Type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
    assert.equal((await asAdmin('POST', '/teams', { slug: 'research-lab', name: 'Research' })).status, 201);
    const member = `/teams/research-lab/members/${encodeURIComponent(USER.email)}`;
    assert.equal((await asAdmin('PUT', member, { role: 'viewer' })).status < 300, true);
    try {
      await page.reload();
      await settle(page);
      assert.deepEqual(await pickerTexts(), ['ML Platform', 'Research (research)', 'Research (research-lab)']);
      assert.equal(await page.locator('.team-picker select').inputValue(), 'ml-platform');
    } finally {
      assert.equal((await asAdmin('DELETE', member)).status < 300, true);
    }
    await page.goto(`${base}/#/pins?team=ml-platform`);
    await settle(page);
    const plan = page.locator('.pin-card details', { hasText: 'Plan the safest move' }).first();
    await plan.locator('summary').click();
    await plan.locator('.plan-reason').waitFor();
    assert.match(await plan.locator('.plan-reason').innerText(), /^(Move to|Stay:)/);
    await page.done();
  });

  test('every screen: no serious or critical axe violations; screenshots at 1280 and 390 px', async () => {
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
      ['exposure', '/exposure?cve=CVE-2025-23280'],
      ['fleet', '/fleet?team=ml-platform'],
      ['publish', '/publish'],
      ['pins-new', `/pins?new=${ids['torch-old']}`],
      ['account', '/account'],
      ['costs-record', '/costs'],
      ['image-lifecycle', `/images/${ids['torch-new']}`],
    ];
    for (const [width, scheme] of [[1280, 'light'], [390, 'light'], [1280, 'dark']]) {
      const page = await newPage({ width, height: width > 400 ? 900 : 780, colorScheme: scheme });
      await signIn(page);
      for (const [name, hash] of screens) {
        if (name === 'signin') {
          await page.context().clearCookies();
          await page.goto(`${base}/#/signin`);
        } else {
          if (!(await page.context().cookies(base)).some((c) => c.name === 'imaxe_csrf')) await signIn(page);
          await page.goto(`${base}/#${hash}`);
        }
        await page.locator('main h1').first().waitFor();
        await settle(page);
        if (name === 'requests') {
          await page.getByLabel('CUDA').fill('12.8');
          await page.getByLabel('NVIDIA driver').fill('570.172.08');
          await page.locator('.live-matches h3').waitFor();
        }
        if (name === 'publish') {
          await page.getByLabel('Version 1').fill('570.172.08');
          await page.getByLabel('Version 2').fill('13.0.2');
          await page.locator('.live-compat').getByText('driver_too_old_for_cuda').waitFor();
        }
        if (name === 'costs-record') await page.getByText('Record or import measurements').click();
        if (name === 'image-lifecycle') {
          await page.locator('#lifecycle').getByRole('button', { name: 'Deprecate…' }).click();
          await page.getByRole('dialog').waitFor();
        }
        if (scheme === 'light') await axeCheck(page, `${name} at ${width}px`);
        if (width < 400) {
          const wide = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          assert.equal(wide, 0, `${name} scrolls sideways at ${width}px`);
        }
        await page.screenshot({ path: path.join(SHOTS, `${name}-${width}${scheme === 'dark' ? '-dark' : ''}.png`), fullPage: true });
        if (name === 'image-lifecycle') await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
      }
      if (width === 390) {
        // The filter drawer and the menu, open.
        await page.goto(`${base}/#/catalog`);
        await settle(page);
        await page.getByRole('button', { name: /^Filters/ }).click();
        await page.waitForTimeout(150);
        await axeCheck(page, 'catalog drawer at 390px');
        await page.screenshot({ path: path.join(SHOTS, 'catalog-drawer-390.png') });
        await page.getByRole('button', { name: 'Close filters' }).click();
        await page.getByRole('button', { name: 'Menu' }).click();
        await page.screenshot({ path: path.join(SHOTS, 'menu-390.png') });
      }
      await page.done();
    }
  });
});
