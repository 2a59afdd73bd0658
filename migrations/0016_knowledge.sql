-- Fresh GPU knowledge (issue 15; ../shared/notes/gpu-knowledge-gaps.md): the first CUDA per
-- compute capability, the CUDA minors a cuDNN build covers, NVIDIA's own end-of-life dates, and
-- the GPUs, toolkits, driver branches and cuDNN releases that were missing. Every row keeps its
-- source URL and a status; a fact may now be UNCONFIRMED: it is kept with its source, and the
-- validator (server/domain/compat.c) never turns a stack into an error on it.

-- ---------------------------------------------------------------------------
-- UNCONFIRMED rows. A toolkit whose Table-3 driver is not confirmed has no linux_driver_min (its
-- major's minor-version-compatibility floor still applies); a branch whose type is not confirmed
-- has no branch_type.
ALTER TABLE ref_cuda_driver DROP CONSTRAINT ref_cuda_driver_status_check,
  ADD CONSTRAINT ref_cuda_driver_status_check
    CHECK (status IN ('CONFIRMED', 'SECONDARY', 'PARTIAL', 'UNCONFIRMED')),
  ALTER COLUMN linux_driver_min DROP NOT NULL,
  ADD CONSTRAINT ref_cuda_driver_min_known CHECK (linux_driver_min IS NOT NULL OR status = 'UNCONFIRMED');

ALTER TABLE ref_driver_branch DROP CONSTRAINT ref_driver_branch_status_check,
  ADD CONSTRAINT ref_driver_branch_status_check
    CHECK (status IN ('CONFIRMED', 'SECONDARY', 'PARTIAL', 'UNCONFIRMED')),
  ALTER COLUMN branch_type DROP NOT NULL,
  ALTER COLUMN type_basis DROP NOT NULL,
  ADD CONSTRAINT ref_driver_branch_type_known
    CHECK ((branch_type IS NOT NULL AND type_basis IS NOT NULL) OR status = 'UNCONFIRMED'),
  ADD COLUMN eol_source text CHECK (eol_source ~ '^https://');
COMMENT ON COLUMN ref_driver_branch.eol_source IS
  'The NVIDIA page that publishes eol when eol_basis is nvidia. The validator prefers NVIDIA''s date to endoflife.date''s estimate.';

ALTER TABLE ref_cudnn DROP CONSTRAINT ref_cudnn_status_check,
  ADD CONSTRAINT ref_cudnn_status_check
    CHECK (status IN ('CONFIRMED', 'SECONDARY', 'PARTIAL', 'UNCONFIRMED')),
  ADD COLUMN cuda11_max text CHECK (cuda11_max ~ '^11[.][0-9]+$'),
  ADD COLUMN cuda12_max text CHECK (cuda12_max ~ '^12[.][0-9]+$'),
  ADD COLUMN cuda13_max text CHECK (cuda13_max ~ '^13[.][0-9]+$');
COMMENT ON COLUMN ref_cudnn.cuda12_max IS
  'Newest CUDA 12 minor the CUDA 12 build supports per the support matrix (12.6 for 9.5.1); NULL when the matrix was not read. Same for cuda11_max / cuda13_max.';

-- ---------------------------------------------------------------------------
-- First CUDA toolkit per compute capability. An architecture's first CUDA only holds for its
-- first capabilities: Blackwell's 10.0 and 12.0 arrived with CUDA 12.8, 10.3 (B300/GB300) and
-- 12.1 (GB10) with 12.9, and 11.0 (the renumbered SM101, Jetson Thor) with 13.0.
CREATE TABLE ref_compute_capability (
  compute_capability  numeric(4,1) PRIMARY KEY CHECK (compute_capability > 0),
  architecture        text NOT NULL REFERENCES ref_gpu_arch (architecture),
  sm_target           text NOT NULL CHECK (sm_target ~ '^sm_[0-9]+$'),
  first_cuda text NOT NULL CHECK (first_cuda ~ '^[0-9]{1,9}([.][0-9]{1,9}){0,5}$'),
  first_cuda_key int[] GENERATED ALWAYS AS (imx_version_key(first_cuda)) STORED,
  status        text NOT NULL CHECK (status IN ('CONFIRMED', 'SECONDARY', 'PARTIAL', 'UNCONFIRMED')),
  status_detail text,
  source        text NOT NULL CHECK (source <> ''),
  notes         text
);
COMMENT ON TABLE ref_compute_capability IS
  'Compute capability -> the first CUDA toolkit that compiles for it (sm_NN), from NVIDIA''s CUDA features archive and the architecture matrix. The validator holds a GPU to the newest of its model''s and its capability''s first CUDA.';

CREATE TRIGGER ref_compute_capability_generation AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
  ON ref_compute_capability FOR EACH STATEMENT EXECUTE FUNCTION imx_ref_generation_bump();

UPDATE ref_gpu_arch SET compute_capabilities = ARRAY[8.0, 8.6, 8.7]::numeric[],
       notes = 'compute capability 8.7: Jetson AGX Orin / Orin NX / Orin Nano (https://developer.nvidia.com/cuda-gpus)'
 WHERE architecture = 'Ampere';

INSERT INTO ref_compute_capability (compute_capability, architecture, sm_target, first_cuda, status, status_detail, source, notes) VALUES
  (7.0, 'Volta', 'sm_70', '9.0', 'CONFIRMED', 'first CUDA of the architecture, which starts with this capability', 'https://docs.nvidia.com/datacenter/tesla/drivers/cuda-toolkit-driver-and-architecture-matrix.html', NULL),
  (7.5, 'Turing', 'sm_75', '10.0', 'CONFIRMED', 'first CUDA of the architecture, which starts with this capability', 'https://docs.nvidia.com/datacenter/tesla/drivers/cuda-toolkit-driver-and-architecture-matrix.html', NULL),
  (8.0, 'Ampere', 'sm_80', '11.0', 'CONFIRMED', 'first CUDA of the architecture, which starts with this capability', 'https://docs.nvidia.com/datacenter/tesla/drivers/cuda-toolkit-driver-and-architecture-matrix.html', NULL),
  (8.6, 'Ampere', 'sm_86', '11.1', 'SECONDARY', 'the architecture matrix lists 8.0 and 8.6 together under CUDA 11.0; sm_86 arrived with CUDA 11.1 (NVIDIA forum)', 'https://forums.developer.nvidia.com/t/minimum-required-cuda-version-by-gpu/276955/2', 'as the A10 row of ref_gpu'),
  (8.9, 'Ada', 'sm_89', '11.8', 'CONFIRMED', 'first CUDA of the architecture, which starts with this capability', 'https://docs.nvidia.com/datacenter/tesla/drivers/cuda-toolkit-driver-and-architecture-matrix.html', NULL),
  (9.0, 'Hopper', 'sm_90', '11.8', 'CONFIRMED', 'first CUDA of the architecture, which starts with this capability', 'https://docs.nvidia.com/datacenter/tesla/drivers/cuda-toolkit-driver-and-architecture-matrix.html', NULL),
  (10.0, 'Blackwell', 'sm_100', '12.8', 'CONFIRMED', NULL, 'https://docs.nvidia.com/cuda/archive/12.9.1/cuda-features-archive/index.html', 'CUDA 12.8 added sm_100 (B200/GB200) and sm_120'),
  (10.3, 'Blackwell', 'sm_103', '12.9', 'CONFIRMED', NULL, 'https://docs.nvidia.com/cuda/archive/12.9.1/cuda-features-archive/index.html', 'CUDA 12.9 added sm_103 (B300/GB300) and sm_121 (GB10)'),
  (11.0, 'Blackwell', 'sm_110', '13.0', 'CONFIRMED', NULL, 'https://docs.nvidia.com/cuda/cuda-features-archive/index.html', 'CUDA 13.0 renumbered SM101 as sm_110 (Jetson T5000/T4000)'),
  (12.0, 'Blackwell', 'sm_120', '12.8', 'CONFIRMED', NULL, 'https://docs.nvidia.com/cuda/archive/12.9.1/cuda-features-archive/index.html', 'CUDA 12.8 added sm_100 and sm_120 (RTX PRO Blackwell, GeForce RTX 50)'),
  (12.1, 'Blackwell', 'sm_121', '12.9', 'CONFIRMED', NULL, 'https://docs.nvidia.com/cuda/archive/12.9.1/cuda-features-archive/index.html', 'CUDA 12.9 added sm_103 and sm_121 (GB10, DGX Spark)');

-- The Blackwell Ultra rows had no first CUDA; their capability's is 12.9 (12.9.0: driver 575.51.03).
UPDATE ref_gpu SET first_cuda = '12.9', min_driver_derived = '575.51.03',
       notes = coalesce(notes || '; ', '') || 'first CUDA 12.9 per compute capability 10.3 (ref_compute_capability)'
 WHERE gpu_model IN ('B300', 'GB300');

-- ---------------------------------------------------------------------------
-- End of life: NVIDIA's 615 page gives R610 August 2026; the stored 2027-08-03 was endoflife.date's
-- release + 1 year estimate.
UPDATE ref_driver_branch SET eol = DATE '2026-08-01', eol_basis = 'nvidia',
       eol_source = 'https://docs.nvidia.com/datacenter/tesla/drivers/615/supported-drivers-and-cuda-toolkit-versions.html',
       notes = coalesce(notes || '; ', '') || 'EOL: NVIDIA 615 page says August 2026 (endoflife.date estimate 2027-08-03 kept in eol_endoflife_date)'
 WHERE branch = 610;
-- Where NVIDIA's date is the stored one, name the NVIDIA page it came from.
UPDATE ref_driver_branch
   SET eol_source = coalesce(substring(source from
                               'https://docs[.]nvidia[.]com/datacenter/tesla/(?:drivers/[^ ;,()]*supported-drivers[^ ;,()]*|pdf/[^ ;,()]*)'),
                             'https://docs.nvidia.com/datacenter/tesla/drivers/supported-drivers-and-cuda-toolkit-versions.html')
 WHERE eol_basis = 'nvidia' AND eol_source IS NULL;
UPDATE ref_driver_branch
   SET status_detail = coalesce(status_detail || '; ', '') || 'first_release, latest_version and native_cuda not published on the 620 page: left empty rather than guessed'
 WHERE branch = 620;

INSERT INTO ref_driver_branch (branch, branch_type, type_basis, first_release, eol, eol_basis, eol_official_text, eol_endoflife_date, latest_version, latest_version_date, native_cuda, status, status_detail, source, notes) VALUES
  (615, NULL, NULL, NULL, NULL, NULL, 'UNCONFIRMED', NULL, NULL, NULL, NULL, 'UNCONFIRMED', 'branch type UNCONFIRMED: only secondary mentions; not in releases.json or an NVIDIA support-page table', 'https://docs.nvidia.com/datacenter/tesla/drivers/615/supported-drivers-and-cuda-toolkit-versions.html ; SECONDARY: https://github.com/NVIDIA/cutlass/releases/tag/v4.8.0dev', 'referenced by secondary sources as the driver shipping with CUDA 13.4 GA');

-- ---------------------------------------------------------------------------
-- CUDA 13.4 and 13.5: release notes exist, their Table-3 drivers were not confirmed.
INSERT INTO ref_cuda_driver (cuda_version, cuda_major, nvidia_label, linux_driver_min, windows_driver_min, mvc_driver_min, status, status_detail, source, notes) VALUES
  ('13.4.1', 13, 'CUDA 13.4 GA (13.4.1)', NULL, NULL, '580.65.06', 'UNCONFIRMED', 'Linux driver floor UNCONFIRMED; secondary docs conflict (R616 >= 616.00 for 13.4 DP; R615 with 13.4 GA)', 'https://docs.nvidia.com/cuda/archive/13.4.1/cuda-toolkit-release-notes/index.html', 'from 13.4 the Linux driver is reportedly no longer bundled with the toolkit (SECONDARY); the 13.x minor-version-compatibility floor applies'),
  ('13.5.0', 13, 'CUDA 13.5', NULL, NULL, '580.65.06', 'UNCONFIRMED', 'Linux driver floor UNCONFIRMED (driver table not read)', 'https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/', 'the 13.x minor-version-compatibility floor applies');

-- ---------------------------------------------------------------------------
-- cuDNN: the CUDA minors each build covers where the support matrix was read, and the releases
-- known by their existence only.
UPDATE ref_cudnn SET cuda11_max = '11.8', cuda12_max = '12.2' WHERE cudnn_version IN ('8.9.5', '8.9.6');
UPDATE ref_cudnn SET cuda11_max = '11.8', cuda12_max = '12.3' WHERE cudnn_version = '9.0.0';
UPDATE ref_cudnn SET cuda11_max = '11.8', cuda12_max = '12.6' WHERE cudnn_version IN ('9.5.0', '9.5.1');
UPDATE ref_cudnn SET cuda11_max = '11.8', cuda12_max = '12.9' WHERE cudnn_version = '9.10.2';
UPDATE ref_cudnn SET cuda12_max = '12.9', cuda13_max = '13.1' WHERE cudnn_version = '9.17.0';

INSERT INTO ref_cudnn (cudnn_version, release_date, cuda_majors, cuda11_minors, cuda12_minors, cuda13_minors, driver_min_cuda11, driver_min_cuda12, driver_min_cuda13, min_driver, architectures, cc_min, cc_max, status, status_detail, source, notes) VALUES
  ('9.15.0', NULL, ARRAY[12, 13]::int[], NULL, NULL, NULL, NULL, '525.60.13', '580.65.06', '>=525.60.13 (CUDA 12.x builds); >=580.65.06 (CUDA 13.x builds)', NULL, NULL, NULL, 'UNCONFIRMED', 'version existence only; CUDA 12/13 builds assumed', 'https://anaconda.org/nvidia/cudnn/labels', NULL),
  ('9.15.1', NULL, ARRAY[12, 13]::int[], NULL, NULL, NULL, NULL, '525.60.13', '580.65.06', '>=525.60.13 (CUDA 12.x builds); >=580.65.06 (CUDA 13.x builds)', NULL, NULL, NULL, 'UNCONFIRMED', 'version existence only; CUDA 12/13 builds assumed', 'https://anaconda.org/nvidia/cudnn/labels', 'PyTorch 2.10 cu130 wheels bundle 9.15.1.9'),
  ('9.16.0', NULL, ARRAY[12, 13]::int[], NULL, NULL, NULL, NULL, '525.60.13', '580.65.06', '>=525.60.13 (CUDA 12.x builds); >=580.65.06 (CUDA 13.x builds)', NULL, NULL, NULL, 'UNCONFIRMED', 'version existence only; CUDA 12/13 builds assumed', 'https://anaconda.org/nvidia/cudnn/labels', NULL),
  ('9.17.1', NULL, ARRAY[12, 13]::int[], NULL, NULL, NULL, NULL, '525.60.13', '580.65.06', '>=525.60.13 (CUDA 12.x builds); >=580.65.06 (CUDA 13.x builds) (assumed, not re-read)', NULL, NULL, NULL, 'UNCONFIRMED', 'version existence only (anaconda.org nvidia channel labels); CUDA 12/13 builds assumed', 'https://anaconda.org/nvidia/cudnn/labels', 'PyTorch 2.11 cu128/cu130 wheels bundle 9.17.1.4'),
  ('9.18.0', NULL, ARRAY[12, 13]::int[], NULL, NULL, NULL, NULL, '525.60.13', '580.65.06', '>=525.60.13 (CUDA 12.x builds); >=580.65.06 (CUDA 13.x builds) (assumed, not re-read)', NULL, NULL, NULL, 'UNCONFIRMED', 'version existence only (anaconda.org nvidia channel labels); CUDA 12/13 builds assumed', 'https://anaconda.org/nvidia/cudnn/labels', NULL),
  ('9.18.1', NULL, ARRAY[12, 13]::int[], NULL, NULL, NULL, NULL, '525.60.13', '580.65.06', '>=525.60.13 (CUDA 12.x builds); >=580.65.06 (CUDA 13.x builds) (assumed, not re-read)', NULL, NULL, NULL, 'UNCONFIRMED', 'version existence only (anaconda.org nvidia channel labels); CUDA 12/13 builds assumed', 'https://anaconda.org/nvidia/cudnn/labels', NULL),
  ('9.19.0', NULL, ARRAY[12, 13]::int[], NULL, NULL, NULL, NULL, '525.60.13', '580.65.06', '>=525.60.13 (CUDA 12.x builds); >=580.65.06 (CUDA 13.x builds) (assumed, not re-read)', NULL, NULL, NULL, 'UNCONFIRMED', 'version existence only (anaconda.org nvidia channel labels); CUDA 12/13 builds assumed', 'https://anaconda.org/nvidia/cudnn/labels', NULL),
  ('9.19.1', NULL, ARRAY[12, 13]::int[], NULL, NULL, NULL, NULL, '525.60.13', '580.65.06', '>=525.60.13 (CUDA 12.x builds); >=580.65.06 (CUDA 13.x builds) (assumed, not re-read)', NULL, NULL, NULL, 'UNCONFIRMED', 'version existence only (anaconda.org nvidia channel labels); CUDA 12/13 builds assumed', 'https://anaconda.org/nvidia/cudnn/labels', NULL),
  ('9.22.0', NULL, ARRAY[12, 13]::int[], NULL, NULL, NULL, NULL, '525.60.13', '580.65.06', '>=525.60.13 (CUDA 12.x builds); >=580.65.06 (CUDA 13.x builds) (assumed, not re-read)', NULL, NULL, NULL, 'UNCONFIRMED', 'version existence only (anaconda.org nvidia channel labels); CUDA 12/13 builds assumed', 'https://anaconda.org/nvidia/cudnn/labels', NULL),
  ('9.24.0', NULL, ARRAY[12, 13]::int[], NULL, NULL, NULL, NULL, '525.60.13', '580.65.06', '>=525.60.13 (CUDA 12.x builds); >=580.65.06 (CUDA 13.x builds) (assumed, not re-read)', NULL, NULL, NULL, 'UNCONFIRMED', 'version existence only (PyTorch 2.14 matrix: CUDNN 9.24.0.43); CUDA 12/13 builds assumed', 'https://github.com/pytorch/pytorch/blob/main/RELEASE.md', 'read via a translated copy (GitHub index file id 66643764700)');

-- ---------------------------------------------------------------------------
-- GPUs that were unknown (an unknown GPU is only an info finding, so no rule fired for them).
-- Compute capabilities from NVIDIA's CUDA GPUs pages; first CUDA from ref_compute_capability
-- (NULL where no capability row exists: the architecture's then applies), and the derived
-- minimum driver is that toolkit's Table-3 floor.
INSERT INTO ref_gpu (gpu_model, full_name, architecture, compute_capability, sm_target, first_cuda, min_driver_derived, min_driver_documented, aliases, status, status_detail, source, notes) VALUES
  ('GB10', 'NVIDIA GB10 Grace Blackwell Superchip (DGX Spark)', 'Blackwell', 12.1, 'sm_121', '12.9', '575.51.03', NULL, ARRAY['NVIDIA GB10', 'DGX Spark', 'NVIDIA DGX Spark']::text[], 'CONFIRMED', 'CC from NVIDIA; first CUDA per compute capability 12.1', 'https://developer.nvidia.com/cuda-gpus', 'Grace (aarch64) host'),
  ('L40', 'NVIDIA L40', 'Ada', 8.9, 'sm_89', '11.8', '520.61.05', NULL, ARRAY['NVIDIA L40', 'L40 48GB']::text[], 'CONFIRMED', NULL, 'https://developer.nvidia.com/cuda-gpus', NULL),
  ('A40', 'NVIDIA A40', 'Ampere', 8.6, 'sm_86', '11.1', '455.23', NULL, ARRAY['NVIDIA A40', 'A40 48GB']::text[], 'CONFIRMED', 'CC CONFIRMED; first CUDA as compute capability 8.6 (SECONDARY)', 'https://developer.nvidia.com/cuda-gpus', NULL),
  ('A16', 'NVIDIA A16', 'Ampere', 8.6, 'sm_86', '11.1', '455.23', NULL, ARRAY['NVIDIA A16']::text[], 'CONFIRMED', 'CC CONFIRMED; first CUDA as compute capability 8.6 (SECONDARY)', 'https://developer.nvidia.com/cuda-gpus', NULL),
  ('A2', 'NVIDIA A2', 'Ampere', 8.6, 'sm_86', '11.1', '455.23', NULL, ARRAY['NVIDIA A2', 'A2 16GB']::text[], 'CONFIRMED', 'CC CONFIRMED; first CUDA as compute capability 8.6 (SECONDARY)', 'https://developer.nvidia.com/cuda-gpus', NULL),
  ('A30', 'NVIDIA A30', 'Ampere', 8.0, 'sm_80', '11.0', '450.36.06', NULL, ARRAY['NVIDIA A30', 'A30 24GB']::text[], 'CONFIRMED', NULL, 'https://developer.nvidia.com/cuda-gpus', NULL),
  ('Jetson AGX Orin', 'NVIDIA Jetson AGX Orin', 'Ampere', 8.7, 'sm_87', NULL, NULL, NULL, ARRAY['NVIDIA Jetson AGX Orin', 'AGX Orin']::text[], 'CONFIRMED', 'CC CONFIRMED; first CUDA for 8.7 not in the data (JetPack/L4T driver, not the data-centre driver)', 'https://developer.nvidia.com/cuda-gpus', NULL),
  ('Jetson Orin NX', 'NVIDIA Jetson Orin NX', 'Ampere', 8.7, 'sm_87', NULL, NULL, NULL, ARRAY['NVIDIA Jetson Orin NX', 'Orin NX']::text[], 'CONFIRMED', 'CC CONFIRMED; first CUDA for 8.7 not in the data (JetPack/L4T driver, not the data-centre driver)', 'https://developer.nvidia.com/cuda-gpus', NULL),
  ('Jetson Orin Nano', 'NVIDIA Jetson Orin Nano', 'Ampere', 8.7, 'sm_87', NULL, NULL, NULL, ARRAY['NVIDIA Jetson Orin Nano', 'Orin Nano']::text[], 'CONFIRMED', 'CC CONFIRMED; first CUDA for 8.7 not in the data (JetPack/L4T driver, not the data-centre driver)', 'https://developer.nvidia.com/cuda-gpus', NULL),
  ('Jetson T5000', 'NVIDIA Jetson AGX Thor T5000', 'Blackwell', 11.0, 'sm_110', '13.0', NULL, NULL, ARRAY['NVIDIA Jetson T5000', 'Jetson AGX Thor', 'Jetson Thor T5000']::text[], 'CONFIRMED', 'CC CONFIRMED; first CUDA per compute capability 11.0; JetPack driver, so no data-centre driver minimum', 'https://developer.nvidia.com/cuda-gpus', NULL),
  ('Jetson T4000', 'NVIDIA Jetson Thor T4000', 'Blackwell', 11.0, 'sm_110', '13.0', NULL, NULL, ARRAY['NVIDIA Jetson T4000', 'Jetson Thor T4000']::text[], 'CONFIRMED', 'CC CONFIRMED; first CUDA per compute capability 11.0; JetPack driver, so no data-centre driver minimum', 'https://developer.nvidia.com/cuda-gpus', NULL),
  ('RTX PRO 6000 Workstation', 'NVIDIA RTX PRO 6000 Blackwell Workstation Edition', 'Blackwell', 12.0, 'sm_120', '12.8', '570.26', NULL, ARRAY['RTX PRO 6000 Blackwell Workstation Edition', 'RTX PRO 6000 Blackwell Max-Q Workstation Edition', 'NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition']::text[], 'CONFIRMED', NULL, 'https://developer.nvidia.com/cuda-gpus', 'the Server Edition is the RTX PRO 6000 row'),
  ('RTX PRO 5000', 'NVIDIA RTX PRO 5000 Blackwell', 'Blackwell', 12.0, 'sm_120', '12.8', '570.26', NULL, ARRAY['NVIDIA RTX PRO 5000 Blackwell', 'RTX PRO 5000 Blackwell']::text[], 'CONFIRMED', NULL, 'https://developer.nvidia.com/cuda-gpus', NULL),
  ('RTX PRO 4500 Workstation', 'NVIDIA RTX PRO 4500 Blackwell', 'Blackwell', 12.0, 'sm_120', '12.8', '570.26', NULL, ARRAY['RTX PRO 4500 Blackwell Workstation Edition']::text[], 'CONFIRMED', NULL, 'https://developer.nvidia.com/cuda-gpus', 'the Server Edition is the RTX PRO 4500 row'),
  ('RTX PRO 4000', 'NVIDIA RTX PRO 4000 Blackwell', 'Blackwell', 12.0, 'sm_120', '12.8', '570.26', NULL, ARRAY['NVIDIA RTX PRO 4000 Blackwell', 'RTX PRO 4000 Blackwell', 'RTX PRO 4000 Blackwell SFF Edition']::text[], 'CONFIRMED', NULL, 'https://developer.nvidia.com/cuda-gpus', NULL),
  ('RTX PRO 2000', 'NVIDIA RTX PRO 2000 Blackwell', 'Blackwell', 12.0, 'sm_120', '12.8', '570.26', NULL, ARRAY['NVIDIA RTX PRO 2000 Blackwell', 'RTX PRO 2000 Blackwell']::text[], 'CONFIRMED', NULL, 'https://developer.nvidia.com/cuda-gpus', NULL),
  ('RTX 5090', 'NVIDIA GeForce RTX 5090', 'Blackwell', 12.0, 'sm_120', '12.8', '570.26', NULL, ARRAY['GeForce RTX 5090', 'NVIDIA GeForce RTX 5090']::text[], 'CONFIRMED', NULL, 'https://developer.nvidia.com/cuda-gpus', 'GeForce RTX 50 series'),
  ('RTX 5080', 'NVIDIA GeForce RTX 5080', 'Blackwell', 12.0, 'sm_120', '12.8', '570.26', NULL, ARRAY['GeForce RTX 5080', 'NVIDIA GeForce RTX 5080']::text[], 'CONFIRMED', NULL, 'https://developer.nvidia.com/cuda-gpus', 'GeForce RTX 50 series'),
  ('RTX 5070 Ti', 'NVIDIA GeForce RTX 5070 Ti', 'Blackwell', 12.0, 'sm_120', '12.8', '570.26', NULL, ARRAY['GeForce RTX 5070 Ti', 'NVIDIA GeForce RTX 5070 Ti']::text[], 'CONFIRMED', NULL, 'https://developer.nvidia.com/cuda-gpus', 'GeForce RTX 50 series'),
  ('RTX 5070', 'NVIDIA GeForce RTX 5070', 'Blackwell', 12.0, 'sm_120', '12.8', '570.26', NULL, ARRAY['GeForce RTX 5070', 'NVIDIA GeForce RTX 5070']::text[], 'CONFIRMED', NULL, 'https://developer.nvidia.com/cuda-gpus', 'GeForce RTX 50 series'),
  ('RTX 5060 Ti', 'NVIDIA GeForce RTX 5060 Ti', 'Blackwell', 12.0, 'sm_120', '12.8', '570.26', NULL, ARRAY['GeForce RTX 5060 Ti', 'NVIDIA GeForce RTX 5060 Ti']::text[], 'CONFIRMED', NULL, 'https://developer.nvidia.com/cuda-gpus', 'GeForce RTX 50 series'),
  ('RTX 5060', 'NVIDIA GeForce RTX 5060', 'Blackwell', 12.0, 'sm_120', '12.8', '570.26', NULL, ARRAY['GeForce RTX 5060', 'NVIDIA GeForce RTX 5060']::text[], 'CONFIRMED', NULL, 'https://developer.nvidia.com/cuda-gpus', 'GeForce RTX 50 series'),
  ('P100', 'NVIDIA Tesla P100', 'Pascal', 6.0, 'sm_60', NULL, NULL, NULL, ARRAY['Tesla P100', 'NVIDIA P100', 'Tesla P100-PCIE-16GB', 'Tesla P100-SXM2-16GB']::text[], 'CONFIRMED', 'CC CONFIRMED; first CUDA and driver: the architecture''s', 'https://developer.nvidia.com/cuda-legacy-gpus', NULL),
  ('P40', 'NVIDIA Tesla P40', 'Pascal', 6.1, 'sm_61', NULL, NULL, NULL, ARRAY['Tesla P40', 'NVIDIA P40']::text[], 'CONFIRMED', 'CC CONFIRMED; first CUDA and driver: the architecture''s', 'https://developer.nvidia.com/cuda-legacy-gpus', NULL),
  ('P4', 'NVIDIA Tesla P4', 'Pascal', 6.1, 'sm_61', NULL, NULL, NULL, ARRAY['Tesla P4', 'NVIDIA P4']::text[], 'CONFIRMED', 'CC CONFIRMED; first CUDA and driver: the architecture''s', 'https://developer.nvidia.com/cuda-legacy-gpus', NULL),
  ('M60', 'NVIDIA Tesla M60', 'Maxwell', 5.2, 'sm_52', NULL, NULL, NULL, ARRAY['Tesla M60', 'NVIDIA M60']::text[], 'CONFIRMED', 'CC CONFIRMED; first CUDA and driver: the architecture''s', 'https://developer.nvidia.com/cuda-legacy-gpus', NULL),
  ('M40', 'NVIDIA Tesla M40', 'Maxwell', 5.2, 'sm_52', NULL, NULL, NULL, ARRAY['Tesla M40', 'NVIDIA M40']::text[], 'CONFIRMED', 'CC CONFIRMED; first CUDA and driver: the architecture''s', 'https://developer.nvidia.com/cuda-legacy-gpus', NULL),
  ('K80', 'NVIDIA Tesla K80', 'Kepler', 3.7, 'sm_37', NULL, NULL, NULL, ARRAY['Tesla K80', 'NVIDIA K80']::text[], 'CONFIRMED', 'CC CONFIRMED; first CUDA and driver: the architecture''s', 'https://developer.nvidia.com/cuda-legacy-gpus', 'Kepler: last CUDA 11.x, last driver branch R470');
