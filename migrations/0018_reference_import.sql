-- Reference data updated without a release: `imaxe-server reference import DIR` loads one CSV per
-- ref_ table (server/cli/reference.c), shows what changes, and applies it in one transaction:
-- imx_ref_import() below, then the stored compatibility report of every image whose findings
-- change is recomputed with an image.compatibility_changed event each.

-- Which reference data is loaded, and when: the shipped rows, then one row per import.
CREATE TABLE ref_data_versions (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  data_version text NOT NULL CHECK (length(data_version) BETWEEN 1 AND 200),
  loaded_at    timestamptz NOT NULL DEFAULT now(),
  changes      jsonb NOT NULL DEFAULT '{}'
);
COMMENT ON TABLE ref_data_versions IS
  'Reference data loads: the migrations'' rows, then each `imaxe-server reference import` with what it added, changed and removed per table. The newest row is the data version in use.';
INSERT INTO ref_data_versions (data_version) VALUES ('shipped (migrations 0003, 0016)');

-- The columns an import writes: all but the generated ones, in table order.
CREATE FUNCTION imx_ref_columns(tbl text) RETURNS text[]
LANGUAGE sql STABLE AS $$
  SELECT array_agg(a.attname::text ORDER BY a.attnum) FROM pg_attribute a
  WHERE a.attrelid = tbl::regclass AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
$$;

-- The reference tables parents first (foreign keys point backwards in this list).
CREATE FUNCTION imx_ref_import_order() RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
  SELECT ARRAY['ref_cuda_mvc', 'ref_cuda_driver', 'ref_gpu_arch', 'ref_compute_capability',
               'ref_gpu', 'ref_driver_branch', 'ref_cudnn', 'ref_pytorch', 'ref_pytorch_build',
               'ref_tensorflow', 'ref_instance_type']
$$;

-- A table's rows as text, for `imaxe-server reference export`: {"columns":[...], "rows":[[...]]}
-- in primary-key order, NULL as null.
CREATE FUNCTION imx_ref_export(tbl text) RETURNS json
LANGUAGE plpgsql STABLE AS $$
DECLARE
  cols text[] := imx_ref_columns(tbl);
  r json;
BEGIN
  IF NOT imx_ref_table_ok(tbl) THEN
    RAISE EXCEPTION 'no such reference table' USING ERRCODE = '42P01';
  END IF;
  EXECUTE format('SELECT json_build_object(''columns'', to_json($1), ''rows'','
                 ' coalesce(json_agg(json_build_array(%s) ORDER BY %s), ''[]'')) FROM %I t',
                 (SELECT string_agg(format('t.%I::text', c), ', ') FROM unnest(cols) c),
                 (SELECT string_agg(format('t.%I', k), ', ') FROM unnest(imx_ref_pk(tbl)) k), tbl)
    INTO r USING cols;
  RETURN r;
END
$$;

-- Replaces the rows of every table named in p_tables ({"ref_gpu": [{column: text}...], ...}) with
-- the given ones: each table's added, changed and removed keys (JSON arrays of the primary key)
-- are computed first, then rows are upserted parents first and removed children first, so a
-- removal that a foreign key still needs fails (23503) and the caller's transaction changes
-- nothing. Records the load in ref_data_versions and audit_log. Returns {table: {added, changed,
-- removed}}. Unknown tables: 42P01; unknown columns: 42703 with "table.column" in DETAIL.
-- p_user and p_request_id name the actor in audit_log (NULL and 'cli' from the command line).
CREATE FUNCTION imx_ref_import(p_tables jsonb, p_version text, p_user bigint,
                               p_request_id text DEFAULT 'cli') RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  t text;
  bad text;
  cols text[];
  pk text[];
  collist text;
  keyexpr text;
  d jsonb;
  result jsonb := '{}';
