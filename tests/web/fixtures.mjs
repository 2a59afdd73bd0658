// Canned catalog for the fake API: images, advisories, pins, costs. The browser tests assert
// against these rows, so a real server under test needs the same data seeded.

const GPU_SETS = {
  hopper: ['H100', 'H200', 'A100', 'L4'],
  wide: ['H100', 'A100', 'A10G', 'L4', 'T4'],
  ampere: ['A100', 'A10G', 'T4'],
  new: ['B200', 'H200', 'H100', 'L40S', 'L4'],
};

function img(id, o) {
  return {
    id,
    family: o.family,
    version: o.version,
    provider: o.provider || 'aws',
    architecture: o.arch || 'x86_64',
    os: o.os || { name: 'ubuntu', version: '24.04' },
    layer: o.layer || 'model',
    status: o.status || 'active',
    patch_status: o.patch || 'ok',
    published_at: `${o.version.replace(/\./g, '-')}T09:00:00Z`,
    team: o.team || 'ml-platform',
    gpus: o.gpus,
    components: o.components,
    regions: o.regions || ['us-east-1', 'eu-west-1'],
    boot_seconds: o.boot ?? 95,
    size_gb: o.size ?? 48,
    tags: o.tags || [],
    description: o.description || `GPU-ready ${o.family} image.`,
    parent_id: o.parent ?? null,
    instance_families: o.instance_families || ['p5', 'p4d', 'g6'],
  };
}

export const images = [
  img(1, { family: 'pytorch-2.9-ubuntu24.04', version: '2026.03.17', gpus: GPU_SETS.hopper, parent: 5, boot: 82, size: 52, tags: ['cis'],
    components: { 'nvidia-driver': '580.95.05', cuda: '12.8.1', cudnn: '9.8.0', nccl: '2.26.2', pytorch: '2.9.0', python: '3.12.3', 'nvidia-container-toolkit': '1.17.8', 'linux-kernel': '6.8.0-1024-aws' },
    description: 'PyTorch 2.9 with CUDA 12.8 on Ubuntu 24.04, for training and inference on Hopper and Ampere.' }),
  img(2, { family: 'pytorch-2.9-ubuntu24.04', version: '2026.01.10', gpus: GPU_SETS.hopper, parent: 5, patch: 'patch_available', boot: 88, size: 51, tags: ['cis'],
    components: { 'nvidia-driver': '580.65.06', cuda: '12.8.0', cudnn: '9.7.1', nccl: '2.25.1', pytorch: '2.9.0', python: '3.12.3', 'nvidia-container-toolkit': '1.17.4', 'linux-kernel': '6.8.0-1019-aws' } }),
  img(3, { family: 'pytorch-2.8-ubuntu22.04', version: '2025.11.02', os: { name: 'ubuntu', version: '22.04' }, gpus: GPU_SETS.wide, status: 'deprecated', patch: 'vulnerable', boot: 110, size: 55,
    components: { 'nvidia-driver': '570.172.08', cuda: '12.6.3', cudnn: '9.5.1', pytorch: '2.8.0', python: '3.11.9', 'nvidia-container-toolkit': '1.16.1' } }),
  img(4, { family: 'tensorflow-2.18-ubuntu22.04', version: '2026.02.01', os: { name: 'ubuntu', version: '22.04' }, gpus: GPU_SETS.ampere, boot: 101, size: 44,
    components: { 'nvidia-driver': '570.172.08', cuda: '12.5.1', cudnn: '9.3.0', tensorflow: '2.18.0', python: '3.11.9' } }),
  img(5, { family: 'base-gpu-ubuntu24.04', version: '2026.03.01', layer: 'platform', gpus: GPU_SETS.new, boot: 61, size: 22, tags: ['cis', 'boot-optimized'],
    components: { 'nvidia-driver': '580.95.05', cuda: '13.0.1', 'nvidia-container-toolkit': '1.17.8', dcgm: '4.2.3', efa: '1.38.0', 'linux-kernel': '6.8.0-1024-aws' } }),
  img(6, { family: 'base-gpu-rocky9', version: '2026.02.20', provider: 'gcp', os: { name: 'rocky', version: '9' }, layer: 'platform', gpus: ['H100', 'A100', 'L4'], regions: ['us-central1', 'europe-west4'], boot: 74, size: 19, tags: ['fips', 'stig'],
    components: { 'nvidia-driver': '570.172.08', cuda: '12.8.1', 'nvidia-container-toolkit': '1.17.8', dcgm: '4.1.1' } }),
  img(7, { family: 'vllm-0.11-cuda12.8', version: '2026.03.10', provider: 'oci-container', layer: 'model', gpus: ['H100', 'H200'], regions: [], boot: 35, size: 14, parent: 5,
    components: { cuda: '12.8.1', pytorch: '2.8.0', vllm: '0.11.0', python: '3.12.3' } }),
  img(8, { family: 'pytorch-2.9-rocky9', version: '2026.03.05', provider: 'azure', os: { name: 'rocky', version: '9' }, gpus: ['H100', 'A100'], regions: ['eastus', 'westeurope'], boot: 120, size: 60, tags: ['fips'],
    components: { 'nvidia-driver': '575.57.08', cuda: '12.9.1', cudnn: '9.10.0', pytorch: '2.9.0', python: '3.12.3' } }),
  img(9, { family: 'base-gpu-ubuntu22.04', version: '2025.08.15', os: { name: 'ubuntu', version: '22.04' }, layer: 'platform', gpus: GPU_SETS.ampere, status: 'revoked', patch: 'revoked', boot: 90,
    components: { 'nvidia-driver': '535.261.03', cuda: '12.2.2', 'nvidia-container-toolkit': '1.14.6' } }),
  img(10, { family: 'triton-25.02-arm64', version: '2026.02.15', arch: 'arm64', gpus: ['H100', 'L4'], boot: 97, size: 38, os: { name: 'ubuntu', version: '24.04' },
    components: { 'nvidia-driver': '570.133.20', cuda: '12.8.0', tritonserver: '2.55.0', python: '3.12.3' } }),
];
// Older versions so that the catalog pages through a cursor.
for (let i = 0; i < 14; i++) {
  const m = String(12 - (i % 12)).padStart(2, '0');
  const y = i < 12 ? 2024 : 2023;
  images.push(img(100 + i, { family: 'pytorch-2.4-ubuntu22.04', version: `${y}.${m}.0${1 + (i % 8)}`, os: { name: 'ubuntu', version: '22.04' }, gpus: GPU_SETS.ampere, status: 'deprecated', patch: 'vulnerable', boot: 130 + i, size: 50,
    components: { 'nvidia-driver': '535.183.01', cuda: '12.1.1', cudnn: '8.9.7', pytorch: '2.4.1', python: '3.10.14' } }));
}

