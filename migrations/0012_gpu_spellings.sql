-- imaxe:load functions/version.sql

CREATE INDEX image_gpus_ascii_lower ON image_gpus (imx_ascii_lower(gpu));
