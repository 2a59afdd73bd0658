-- Compatibility knowledge complete against each source's list (issue 31): the columns the
-- generated 0311-0313 fill, and the facts too small for a source file of their own. Every value
-- keeps its source and a status; an UNCONFIRMED value is kept with why, and the validator never
-- makes an error of it.

-- ---------------------------------------------------------------------------
-- ref_cudnn: how far each release's compute-capability set was read, and NVIDIA's hardware
-- forward-compatibility mode (cuDNN 9 builds for CUDA 12 or later run GPUs newer than their list
-- through PTX JIT, some operations excluded: a warning, never an error; cuDNN 8 has no such mode).
ALTER TABLE ref_cudnn
  ADD COLUMN cc_list_status text CHECK (cc_list_status IN ('CONFIRMED', 'SECONDARY', 'UNCONFIRMED')),
  ADD COLUMN cc_list_source text CHECK (cc_list_source <> ''),
  ADD COLUMN forward_compat boolean,
  ADD COLUMN forward_compat_source text CHECK (forward_compat_source ~ '^https://');
COMMENT ON COLUMN ref_cudnn.cc_list_status IS
  'CONFIRMED: cc_list read from this release''s own support matrix; UNCONFIRMED: DERIVED from the matrices read before and after it (cc_list_source says which): good for a warning, never an error.';
COMMENT ON COLUMN ref_cudnn.forward_compat IS
  'true when NVIDIA''s hardware forward-compatibility mode applies (cuDNN 9.0.0 and later, a build for CUDA 12 or later): a GPU newer than cc_list runs, with limits (PTX JIT, some operations unsupported, CUDNN_LIB_CONFIG=FULL).';
-- 0113 and 0221 set the eight sets read so far; 0312 restates them with the rest.
UPDATE ref_cudnn SET cc_list_status = 'CONFIRMED',
       cc_list_source = 'the release''s support matrix (0113_cudnn_cc.sql / 0221_cudnn_cc_more.sql)'
 WHERE cc_list IS NOT NULL;
ALTER TABLE ref_cudnn ADD CONSTRAINT ref_cudnn_cc_list_status_known
  CHECK ((cc_list IS NULL) = (cc_list_status IS NULL) AND (cc_list IS NULL) = (cc_list_source IS NULL));

-- ---------------------------------------------------------------------------
-- ref_compute_capability: the first toolkit that no longer builds for a capability, so the set a
-- toolkit builds for is first_cuda <= toolkit < dropped_cuda (0313 fills it).
ALTER TABLE ref_compute_capability
  ADD COLUMN dropped_cuda text CHECK (dropped_cuda ~ '^[0-9]{1,9}([.][0-9]{1,9}){0,5}$'),
  ADD COLUMN dropped_cuda_key int[] GENERATED ALWAYS AS (imx_version_key(dropped_cuda)) STORED,
  ADD CONSTRAINT ref_compute_capability_dropped_after_first
    CHECK (dropped_cuda_key IS NULL OR dropped_cuda_key > first_cuda_key);
COMMENT ON COLUMN ref_compute_capability.dropped_cuda IS
  'The first CUDA toolkit that no longer builds for this capability (12.0 for Kepler 3.5/3.7; 13.0 for 5.x, 6.x, 7.0 and 7.2); NULL while every toolkit since first_cuda does.';

-- ---------------------------------------------------------------------------
-- ref_driver_branch: the architectures a branch supports (0314 derives them from ref_gpu_arch,
-- ref_compute_capability and ref_cuda_driver), and a branch type read from what NVIDIA's page
-- leaves out.
ALTER TABLE ref_driver_branch
  ADD COLUMN architectures text[],
  DROP CONSTRAINT ref_driver_branch_type_basis_check,
  ADD CONSTRAINT ref_driver_branch_type_basis_check
    CHECK (type_basis IN ('nvidia_support_page', 'releases.json', 'nvidia_support_page_omission'));
COMMENT ON COLUMN ref_driver_branch.architectures IS
  'DERIVED: the architectures this branch supports: those whose first capability''s first CUDA toolkit has its Table-3 driver in this branch or an older one, and whose last driver branch (ref_gpu_arch) is not older than it.';

-- R615: NVIDIA's 620 support page lists every Long Term Support and Production branch still in
-- support (R580, R595, R620) and says "New Feature Branches are short-lived and do not have an
-- end-of-life date"; R615 (first released with CUDA 13.4, after R610, an NFB whose August 2026
-- end the 615 page gives) is not among them, so it is neither an LTSB nor a PB still supported: a
-- New Feature Branch. Read from what the page leaves out, not from a line naming R615: SECONDARY.
DO $$ BEGIN
  UPDATE ref_driver_branch
   SET branch_type = 'NFB', type_basis = 'nvidia_support_page_omission', status = 'SECONDARY',
       status_detail = 'type from NVIDIA''s 620 page by omission: it lists every LTSB and PB in support (R580, R595, R620) and not R615; first_release, latest_version and native_cuda not read',
       eol_official_text = 'not published for NFBs (620 page: NFBs are short-lived and have no EOL date)',
       source = 'https://docs.nvidia.com/datacenter/tesla/drivers/620/supported-drivers-and-cuda-toolkit-versions.html ; https://docs.nvidia.com/datacenter/tesla/drivers/615/supported-drivers-and-cuda-toolkit-versions.html',
       notes = concat_ws('; ', notes, 'branch_type NFB (SECONDARY): absent from the 620 page''s list of LTS and production branches, which says NFBs are short-lived; the 615 page lists R535, R580, R595 and R610 only')
 WHERE branch = 615;
  IF NOT FOUND THEN RAISE EXCEPTION '0310: no ref_driver_branch row 615'; END IF;
END $$;

-- ---------------------------------------------------------------------------
-- CUDA 13.4 Update 1 (13.4.2): NVIDIA's release notes archive has it
-- (https://docs.nvidia.com/cuda/archive/13.4.2/cuda-toolkit-release-notes/index.html); its
-- Table-3 driver was not read, so the 13.x minor-version-compatibility floor applies.
INSERT INTO ref_cuda_driver (cuda_version, cuda_major, nvidia_label, linux_driver_min, windows_driver_min, mvc_driver_min, status, status_detail, source, notes) VALUES
  ('13.4.2', 13, 'CUDA 13.4 Update 1', NULL, NULL, '580.65.06', 'UNCONFIRMED', 'release CONFIRMED (NVIDIA release notes archive 13.4.2); Table-3 Linux driver floor not read', 'https://docs.nvidia.com/cuda/archive/13.4.2/cuda-toolkit-release-notes/index.html', 'the 13.x minor-version-compatibility floor applies; from 13.4 the Linux driver is reportedly no longer bundled with the toolkit (SECONDARY)');
