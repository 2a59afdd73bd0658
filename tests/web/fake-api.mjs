// A stand-in for imaxe-server while the /v1 APIs are being built: serves web/ with the same
// security headers as server/http/static.c and answers the /v1 contract with canned data.
// Run alone for UI work:  node tests/web/fake-api.mjs [port]   (sign in as demo@imaxe.test /
// correct-horse-battery). The browser tests start it themselves unless IMX_WEB_BASE_URL is set.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { fileURLToPath } from 'node:url';
import * as fx from './fixtures.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const WEB_DIR = path.resolve(here, '../../web');
export const DEMO = { email: 'demo@imaxe.test', password: 'correct-horse-battery' };

const CSP = "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'";
const MIME = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon', '.txt': 'text/plain; charset=utf-8', '.md': 'application/octet-stream' };

// ---- versions and constraints (the same syntax as the server's domain/) ---------------------
const key = (v) => String(v).split(/[^0-9]+/).filter(Boolean).map(Number);
function cmp(a, b) {
  const x = key(a), y = key(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] || 0) - (y[i] || 0);
    if (d) return d;
  }
  return 0;
}
const prefix = (v, p) => {
  const x = key(v), y = key(p);
  return y.every((n, i) => x[i] === n);
};
export function satisfies(version, range) {
  if (version == null) return false;
  return String(range).split(',').every((raw) => {
    const r = raw.trim();
    if (!r || r === '*') return true;
    let m;
    if ((m = r.match(/^~\s*R?(\d+)/i))) return key(version)[0] === Number(m[1]);
    if ((m = r.match(/^(>=|<=|>|<|=)\s*(.+)$/))) {
      const c = cmp(version, m[2]);
      return { '>=': c >= 0, '<=': c <= 0, '>': c > 0, '<': c < 0, '=': c === 0 }[m[1]];
    }
    return prefix(version, r.replace(/\.\*$/, ''));
  });
}
const validRange = (r) => String(r).split(',').every((p) => /^\s*(~\s*R?\d+|(>=|<=|>|<|=)?\s*\d+(\.\d+)*(\.\*)?|\*)\s*$/i.test(p));

// ---- compatibility rules (a small subset of the reference data) ----------------------------
const CUDA_MIN_DRIVER = [['13.0', '580.65'], ['12.9', '575.51'], ['12.8', '570.26'], ['12.6', '560.28'], ['12.5', '555.42'], ['12.4', '550.54'], ['12.2', '535.54'], ['12.1', '530.30'], ['12.0', '525.60']];
const CUDA_MAJOR_FLOOR = { 12: '525.60', 13: '580.65' };
const GPU_CC = { V100: '7.0', P100: '6.0', T4: '7.5', A100: '8.0', A10G: '8.6', L4: '8.9', L40S: '8.9', H100: '9.0', H200: '9.0', B200: '10.0' };
const NVIDIA_SRC = 'https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html#cuda-driver';
export function compatCheck(components, gpus = []) {
  const get = (n) => components.find((c) => c.name === n)?.version;
  const findings = [];
  const cuda = get('cuda'), drv = get('nvidia-driver');
  if (cuda && drv) {
    const need = CUDA_MIN_DRIVER.find(([c]) => prefix(cuda, c) || cmp(cuda, c) >= 0);
    if (need && cmp(drv, need[1]) < 0) {
      const floor = CUDA_MAJOR_FLOOR[key(cuda)[0]];
      if (floor && cmp(drv, floor) >= 0)
        findings.push({ severity: 'warning', code: 'minor_version_compatibility', message: `Driver ${drv} is older than ${need[1]}, the driver CUDA ${cuda} ships with; it runs through minor-version compatibility, without PTX JIT of newer code.`, components: [`nvidia-driver ${drv}`, `cuda ${cuda}`], source: NVIDIA_SRC });
      else findings.push({ severity: 'error', code: 'driver_too_old_for_cuda', message: `CUDA ${cuda} needs NVIDIA driver ${need[1]} or newer; ${drv} is too old.`, components: [`nvidia-driver ${drv}`, `cuda ${cuda}`], source: NVIDIA_SRC });
    }
  }
  if (cuda && key(cuda)[0] >= 13) for (const g of gpus) if (GPU_CC[g] && cmp(GPU_CC[g], '7.5') < 0) findings.push({ severity: 'error', code: 'gpu_unsupported_by_cuda', message: `CUDA ${cuda} dropped support for ${g} (compute capability ${GPU_CC[g]}).`, components: [`cuda ${cuda}`], source: NVIDIA_SRC });
  const pt = get('pytorch');
  if (pt && cuda && prefix(pt, '2.9') && !['12.6', '12.8', '13.0'].some((c) => prefix(cuda, c))) findings.push({ severity: 'warning', code: 'framework_cuda_build_missing', message: `PyTorch ${pt} has no official build for CUDA ${cuda} (cu126, cu128, cu130).`, components: [`pytorch ${pt}`, `cuda ${cuda}`], source: 'https://pytorch.org/get-started/locally/' });
  if (drv && key(drv)[0] === 535) findings.push({ severity: 'info', code: 'driver_branch_ltsb', message: 'R535 is a long-term support branch: security fixes until June 2026.', components: [`nvidia-driver ${drv}`], source: 'https://docs.nvidia.com/datacenter/tesla/drivers/' });
  return { ok: !findings.some((f) => f.severity === 'error'), findings };
}

