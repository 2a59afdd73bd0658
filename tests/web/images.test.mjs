// Browser tests of the image page, compare and the charts against the real imaxe-server and
// PostgreSQL (catalog-browser.mjs): manifest, patch status, lineage, snippets and costs; compare
// with two to four images and its tray; every chart at 1280 and 390 px; OS patches from packages
// and an SBOM (last: it publishes images and a distro advisory).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { useCatalogServer, base, srv, ids, newPage, signIn, sessionHeaders, settle, axeCheck, apiAs, SHOTS, ROOT } from './catalog-browser.mjs';
import { ADMIN } from './seed.mjs';

useCatalogServer('images');

describe('web catalog: image pages, compare, charts', () => {
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
    assert.match(await page.locator('#patch').innerText(), /OK\s+No known advisory/);
    assert.match(await page.locator('#manifest').innerText(), /cuda\s+12\.8\.1/);
    assert.match(await page.locator('#compat').innerText(), /\S/);
    assert.match(await page.locator('#lineage').innerText(), /base-gpu-ubuntu24\.04 2026\.01\.05/);
    assert.match(await page.locator('#lineage').innerText(), /newer image: base-gpu-ubuntu24\.04 2026\.03\.01/);
    assert.match(await page.locator('#regions').innerText(), /us-east-1\s+ami-0/);
    assert.match(await page.locator('#use pre').innerText(), /\/v1\/images\/resolve\?family=pytorch-2\.9-ubuntu24\.04&region=(us-east-1|eu-west-1)/);
    assert.equal(await page.locator('#use').getByRole('link', { name: 'Account' }).getAttribute('href'), '#/account', 'the snippet says where $IMAXE_TOKEN comes from');
    await page.getByRole('tab', { name: 'Terraform' }).click();
    assert.match(await page.locator('#use pre').innerText(), /data "http" "imaxe_image"/);
    await page.locator('#costs canvas').nth(1).waitFor();
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

  /** Checks one chart: drawn with marks inside its figure's width, a summary, and its numbers as
   * text (.chart-alt) matching want; saves a picture of it. */
  async function checkChart(page, name, want, width) {
    const fig = page.locator(`figure[data-chart="${name}"]`).first();
    await fig.waitFor();
    await fig.locator('svg').first().waitFor();
    const info = await fig.evaluate((f) => {
      const svgEl = f.querySelector('.chart-svg svg');
      return {
        marks: svgEl ? svgEl.querySelectorAll('circle, rect, path').length : 0,
        fits: svgEl ? svgEl.getBoundingClientRect().right <= f.getBoundingClientRect().right + 1 && svgEl.getBoundingClientRect().width >= 200 : false,
        hidden: f.querySelector('.chart-svg')?.getAttribute('aria-hidden'),
        summary: f.querySelector('.chart-summary')?.textContent || '',
        alt: f.querySelector('.chart-alt')?.textContent || '',
      };
    });
    assert.ok(info.marks > 0, `${name} at ${width}px draws marks`);
    assert.ok(info.fits, `${name} at ${width}px fits its figure`);
    assert.equal(info.hidden, 'true', `${name}: the drawing is hidden from screen readers, its text is not`);
    assert.ok(info.summary.length > 10, `${name} has a summary`);
    assert.match(info.alt, want, `${name}: its numbers as text`);
    await fig.scrollIntoViewIfNeeded();
    await fig.screenshot({ path: path.join(SHOTS, `chart-${name}-${width}.png`) });
  }

  test('charts: each drawn with data, its numbers as text, at 1280 and 390 px; axe clean', async () => {
    for (const width of [1280, 390]) {
      const page = await newPage({ width, height: 900 });
      await signIn(page, `/images/${ids['torch-old']}`);
      await page.locator('main h1').first().waitFor();
      await settle(page);
      // Image page: its advisories by severity, the family over time, boot and cost across versions.
      await checkChart(page, 'severity', /1 high \(all fixed\)/, width);
      await checkChart(page, 'timeline', /2026\.01\.10[\s\S]*580\.65\.06[\s\S]*12\.8\.1[\s\S]*Patch available[\s\S]*2026\.03\.17[\s\S]*580\.95\.05[\s\S]*OK/, width);
      assert.equal(await page.locator('figure[data-chart="timeline"] .chart-svg .mark').count(), 2, 'one marker per version');
      await checkChart(page, 'family-boot', /2026\.01\.10\s*88 s[\s\S]*2026\.03\.17\s*82 s/, width);
      await checkChart(page, 'family-cost', /2026\.01\.10\s*\$0\.00\d+[\s\S]*2026\.03\.17\s*\$0\.00\d+/, width);
      assert.match(await page.locator('#patch .group-title').first().innerText(), /Fixed in pytorch-2\.9-ubuntu24\.04 2026\.03\.17 \(1\)/);
      await axeCheck(page, `image charts at ${width}px`);

      await page.goto(`${base}/#/advisories`);
      await page.locator('main h1').first().waitFor();
      await settle(page);
      await checkChart(page, 'severity', /\d+ high \(\d+ images? affected\)/, width);
      await axeCheck(page, `advisories chart at ${width}px`);

      await page.goto(`${base}/#/costs?model=llama-3.1-8b&max_p99_ms=200`);
      await page.locator('main h1').first().waitFor();
      await settle(page);
      await checkChart(page, 'cost-latency', /g6\.12xlarge\s*185\.0 ms\s*\$0\.00\d+/, width);
      assert.equal(await page.locator('figure[data-chart="cost-latency"] .point').count(), 4, 'a point per ranked combination');
      assert.equal(await page.locator('figure[data-chart="cost-latency"] line.limit').count(), 1, 'the latency target drawn');
      await axeCheck(page, `costs chart at ${width}px`);

      await page.goto(`${base}/#/exposure`);
      await page.locator('main h1').first().waitFor();
      await settle(page);
      await checkChart(page, 'exposure-days', /prod-training[\s\S]*\d+[\s\S]*staging-base/, width);
      // Exposure over time: today's snapshot (the job runs every second here) and three earlier
      // days, 30, 9 and 2 days back, as the job would have recorded them: a point a day, spaced
      // by date, the numbers in a table.
      if (width === 1280) {
        execFileSync('psql', [srv.dbUrl, '-XAtq', '-v', 'ON_ERROR_STOP=1', '-c', `
          INSERT INTO team_exposure_daily (team_id, day, pins, pins_exposed, pins_critical, pins_high,
                 pins_medium, pins_low, nodes, nodes_exposed, nodes_critical, nodes_high, nodes_medium,
                 nodes_low, oldest_fix_days)
          SELECT d.team_id, d.day - k, d.pins + 2, d.pins_exposed + 2, d.pins_critical + 1, d.pins_high + 1,
                 d.pins_medium, d.pins_low, d.nodes + k, d.nodes_exposed + k, d.nodes_critical, d.nodes_high + k,
                 d.nodes_medium, d.nodes_low, k
            FROM team_exposure_daily d JOIN teams t ON t.id = d.team_id, (VALUES (30), (9), (2)) v(k)
           WHERE t.slug = 'ml-platform' AND d.day = current_date`]);
      }
      await page.reload();
      await page.locator('main h1').first().waitFor();
      await settle(page);
      await checkChart(page, 'exposure-pins', /\d{4}-\d\d-\d\d\s*\d+ of \d+[\s\S]*(critical|high)/, width);
      await checkChart(page, 'exposure-nodes', /\d{4}-\d\d-\d\d\s*\d+ of \d+/, width);
      await checkChart(page, 'exposure-wait', /30 days/, width);
      assert.match(await page.locator('figure[data-chart="exposure-pins"] .chart-summary').innerText(), /down from \d+/);
      const xs = await page.locator('figure[data-chart="exposure-pins"] .chart-svg circle.point').evaluateAll((cs) => cs.map((c) => Number(c.getAttribute('cx'))));
      assert.equal(xs.length, 4, 'a point a day');
      // 30, 9, 2 and 0 days back: gaps of 21, 7 and 2 days, drawn in that proportion.
      assert.ok(Math.abs((xs[1] - xs[0]) / (xs[2] - xs[1]) - 3) < 0.05 && Math.abs((xs[2] - xs[1]) / (xs[3] - xs[2]) - 3.5) < 0.05, `spaced by date: ${xs}`);
      await axeCheck(page, `exposure chart at ${width}px`);
      await page.done();
    }
  });

  test('compare: GPUs, publish date, one row per advisory (which image it hits), bars for boot, size and cost', async () => {
    const page = await newPage();
    await signIn(page, `/compare?ids=${ids['torch-new']},${ids['torch-old']},${ids['base-new']}`);
    await page.getByRole('heading', { name: 'Compare images' }).waitFor();
    await settle(page);
    const adv = page.locator('tr[data-row="advisory:NVIDIA-5703"]');
    await adv.waitFor();
    assert.match(await adv.getAttribute('class'), /differs/);
    const cells = await adv.locator('td').allInnerTexts();
    assert.match(cells[0], /not affected/);
    assert.match(cells[1], /Affected\s*fixed in pytorch-2\.9-ubuntu24\.04 2026\.03\.17/);
    assert.match(cells[2], /not affected/);
    const gpus = page.locator('tr[data-row="gpus"]');
    assert.match(await gpus.getAttribute('class'), /differs/, 'B200 is only on base-new');
    assert.match(await gpus.innerText(), /B200/);
    assert.match(await page.locator('tr[data-row="published_at"]').innerText(), /Published\s+\d{4}-\d{2}-\d{2}/);
    for (const row of ['boot_seconds', 'size_gb']) {
      assert.equal(await page.locator(`tr[data-row="${row}"] svg.inline-bar`).count(), 3, `${row}: a bar per image`);
      assert.equal(await page.locator(`tr[data-row="${row}"] svg.inline-bar.is-best`).count(), 1, `${row}: the lowest marked`);
    }
    assert.equal(await page.locator('tr[data-row="cost:llama-3.1-8b"] svg.inline-bar').count(), 2, 'a cost bar per measured image');
    assert.match(await page.locator('.compare-bar [role="status"]').innerText(), new RegExp(`^${await page.locator('.compare-table tbody tr.differs').count()} rows differ$`));
    await axeCheck(page, 'compare with advisories');
    await page.locator('.compare-table').screenshot({ path: path.join(SHOTS, 'chart-compare-1280.png') });
    await page.done();
  });

  test('compare tray: folds away, is small off the catalog, and never covers the end of a form or table', async () => {
    const page = await newPage({ width: 390, height: 780 });
    await signIn(page, '/catalog?family=pytorch-2.9-ubuntu24.04');
    await settle(page);
    await page.getByLabel('Compare pytorch-2.9-ubuntu24.04 2026.03.17').check();
    await page.getByLabel('Compare pytorch-2.9-ubuntu24.04 2026.01.10').check();
    const trayBox = page.locator('#compare-tray');
    await trayBox.getByRole('link', { name: 'Compare 2 images' }).waitFor();
    const open = await trayBox.boundingBox();
    await trayBox.getByRole('button', { name: 'Hide the comparison tray' }).click();
    const folded = await trayBox.boundingBox();
    assert.ok(folded.height < 60 && folded.width < 260, `folded tray is small (${folded.width}x${folded.height})`);
    assert.ok(folded.height < open.height || folded.width < open.width);
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Show the comparison tray: 2 images picked', 'focus stays on the toggle');
    await trayBox.getByRole('button', { name: /Show the comparison tray/ }).click();
    await trayBox.getByRole('link', { name: 'Compare 2 images' }).waitFor();
    // Elsewhere (forms, tables) the tray is the small button; the page keeps room for it.
    for (const hash of ['/costs', '/pins', `/pins?new=${ids['torch-old']}`, '/requests', '/advisories']) {
      await page.goto(`${base}/#${hash}`);
      await page.locator('main h1').first().waitFor();
      await settle(page);
      assert.match(await trayBox.getAttribute('class'), /is-collapsed/, `${hash}: tray folded`);
      await page.evaluate(() => window.scrollTo(0, document.scrollingElement.scrollHeight));
      await page.waitForTimeout(100);
      const covered = await page.evaluate(() => {
        const t = document.getElementById('compare-tray').getBoundingClientRect();
        const hit = (r) => r.width && r.height && r.left < t.right && r.right > t.left && r.top < t.bottom && r.bottom > t.top;
        return [...document.querySelectorAll('main input, main select, main textarea, main button, main table, main a')].filter((e) => e.checkVisibility() && hit(e.getBoundingClientRect())).map((e) => e.outerHTML.slice(0, 80));
      });
      assert.deepEqual(covered, [], `${hash}: nothing under the tray at the end of the page`);
    }
    await page.done();
  });

  test('image page: a boot-time chart without data says so instead of drawing a made-up axis', async () => {
    const page = await newPage();
    await signIn(page, `/catalog`);
    const res = await fetch(`${base}/v1/measurements`, {
      method: 'POST',
      headers: { ...(await sessionHeaders(page)), 'Content-Type': 'application/json' },
      body: JSON.stringify({ team: 'ml-platform', image: ids['base-new'], instance_type: 'g6.xlarge', gpu_count: 1, model: 'resnet50', precision: 'fp16', batch_size: 8, throughput_per_s: 900, latency_p50_ms: 9, latency_p99_ms: 14, pricing: 'on_demand', region: 'us-east-1', measured_at: '2026-10-02T10:00:00Z' }),
    });
    assert.equal(res.status, 201, await res.text());
    await page.goto(`${base}/#/images/${ids['base-new']}`);
    await settle(page);
    const costs = page.locator('#costs');
    await costs.locator('table').waitFor();
    assert.match(await costs.innerText(), /No boot times were recorded/);
    await costs.locator('canvas').first().waitFor(); // uPlot draws once its box has a size
    assert.equal(await costs.locator('canvas').count(), 1, 'only the cost chart is drawn');
    await page.done();
  });

  test('compare: the costs the API returns are shown per model', async () => {
    const page = await newPage();
    await signIn(page, `/compare?ids=${ids['torch-new']},${ids['torch-old']}`);
    await settle(page);
    const row = page.locator('tr[data-row="cost:llama-3.1-8b"]');
    await row.waitFor();
    assert.match(await row.innerText(), /llama-3\.1-8b[\s\S]*\$0\.\d+\s+\$0\.\d+/);
    assert.match(await page.locator('tr[data-row="boot_measured"]').innerText(), /\d+ s\s+\d+ s/);
    await page.done();
  });

  test('family timeline: versions spaced by publish date (by order when all share a day), labels clear of each other, at 1280 and 390 px', async () => {
    for (const width of [1280, 390]) {
      const page = await newPage({ width, height: 900 });
      await signIn(page, '/catalog');
      await page.locator('main h1').first().waitFor();
      const got = await page.evaluate(async () => {
        const { familyTimeline } = await import('/charts.js');
        const v = (version, day, i) => ({ id: i, version, published_at: `${day}T10:00:00Z`, patch_status: i ? 'ok' : 'patch_available', driver: i > 1 ? '580.95.05' : '570.133.20', cuda: '12.8.1', current: i === 3 });
        const spread = familyTimeline('a-family-with-a-rather-long-name-ubuntu24.04', [v('2025.01.01', '2025-01-01', 0), v('2025.01.11', '2025-01-11', 1), v('2025.01.12', '2025-01-12', 2), v('2025.04.11', '2025-04-11', 3)]);
        const sameDay = familyTimeline('same-day', [v('a', '2025-01-01', 0), v('b', '2025-01-01', 1), v('c', '2025-01-01', 2)]);
        document.querySelector('main').append(spread, sameDay);
        await new Promise((r) => setTimeout(r, 300));
        const xsOf = (f) => [...f.querySelectorAll('.chart-svg .mark')].map((m) => m.getBBox().x + m.getBBox().width / 2);
        const labels = [...spread.querySelectorAll('.chart-svg .ver-label')].map((t) => t.getBBox());
        const fig = spread.getBoundingClientRect();
        return { spread: xsOf(spread), same: xsOf(sameDay), labels: labels.map((b) => [b.x, b.x + b.width]), width: spread.querySelector('.chart-svg svg').getBoundingClientRect().width, fig: fig.width, scroll: document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth };
      });
      const [a, b, c, d] = got.spread;
      // 10 days, 1 day and 89 days apart.
      assert.ok(Math.abs((b - a) / (d - c) - 10 / 89) < 0.02 && Math.abs((c - b) / (b - a) - 0.1) < 0.02, `spaced by date at ${width}px: ${got.spread}`);
      const [p, q, r] = got.same;
      assert.ok(Math.abs(q - p - (r - q)) < 1, `same day: spaced by order at ${width}px: ${got.same}`);
      for (let i = 1; i < got.labels.length; i++) assert.ok(got.labels[i][0] >= got.labels[i - 1][1], `version labels overlap at ${width}px: ${JSON.stringify(got.labels)}`);
      assert.ok(got.width <= got.fig + 1 && got.scroll <= 0, `fits at ${width}px`);
      await page.done();
    }
  });

  test('compare at 390 px with three and four images: rows become labelled cards, nothing scrolls sideways; axe clean', async () => {
    const page = await newPage({ width: 390, height: 800 });
    await signIn(page, '/catalog');
    for (const set of [['torch-new', 'torch-old', 'base-new'], ['torch-new', 'torch-old', 'base-new', 'base-old']]) {
      await page.goto(`${base}/#/compare?ids=${set.map((k) => ids[k]).join(',')}`);
      await page.getByRole('heading', { name: 'Compare images' }).waitFor();
      await settle(page);
      await page.locator('tr[data-row="advisory:NVIDIA-5703"]').waitFor();
      const o = await page.evaluate(() => ({
        page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
        wraps: [...document.querySelectorAll('main .table-wrap')].map((t) => t.scrollWidth - t.clientWidth).filter((d) => d > 1),
        labels: [...document.querySelectorAll('tr[data-row="gpus"] td')].map((td) => getComputedStyle(td, '::before').content),
      }));
      assert.deepEqual({ page: o.page, wraps: o.wraps }, { page: 0, wraps: [] }, `${set.length} images at 390 px`);
      assert.equal(o.labels.length, set.length);
      assert.ok(o.labels.every((l) => /\d{4}\.\d\d\.\d\d/.test(l)), `each cell names its image: ${o.labels}`);
      await axeCheck(page, `compare ${set.length} images at 390px`);
      await page.screenshot({ path: path.join(SHOTS, `compare-${set.length}-390.png`), fullPage: true });
    }
    await page.done();
  });

  test('OS patches: an image published with packages and one with an SBOM; a USN marks the older, the page and compare show the packages it hits and the fix', async () => {
    const page = await newPage();
    await signIn(page, '', ADMIN);
    const manifest = (version, extra) => ({
      team: 'ml-platform', family: 'os-noble', version, provider: 'aws', architecture: 'x86_64', os: { name: 'ubuntu', version: '24.04' }, layer: 'platform',
      artifacts: [{ region: 'us-east-1', id: `ami-0os${version.replace(/\D/g, '')}` }], components: [{ name: 'nvidia-driver', version: '580.105.08' }], ...extra,
    });
    const old = await apiAs(page, 'POST', '/images', manifest('2026.11.01', { packages: [{ name: 'openssl', version: '3.0.13-0ubuntu3.1' }, { name: 'libc6', version: '2.39-0ubuntu8.3' }] }));
    assert.equal(old.status, 201, JSON.stringify(old.body));
    const sbom = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests/data/sbom/noble-cyclonedx-1.6.json'), 'utf8'));
    sbom.components[0].purl = 'pkg:deb/ubuntu/openssl@3.0.13-0ubuntu3.10?arch=amd64&distro=ubuntu-24.04';
    sbom.components[1].purl = 'pkg:deb/ubuntu/libssl3t64@3.0.13-0ubuntu3.10?arch=amd64&distro=ubuntu-24.04';
    const fixed = await apiAs(page, 'POST', '/images', manifest('2026.12.01', { sbom }));
    assert.equal(fixed.status, 201, JSON.stringify(fixed.body));
    const usn = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests/data/osv/USN-6986-1.json'), 'utf8'));
    const adv = await apiAs(page, 'POST', '/advisories', usn);
    assert.equal(adv.status, 201, JSON.stringify(adv.body));

    await page.goto(`${base}/#/images/${old.body.id}`);
    await page.locator('main h1').first().waitFor();
    await settle(page);
    const os = page.locator('#os-patch');
    assert.match(await os.innerText(), /Patch available/);
    assert.match(await os.innerText(), /2 packages \(Ubuntu:24\.04:LTS\) from the manifest/);
    const row = os.locator('tr', { hasText: 'openssl' });
    assert.match(await row.innerText(), /3\.0\.13-0ubuntu3\.1[\s\S]*<3\.0\.13-0ubuntu3\.4[\s\S]*3\.0\.13-0ubuntu3\.4/);
    assert.match(await os.locator('.group-title').innerText(), /Fixed in os-noble 2026\.12\.01/);
    await axeCheck(page, 'image OS patches');
    await page.screenshot({ path: path.join(SHOTS, 'image-os-patches-1280.png'), fullPage: true });

    await page.goto(`${base}/#/images/${fixed.body.id}`);
    await page.locator('main h1').first().waitFor();
    await settle(page);
    assert.match(await page.locator('#os-patch').innerText(), /No known distro advisory[\s\S]*4 packages \(Ubuntu:24\.04:LTS\) from a CycloneDX SBOM/);

    await page.goto(`${base}/#/compare?ids=${old.body.id},${fixed.body.id}`);
    await page.getByRole('heading', { name: 'Compare images' }).waitFor();
    await settle(page);
    const ops = page.locator('tr[data-row="os_patch_status"]');
    assert.match(await ops.getAttribute('class'), /differs/);
    assert.match(await ops.innerText(), /OS patch status[\s\S]*Patch available[\s\S]*OK/);
    assert.match(await page.locator('tr[data-row="os_advisories"]').innerText(), /USN-6986-1 openssl 3\.0\.13-0ubuntu3\.1 → 3\.0\.13-0ubuntu3\.4/);
    await axeCheck(page, 'compare OS patches');
    await page.done();
  });
});