BEGIN
  IF jsonb_typeof(p_tables) <> 'object' THEN
    RAISE EXCEPTION 'tables must be an object' USING ERRCODE = '22023';
  END IF;
  FOR t IN SELECT k FROM jsonb_object_keys(p_tables) k LOOP
    IF NOT imx_ref_table_ok(t) THEN
      RAISE EXCEPTION 'no such reference table' USING ERRCODE = '42P01', DETAIL = t;
    END IF;
    IF jsonb_typeof(p_tables->t) <> 'array' THEN
      RAISE EXCEPTION 'rows must be an array' USING ERRCODE = '22023', DETAIL = t;
    END IF;
    SELECT string_agg(DISTINCT t || '.' || k, ', ') INTO bad
      FROM jsonb_array_elements(p_tables->t) r, jsonb_object_keys(r) k
     WHERE k <> ALL (imx_ref_columns(t));
    IF bad IS NOT NULL THEN
      RAISE EXCEPTION 'unknown column' USING ERRCODE = '42703', DETAIL = bad;
    END IF;
    -- A file replaces its table, so it must name every column (a missing one would be erased).
    SELECT string_agg(t || '.' || c, ', ') INTO bad FROM unnest(imx_ref_columns(t)) c
     WHERE jsonb_array_length(p_tables->t) > 0 AND NOT (p_tables->t->0) ? c;
    IF bad IS NOT NULL THEN
      RAISE EXCEPTION 'missing column' USING ERRCODE = '23502', DETAIL = bad;
    END IF;
  END LOOP;

  -- What changes, before anything does.
  FOREACH t IN ARRAY imx_ref_import_order() LOOP
    CONTINUE WHEN NOT p_tables ? t;
    cols := imx_ref_columns(t);
    pk := imx_ref_pk(t);
    collist := (SELECT string_agg(format('x.%I', c), ', ') FROM unnest(cols) c);
    keyexpr := format('jsonb_build_array(%s)',
                      (SELECT string_agg(format('r.%I', k), ', ') FROM unnest(pk) k));
    EXECUTE format(
      'WITH n AS (SELECT %1$s FROM jsonb_populate_recordset(NULL::%2$I, $1) x),'
      ' o AS (SELECT %1$s FROM %2$I x),'
      ' nk AS (SELECT %3$s AS k, to_jsonb(r) AS j FROM n r),'
      ' ok AS (SELECT %3$s AS k, to_jsonb(r) AS j FROM o r)'
      ' SELECT jsonb_build_object('
      '  ''added'', coalesce((SELECT jsonb_agg(nk.k ORDER BY nk.k) FROM nk'
      '    WHERE NOT EXISTS (SELECT 1 FROM ok WHERE ok.k = nk.k)), ''[]''),'
      '  ''changed'', coalesce((SELECT jsonb_agg(nk.k ORDER BY nk.k) FROM nk JOIN ok USING (k)'
      '    WHERE nk.j <> ok.j), ''[]''),'
      '  ''removed'', coalesce((SELECT jsonb_agg(ok.k ORDER BY ok.k) FROM ok'
      '    WHERE NOT EXISTS (SELECT 1 FROM nk WHERE nk.k = ok.k)), ''[]''))',
      collist, t, keyexpr) INTO d USING p_tables->t;
    result := result || jsonb_build_object(t, d);
  END LOOP;

  -- Upserts, parents first; a row that does not change is not written.
  FOREACH t IN ARRAY imx_ref_import_order() LOOP
    CONTINUE WHEN NOT p_tables ? t;
    cols := imx_ref_columns(t);
    pk := imx_ref_pk(t);
    EXECUTE format(
      'INSERT INTO %1$I AS t (%2$s) SELECT %2$s FROM jsonb_populate_recordset(NULL::%1$I, $1)'
      ' ON CONFLICT (%3$s) DO UPDATE SET %4$s WHERE (%5$s) IS DISTINCT FROM (%6$s)',
      t,
      (SELECT string_agg(format('%I', c), ', ') FROM unnest(cols) c),
      (SELECT string_agg(format('%I', k), ', ') FROM unnest(pk) k),
      (SELECT string_agg(format('%I = EXCLUDED.%I', c, c), ', ') FROM unnest(cols) c),
      (SELECT string_agg(format('t.%I', c), ', ') FROM unnest(cols) c),
      (SELECT string_agg(format('EXCLUDED.%I', c), ', ') FROM unnest(cols) c))
      USING p_tables->t;
  END LOOP;
  -- Removals, children first.
  FOR t IN SELECT x FROM unnest(imx_ref_import_order()) WITH ORDINALITY AS u(x, o) ORDER BY o DESC
  LOOP
    CONTINUE WHEN NOT p_tables ? t;
    pk := imx_ref_pk(t);
    EXECUTE format(
      'DELETE FROM %1$I t WHERE NOT EXISTS (SELECT 1 FROM jsonb_populate_recordset(NULL::%1$I, $1) n'
      ' WHERE (%2$s) = (%3$s))',
      t,
      (SELECT string_agg(format('t.%I', k), ', ') FROM unnest(pk) k),
      (SELECT string_agg(format('n.%I', k), ', ') FROM unnest(pk) k))
      USING p_tables->t;
  END LOOP;

  INSERT INTO ref_data_versions (data_version, changes) VALUES (p_version, result);
  INSERT INTO audit_log (actor_user_id, action, resource, resource_id, request_id, detail)
  VALUES (p_user, 'import', 'reference', left(p_version, 300), coalesce(p_request_id, 'cli'),
          (SELECT jsonb_object_agg(key, jsonb_build_object(
             'added', jsonb_array_length(value->'added'),
             'changed', jsonb_array_length(value->'changed'),
             'removed', jsonb_array_length(value->'removed')))
             FROM jsonb_each(result)));
  RETURN result;
END
$$;

-- image.compatibility_changed: an image's stored report changed because the reference data did.
CREATE OR REPLACE FUNCTION imx_webhook_event_types() RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT ARRAY['patch.available', 'image.published', 'image.deprecated', 'image.revoked',
               'advisory.published', 'pin.moved', 'request.updated', 'ping',
               'image.compatibility_changed']
$$;

-- To every team (filtered by family): the image, its new report and the old one's counts.
CREATE FUNCTION imx_image_compat_event(p_image bigint, p_before jsonb, p_after jsonb,
                                       p_version text) RETURNS bigint
LANGUAGE sql AS $$
  SELECT imx_webhook_enqueue(NULL, 'image.compatibility_changed',
           jsonb_build_object('image', imx_image_event_json(i.id), 'compatibility', p_after,
                              'previous', jsonb_build_object('ok', p_before->'ok',
                                'errors', p_before->'errors', 'warnings', p_before->'warnings'),
                              'reference_data_version', p_version),
           ARRAY[i.family])
  FROM images i WHERE i.id = p_image
$$;