// ---- state -------------------------------------------------------------------------------
let S;
function reset() {
  S = {
    pins: structuredClone(fx.pins),
    requests: [{ id: 501, team: 'ml-platform', title: 'TensorFlow 2.19 on L4', family: 'tensorflow-2.19-ubuntu24.04', constraints: [{ component: 'tensorflow', range: '2.19' }, { component: 'cuda', range: '12.5' }], gpus: ['L4'], state: 'open', created_at: '2026-03-01T12:00:00Z' },
      { id: 502, team: 'research', title: 'JAX on H200', constraints: [{ component: 'cuda', range: '>=12.8' }], gpus: ['H200'], state: 'approved', created_at: '2026-02-11T12:00:00Z' }],
    webhooks: [{ id: 301, team: 'ml-platform', url: 'https://ops.example.com/hooks/imaxe', events: ['patch.available', 'image.revoked'], active: true, created_at: '2026-01-02T00:00:00Z', secret: 'whsec_old' }],
    deliveries: { 301: [{ id: 9001, event: 'patch.available', status: 'delivered', response_status: 200, attempts: 1, created_at: '2026-03-17T09:01:00Z', last_attempt_at: '2026-03-17T09:01:00Z' }] },
    seq: 1000,
    tokens: new Set(),
    missing: [],
  };
}
reset();

const summary = (i) => { const { parent_id, description, instance_families, ...s } = i; return s; };
const byId = (id) => fx.images.find((i) => String(i.id) === String(id));
const short = (i) => i && { id: i.id, family: i.family, version: i.version };

function imageFilters(q, skip = null) {
  const comps = q.getAll('component').map((c) => {
    const i = c.indexOf(':');
    return i < 0 ? { name: c, range: null } : { name: c.slice(0, i), range: c.slice(i + 1) };
  });
  const facetOfComp = (n) => (n === 'cuda' ? 'cuda' : n === 'nvidia-driver' ? 'driver_branch' : ['pytorch', 'tensorflow', 'vllm'].includes(n) ? 'framework' : null);
  return (img) => {
    const text = (q.get('q') || '').toLowerCase();
    if (text && ![img.family, img.version, img.description, ...Object.entries(img.components).flat()].join(' ').toLowerCase().includes(text)) return false;
    const eq = { family: img.family, provider: img.provider, arch: img.architecture, status: img.status, layer: img.layer, patch_status: img.patch_status };
    for (const [k, v] of Object.entries(eq)) if (q.get(k) && q.get(k) !== v) return false;
    if (q.get('os') && skip !== 'os' && `${img.os.name} ${img.os.version}` !== q.get('os')) return false;
    if (q.get('gpu') && skip !== 'gpu' && !img.gpus.includes(q.get('gpu'))) return false;
    if (q.get('region') && skip !== 'region' && !img.regions.includes(q.get('region'))) return false;
    if (q.get('tag') && skip !== 'tag' && !img.tags.includes(q.get('tag'))) return false;
    if (q.get('provider') && skip === 'provider') { /* counted without its own filter */ }
    for (const c of comps) {
      if (skip && facetOfComp(c.name) === skip) continue;
      const v = img.components[c.name];
      if (v == null || (c.range && !satisfies(v, c.range))) return false;
    }
    return true;
  };
}