export const advisories = [
  { id: 'NVIDIA-2026-5661', title: 'NVIDIA GPU display driver: out-of-bounds write in the kernel module', severity: 'high', cvss: 7.8, cves: ['CVE-2026-0101', 'CVE-2026-0102'], published_at: '2026-02-20T00:00:00Z', url: 'https://nvidia.custhelp.com/app/answers/detail/a_id/5661',
    affected: [{ component: 'nvidia-driver', range: '~580,<580.95.05' }], images: [2], description: 'A local user can cause an out-of-bounds write, which may lead to code execution or denial of service.' },
  { id: 'NVIDIA-2025-5582', title: 'NVIDIA Container Toolkit: container escape through a TOCTOU race', severity: 'critical', cvss: 9.0, cves: ['CVE-2025-23266'], published_at: '2025-07-15T00:00:00Z', url: 'https://nvidia.custhelp.com/app/answers/detail/a_id/5582',
    affected: [{ component: 'nvidia-container-toolkit', range: '<=1.16.1' }], images: [3, 9, ...images.filter((i) => i.id >= 100).map((i) => i.id)] },
  { id: 'USN-7420-1', title: 'Linux kernel vulnerabilities', severity: 'medium', cvss: 5.5, cves: ['CVE-2025-21700'], published_at: '2026-01-05T00:00:00Z', url: 'https://ubuntu.com/security/notices/USN-7420-1',
    affected: [{ component: 'linux-kernel', range: '<6.8.0-1020' }], images: [2] },
];

export const pins = [
  { id: 11, team: 'ml-platform', name: 'prod-training', image: 2, constraints: [{ component: 'nvidia-driver', range: '~580' }, { component: 'cuda', range: '12.*' }],
    history: [{ image: 2, moved_at: '2026-01-12T10:00:00Z', by: 'ana@imaxe.test' }] },
  { id: 12, team: 'ml-platform', name: 'staging-inference', image: 1, constraints: [],
    history: [{ image: 2, moved_at: '2026-01-12T10:05:00Z', by: 'ana@imaxe.test' }, { image: 1, moved_at: '2026-03-18T08:00:00Z', by: 'demo@imaxe.test' }] },
  { id: 13, team: 'ml-platform', name: 'legacy-tf', image: 3, constraints: [{ component: 'cuda', range: '12.6.*' }], history: [] },
];

export const costs = {
  1: [
    ['p5.48xlarge', 'llama-3.1-8b', 0.0182, 0.0201, 1510, 92, 82, 2.24],
    ['p4d.24xlarge', 'llama-3.1-8b', 0.0241, 0.0263, 610, 141, 96, 0.87],
    ['g6e.xlarge', 'llama-3.1-8b', 0.0139, 0.0158, 37, 188, 71, 0.04],
    ['g6.xlarge', 'llama-3.1-8b', 0.0214, 0.0240, 10.4, 246, 69, 0.02],
    ['p5.48xlarge', 'resnet50', 0.00061, 0.00066, 44800, 9, 82, 2.24],
    ['g6.xlarge', 'resnet50', 0.00044, 0.00049, 510, 14, 69, 0.02],
  ],
};

export const hourly = { 'p5.48xlarge': 98.32, 'p4d.24xlarge': 32.77, 'g6e.xlarge': 1.861, 'g6.xlarge': 0.805, 'g5.xlarge': 1.006 };
