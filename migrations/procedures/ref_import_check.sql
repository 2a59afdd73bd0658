-- Use case piece: the checks of a reference import (POST /v1/reference, dry run included, and
-- `imaxe-server reference import`) that no single row's constraint can make. Called only from
-- imx_db_ref_import() in server/db/reference_import.c, in the import's transaction, before
-- imx_ref_import() changes anything.
--
-- Refuses (23514, MESSAGE 'contradictory reference rows', DETAIL a JSON array of
-- {"table", "detail"}, the first 50, then one counting the rest) an import whose rows contradict
-- each other or the architecture table:
--  * two rows of one table with the same key and different values (the last would silently win);
--  * a GPU whose compute capability is of no major its architecture lists (ref_gpu_arch as
--    imported with it, else as stored): the architecture matrix lists the data-center
--    capabilities (Volta 7.0), and a Jetson's 7.2 is still Volta, but an A100 at 9.0 is no Ampere;
--  * a GPU whose compute capability ref_compute_capability (as imported, else as stored) gives
--    to another architecture.
CREATE OR REPLACE FUNCTION imx_ref_import_check(p_tables jsonb) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  t text;
  keyexpr text;
  found jsonb := '[]';
  d jsonb;
  n int;
BEGIN
  IF jsonb_typeof(p_tables) <> 'object' THEN
    RETURN; -- imx_ref_import refuses it
  END IF;
  FOR t IN SELECT k FROM jsonb_object_keys(p_tables) k ORDER BY k LOOP
    CONTINUE WHEN NOT imx_ref_table_ok(t) OR jsonb_typeof(p_tables->t) <> 'array';
    keyexpr := (SELECT string_agg(format('r->>%L', k), ', ') FROM unnest(imx_ref_pk(t)) k);
    EXECUTE format(
      'SELECT coalesce(jsonb_agg(jsonb_build_object(''table'', %1$L, ''detail'','
      '  format(''%%s is given %%s times with different values'', k, c) ) ORDER BY k), ''[]'')'
      ' FROM (SELECT concat_ws('' / '', %2$s) AS k, count(DISTINCT r) AS c'
      '       FROM jsonb_array_elements($1) r GROUP BY 1 HAVING count(DISTINCT r) > 1) x',
      substr(t, 5), keyexpr) INTO d USING p_tables->t;
    found := found || d;
  END LOOP;

  IF p_tables ? 'ref_gpu' AND jsonb_typeof(p_tables->'ref_gpu') = 'array' THEN
    WITH arch AS (
      SELECT r->>'architecture' AS architecture, r->>'compute_capabilities' AS ccs
        FROM jsonb_array_elements(CASE WHEN jsonb_typeof(p_tables->'ref_gpu_arch') = 'array'
                                       THEN p_tables->'ref_gpu_arch' END) r
      UNION ALL
      SELECT a.architecture, a.compute_capabilities::text FROM ref_gpu_arch a
       WHERE NOT p_tables ? 'ref_gpu_arch'),
    cc AS (
      SELECT r->>'compute_capability' AS cc, r->>'architecture' AS architecture
        FROM jsonb_array_elements(CASE WHEN jsonb_typeof(p_tables->'ref_compute_capability')
                                            = 'array'
                                       THEN p_tables->'ref_compute_capability' END) r
      UNION ALL
      SELECT c.compute_capability::text, c.architecture FROM ref_compute_capability c
       WHERE NOT p_tables ? 'ref_compute_capability'),
    gpu AS (
      SELECT r->>'gpu_model' AS model, r->>'architecture' AS architecture,
             r->>'compute_capability' AS cc
        FROM jsonb_array_elements(p_tables->'ref_gpu') r)
    SELECT coalesce(jsonb_agg(jsonb_build_object('table', 'gpu', 'detail', x.detail)
                              ORDER BY x.detail), '[]') INTO d
      FROM (
        SELECT format('%s: compute capability %s is not of %s (%s)', g.model, g.cc,
                      g.architecture, trim(both '{}' from a.ccs)) AS detail
          FROM gpu g JOIN arch a ON a.architecture = g.architecture
         WHERE g.cc ~ '^[0-9]+(\.[0-9]+)?$' AND a.ccs ~ '^\{[0-9., ]*\}$'
           AND NOT EXISTS (SELECT 1 FROM unnest(a.ccs::numeric[]) c
                            WHERE trunc(c) = trunc(g.cc::numeric))
        UNION ALL
        SELECT format('%s: compute capability %s belongs to %s, not %s', g.model, g.cc,
                      c.architecture, g.architecture)
          FROM gpu g JOIN cc c ON c.cc ~ '^[0-9]+(\.[0-9]+)?$' AND g.cc ~ '^[0-9]+(\.[0-9]+)?$'
                              AND c.cc::numeric = g.cc::numeric
         WHERE c.architecture IS DISTINCT FROM g.architecture) x;
    found := found || d;
  END IF;

  n := jsonb_array_length(found);
  IF n > 0 THEN
    IF n > 50 THEN
      found := (SELECT jsonb_agg(e ORDER BY i) FROM jsonb_array_elements(found)
                  WITH ORDINALITY AS x(e, i) WHERE i <= 50)
               || jsonb_build_array(jsonb_build_object('table', '', 'detail',
                    format('and %s more contradictions', n - 50)));
    END IF;
    RAISE EXCEPTION 'contradictory reference rows' USING ERRCODE = '23514',
      DETAIL = found::text;
  END IF;
END
$$;
