-- JAX's CUDA wheel variants (jax[cuda12], jax[cuda13]: the jax-cudaNN-plugin / -pjrt packages)
-- against the driver, the GPUs and a host cuDNN/CUDA. One row a variant, as JAX's installation
-- guide states it: the toolkit and cuDNN it is built with and compatible with, the driver branch
-- JAX requires for that CUDA major on Linux, and the oldest SM version it supports. The rows are
-- generated into 0115 from tools/reference/sources/jax-cuda.txt (tools/gen_sources.py --table
-- jax). A variant that is not a row is an info finding (server/domain/compat.c).

CREATE TABLE ref_jax (
  variant           text PRIMARY KEY CHECK (variant ~ '^cuda[0-9]{2}$'),
  cuda_major        int NOT NULL CHECK (cuda_major BETWEEN 1 AND 99),
  cuda_built        text NOT NULL CHECK (cuda_built ~ '^[0-9]{1,9}([.][0-9]{1,9}){0,5}$'),
  cuda_min          text NOT NULL CHECK (cuda_min ~ '^[0-9]{1,9}([.][0-9]{1,9}){0,5}$'),
  cudnn_built       text NOT NULL CHECK (cudnn_built ~ '^[0-9]{1,9}([.][0-9]{1,9}){0,5}$'),
  cudnn_min         text NOT NULL CHECK (cudnn_min ~ '^[0-9]{1,9}([.][0-9]{1,9}){0,5}$'),
  cudnn_below       text NOT NULL CHECK (cudnn_below ~ '^[0-9]{1,9}([.][0-9]{1,9}){0,5}$'),
  nccl_min          text CHECK (nccl_min ~ '^[0-9]{1,9}([.][0-9]{1,9}){0,5}$'),
  driver_branch_min int NOT NULL CHECK (driver_branch_min BETWEEN 100 AND 9999),
  cc_min            numeric(4,1) NOT NULL CHECK (cc_min > 0),
  status            text NOT NULL CHECK (status IN ('CONFIRMED', 'SECONDARY', 'PARTIAL', 'UNCONFIRMED')),
  source            text NOT NULL CHECK (source ~ '^https://' AND length(source) <= 2000),
  notes             text CHECK (length(notes) <= 1000),
  CHECK (split_part(cuda_built, '.', 1)::int = cuda_major AND split_part(cuda_min, '.', 1)::int = cuda_major)
);
COMMENT ON TABLE ref_jax IS
  'JAX CUDA wheel variant (cuda12, cuda13) -> CUDA and cuDNN it is built with and compatible with, the driver branch JAX requires on Linux and the oldest SM version it supports, from JAX''s installation guide. The validator: framework_driver_too_old, framework_gpu_arch_unsupported, framework_cudnn_incompatible.';

CREATE TRIGGER ref_jax_generation AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
  ON ref_jax FOR EACH STATEMENT EXECUTE FUNCTION imx_ref_generation_bump();

CREATE OR REPLACE FUNCTION imx_ref_table_ok(tbl text) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
  SELECT tbl IN ('ref_cuda_mvc', 'ref_cuda_driver', 'ref_gpu_arch', 'ref_gpu', 'ref_driver_branch',
                 'ref_cudnn', 'ref_pytorch', 'ref_pytorch_build', 'ref_tensorflow',
                 'ref_instance_type', 'ref_compute_capability', 'ref_nccl', 'ref_dcgm', 'ref_jax')
$$;

CREATE OR REPLACE FUNCTION imx_ref_import_order() RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
  SELECT ARRAY['ref_cuda_mvc', 'ref_cuda_driver', 'ref_gpu_arch', 'ref_compute_capability',
               'ref_gpu', 'ref_driver_branch', 'ref_cudnn', 'ref_pytorch', 'ref_pytorch_build',
               'ref_tensorflow', 'ref_instance_type', 'ref_nccl', 'ref_dcgm', 'ref_jax']
$$;
