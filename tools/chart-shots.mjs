// Photographs each chart of the web UI into docs/charts/ (run by tools/chart-shots.sh, which
// starts the server on the demo catalog and says what it holds). SHOTS_BASE: the server;
// SHOTS_TOKEN: a signed-in admin's token; SHOTS_IMAGE: the image page whose family charts are
// taken; SHOTS_SEVERITY: the image whose advisories by severity are; SHOTS_COMPARE: the image
// ids compared.
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../tests/package.json'));
const { chromium } = require('playwright-core');
const OUT = path.join(here, '../docs/charts');
const { SHOTS_BASE: base, SHOTS_TOKEN: token, SHOTS_IMAGE: image, SHOTS_SEVERITY: severe, SHOTS_COMPARE: compare } = process.env;

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', headless: true, args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), '--disable-background-networking'] });
async function page(width) {
  const ctx = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: 'light', reducedMotion: 'reduce' });
  await ctx.addInitScript((t) => sessionStorage.setItem('imaxe.token', t), token);
  return ctx.newPage();
}
async function shot(p, hash, selector, name) {
  await p.goto(`${base}/#${hash}`);
  const el = p.locator(selector).first();
  await el.waitFor({ timeout: 20000 });
  await p.waitForTimeout(600); // charts draw once their box has a width
  // The sticky header would cover the top of a tall element scrolled into view.
  await p.addStyleTag({ content: '.site-header, thead th { position: static !important; }' });
  await el.scrollIntoViewIfNeeded();
  await el.screenshot({ path: path.join(OUT, `${name}.png`) });
  console.log(`docs/charts/${name}.png`);
}

const wide = await page(1280);
await shot(wide, `/images/${image}`, 'figure[data-chart="timeline"]', 'timeline');
await shot(wide, `/images/${severe}`, 'figure[data-chart="severity"]', 'severity');
await shot(wide, `/images/${image}`, 'figure[data-chart="family-boot"]', 'family-boot');
await shot(wide, `/compare?ids=${compare}`, 'main .table-wrap', 'compare');
await shot(wide, '/exposure?team=demo-ml', '.exposure-history', 'exposure-history');
await shot(wide, '/exposure?team=demo-ml', 'figure[data-chart="exposure-days"]', 'exposure-days');
const narrow = await page(390);
await shot(narrow, `/images/${image}`, 'figure[data-chart="timeline"]', 'timeline-390');
await shot(narrow, `/compare?ids=${compare}`, 'main .compare-body', 'compare-390');
await browser.close();
