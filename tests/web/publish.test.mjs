// Browser tests of filing requests and publishing images against the real imaxe-server and
// PostgreSQL (catalog-browser.mjs): a request checked as it is typed and approved from the
// publisher queue; the publish form by keyboard, a pasted manifest and NDJSON import; then the
// lifecycle of the images those tests published (deprecate, restore, revoke, scheduled).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { useCatalogServer, base, ids, newPage, signIn, sessionHeaders, settle, apiAs, tabTo, fieldError } from './catalog-browser.mjs';
import { VIEWER } from './seed.mjs';

useCatalogServer('publish');

let publishedId = null;

describe('web catalog: requests, publishing, image lifecycle', () => {
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

  test('publish: a keyboard-only walk of the form, the stack checked live, errors at their fields, then published', async () => {
    const page = await newPage();
    await signIn(page, '/publish');
    await page.getByRole('heading', { name: 'Publish an image', level: 1 }).waitFor();
    await page.getByLabel('Team').focus();
    assert.equal(await page.getByLabel('Team').inputValue(), 'ml-platform');
    await tabTo(page, 'family');
    await page.keyboard.type('pytorch-2.10-ubuntu24.04');
    await tabTo(page, 'version');
    await page.keyboard.type('bad version!');
    for (const n of ['provider', 'architecture', 'layer', 'os.name', 'os.version', 'kernel', 'components.0.name', 'components.0.version']) await tabTo(page, n);
    await page.keyboard.type('570.172.08');
    await tabTo(page, 'Remove components row 1');
    await tabTo(page, 'components.1.name');
    await tabTo(page, 'components.1.version');
    await page.keyboard.type('13.0.2');
    await tabTo(page, 'Remove components row 2');
    await tabTo(page, 'Add a component');
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate(() => document.activeElement.name), 'components.2.name', 'a new row gets focus');
    await page.keyboard.type('pytorch');
    await tabTo(page, 'components.2.version');
    await page.keyboard.type('2.10.0');
    await tabTo(page, 'Remove components row 3');
    await tabTo(page, 'Add a component');
    await tabTo(page, 'gpus');
    await page.keyboard.type('H100, H200');
    await tabTo(page, 'instance_families');
    await tabTo(page, 'tags');
    await tabTo(page, 'artifacts.0.region');
    await page.keyboard.type('us-east-1');
    await tabTo(page, 'artifacts.0.id');
    await page.keyboard.type('ami-0fedcba9876543210');

    // The live report: CUDA 13 needs a newer driver; publishing waits for a decision.
    const live = page.locator('.live-compat');
    await live.getByText('driver_too_old_for_cuda').waitFor();
    await page.getByText('1 compatibility error', { exact: true }).waitFor();
    await page.keyboard.press('Enter');
    await page.locator('.ack-errors .field-error').waitFor();
    assert.match(await page.locator('.ack-errors .field-error').innerText(), /compatibility error/);
    assert.equal(await page.evaluate(() => document.activeElement.name), 'acknowledge_errors', 'focus on the field to fix');

    await page.getByLabel('Version 1').fill('580.95.05');
    await live.getByRole('heading', { name: 'Compatible' }).waitFor();
    assert.equal(await page.locator('.ack-errors').isVisible(), false);

    // The server's problem lands on the field its pointer names.
    await page.getByRole('button', { name: 'Publish image' }).click();
    const version = page.getByLabel('Version', { exact: true });
    await page.waitForFunction(() => document.querySelector('[name="version"]')?.getAttribute('aria-invalid') === 'true');
    assert.match(await fieldError(page, 'Version').innerText(), /must be 1 to 64/);
    await version.fill('2026.04.02');
    await page.getByRole('button', { name: 'Publish image' }).click();
    const done = page.locator('.publish-result');
    await done.getByRole('heading', { name: /Published pytorch-2\.10-ubuntu24\.04 2026\.04\.02/ }).waitFor();
    publishedId = Number((await done.getByRole('link').getAttribute('href')).split('/').pop());
    const got = await apiAs(page, 'GET', `/images/${publishedId}`);
    assert.equal(got.body.components.pytorch, '2.10.0');
    assert.equal(got.body.compatibility.ok, true);
    await page.done();
  });

  test('publish: a pasted manifest fills the form; NDJSON is imported all or nothing, its bad line named; a viewer is refused', async () => {
    const page = await newPage();
    await signIn(page, '/publish');
    const paste = page.getByLabel('Manifest JSON or NDJSON');
    await paste.fill(JSON.stringify({ family: 'pasted-family', version: '1.0', provider: 'gcp', architecture: 'arm64', os: { name: 'debian', version: '12' }, layer: 'model', components: [{ name: 'cuda', version: '12.8.1' }], gpus: ['L4'], artifacts: [{ region: 'us-central1', id: 'projects/x/images/y' }] }));
    await page.getByRole('button', { name: 'Use this' }).click();
    assert.equal(await page.getByLabel('Family').inputValue(), 'pasted-family');
    assert.equal(await page.getByLabel('Provider').inputValue(), 'gcp');
    assert.equal(await page.getByLabel('Component 1').inputValue(), 'cuda');
    assert.equal(await page.getByLabel('Region 1').inputValue(), 'us-central1');

    const line = (over) => JSON.stringify({ family: 'ndjson-family', version: '1', provider: 'aws', architecture: 'x86_64', os: { name: 'ubuntu', version: '24.04' }, layer: 'platform', artifacts: [{ region: 'us-east-1', id: 'ami-0000000000000abcd' }], components: [{ name: 'cuda', version: '12.8.1' }], ...over });
    await paste.fill([line({}), line({ version: '2', provider: 'ibm' })].join('\n'));
    await page.getByRole('button', { name: 'Use this' }).click();
    // POST /v1/images:import is all or nothing: the bad line is named and nothing is published.
    const results = page.getByTestId('ndjson-results');
    await results.locator('.state-error li[data-line="2"]').waitFor();
    assert.match(await results.locator('.state-error').innerText(), /Nothing was published[\s\S]*Line 2[\s\S]*\/provider[\s\S]*must be aws, gcp/);
    assert.equal(await results.locator('li[data-line="1"]').count(), 0, 'only the bad line is named');
    assert.equal((await apiAs(page, 'GET', '/images?family=ndjson-family')).body.items.length, 0);
    await paste.fill([line({}), line({ version: '2', components: [{ name: 'nvidia-driver', version: '570.172.08' }, { name: 'cuda', version: '13.0.2' }] })].join('\n'));
    await page.getByRole('button', { name: 'Use this' }).click();
    await results.getByRole('heading', { name: 'Published 2 images' }).waitFor();
    assert.match(await results.locator('li[data-line="1"]').innerText(), /Line 1: ndjson-family 1$/);
    assert.match(await results.locator('li[data-line="2"]').innerText(), /Line 2: ndjson-family 2\s+\d+ compatibility errors?/);
    assert.equal((await apiAs(page, 'GET', '/images?family=ndjson-family')).body.items.length, 2);
    await page.done();

    const viewer = await newPage();
    await signIn(viewer, '/publish', VIEWER);
    await viewer.getByText('You are not a publisher in any of your teams').waitFor();
    await viewer.getByLabel('Family').fill('viewer-family');
    await viewer.getByLabel('Version', { exact: true }).fill('1');
    await viewer.getByLabel('Version 2').fill('12.8.1');
    await viewer.getByLabel('Region 1').fill('us-east-1');
    await viewer.getByLabel('Artifact id 1').fill('ami-0000000000000beef');
    await viewer.getByRole('button', { name: 'Publish image' }).click();
    await viewer.locator('.publish-form .form-error .state-error').waitFor();
    assert.match(await viewer.locator('.publish-form .form-error').innerText(), /publisher/i);
    await viewer.done({ allow: [403] });
  });

  test('image lifecycle: deprecate, restore and revoke, each confirmed with what changes; viewers get no buttons', async () => {
    assert.ok(publishedId, 'the publish test ran');
    const page = await newPage();
    await signIn(page, `/images/${publishedId}`);
    await settle(page);
    const life = page.locator('#lifecycle');
    await life.getByRole('button', { name: 'Deprecate…' }).click();
    let dlg = page.getByRole('dialog', { name: 'Deprecate pytorch-2.10-ubuntu24.04 2026.04.02?' });
    await dlg.waitFor();
    assert.match(await dlg.innerText(), /becomes deprecated \(now active\)/);
    await dlg.getByLabel('Reason').fill('superseded by 2.10.1');
    await dlg.getByRole('button', { name: 'Deprecate' }).click();
    await life.getByText('superseded by 2.10.1').waitFor();
    assert.match(await life.innerText(), /Deprecated/);
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'lifecycle-title', 'focus stays on the lifecycle panel');

    await life.getByRole('button', { name: 'Restore…' }).click();
    dlg = page.getByRole('dialog', { name: /^Restore/ });
    await dlg.getByRole('button', { name: 'Restore' }).click();
    await life.getByRole('button', { name: 'Deprecate…' }).waitFor();
    assert.equal((await apiAs(page, 'GET', `/images/${publishedId}`)).body.status, 'active');

    await life.getByRole('button', { name: 'Revoke…' }).click();
    dlg = page.getByRole('dialog', { name: /^Revoke/ });
    assert.match(await dlg.innerText(), /resolve and pins never return it/);
    await dlg.getByLabel('Reason (required)').fill('');
    await dlg.getByRole('button', { name: 'Revoke' }).click();
    assert.equal(await dlg.isVisible(), true, 'a revocation needs a reason');
    await dlg.getByLabel('Reason (required)').fill('CVE-2099-0001 in the test image');
    await dlg.getByRole('button', { name: 'Revoke' }).click();
    await page.locator('.notice.is-revoked').waitFor();
    assert.match(await page.locator('.notice.is-revoked').innerText(), /Revoked: CVE-2099-0001/);
    const img = (await apiAs(page, 'GET', `/images/${publishedId}`)).body;
    assert.equal(img.status, 'revoked');
    assert.equal(img.status_reason, 'CVE-2099-0001 in the test image');

    // A schedule: the image stays active until then; restoring cancels it.
    const ndjson = (await apiAs(page, 'GET', '/images?family=ndjson-family')).body.items[0];
    await page.goto(`${base}/#/images/${ndjson.id}`);
    await settle(page);
    await life.getByRole('button', { name: 'Revoke…' }).click();
    dlg = page.getByRole('dialog', { name: /^Revoke/ });
    await dlg.getByLabel('Reason (required)').fill('end of life');
    await dlg.getByLabel('Revoke at (UTC, optional)').fill('2030-01-01T00:00');
    await dlg.getByRole('button', { name: 'Revoke' }).click();
    await life.getByText(/revocation scheduled for 2030-01-01 00:00 UTC/).waitFor();
    let got = (await apiAs(page, 'GET', `/images/${ndjson.id}`)).body;
    assert.equal(got.status, 'active');
    assert.equal(new Date(got.revoke_at).toISOString(), '2030-01-01T00:00:00.000Z');
    await life.getByRole('button', { name: 'Restore…' }).click();
    dlg = page.getByRole('dialog', { name: /^Restore/ });
    assert.match(await dlg.innerText(), /The scheduled revocation is cancelled/);
    await dlg.getByRole('button', { name: 'Restore' }).click();
    await life.getByRole('button', { name: 'Revoke…' }).waitFor();
    assert.equal((await apiAs(page, 'GET', `/images/${ndjson.id}`)).body.revoke_at, null);

    // Changed behind the page's back: the If-Match refusal says so and changes nothing.
    const head = await fetch(`${base}/v1/images/${ndjson.id}`, { headers: await sessionHeaders(page) });
    const patched = await fetch(`${base}/v1/images/${ndjson.id}`, { method: 'PATCH', headers: { ...(await sessionHeaders(page)), 'If-Match': head.headers.get('etag'), 'Content-Type': 'application/json' }, body: JSON.stringify({ status: 'deprecated', reason: 'by a script' }) });
    assert.equal(patched.status, 200);
    await life.getByRole('button', { name: 'Deprecate…' }).click();
    await page.getByRole('dialog', { name: /^Deprecate/ }).getByRole('button', { name: 'Deprecate' }).click();
    await life.getByText('Someone changed this image meanwhile').waitFor();
    await life.getByRole('button', { name: 'Reload the image' }).click();
    await life.getByText('by a script').waitFor();

    // Cascade names the images built on this one (cancelled here: later tests need them).
    await page.goto(`${base}/#/images/${ids['base-old']}`);
    await settle(page);
    await life.getByRole('button', { name: 'Revoke…' }).click();
    dlg = page.getByRole('dialog', { name: /^Revoke base-gpu-ubuntu24\.04 2026\.01\.05/ });
    await dlg.getByText('With cascade, also the 2 images built on it:').waitFor();
    assert.match(await dlg.innerText(), /pytorch-2\.9-ubuntu24\.04 2026\.01\.10[\s\S]*pytorch-2\.9-ubuntu24\.04 2026\.03\.17/);
    assert.equal(await dlg.getByLabel('Also revoke the 2 images built on it').isChecked(), false);
    await page.keyboard.press('Escape');
    assert.equal((await apiAs(page, 'GET', `/images/${ids['base-old']}`)).body.status, 'active');
    await page.done({ allow: [412] });

    const viewer = await newPage();
    await signIn(viewer, `/images/${ids['torch-new']}`, VIEWER);
    await settle(viewer);
    assert.match(await viewer.locator('#lifecycle').innerText(), /Only publishers of team ml-platform/);
    assert.equal(await viewer.locator('#lifecycle button').count(), 0);
    await viewer.done();
  });

  test('requests: an image whose compatibility report has errors is marked in the preview, and the server never offers it as a match', async () => {
    const page = await newPage();
    await signIn(page, '/requests');
    const bad = await apiAs(page, 'POST', '/images', { team: 'ml-platform', family: 'bad-stack-ubuntu24.04', version: '1', provider: 'aws', architecture: 'x86_64', os: { name: 'ubuntu', version: '24.04' }, layer: 'platform', artifacts: [{ region: 'us-east-1', id: 'ami-0badbadbadbadbad0' }], components: [{ name: 'nvidia-driver', version: '570.172.08' }, { name: 'cuda', version: '13.0.2' }], gpus: ['H100'] });
    assert.equal(bad.status, 201);
    assert.equal(bad.body.compatibility.ok, false, 'the server stores the failing report');
    await page.getByLabel('Title').fill('CUDA 13 on the R570 driver');
    await page.getByLabel('NVIDIA driver').fill('570.172.08');
    await page.getByLabel('CUDA').fill('13.0.2');
    const live = page.locator('.live-matches li', { hasText: 'bad-stack-ubuntu24.04' });
    await live.waitFor();
    assert.match(await live.innerText(), /\d+ compatibility errors?\s+not a safe match/);
    await page.getByRole('button', { name: 'File request' }).click();
    // The server leaves the failing image out of the request's matches (imx_request_satisfied_by).
    const result = page.locator('.request-result section');
    await result.waitFor();
    assert.doesNotMatch(await result.innerText(), /bad-stack-ubuntu24\.04/);
    const id = Number((await result.locator('h2').innerText()).match(/Request (\d+)/)[1]);
    const matches = await apiAs(page, 'GET', `/requests/${id}/matches`);
    assert.equal(matches.status, 200);
    assert.ok(!matches.body.items.some((m) => (m.image || m).family === 'bad-stack-ubuntu24.04'), 'never offered as a match');
    await page.done();
  });
});