function facets(q) {
  const out = {};
  const count = (name, valuesOf, skipKey = name, ownParam = null) => {
    const sub = new URLSearchParams(q);
    if (ownParam) sub.delete(ownParam);
    const m = new Map();
    fx.images.filter(imageFilters(sub, skipKey)).forEach((i) => valuesOf(i).forEach((v) => v != null && m.set(v, (m.get(v) || 0) + 1)));
    out[name] = [...m].map(([value, count]) => ({ value, count })).sort((a, b) => b.count - a.count || String(a.value).localeCompare(String(b.value)));
  };
  const mm = (v) => v && key(v).slice(0, 2).join('.');
  count('gpu', (i) => i.gpus, 'gpu', 'gpu');
  count('cuda', (i) => [mm(i.components.cuda)], 'cuda');
  count('driver_branch', (i) => [i.components['nvidia-driver'] && `R${key(i.components['nvidia-driver'])[0]}`], 'driver_branch');
  count('framework', (i) => ['pytorch', 'tensorflow', 'vllm'].filter((f) => i.components[f]).map((f) => `${f} ${mm(i.components[f])}`), 'framework');
  count('os', (i) => [`${i.os.name} ${i.os.version}`], 'os', 'os');
  count('provider', (i) => [i.provider], 'provider', 'provider');
  count('region', (i) => i.regions, 'region', 'region');
  count('tag', (i) => i.tags, 'tag', 'tag');
  count('patch_status', (i) => [i.patch_status], 'patch_status', 'patch_status');
  return out;
}

function imageDetail(i) {
  const comps = Object.entries(i.components).map(([name, version]) => ({ name, version }));
  const advs = fx.advisories.filter((a) => a.images.includes(i.id));
  const fixed = i.patch_status === 'patch_available' ? fx.images.find((x) => x.family === i.family && x.status === 'active' && x.patch_status === 'ok' && cmp(x.version, i.version) > 0) : null;
  const parent = i.parent_id ? byId(i.parent_id) : null;
  return {
    ...summary(i),
    components: comps,
    description: i.description,
    instance_families: i.instance_families,
    artifacts: i.regions.map((r, n) => ({ region: r, id: i.provider === 'aws' ? `ami-0${(i.id * 7919 + n * 104729).toString(16).padStart(16, '0')}` : `${i.provider}://images/${i.family}-${i.version.replace(/\./g, '')}-${r}` })),
    parent: parent ? summary(parent) : null,
    compatibility: compatCheck(comps, i.gpus),
    patch: { status: i.patch_status, advisories: advs.map((a) => ({ id: a.id, title: a.title, severity: a.severity, cves: a.cves, fixed_by: short(fixed) })) },
  };
}

function pinView(p) {
  const img = byId(p.image);
  const newer = fx.images
    .filter((x) => x.family === img.family && x.status === 'active' && cmp(x.version, img.version) > 0 && p.constraints.every((c) => satisfies(x.components[c.component], c.range)))
    .sort((a, b) => cmp(b.version, a.version));
  const cand = newer[0] || null;
  let status = 'current';
  if (img.status === 'revoked') status = 'revoked';
  else if (img.patch_status === 'patch_available' && cand) status = 'patch_available';
  else if (cand) status = 'behind';
  else if (img.patch_status === 'vulnerable') status = 'vulnerable';
  return { id: p.id, team: p.team, name: p.name, image: summary(img), constraints: p.constraints, status, candidate: cand && { id: cand.id, version: cand.version, family: cand.family }, history: p.history.map((h) => ({ ...h, image: short(byId(h.image)) })) };
}

const GPU_OF = { p5: 'H100', p4d: 'A100', g6e: 'L40S', g6: 'L4', g5: 'A10G' };

// ---- HTTP plumbing --------------------------------------------------------------------------
function send(res, status, body, headers = {}) {
  const data = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store', ...headers });
  res.end(data);
}
function problem(res, status, title, detail, errors) {
  const slug = { 400: 'bad-request', 401: 'unauthorized', 404: 'not-found', 409: 'conflict', 422: 'validation', 501: 'not-implemented' }[status] || 'error';
  send(res, status, { type: `https://imaxe.dev/problems/${slug}`, title, status, detail, ...(errors ? { errors } : {}) }, { 'Content-Type': 'application/problem+json' });
}
function listOf(res, items, q, base) {
  const limit = Math.min(Number(q.get('limit')) || 50, 200);
  const off = q.get('cursor') ? Number(Buffer.from(q.get('cursor'), 'base64url').toString()) || 0 : 0;
  const page = items.slice(off, off + limit);
  const next = off + limit < items.length ? Buffer.from(String(off + limit)).toString('base64url') : null;
  const headers = {};
  if (next) {
    const nq = new URLSearchParams(q);
    nq.set('cursor', next);
    headers.Link = `<${base}?${nq}>; rel="next"`;
  }
  return { body: { items: page, next_cursor: next }, headers };
}
async function readJson(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const text = Buffer.concat(chunks).toString();
  if (!text) return {};
  return JSON.parse(text);
}

