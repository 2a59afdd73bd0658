-- A small, realistic demo catalog: three teams, platform images on aws/gcp/azure/onprem and
-- model containers (oci-container) built on them; V100..B200, CUDA 11.8..13.0, R525..R580,
-- PyTorch and TensorFlow, and an EKS-like AMI with two driver trees. Idempotent: does nothing when the demo teams already exist.
-- Compatibility reports are left empty ({}): the server computes them on publish.
DO $demo$
DECLARE
  p record;
  img bigint;
  parent bigint;
BEGIN
  IF EXISTS (SELECT 1 FROM teams WHERE slug = 'demo-platform') THEN
    RAISE NOTICE 'demo catalog already loaded';
    RETURN;
  END IF;
  INSERT INTO teams (slug, name) VALUES ('demo-platform', 'Platform engineering'),
    ('demo-ml', 'ML infrastructure'), ('demo-research', 'Research');

  -- Platform images: family, version, provider, arch, os, os version, driver, cuda, cudnn,
  -- nccl, GPUs, regions, tags, boot seconds, size, days ago, status.
  FOR p IN SELECT * FROM (VALUES
    ('dlami-base-ubuntu22.04', '2024.06.10', 'aws', 'x86_64', 'ubuntu', '22.04', '535.183.01', '12.2.2', '8.9.7.29', '2.18.5', '{V100,T4,A10G,A100}', '{us-east-1,us-west-2,eu-west-1}', '{cis}', 95, 60.0, 640, 'deprecated'),
    ('dlami-base-ubuntu22.04', '2024.11.04', 'aws', 'x86_64', 'ubuntu', '22.04', '550.127.05', '12.4.1', '9.1.0.70', '2.21.5', '{V100,T4,A10G,A100,H100,L4}', '{us-east-1,us-west-2,eu-west-1}', '{cis}', 90, 62.0, 500, 'active'),
    ('dlami-base-ubuntu22.04', '2025.05.20', 'aws', 'x86_64', 'ubuntu', '22.04', '570.133.20', '12.8.1', '9.8.0.87', '2.26.2', '{T4,A10G,A100,H100,H200,L4,L40S,B200}', '{us-east-1,us-west-2,eu-west-1}', '{cis}', 88, 64.0, 330, 'active'),
    ('dlami-base-ubuntu24.04', '2025.09.15', 'aws', 'x86_64', 'ubuntu', '24.04', '580.82.07', '13.0.1', '9.13.0.50', '2.27.7', '{T4,A10G,A100,H100,H200,L4,L40S,B200}', '{us-east-1,us-west-2,eu-west-1}', '{cis,boot-optimized}', 55, 58.0, 210, 'active'),
    ('dlami-base-ubuntu24.04', '2025.11.03', 'aws', 'x86_64', 'ubuntu', '24.04', '580.95.05', '13.0.2', '9.14.0.64', '2.27.7', '{T4,A10G,A100,H100,H200,L4,L40S,B200}', '{us-east-1,us-west-2,eu-west-1}', '{cis,boot-optimized}', 52, 58.5, 150, 'active'),
    ('dlami-base-ubuntu24.04', '2026.02.10', 'aws', 'x86_64', 'ubuntu', '24.04', '580.105.08', '13.0.2', '9.14.0.64', '2.27.7', '{T4,A10G,A100,H100,H200,L4,L40S,B200}', '{us-east-1,us-west-2,eu-west-1}', '{cis,boot-optimized}', 50, 59.0, 60, 'active'),
    ('dlami-base-al2023-arm64', '2025.10.01', 'aws', 'arm64', 'amazonlinux', '2023', '580.95.05', '13.0.2', '9.14.0.64', '2.27.7', '{T4G}', '{us-east-1,us-west-2}', '{fips}', 45, 40.0, 180, 'active'),
    ('dlami-legacy-ubuntu20.04', '2023.09.01', 'aws', 'x86_64', 'ubuntu', '20.04', '525.147.05', '11.8.0', '8.9.7.29', '2.16.5', '{V100,T4}', '{us-east-1}', '{}', 120, 70.0, 800, 'deprecated'),
    ('gce-dl-cu128-ubuntu22.04', '2025.06.01', 'gcp', 'x86_64', 'ubuntu', '22.04', '570.133.20', '12.8.1', '9.8.0.87', '2.26.2', '{T4,L4,A100,H100,B200}', '{us-central1,europe-west4}', '{}', 70, 50.0, 320, 'active'),
    ('gce-dl-cu130-ubuntu24.04', '2025.12.01', 'gcp', 'x86_64', 'ubuntu', '24.04', '580.105.08', '13.0.2', '9.14.0.64', '2.27.7', '{L4,A100,H100,H200,B200}', '{us-central1,europe-west4}', '{cis}', 65, 52.0, 120, 'active'),
    ('gce-dl-cu124-debian12', '2024.10.01', 'gcp', 'x86_64', 'debian', '12', '550.127.05', '12.4.1', '9.1.0.70', '2.21.5', '{T4,L4,A100,H100}', '{us-central1}', '{}', 75, 48.0, 520, 'active'),
    ('azure-hpc-ubuntu22.04', '2024.08.01', 'azure', 'x86_64', 'ubuntu', '22.04', '535.183.01', '12.2.2', '8.9.7.29', '2.18.5', '{V100,A100,H100}', '{eastus,westeurope}', '{cis}', 110, 64.0, 560, 'active'),
    ('azure-hpc-ubuntu24.04', '2025.08.01', 'azure', 'x86_64', 'ubuntu', '24.04', '570.133.20', '12.8.1', '9.8.0.87', '2.26.2', '{A100,H100,H200}', '{eastus,westeurope}', '{cis}', 100, 66.0, 260, 'active'),
    ('azure-hpc-ubuntu24.04', '2026.01.15', 'azure', 'x86_64', 'ubuntu', '24.04', '580.95.05', '13.0.2', '9.14.0.64', '2.27.7', '{A100,H100,H200,B200}', '{eastus,westeurope}', '{cis}', 98, 66.5, 80, 'active'),
    ('onprem-dgx-rocky9', '2025.03.01', 'onprem', 'x86_64', 'rocky', '9.4', '550.127.05', '12.4.1', '9.1.0.70', '2.21.5', '{A100,H100}', '{dc-fra1}', '{stig,fips}', 180, 30.0, 400, 'active'),
    ('onprem-dgx-rocky9', '2025.11.20', 'onprem', 'x86_64', 'rocky', '9.6', '580.95.05', '13.0.2', '9.14.0.64', '2.27.7', '{H100,H200,B200}', '{dc-fra1}', '{stig,fips}', 170, 31.0, 130, 'active'),
    ('onprem-dgx-rocky9', '2026.03.02', 'onprem', 'x86_64', 'rocky', '9.6', '580.126.09', '13.0.2', '9.14.0.64', '2.27.7', '{H100,H200,B200}', '{dc-fra1}', '{stig,fips}', 165, 31.5, 30, 'active'),
    ('onprem-ws-ubuntu22.04', '2024.02.01', 'onprem', 'x86_64', 'ubuntu', '22.04', '535.161.08', '12.2.2', '8.9.7.29', '2.18.5', '{V100,T4}', '{dc-ams2}', '{}', 140, 28.0, 700, 'active'),
    ('onprem-ws-ubuntu22.04', '2025.06.01', 'onprem', 'x86_64', 'ubuntu', '22.04', '575.57.08', '12.9.1', '9.10.2.21', '2.27.3', '{A100,RTX PRO 6000}', '{dc-ams2}', '{}', 130, 29.0, 300, 'active')
  ) AS v(family, version, provider, arch, os, osv, driver, cuda, cudnn, nccl, gpus, regions, tags, boot, size, days, status)
  LOOP
    INSERT INTO images (family, version, team_id, provider, architecture, os_name, os_version,
                        kernel, layer, boot_seconds, size_gb, description, status, status_reason,
                        published_at, search)
    VALUES (p.family, p.version, (SELECT id FROM teams WHERE slug = 'demo-platform'), p.provider,
            p.arch, p.os, p.osv, '6.8.0-1015-aws', 'platform', p.boot, p.size,
            'GPU platform image: NVIDIA driver ' || p.driver || ', CUDA ' || p.cuda || ' on ' || p.os || ' ' || p.osv,
            p.status, CASE WHEN p.status = 'deprecated' THEN 'superseded' END,
            now() - p.days * interval '1 day',
            imx_image_search_doc(p.family, 'GPU platform image: NVIDIA driver ' || p.driver || ', CUDA ' || p.cuda,
                                 ARRAY['nvidia-driver','cuda','cudnn','nccl','nvidia-container-toolkit','dcgm']))
    RETURNING id INTO img;
    INSERT INTO image_components (image_id, name, version) VALUES
      (img, 'nvidia-driver', p.driver), (img, 'cuda', p.cuda), (img, 'cudnn', p.cudnn),
      (img, 'nccl', p.nccl), (img, 'nvidia-container-toolkit', CASE WHEN p.days > 400 THEN '1.16.1' ELSE '1.17.8' END),
      (img, 'dcgm', '3.3.9'), (img, 'python', '3.12.3');
    INSERT INTO image_artifacts (image_id, region, artifact_id)
    SELECT img, r, CASE p.provider WHEN 'aws' THEN 'ami-' || substr(md5(img || r), 1, 17)
                                   WHEN 'gcp' THEN 'projects/demo/global/images/' || p.family || '-' || replace(p.version, '.', '')
                                   WHEN 'azure' THEN '/subscriptions/demo/images/' || p.family || '/versions/' || p.version
                                   ELSE 'pxe://' || r || '/' || p.family || '/' || p.version END
    FROM unnest(p.regions::text[]) r;
    INSERT INTO image_gpus (image_id, gpu) SELECT img, g FROM unnest(p.gpus::text[]) g;
    INSERT INTO image_tags (image_id, tag) SELECT img, t FROM unnest(p.tags::text[]) t;
  END LOOP;

  -- An EKS-like GPU AMI with two driver trees, one loaded at boot by the GPU attached (as the
  -- EKS GPU AMIs do since 2026-09): the 580 open kernel modules for Turing and newer, the 570
  -- proprietary ones for the V100 (migrations/0199_component_entries.sql).
  INSERT INTO images (family, version, team_id, provider, architecture, os_name, os_version,
                      kernel, layer, boot_seconds, size_gb, description, published_at, search)
  VALUES ('eks-gpu-al2023', '2026.03.15', (SELECT id FROM teams WHERE slug = 'demo-platform'),
          'aws', 'x86_64', 'amazonlinux', '2023', '6.12.40-63.114.amzn2023', 'platform', 48, 45.0,
          'EKS GPU node AMI: NVIDIA drivers 580.105.08 (T4 and newer) and 570.195.03 (V100), CUDA 12.8',
          now() - interval '20 days',
          imx_image_search_doc('eks-gpu-al2023', 'EKS GPU node AMI: two NVIDIA driver trees, CUDA 12.8',
                               ARRAY['nvidia-driver','cuda','nvidia-container-toolkit']))
  RETURNING id INTO img;
  INSERT INTO image_components (image_id, name, version, entry, gpus) VALUES
    (img, 'nvidia-driver', '580.105.08', 1, '{A100,A10G,B200,H100,H200,L4,L40S,T4}'),
    (img, 'nvidia-driver', '570.195.03', 2, '{V100}'),
    (img, 'cuda', '12.8.1', 1, NULL), (img, 'nvidia-container-toolkit', '1.17.8', 1, NULL);
  INSERT INTO image_artifacts (image_id, region, artifact_id)
  SELECT img, r, 'ami-' || substr(md5(img || r), 1, 17) FROM unnest('{us-east-1,us-west-2}'::text[]) r;
  INSERT INTO image_gpus (image_id, gpu)
  SELECT img, g FROM unnest('{A100,A10G,B200,H100,H200,L4,L40S,T4,V100}'::text[]) g;

  -- Model containers on the newest platform of a family: family, version, parent family,
  -- framework, framework version, team, days ago.
  FOR p IN SELECT * FROM (VALUES
    ('pytorch-2.5-cu124', '2024.11.10', 'dlami-base-ubuntu22.04', '2024.11.04', 'pytorch', '2.5.1+cu124', 'demo-ml', 490),
    ('pytorch-2.7-cu128', '2025.05.25', 'dlami-base-ubuntu22.04', '2025.05.20', 'pytorch', '2.7.1+cu128', 'demo-ml', 325),
    ('pytorch-2.8-cu128', '2025.08.10', 'azure-hpc-ubuntu24.04', '2025.08.01', 'pytorch', '2.8.0+cu128', 'demo-ml', 250),
    ('pytorch-2.9-cu130', '2025.11.05', 'dlami-base-ubuntu24.04', '2025.11.03', 'pytorch', '2.9.0+cu130', 'demo-ml', 148),
    ('pytorch-2.9-cu130', '2026.02.12', 'dlami-base-ubuntu24.04', '2026.02.10', 'pytorch', '2.9.1+cu130', 'demo-ml', 58),
    ('pytorch-2.9-cu128', '2025.12.05', 'gce-dl-cu130-ubuntu24.04', '2025.12.01', 'pytorch', '2.9.0+cu128', 'demo-ml', 115),
    ('pytorch-2.11-cu130', '2026.03.20', 'onprem-dgx-rocky9', '2026.03.02', 'pytorch', '2.11.0+cu130', 'demo-research', 20),
    ('pytorch-2.10-cu128', '2026.01.20', 'azure-hpc-ubuntu24.04', '2026.01.15', 'pytorch', '2.10.0+cu128', 'demo-research', 75),
    ('pytorch-2.3-cu121', '2024.06.15', 'dlami-base-ubuntu22.04', '2024.06.10', 'pytorch', '2.3.1+cu121', 'demo-ml', 635),
    ('pytorch-2.6-cu126', '2025.06.05', 'gce-dl-cu128-ubuntu22.04', '2025.06.01', 'pytorch', '2.6.0+cu126', 'demo-research', 315),
    ('tensorflow-2.14-cu118', '2023.09.10', 'dlami-legacy-ubuntu20.04', '2023.09.01', 'tensorflow', '2.14.1', 'demo-ml', 790),
    ('tensorflow-2.16-cu123', '2024.08.10', 'azure-hpc-ubuntu22.04', '2024.08.01', 'tensorflow', '2.16.1', 'demo-ml', 550),
    ('tensorflow-2.18-cu125', '2024.10.10', 'gce-dl-cu124-debian12', '2024.10.01', 'tensorflow', '2.18.0', 'demo-ml', 510),
    ('tensorflow-2.20-cu125', '2025.09.20', 'onprem-ws-ubuntu22.04', '2025.06.01', 'tensorflow', '2.20.0', 'demo-research', 205),
    ('vllm-0.11-cu128', '2025.12.10', 'gce-dl-cu130-ubuntu24.04', '2025.12.01', 'pytorch', '2.9.0+cu128', 'demo-research', 110),
    ('triton-25.10-cu130', '2025.11.15', 'onprem-dgx-rocky9', '2025.11.20', 'pytorch', '2.9.0+cu130', 'demo-ml', 125),
    ('jax-0.7-cu128', '2025.08.20', 'onprem-ws-ubuntu22.04', '2025.06.01', 'python', '3.12.3', 'demo-research', 240),
    ('pytorch-2.9-cu130-arm64', '2025.10.05', 'dlami-base-al2023-arm64', '2025.10.01', 'pytorch', '2.9.0+cu130', 'demo-ml', 175),
    ('pytorch-2.7-cu128-azure', '2025.08.15', 'azure-hpc-ubuntu24.04', '2025.08.01', 'pytorch', '2.7.1+cu128', 'demo-ml', 245),
    ('pytorch-2.5-cu124-onprem', '2025.03.10', 'onprem-dgx-rocky9', '2025.03.01', 'pytorch', '2.5.1+cu124', 'demo-research', 395),
    ('tensorflow-2.21-cu125', '2026.03.25', 'onprem-dgx-rocky9', '2026.03.02', 'tensorflow', '2.21.0', 'demo-research', 15)
  ) AS v(family, version, parent_family, parent_version, fw, fw_version, team, days)
  LOOP
    SELECT id INTO parent FROM images WHERE family = p.parent_family AND version = p.parent_version;
    INSERT INTO images (family, version, team_id, provider, architecture, os_name, os_version,
                        layer, parent_id, boot_seconds, size_gb, description, published_at, search)
    SELECT p.family, p.version, (SELECT id FROM teams WHERE slug = p.team), 'oci-container',
           pi.architecture, pi.os_name, pi.os_version, 'model', parent, 12, 9.5,
           'Model container: ' || p.fw || ' ' || p.fw_version || ' on ' || pi.family || ' ' || pi.version,
           now() - p.days * interval '1 day',
           imx_image_search_doc(p.family, 'Model container: ' || p.fw || ' ' || p.fw_version,
                                ARRAY['nvidia-driver','cuda','cudnn','nccl', p.fw])
    FROM images pi WHERE pi.id = parent
    RETURNING id INTO img;
    -- The container carries the parent's user-space CUDA stack; the driver comes from the host.
    INSERT INTO image_components (image_id, name, version)
    SELECT img, c.name, c.version FROM image_components c
    WHERE c.image_id = parent AND c.name IN ('nvidia-driver', 'cuda', 'cudnn', 'nccl', 'python')
      AND c.name <> p.fw;
    INSERT INTO image_components (image_id, name, version)
    VALUES (img, p.fw, p.fw_version) ON CONFLICT (image_id, name, entry) DO UPDATE SET version = EXCLUDED.version;
    INSERT INTO image_artifacts (image_id, region, artifact_id)
    VALUES (img, 'global', 'ghcr.io/demo/' || p.family || '@sha256:' || md5(p.family || p.version) || md5(p.version || p.family));
    INSERT INTO image_gpus (image_id, gpu) SELECT img, g.gpu FROM image_gpus g WHERE g.image_id = parent;
  END LOOP;
  -- One revoked container, so that resolve and search show the difference.
  UPDATE images SET status = 'revoked', status_reason = 'demo: NVIDIA Container Toolkit CVE-2024-0132',
                    patch_status = 'revoked'
  WHERE family = 'pytorch-2.5-cu124' AND version = '2024.11.10';
  UPDATE images SET patch_status = 'patch_available'
  WHERE family IN ('dlami-base-ubuntu24.04') AND version IN ('2025.09.15', '2025.11.03');
END
$demo$;
