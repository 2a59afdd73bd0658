-- Pre-releases sort before their release (issue 30): imx_version_key() now gives 1.3.0rc14 the
-- key {1,3,-1,14,0,0} where it gave {1,3,0,0,0,0}. Stored keys are not recomputed by a changed
-- function, so this migration recomputes the ones the new rule changes: every generated column
-- made by imx_version_key() (image_components.version_key and the reference tables' keys; an
-- UPDATE recomputes a generated column, and image_components' triggers then refresh the image's
-- copied keys and patch status), and advisory_ranges' lo/hi, which server/domain/version.c
-- computed from the range text (">=0.0, <=1.3.0rc16"). Release versions keep their keys, so only
-- rows with a pre-release version are written.

-- imaxe:load functions/version.sql

DO $$
DECLARE
  col record;
BEGIN
  FOR col IN
    SELECT c.table_schema, c.table_name, c.column_name,
           (regexp_match(c.generation_expression, '^imx_version_key\(([a-z_0-9]+)\)$'))[1] AS src
      FROM information_schema.columns c
     WHERE c.table_schema = current_schema()
       AND c.is_generated = 'ALWAYS'
       AND c.generation_expression ~ '^imx_version_key\([a-z_0-9]+\)$'
     ORDER BY c.table_name, c.column_name
  LOOP
    EXECUTE format('UPDATE %I.%I SET %I = %I WHERE %I IS DISTINCT FROM imx_version_key(%I)',
                   col.table_schema, col.table_name, col.src, col.src, col.column_name, col.src);
  END LOOP;
END $$;

-- A CSAF import used to cut a range whose fix is a release candidate at the release: "0.0 to
-- v1.3.0 rc14" fixed in 1.3.0rc15 was stored as "<1.3.0" (server/domain/csaf.c), which now holds
-- the fix itself. Such a range ends before its fix again: "<1.3.0rc15".
UPDATE advisory_ranges
   SET range = left(range, length(range) - length(substring(fixed from '^(.*)rc[0-9]+$'))) || fixed,
       hi = imx_version_key(fixed), hi_incl = false
 WHERE fixed ~ '^[0-9][0-9.]*rc[0-9]+$'
   AND NOT hi_incl
   AND right(range, length(substring(fixed from '^(.*)rc[0-9]+$')) + 1)
       = '<' || substring(fixed from '^(.*)rc[0-9]+$');

-- A range is one to eight terms joined by ", "; the terms that bound it with an operator carry a
-- version whose key is recomputed ("<1.3.0rc16" -> hi). Ranges of other forms ("1.3.*") cannot
-- hold a pre-release (a wildcard follows plain numbers only).
DO $$
DECLARE
  r record;
  t text;
  m text[];
  k int[];
  new_lo int[];
  new_hi int[];
  n_lo int;
  n_hi int;
BEGIN
  FOR r IN
    SELECT advisory_id, ord, range, lo AS old_lo, hi AS old_hi FROM advisory_ranges
     WHERE range ~* '[0-9][-._~]?(dev|alpha|beta|pre|rc|a[-._]?[0-9]|b[-._]?[0-9])'
  LOOP
    new_lo := r.old_lo;
    new_hi := r.old_hi;
    n_lo := 0;
    n_hi := 0;
    FOREACH t IN ARRAY string_to_array(r.range, ',') LOOP
      m := regexp_match(btrim(t), '^(>=|<=|>|<|=)\s*(\S+)$');
      CONTINUE WHEN m IS NULL;
      k := imx_version_key(m[2]);
      CONTINUE WHEN k IS NULL;
      IF m[1] IN ('>=', '>', '=') THEN
        new_lo := k;
        n_lo := n_lo + 1;
      END IF;
      IF m[1] IN ('<=', '<', '=') THEN
        new_hi := k;
        n_hi := n_hi + 1;
      END IF;
    END LOOP;
    -- Several terms on one end (">=1, >=1.3rc1") are left as they were: which is tighter was
    -- decided by the old keys.
    IF n_lo <= 1 AND n_hi <= 1
       AND (new_lo IS DISTINCT FROM r.old_lo OR new_hi IS DISTINCT FROM r.old_hi) THEN
      UPDATE advisory_ranges SET lo = new_lo, hi = new_hi
       WHERE advisory_id = r.advisory_id AND ord = r.ord;
    END IF;
  END LOOP;
END $$;