function serveStatic(req, res, urlPath) {
  let rel = decodeURIComponent(urlPath).replace(/^\/+/, '');
  if (rel === '' || rel.endsWith('/')) rel += 'index.html';
  if (rel.split('/').some((s) => s === '..' || s === '.' || s === '' || s.includes('\\'))) return problem(res, 404, 'Not Found', `No file at ${urlPath}`);
  const full = path.join(WEB_DIR, rel);
  let st;
  try {
    st = fs.statSync(full);
  } catch {
    return problem(res, 404, 'Not Found', `No file at ${urlPath}`);
  }
  if (!st.isFile()) return problem(res, 404, 'Not Found', `No file at ${urlPath}`);
  const etag = `"${st.size.toString(16)}-${Math.floor(st.mtimeMs / 1000).toString(16)}"`;
  const headers = {
    ETag: etag,
    'Cache-Control': rel.startsWith('vendor/') ? 'public, max-age=31536000, immutable' : 'no-cache',
    'Content-Security-Policy': CSP,
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
  };
  if ((req.headers['if-none-match'] || '').includes(etag)) {
    res.writeHead(304, headers);
    return res.end();
  }
  res.writeHead(200, { ...headers, 'Content-Type': MIME[path.extname(rel)] || 'application/octet-stream' });
  res.end(fs.readFileSync(full));
}

