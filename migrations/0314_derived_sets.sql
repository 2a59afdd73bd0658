-- Values DERIVED from the rows 0310-0313 made complete (issue 31), kept in their tables so a
-- reader (the validator, an export) needs no second lookup. Each says it is derived.

-- cuDNN's hardware forward-compatibility mode: from 9.0.0, builds for CUDA 12 or later run GPUs
-- newer than their list (PTX JIT; some operations excluded; CUDNN_LIB_CONFIG=FULL). cuDNN 8 has
-- no such mode.
UPDATE ref_cudnn
   SET forward_compat = cudnn_version_key[1] >= 9 AND 12 <= ANY (cuda_majors),
       forward_compat_source = 'https://docs.nvidia.com/deeplearning/cudnn/frontend/latest/developer/forward-compatibility.html ; https://docs.nvidia.com/deeplearning/cudnn/release-notes.html (cuDNN 9.0.0: operation graphs are hardware forward compatible)';

-- Every capability of ref_compute_capability is in its architecture's list (6.2 Jetson TX2 and
-- 7.2 Xavier were missing from the matrix's).
UPDATE ref_gpu_arch a
   SET compute_capabilities = (SELECT array_agg(DISTINCT x ORDER BY x) FROM (
         SELECT unnest(a.compute_capabilities) AS x
         UNION SELECT c.compute_capability FROM ref_compute_capability c
                WHERE c.architecture = a.architecture) s)
 WHERE EXISTS (SELECT 1 FROM ref_compute_capability c
                WHERE c.architecture = a.architecture
                  AND NOT c.compute_capability = ANY (a.compute_capabilities));

-- The architectures each driver branch supports: an architecture from the branch of the Table-3
-- driver of its first CUDA toolkit (Ampere 11.0 -> R450, Ada and Hopper 11.8 -> R520, Blackwell
-- 12.8 -> R570; one whose first toolkit predates CUDA 11 from R450 on) up to its last branch
-- (Kepler R470; Maxwell, Pascal, Volta R580). Branches before R450 keep NULL: the pre-CUDA-11
-- Table 3 is not in ref_cuda_driver.
UPDATE ref_driver_branch b
   SET architectures = (
     SELECT array_agg(a.architecture ORDER BY a.first_cuda_key, a.architecture)
       FROM ref_gpu_arch a
      WHERE coalesce(a.last_driver_branch, 9999) >= b.branch
        AND coalesce((SELECT split_part(d.linux_driver_min, '.', 1)::int FROM ref_cuda_driver d
                       WHERE d.cuda_version_key[1:2] = a.first_cuda_key[1:2]
                         AND d.linux_driver_min IS NOT NULL
                       ORDER BY d.cuda_version_key LIMIT 1), 0) <= b.branch)
 WHERE b.branch >= 450;
