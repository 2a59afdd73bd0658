-- Demo cost measurements, so that a first `make run` shows cost per inference and boot time (the
-- compare screen, the image page's charts, GET /v1/costs, `imaxe costs`) before anyone has run
-- `imaxe measure`. Marked as the demo images are: every row's notes start with "demo:" and say
-- the figures are illustrative, not measured. The throughput and latency figures are invented,
-- of a plausible size for each GPU; the boot times are the demo images' own; the prices are not
-- invented: each is the instance type's AWS on-demand us-east-1 list price that the server holds
-- (instance_type_prices, with its source), taken by the same SQL as POST /v1/measurements
-- (imx_measurement_record, migrations/functions/costs.sql). Run by tools/demo.sh after the demo
-- catalog; does nothing when the demo catalog is absent or these rows are already there.
DO $measurements$
DECLARE
  m record;
  img bigint;
  team bigint;
  res json;
BEGIN
  SELECT id INTO team FROM teams WHERE slug = 'demo-platform';
  IF team IS NULL OR EXISTS (SELECT 1 FROM measurements WHERE team_id = team AND notes LIKE 'demo:%') THEN
    RETURN;
  END IF;
  -- Image (family, version), instance type, model, precision, batch, throughput/s, p50 ms,
  -- p99 ms, days ago.
  FOR m IN SELECT * FROM (VALUES
    ('dlami-base-ubuntu24.04', '2025.09.15', 'g6.xlarge', 'resnet50', 'fp16', 32, 1720.0, 15.0, 34.0, 30),
    ('dlami-base-ubuntu24.04', '2025.11.03', 'g6.xlarge', 'resnet50', 'fp16', 32, 1790.0, 14.5, 32.0, 20),
    ('dlami-base-ubuntu24.04', '2026.02.10', 'g6.xlarge', 'resnet50', 'fp16', 32, 1850.0, 14.0, 31.0, 10),
    ('dlami-base-ubuntu24.04', '2026.02.10', 'g5.xlarge', 'resnet50', 'fp16', 32, 2050.0, 12.5, 28.0, 10),
    ('dlami-base-ubuntu24.04', '2026.02.10', 'g4dn.xlarge', 'resnet50', 'fp16', 32, 880.0, 30.0, 47.0, 10),
    ('dlami-base-ubuntu24.04', '2026.02.10', 'g6e.xlarge', 'resnet50', 'fp16', 64, 3900.0, 13.0, 29.0, 9),
    ('dlami-base-ubuntu24.04', '2025.11.03', 'g6.xlarge', 'bert-base-uncased', 'fp16', 16, 1150.0, 11.0, 24.0, 20),
    ('dlami-base-ubuntu24.04', '2026.02.10', 'g6.xlarge', 'bert-base-uncased', 'fp16', 16, 1210.0, 10.5, 22.0, 10)
  ) AS v(family, version, instance_type, model, prec, batch, throughput, p50, p99, days)
  LOOP
    SELECT id INTO img FROM images WHERE family = m.family AND version = m.version;
    res := imx_measurement_record(team, NULL, jsonb_build_object(
      'image', img, 'instance_type', m.instance_type, 'provider', 'aws', 'region', 'us-east-1',
      'model', m.model, 'precision', m.prec, 'batch_size', m.batch,
      'throughput_per_s', m.throughput, 'latency_p50_ms', m.p50, 'latency_p99_ms', m.p99,
      'boot_seconds', (SELECT boot_seconds FROM images WHERE id = img), 'pricing', 'on_demand',
      'measured_at', now() - m.days * interval '1 day',
      'notes', 'demo: illustrative figures for the demo catalog, not measured on real hardware '
               '(tools/demo/measurements.sql); the price is the AWS on-demand list price'));
    IF res->'errors' IS NOT NULL THEN
      RAISE EXCEPTION 'demo measurement of % % on % refused: %', m.family, m.version,
                      m.instance_type, res->'errors';
    END IF;
  END LOOP;
END
$measurements$;