async function handleApi(req, res, url) {
  const p = url.pathname.replace(/^\/v1/, '');
  const q = url.searchParams;
  const M = req.method;
  if (S.missing.some((m) => url.pathname.startsWith(m))) return problem(res, 501, 'Not Implemented', 'This server does not implement this endpoint yet.');
  if (M === 'POST' && p === '/auth/login') {
    const b = await readJson(req);
    if (!b.email || !b.password) return problem(res, 422, 'Invalid request', 'Email and password are required.', [...(!b.email ? [{ pointer: '/email', detail: 'is required' }] : []), ...(!b.password ? [{ pointer: '/password', detail: 'is required' }] : [])]);
    if (b.email !== DEMO.email || b.password !== DEMO.password) return problem(res, 401, 'Wrong email or password', 'The email or password is not right.');
    const token = `fake-${crypto.randomBytes(12).toString('hex')}`;
    S.tokens.add(token);
    return send(res, 200, { access_token: token, token_type: 'Bearer', expires_in: 3600 });
  }
  const auth = (req.headers.authorization || '').replace(/^Bearer\s+/i, '');
  if (!S.tokens.has(auth)) return problem(res, 401, 'Sign in required', 'A valid bearer token is required.');
  let m;
  if (M === 'GET' && p === '/me') return send(res, 200, { id: 1, email: DEMO.email, display_name: 'Demo User', is_admin: false, teams: [{ slug: 'ml-platform', name: 'ML Platform', role: 'publisher' }, { slug: 'research', name: 'Research', role: 'member' }] });
  if (M === 'GET' && p === '/images') {
    const sort = q.get('sort') || '-published_at';
    const desc = sort.startsWith('-');
    const k = sort.replace(/^-/, '');
    const items = fx.images.filter(imageFilters(q)).sort((a, b) => {
      const x = a[k], y = b[k];
      const d = typeof x === 'number' ? x - y : String(x).localeCompare(String(y));
      return (desc ? -d : d) || a.id - b.id;
    });
    const { body, headers } = listOf(res, items.map(summary), q, '/v1/images');
    if (q.get('facets') === 'true') body.facets = facets(q);
    return send(res, 200, body, headers);
  }
  if (M === 'GET' && p === '/images/resolve') {
    const cand = fx.images.filter((i) => i.family === q.get('family') && i.status === 'active' && (!q.get('region') || i.regions.includes(q.get('region')))).sort((a, b) => cmp(b.version, a.version))[0];
    if (!cand) return problem(res, 404, 'No image', 'No active image of that family in that region.');
    const d = imageDetail(cand);
    return send(res, 200, { image: summary(cand), artifact_id: d.artifacts.find((a) => a.region === q.get('region'))?.id || null });
  }
  if ((m = p.match(/^\/images\/([^/]+)(\/lineage|\/costs)?$/)) && M === 'GET') {
    const i = byId(m[1]);
    if (!i) return problem(res, 404, 'Not Found', `No image ${m[1]}.`);
    if (!m[2]) return send(res, 200, imageDetail(i));
    if (m[2] === '/lineage') {
      const parents = [];
      for (let x = i; x.parent_id; x = byId(x.parent_id)) parents.push(summary(byId(x.parent_id)));
      return send(res, 200, { parents, children: fx.images.filter((c) => c.parent_id === i.id).map(summary) });
    }
    const rows = (fx.costs[i.id] || []).map(([instance_type, model, c50, c90, thr, p99, boot, bootCost]) => ({ instance_type, model, count: 5, cost_per_1k_median: c50, cost_per_1k_p90: c90, throughput_median: thr, latency_p99_median_ms: p99, boot_seconds_median: boot, boot_cost_median: bootCost, currency: 'USD' }));
    return send(res, 200, { items: rows });
  }
  if (M === 'GET' && p === '/compare') {
    const ids = (q.get('ids') || '').split(',').filter(Boolean);
    const imgs = ids.map(byId);
    if (ids.length < 2 || ids.length > 4 || imgs.some((x) => !x)) return problem(res, 422, 'Invalid comparison', 'Give 2 to 4 existing image ids.', [{ pointer: '/ids', detail: 'must name 2 to 4 existing images' }]);
    const order = ['nvidia-driver', 'cuda', 'cudnn', 'nccl', 'pytorch', 'tensorflow', 'vllm', 'tritonserver', 'python', 'nvidia-container-toolkit', 'dcgm', 'efa', 'linux-kernel'];
    const names = [...new Set(imgs.flatMap((x) => Object.keys(x.components)))].sort((a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99) || a.localeCompare(b));
    const row = (name, values) => ({ name, values, differs: new Set(values.map((v) => JSON.stringify(v ?? null))).size > 1 });
    const fields = ['family', 'version', 'provider', 'architecture', 'os', 'layer', 'status', 'patch_status', 'gpus', 'boot_seconds', 'size_gb', 'published_at'].map((f) => row(f, imgs.map((x) => (f === 'os' ? `${x.os.name} ${x.os.version}` : x[f]))));
    return send(res, 200, { images: imgs.map(summary), fields, components: names.map((n) => row(n, imgs.map((x) => x.components[n] ?? null))) });
  }
  if (p === '/pins' && M === 'GET') return send(res, 200, { items: S.pins.filter((x) => !q.get('team') || x.team === q.get('team')).map(pinView), next_cursor: null });
  if ((m = p.match(/^\/pins\/(\d+)$/))) {
    const pin = S.pins.find((x) => String(x.id) === m[1]);
    if (!pin) return problem(res, 404, 'Not Found', `No pin ${m[1]}.`);
    if (M === 'GET') return send(res, 200, pinView(pin));
    if (M === 'PUT') {
      const b = await readJson(req);
      const target = byId(b.image);
      if (!target) return problem(res, 422, 'Invalid pin', 'The image does not exist.', [{ pointer: '/image', detail: 'no such image' }]);
      pin.image = target.id;
      pin.constraints = b.constraints || [];
      pin.history.push({ image: target.id, moved_at: new Date().toISOString(), by: DEMO.email });
      return send(res, 200, pinView(pin));
    }
  }
  if (M === 'GET' && p === '/advisories') {
    const text = (q.get('q') || '').toLowerCase();
    const items = fx.advisories.filter((a) => (!text || `${a.id} ${a.title} ${a.cves.join(' ')}`.toLowerCase().includes(text)) && (!q.get('severity') || a.severity === q.get('severity')) && (!q.get('component') || a.affected.some((r) => r.component === q.get('component'))));
    return send(res, 200, { items: items.map(({ images, ...a }) => a), next_cursor: null });
  }
  if ((m = p.match(/^\/advisories\/([^/]+)(\/affected)?$/)) && M === 'GET') {
    const a = fx.advisories.find((x) => x.id === decodeURIComponent(m[1]));
    if (!a) return problem(res, 404, 'Not Found', 'No such advisory.');
    if (!m[2]) { const { images, ...rest } = a; return send(res, 200, rest); }
    return send(res, 200, { items: a.images.map(byId).map((i) => ({ ...summary(i), fixed_by: i.id === 2 ? short(byId(1)) : null })), next_cursor: null });
  }
  if (M === 'GET' && p === '/costs') {
    if (!q.get('model')) return problem(res, 422, 'Invalid request', 'model is required.', [{ pointer: '/model', detail: 'is required' }]);
    const daily = Number(q.get('daily_inferences')) || 0;
    const items = [];
    for (const [id, rows] of Object.entries(fx.costs))
      for (const [it, model, c50, , , p99] of rows) {
        if (model !== q.get('model')) continue;
        if (q.get('max_p99_ms') && p99 > Number(q.get('max_p99_ms'))) continue;
        if (q.get('gpu') && GPU_OF[it.split('.')[0]] !== q.get('gpu')) continue;
        const mult = q.get('pricing') === 'spot' ? 0.38 : q.get('pricing') === 'reserved' ? 0.62 : 1;
        items.push({ image: summary(byId(id)), instance_type: it, cost_per_1k_median: +(c50 * mult).toFixed(5), latency_p99_median_ms: p99, measurements: 5, monthly_cost: daily ? +((c50 * mult * daily) / 1000 * 30).toFixed(2) : null });
      }
    items.sort((a, b) => a.cost_per_1k_median - b.cost_per_1k_median);
    return send(res, 200, { items, next_cursor: null });
  }
  if (M === 'POST' && p === '/compat/check') {
    const b = await readJson(req);
    return send(res, 200, compatCheck(b.components || [], b.gpus || []));
  }
  if (p === '/requests' && M === 'GET') return send(res, 200, { items: S.requests.filter((r) => (!q.get('team') || r.team === q.get('team')) && (!q.get('state') || r.state === q.get('state'))), next_cursor: null });
  if (p === '/requests' && M === 'POST') {
    const b = await readJson(req);
    const errors = [];
    if (!b.title) errors.push({ pointer: '/title', detail: 'is required' });
    if (!b.team) errors.push({ pointer: '/team', detail: 'is required' });
    if (!Array.isArray(b.constraints) || !b.constraints.length) errors.push({ pointer: '/constraints', detail: 'name at least one component' });
    (b.constraints || []).forEach((c, i) => !validRange(c.range) && errors.push({ pointer: `/constraints/${i}/range`, detail: `"${c.range}" is not a version range (try 12.4, >=12.4, ~580 or 12.4.*)` }));
    if (errors.length) return problem(res, 422, 'Invalid request', 'Some fields need fixing.', errors);
    const comps = b.constraints.map((c) => ({ name: c.component, version: String(c.range).replace(/^[<>=~\s]+/, '').split(',')[0].replace(/\.\*$/, '') }));
    const matches = fx.images.filter((i) => i.status === 'active' && b.constraints.every((c) => satisfies(i.components[c.component], c.range)) && (b.gpus || []).every((g) => i.gpus.includes(g)) && (!b.architecture || i.architecture === b.architecture)).map(summary);
    const r = { id: ++S.seq, state: 'open', created_at: new Date().toISOString(), ...b, compatibility: compatCheck(comps, b.gpus || []), matches };
    S.requests.unshift(r);
    return send(res, 201, r, { Location: `/v1/requests/${r.id}` });
  }
  if ((m = p.match(/^\/requests\/(\d+)\/transitions$/)) && M === 'POST') {
    const r = S.requests.find((x) => String(x.id) === m[1]);
    if (!r) return problem(res, 404, 'Not Found', 'No such request.');
    const b = await readJson(req);
    const allowed = { open: ['approved', 'rejected', 'withdrawn'], approved: ['building', 'rejected', 'withdrawn'], building: ['fulfilled', 'rejected'] }[r.state] || [];
    if (!allowed.includes(b.to)) return problem(res, 409, 'Transition not allowed', `A request that is ${r.state} cannot become ${b.to}.`, [{ pointer: '/to', detail: `allowed: ${allowed.join(', ') || 'none'}` }]);
    if (b.to === 'fulfilled' && !byId(b.image)) return problem(res, 422, 'Invalid transition', 'Name the image that fulfils it.', [{ pointer: '/image', detail: 'no such image' }]);
    r.state = b.to;
    if (b.image) r.image = short(byId(b.image));
    return send(res, 200, r);
  }
  const hookView = ({ secret, ...w }) => w;
  if (p === '/webhooks' && M === 'GET') return send(res, 200, { items: S.webhooks.filter((w) => !q.get('team') || w.team === q.get('team')).map(hookView), next_cursor: null });
  if (p === '/webhooks' && M === 'POST') {
    const b = await readJson(req);
    const errors = [];
    if (!/^https:\/\//.test(b.url || '')) errors.push({ pointer: '/url', detail: 'must be an https:// URL' });
    else if (/localhost|127\.0\.0\.1|169\.254\./.test(b.url)) errors.push({ pointer: '/url', detail: 'must not point at a private or loopback address' });
    if (!Array.isArray(b.events) || !b.events.length) errors.push({ pointer: '/events', detail: 'pick at least one event' });
    if (errors.length) return problem(res, 422, 'Invalid webhook', 'Some fields need fixing.', errors);
    const w = { id: ++S.seq, team: b.team || 'ml-platform', url: b.url, events: b.events, filters: b.filters || {}, active: true, created_at: new Date().toISOString(), secret: `whsec_${crypto.randomBytes(24).toString('base64')}` };
    S.webhooks.push(w);
    S.deliveries[w.id] = [];
    return send(res, 201, w);
  }
  if ((m = p.match(/^\/webhooks\/(\d+)(\/rotate-secret|\/test|\/deliveries)?$/))) {
    const w = S.webhooks.find((x) => String(x.id) === m[1]);
    if (!w) return problem(res, 404, 'Not Found', 'No such webhook.');
    if (!m[2] && M === 'PATCH') { Object.assign(w, (({ active, url, events }) => ({ ...(active !== undefined && { active }), ...(url && { url }), ...(events && { events }) }))(await readJson(req))); return send(res, 200, hookView(w)); }
    if (!m[2] && M === 'DELETE') { S.webhooks = S.webhooks.filter((x) => x !== w); res.writeHead(204); return res.end(); }
    if (m[2] === '/rotate-secret' && M === 'POST') { w.secret = `whsec_${crypto.randomBytes(24).toString('base64')}`; return send(res, 200, { secret: w.secret }); }
    if (m[2] === '/test' && M === 'POST') {
      const now = new Date().toISOString();
      const d = { id: ++S.seq, event: 'ping', status: 'delivered', response_status: 200, attempts: 1, created_at: now, last_attempt_at: now };
      S.deliveries[w.id].unshift(d);
      return send(res, 202, { delivery_id: d.id });
    }
    if (m[2] === '/deliveries' && M === 'GET') return send(res, 200, { items: S.deliveries[w.id] || [], next_cursor: null });
  }
  if ((m = p.match(/^\/deliveries\/(\d+)\/redeliver$/)) && M === 'POST') {
    const d = Object.values(S.deliveries).flat().find((x) => String(x.id) === m[1]);
    if (!d) return problem(res, 404, 'Not Found', 'No such delivery.');
    d.attempts += 1;
    d.last_attempt_at = new Date().toISOString();
    return send(res, 202, d);
  }
  return problem(res, 404, 'Not Found', `No route for ${M} ${url.pathname}.`);
}

export function startFakeApi(port = 0) {
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    try {
      if (url.pathname === '/__fake/reset' && req.method === 'POST') { reset(); return send(res, 204); }
      if (url.pathname === '/__fake/missing' && req.method === 'POST') { S.missing = (await readJson(req)).prefixes || []; return send(res, 204); }
      if (url.pathname.startsWith('/v1/') || url.pathname === '/v1') return await handleApi(req, res, url);
      if (req.method !== 'GET' && req.method !== 'HEAD') return problem(res, 404, 'Not Found', 'No such route.');
      return serveStatic(req, res, url.pathname);
    } catch (e) {
      if (e instanceof SyntaxError) return problem(res, 400, 'Malformed JSON', e.message);
      console.error(e);
      return problem(res, 500, 'Internal error', 'The fake API failed.');
    }
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(r); }) })));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const { url } = await startFakeApi(Number(process.argv[2]) || 8099);
  console.log(`fake imaxe API and web UI on ${url} — sign in as ${DEMO.email} / ${DEMO.password}`);
}
