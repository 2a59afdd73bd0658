// The browser tests' catalog, seeded through the real /v1 API only: the global admin creates
// the teams, the test user, a viewer and an advisory; the user (admin of ml-platform, member of research)
// publishes the images, pins one, records measurements and files a request. The tests assert
// against these rows; the ids come back from seed().

export const ADMIN = { email: 'admin@imaxe.test', password: 'imaxe-web-admin-pw' };
export const USER = { email: 'demo@imaxe.test', password: 'correct-horse-battery', display_name: 'Demo User' };
/** A viewer of ml-platform only: the permission refusals. */
export const VIEWER = { email: 'viewer@imaxe.test', password: 'viewer-only-password', display_name: 'Vera Viewer' };

const AMI = (n) => `ami-0${n.toString(16).padStart(16, '0')}`;

/** The images, in publish order (published_at follows it: the last is the newest). */
export const IMAGES = [
  // Older runtime containers first, enough for a second page of results (the catalog pages by 20).
  ...Array.from({ length: 16 }, (_, i) => ({
    key: `runtime-${i}`, team: 'research', family: 'cuda-12.4-runtime-ubuntu22.04', version: `2025.${String(1 + (i >> 1)).padStart(2, '0')}.${i % 2 ? '15' : '01'}`, provider: 'oci-container', layer: 'platform',
    os: { name: 'ubuntu', version: '22.04' }, gpus: ['T4', 'L4'], instance_families: [], tags: [],
    components: { cuda: '12.4.1', cudnn: '9.1.0.70', python: '3.10.12' },
    regions: ['global'], artifact: `ghcr.io/example/cuda-12.4-runtime@sha256:${(i + 1).toString(16).padStart(64, '0')}`, boot_seconds: 30 + i, size_gb: 6 + i / 10, description: 'CUDA 12.4 runtime container.',
  })),
  {
    key: 'base-old', team: 'ml-platform', family: 'base-gpu-ubuntu24.04', version: '2026.01.05', provider: 'aws', layer: 'platform',
    os: { name: 'ubuntu', version: '24.04' }, kernel: '6.8.0-1021-aws', gpus: ['H100', 'H200', 'A100', 'L4'], instance_families: ['p5', 'p4d', 'g6'], tags: ['cis'],
    components: { 'nvidia-driver': '580.65.06', cuda: '12.8.1', cudnn: '9.8.0.87', nccl: '2.26.2', 'nvidia-container-toolkit': '1.17.8', python: '3.12.3' },
    regions: ['us-east-1', 'eu-west-1'], boot_seconds: 78, size_gb: 48, description: 'Base GPU image: NVIDIA driver, CUDA and the container toolkit on Ubuntu 24.04.',
  },
  {
    key: 'base-new', team: 'ml-platform', family: 'base-gpu-ubuntu24.04', version: '2026.03.01', provider: 'aws', layer: 'platform',
    os: { name: 'ubuntu', version: '24.04' }, kernel: '6.8.0-1024-aws', gpus: ['H100', 'H200', 'B200', 'L4'], instance_families: ['p5', 'p6', 'g6'], tags: ['cis'],
    components: { 'nvidia-driver': '580.95.05', cuda: '13.0.2', cudnn: '9.14.0.64', nccl: '2.27.7', 'nvidia-container-toolkit': '1.18.0', python: '3.12.3' },
    regions: ['us-east-1', 'eu-west-1', 'us-west-2'], boot_seconds: 74, size_gb: 49, description: 'Base GPU image: NVIDIA driver, CUDA and the container toolkit on Ubuntu 24.04.',
  },
  {
    key: 'torch-old', team: 'ml-platform', family: 'pytorch-2.9-ubuntu24.04', version: '2026.01.10', provider: 'aws', layer: 'model', parent: 'base-old',
    os: { name: 'ubuntu', version: '24.04' }, kernel: '6.8.0-1021-aws', gpus: ['H100', 'H200', 'A100'], instance_families: ['p5', 'p4d'], tags: ['cis'],
    components: { 'nvidia-driver': '580.65.06', cuda: '12.8.1', cudnn: '9.8.0.87', nccl: '2.26.2', pytorch: '2.9.0', python: '3.12.3' },
    regions: ['us-east-1', 'eu-west-1'], boot_seconds: 88, size_gb: 61, description: 'PyTorch 2.9 with CUDA 12.8 on Ubuntu 24.04, for training and inference on Hopper and Ampere.',
  },
  {
    key: 'torch-new', team: 'ml-platform', family: 'pytorch-2.9-ubuntu24.04', version: '2026.03.17', provider: 'aws', layer: 'model', parent: 'base-old',
    os: { name: 'ubuntu', version: '24.04' }, kernel: '6.8.0-1024-aws', gpus: ['H100', 'H200', 'A100'], instance_families: ['p5', 'p4d'], tags: ['cis'],
    components: { 'nvidia-driver': '580.95.05', cuda: '12.8.1', cudnn: '9.8.0.87', nccl: '2.26.2', pytorch: '2.9.1', python: '3.12.3' },
    regions: ['us-east-1', 'eu-west-1'], boot_seconds: 82, size_gb: 62, description: 'PyTorch 2.9 with CUDA 12.8 on Ubuntu 24.04, for training and inference on Hopper and Ampere.',
  },
  {
    key: 'tf', team: 'research', family: 'tensorflow-2.20-ubuntu22.04', version: '2026.02.01', provider: 'gcp', layer: 'model',
    os: { name: 'ubuntu', version: '22.04' }, gpus: ['L4', 'T4', 'A100'], instance_families: ['g2', 'a2'], tags: [],
    components: { 'nvidia-driver': '570.172.08', cuda: '12.8.1', cudnn: '9.8.0.87', tensorflow: '2.20.0', python: '3.11.9' },
    regions: ['us-central1'], boot_seconds: 104, size_gb: 55, description: 'TensorFlow 2.20 on Ubuntu 22.04 for inference on L4 and T4.',
  },
  {
    key: 'legacy', team: 'research', family: 'legacy-cu122-ubuntu22.04', version: '2025.06.01', provider: 'azure', layer: 'platform',
    os: { name: 'ubuntu', version: '22.04' }, gpus: ['T4', 'V100', 'A100'], instance_families: ['ncv3', 'ncast4-v3'], tags: ['fips'],
    components: { 'nvidia-driver': '535.183.01', cuda: '12.2.2', cudnn: '8.9.7.29', python: '3.10.12' },
    regions: ['eastus', 'westeurope'], boot_seconds: 131, size_gb: 40, description: 'An older CUDA 12.2 stack kept for V100 and T4 fleets.',
  },
  {
    key: 'vllm', team: 'ml-platform', family: 'vllm-0.11-cu128', version: '2026.02.20', provider: 'oci-container', layer: 'model',
    os: { name: 'ubuntu', version: '24.04' }, gpus: ['H100', 'H200', 'L40S'], instance_families: [], tags: ['boot-optimized'],
    components: { cuda: '12.8.1', cudnn: '9.8.0.87', pytorch: '2.8.0', vllm: '0.11.0', python: '3.12.3' },
    regions: ['global'], artifact: 'ghcr.io/example/vllm-0.11-cu128@sha256:5d41402abc4b2a76b9719d911017c592', boot_seconds: 21, size_gb: 14, description: 'vLLM serving container with CUDA 12.8.',
  },
];

