-- SQL functions: the reference tables (0003_reference.sql): GPU spellings, their generation
-- counter, reading, writing, import and export. Re-applied by server/db/migrate.c whenever this
-- file changes.
-- Callers: server/db/reference.c (imx_ref_page, imx_ref_write: /v1/reference/*);
-- server/db/reference_import.c (imx_ref_import, imx_ref_export, imx_ref_tables: the
-- `imaxe-server reference` job of server/jobs/reference_import.c); server/db/images.c and
-- server/db/costs.c (imx_ref_gpu_canonical); imx_ref_generation_bump is the trigger function of
-- every reference table's generation trigger (0004_catalog.sql and later).

-- ---------------------------------------------------------------------------
-- Resolve any GPU spelling ('NVIDIA H100', 'Tesla V100', 'h100 80gb', 'rtx-pro-server-6000')
-- to ref_gpu.gpu_model: case, spaces and punctuation are ignored, as is a leading
-- 'NVIDIA' and/or 'Tesla'.  NULL when nothing matches.
CREATE OR REPLACE FUNCTION imx_ref_gpu_norm(name text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT regexp_replace(regexp_replace(regexp_replace(lower(name), '[^a-z0-9]', '', 'g'),
                                       '^nvidia(?=.)', ''), '^tesla(?=.)', '')
$$;

CREATE OR REPLACE FUNCTION imx_ref_gpu_canonical(name text) RETURNS text
LANGUAGE sql STABLE STRICT PARALLEL SAFE AS $$
  SELECT g.gpu_model FROM ref_gpu g
   WHERE imx_ref_gpu_norm(name) = imx_ref_gpu_norm(g.gpu_model)
      OR imx_ref_gpu_norm(name) = imx_ref_gpu_norm(g.full_name)
      OR EXISTS (SELECT 1 FROM unnest(g.aliases) a WHERE imx_ref_gpu_norm(a) = imx_ref_gpu_norm(name))
   ORDER BY g.gpu_model
   LIMIT 1
$$;
COMMENT ON FUNCTION imx_ref_gpu_canonical(text) IS
  'Canonical ref_gpu.gpu_model for any spelling of a GPU name (name, full name or alias; case/punctuation-insensitive); NULL when unknown.';

CREATE OR REPLACE FUNCTION imx_ref_generation_bump() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE ref_generation SET generation = generation + 1, changed_at = now();
  RETURN NULL;
END
$$;

-- The tables `imaxe-server reference import` / export and POST /v1/reference may change. One
-- list for every migration that adds a ref_ table (0018 made them; 0055 ref_nccl, 0057 ref_dcgm,
-- 0100 ref_nvidia_product, 0114 ref_jax, 0370 ref_version_alias and 0410 ref_commit_release each
-- added one): add a new table here.
CREATE OR REPLACE FUNCTION imx_ref_table_ok(tbl text) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
  SELECT tbl IN ('ref_cuda_mvc', 'ref_cuda_driver', 'ref_gpu_arch', 'ref_gpu', 'ref_driver_branch',
                 'ref_cudnn', 'ref_pytorch', 'ref_pytorch_build', 'ref_tensorflow',
                 'ref_instance_type', 'ref_compute_capability', 'ref_nccl', 'ref_dcgm', 'ref_jax',
                 'ref_nvidia_product', 'ref_version_alias', 'ref_commit_release')
$$;

-- The primary-key columns of a ref_ table, in key order.
CREATE OR REPLACE FUNCTION imx_ref_pk(tbl text) RETURNS text[]
LANGUAGE sql STABLE AS $$
  SELECT array_agg(a.attname::text ORDER BY array_position(i.indkey::int2[], a.attnum))
  FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey::int2[])
  WHERE i.indrelid = tbl::regclass AND i.indisprimary
$$;

-- Inserts row (is_update false) or updates the row with row's primary key, setting only the
-- columns row names (is_update true). Returns the stored row, or NULL when no row had that key.
-- Unknown columns: 42703 with the names in DETAIL; a missing key column on update: 23502.
CREATE OR REPLACE FUNCTION imx_ref_write(tbl text, row_in jsonb, is_update boolean) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  bad text;
  cols text;
  sets text;
  pkcond text;
  r json;
BEGIN
  IF NOT imx_ref_table_ok(tbl) THEN
    RAISE EXCEPTION 'no such reference table' USING ERRCODE = '42P01';
  END IF;
  SELECT string_agg(k, ',' ORDER BY k) INTO bad FROM jsonb_object_keys(row_in) k
  WHERE NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = tbl::regclass
                    AND a.attname = k AND a.attnum > 0 AND NOT a.attisdropped);
  IF bad IS NOT NULL THEN
    RAISE EXCEPTION 'unknown column' USING ERRCODE = '42703', DETAIL = bad;
  END IF;
  IF NOT is_update THEN
    SELECT string_agg(format('%I', k), ', ') INTO cols FROM jsonb_object_keys(row_in) k;
    EXECUTE format('INSERT INTO %I AS t (%s) SELECT %s FROM jsonb_populate_record(NULL::%I, $1)'
                   ' RETURNING row_to_json(t)', tbl, cols, cols, tbl, tbl) INTO r USING row_in;
    RETURN r;
  END IF;
  SELECT string_agg(k, ',') INTO bad FROM unnest(imx_ref_pk(tbl)) k WHERE NOT row_in ? k;
  IF bad IS NOT NULL THEN
    RAISE EXCEPTION 'key column missing' USING ERRCODE = '23502', DETAIL = bad;
  END IF;
  SELECT string_agg(format('t.%I = x.%I', k, k), ' AND ') INTO pkcond FROM unnest(imx_ref_pk(tbl)) k;
  SELECT string_agg(format('%I = x.%I', k, k), ', ') INTO sets FROM jsonb_object_keys(row_in) k;
  EXECUTE format('UPDATE %I AS t SET %s FROM jsonb_populate_record(NULL::%I, $1) x WHERE %s'
                 ' RETURNING row_to_json(t)', tbl, sets, tbl, pkcond) INTO r USING row_in;
  RETURN r;
END
$$;

-- The columns an import writes: all but the generated ones, in table order.
CREATE OR REPLACE FUNCTION imx_ref_columns(tbl text) RETURNS text[]
LANGUAGE sql STABLE AS $$
  SELECT array_agg(a.attname::text ORDER BY a.attnum) FROM pg_attribute a
  WHERE a.attrelid = tbl::regclass AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
$$;

-- The order an import applies them in (a table after those its foreign keys name).
CREATE OR REPLACE FUNCTION imx_ref_import_order() RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
  SELECT ARRAY['ref_cuda_mvc', 'ref_cuda_driver', 'ref_gpu_arch', 'ref_compute_capability',
               'ref_gpu', 'ref_driver_branch', 'ref_cudnn', 'ref_pytorch', 'ref_pytorch_build',
               'ref_tensorflow', 'ref_instance_type', 'ref_nccl', 'ref_dcgm', 'ref_jax',
               'ref_nvidia_product', 'ref_version_alias', 'ref_commit_release']
$$;

-- A table's rows as text, for `imaxe-server reference export`: {"columns":[...], "rows":[[...]]}
-- in primary-key order, NULL as null.
CREATE OR REPLACE FUNCTION imx_ref_export(tbl text) RETURNS json
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
CREATE OR REPLACE FUNCTION imx_ref_import(p_tables jsonb, p_version text, p_user bigint,
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

-- GET /v1/reference/{table}: rows in primary-key order after the key p_after (an object of the
-- primary key's columns, NULL: from the first).
CREATE OR REPLACE FUNCTION imx_ref_page(tbl text, p_after jsonb, p_limit int)
RETURNS TABLE (doc json, next_key json)
LANGUAGE plpgsql STABLE AS $$
DECLARE
  cols text;
  acols text;
  keyobj text;
  rows json;
  nxt json;
BEGIN
  IF NOT imx_ref_table_ok(tbl) THEN
    RAISE EXCEPTION 'no such reference table' USING ERRCODE = '42P01';
  END IF;
  SELECT string_agg(format('t.%I', k), ', '), string_agg(format('a.%I', k), ', '),
         string_agg(format('%L, t.%I', k, k), ', ')
    INTO cols, acols, keyobj FROM unnest(imx_ref_pk(tbl)) k;
  EXECUTE format(
    'SELECT coalesce(json_agg(x.j ORDER BY x.rn) FILTER (WHERE x.rn <= $2), ''[]''),'
    ' CASE WHEN count(*) > $2 THEN (array_agg(x.k ORDER BY x.rn) FILTER (WHERE x.rn = $2))[1] END'
    ' FROM (SELECT row_to_json(t) AS j, json_build_array(json_build_object(%3$s)) AS k,'
    '  row_number() OVER (ORDER BY %1$s) AS rn'
    '  FROM (SELECT * FROM %2$I t WHERE $1::jsonb IS NULL OR (%1$s) >'
    '   (SELECT %4$s FROM jsonb_populate_record(NULL::%2$I, $1::jsonb) a)'
    '   ORDER BY %1$s LIMIT $2 + 1) t) x',
    cols, tbl, keyobj, acols)
    INTO rows, nxt USING p_after, p_limit;
  RETURN QUERY SELECT json_build_object('items', rows), nxt;
END
$$;

-- GET /v1/reference lists the tables: [{name, rows}] in import order (a dozen small tables, each
-- counted once).
CREATE OR REPLACE FUNCTION imx_ref_tables() RETURNS json
LANGUAGE plpgsql STABLE AS $$
DECLARE
  t text;
  n bigint;
  out json[] := '{}';
BEGIN
  FOREACH t IN ARRAY imx_ref_import_order() LOOP
    EXECUTE format('SELECT count(*) FROM %I', t) INTO n;
    out := out || json_build_object('name', substr(t, 5), 'rows', n);
  END LOOP;
  RETURN array_to_json(out);
END
$$;
