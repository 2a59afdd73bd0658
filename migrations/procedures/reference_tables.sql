-- The tables `imaxe-server reference import` / export and POST /v1/reference/import may change,
-- and the order an import applies them in (a table after those its foreign keys name). One
-- current body for every migration that adds a ref_ table: 0018 made them, 0055 (ref_nccl),
-- 0057 (ref_dcgm), 0100 (ref_nvidia_product) and 0114 (ref_jax) each added one.
CREATE OR REPLACE FUNCTION imx_ref_table_ok(tbl text) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
  SELECT tbl IN ('ref_cuda_mvc', 'ref_cuda_driver', 'ref_gpu_arch', 'ref_gpu', 'ref_driver_branch',
                 'ref_cudnn', 'ref_pytorch', 'ref_pytorch_build', 'ref_tensorflow',
                 'ref_instance_type', 'ref_compute_capability', 'ref_nccl', 'ref_dcgm', 'ref_jax',
                 'ref_nvidia_product')
$$;

CREATE OR REPLACE FUNCTION imx_ref_import_order() RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
  SELECT ARRAY['ref_cuda_mvc', 'ref_cuda_driver', 'ref_gpu_arch', 'ref_compute_capability',
               'ref_gpu', 'ref_driver_branch', 'ref_cudnn', 'ref_pytorch', 'ref_pytorch_build',
               'ref_tensorflow', 'ref_instance_type', 'ref_nccl', 'ref_dcgm', 'ref_jax',
               'ref_nvidia_product']
$$;