/** The advisory that makes base-old and torch-old patch_available (fixed in the newer images). */
export const ADVISORY = {
  id: 'NVIDIA-5703',
  title: 'Security Bulletin: NVIDIA GPU Display Driver - October 2025',
  published: '2025-10-09',
  severity: 'high',
  cvss: 8.2,
  cves: ['CVE-2025-23280', 'CVE-2025-23282'],
  url: 'https://nvidia.custhelp.com/app/answers/detail/a_id/5703',
  affected: [{ component: 'nvidia-driver', range: '>=580, <580.95.05', fixed: '580.95.05' }],
};

async function call(base, method, path, { token, body, expect = [200, 201] } = {}) {
  const res = await fetch(`${base}/v1${path}`, {
    method,
    headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!expect.includes(res.status)) throw new Error(`seed: ${method} ${path} answered ${res.status}: ${text}`);
  return text ? JSON.parse(text) : null;
}

const login = async (base, who) => (await call(base, 'POST', '/auth/login', { body: { email: who.email, password: who.password } })).access_token;

/** Seeds the catalog; resolves { images: {key: id}, pin, request, advisory }. */
export async function seed(base, { receiverPort } = {}) {
  const admin = await login(base, ADMIN);
  for (const [slug, name] of [['ml-platform', 'ML Platform'], ['research', 'Research']]) await call(base, 'POST', '/teams', { token: admin, body: { slug, name } });
  await call(base, 'POST', '/users', { token: admin, body: { email: USER.email, password: USER.password, display_name: USER.display_name } });
  await call(base, 'PUT', `/teams/ml-platform/members/${encodeURIComponent(USER.email)}`, { token: admin, body: { role: 'admin' } });
  await call(base, 'PUT', `/teams/research/members/${encodeURIComponent(USER.email)}`, { token: admin, body: { role: 'publisher' } });
  await call(base, 'POST', '/users', { token: admin, body: { email: VIEWER.email, password: VIEWER.password, display_name: VIEWER.display_name } });
  await call(base, 'PUT', `/teams/ml-platform/members/${encodeURIComponent(VIEWER.email)}`, { token: admin, body: { role: 'viewer' } });

  const user = await login(base, USER);
  const ids = {};
  let n = 1;
  for (const img of IMAGES) {
    const manifest = {
      team: img.team,
      family: img.family,
      version: img.version,
      provider: img.provider,
      architecture: 'x86_64',
      os: img.os,
      kernel: img.kernel ?? null,
      layer: img.layer,
      artifacts: img.regions.map((region) => ({ region, id: img.artifact || (img.provider === 'aws' ? AMI(0x5eed00 + n++) : `projects/example/images/${img.family}-${img.version.replace(/\./g, '')}-${region}`) })),
      components: Object.entries(img.components).map(([name, version]) => ({ name, version })),
      gpus: img.gpus,
      instance_families: img.instance_families,
      tags: img.tags,
      boot_seconds: img.boot_seconds,
      size_gb: img.size_gb,
      parent: img.parent ? ids[img.parent] : null,
      description: img.description,
    };
    ids[img.key] = (await call(base, 'POST', '/images', { token: user, body: manifest })).id;
  }

  await call(base, 'POST', '/advisories', { token: admin, body: ADVISORY });

  const pin = await call(base, 'POST', '/pins', {
    token: user,
    body: { team: 'ml-platform', name: 'prod-training', image: ids['torch-old'], constraints: [{ component: 'nvidia-driver', range: '~580' }] },
  });
  await call(base, 'POST', '/pins', { token: user, body: { team: 'ml-platform', name: 'inference', image: ids.vllm } });
  await call(base, 'POST', '/pins', { token: user, body: { team: 'ml-platform', name: 'staging-base', image: ids['base-old'] } });

  // Measurements: a few runs per (image, instance type), so medians and p90s differ.
  const runs = [
    ['torch-new', 'p5.48xlarge', 8, [[5200, 38, 41, 70], [5350, 36, 40, 66], [5100, 39, 44, 72]]],
    ['torch-new', 'p4d.24xlarge', 8, [[2900, 61, 70, 95], [3050, 58, 66, 91], [2980, 60, 68, 93]]],
    ['torch-new', 'g6.12xlarge', 4, [[950, 120, 180, 64], [910, 125, 190, 66]]],
    ['torch-old', 'p5.48xlarge', 8, [[4900, 41, 47, 84], [5000, 40, 46, 81]]],
    ['vllm', 'g6.xlarge', 1, [[210, 160, 240, 21], [220, 150, 230, 20]]],
  ];
  let minute = 0;
  for (const [key, instance_type, gpu_count, list] of runs)
    for (const [throughput_per_s, latency_p50_ms, latency_p99_ms, boot_seconds] of list)
      await call(base, 'POST', '/measurements', {
        token: user,
        body: {
          team: 'ml-platform', image: ids[key], instance_type, gpu_count, model: 'llama-3.1-8b', precision: 'bf16', batch_size: 16,
          throughput_per_s, latency_p50_ms, latency_p99_ms, boot_seconds, pricing: 'on_demand', region: 'us-east-1',
          measured_at: new Date(Date.UTC(2026, 9, 1, 10, minute++)).toISOString(),
        },
      });

  // A request from research waiting in the publishers' queue (ml-platform is the catalog team).
  const request = await call(base, 'POST', '/requests', {
    token: user,
    body: { team: 'research', title: 'TensorFlow 2.19 on L4', family: 'tensorflow-2.19-ubuntu24.04', constraints: [{ component: 'tensorflow', range: '2.19.*' }, { component: 'cuda', range: '12.5.*' }], gpus: ['L4'], justification: 'Inference of the ranking models.' },
  });

  // One subscription that already has a delivery (an image published after it).
  let webhook = null;
  if (receiverPort) {
    webhook = await call(base, 'POST', '/webhooks', { token: user, body: { team: 'ml-platform', url: `http://127.0.0.1:${receiverPort}/existing`, events: ['ping', 'patch.available'], description: 'Ops channel' } });
    await call(base, 'POST', `/webhooks/${webhook.id}/test`, { token: user, expect: [200, 201, 202] });
  }
  return { images: ids, pin: pin.id, request: request.id, webhook: webhook?.id ?? null, advisory: ADVISORY.id };
}

/**
 * Names as long as the API takes, for the layout tests: a long family with long GPU, tag and
 * framework names, a pin with a long name on it, a measurement on a long instance type, and an
 * advisory with a long id and title that hits the long image. Resolves { image, pin, advisory }.
 */
export async function seedLongNames(base, { token, adminToken, suffix = '' }) {
  const family = `pytorch-2.9-cu128-ubuntu24.04-efa-hardened-fips-with-an-unusually-long-family-name${suffix}`;
  const mk = (version, driver) => ({
    team: 'ml-platform', family, version, provider: 'aws', architecture: 'x86_64', os: { name: 'ubuntu', version: '24.04' }, layer: 'model',
    artifacts: [{ region: 'ap-southeast-3-long-region-name', id: `ami-0long${version.replace(/\D/g, '')}aaaabbbbccccddddeeee` }],
    components: [{ name: 'nvidia-driver', version: driver }, { name: 'cuda', version: '12.8.1' }, { name: 'pytorch', version: '2.9.1+cu128.post20260401.dev-internal-build' }, { name: 'nvidia-container-toolkit-with-a-long-component-name', version: '1.18.0-1.long.release.suffix' }],
    gpus: ['NVIDIA RTX PRO 6000 Blackwell Server Edition', 'H100 NVL 94GB PCIe', 'L40S', 'A100-SXM4-80GB', 'H200', 'B200', 'GB200-NVL72-superchip', 'L4'],
    tags: ['fips-140-3-validated-build', 'efa-enabled-networking-stack', 'cis-level-2-hardened'], boot_seconds: 90, size_gb: 64,
    description: 'An image whose every name is long, to show that nothing on any screen scrolls sideways at 390 px.',
  });
  const call2 = (method, p, body, t = token) => call(base, method, p, { token: t, body });
  const old = await call2('POST', '/images', mk('2026.04.01-long-version-suffix', '580.65.06'));
  await call2('POST', '/images', mk('2026.05.01-long-version-suffix', '580.95.05'));
  // A later image the pin may also move to: the first fix and the move's target then differ.
  await call2('POST', '/images', mk('2026.06.01-long-version-suffix', '580.95.05'));
  const pin = await call2('POST', '/pins', { team: 'ml-platform', name: `production-inference-cluster-eu-west-with-a-long-pin-name${suffix}`, image: old.id, constraints: [{ component: 'nvidia-driver', range: '~580' }] });
  await call2('POST', '/measurements', { team: 'ml-platform', image: old.id, instance_type: 'p5.48xlarge', gpu_count: 8, model: 'llama-3.1-70b-instruct-long-model-name', precision: 'bf16', batch_size: 16, throughput_per_s: 4000, latency_p50_ms: 40, latency_p99_ms: 55, boot_seconds: 80, pricing: 'on_demand', region: 'us-east-1', measured_at: '2026-10-01T10:00:00Z' });
  const advisory = await call2('POST', '/advisories', { id: `GHSA-long-advisory-identifier-2026-0001${suffix}`, title: 'A security bulletin with a very long title that names many products, versions and branches at once', published: '2026-04-02', severity: 'critical', cvss: 9.8, cves: ['CVE-2026-100001', 'CVE-2026-100002', 'CVE-2026-100003'], affected: [{ component: 'nvidia-container-toolkit-with-a-long-component-name', range: '<1.18.1', fixed: '1.18.1' }] }, adminToken);
  return { image: old.id, pin: pin.id, advisory: advisory.id, family };
}
