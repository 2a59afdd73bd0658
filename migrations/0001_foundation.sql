-- Foundation: helpers every later migration relies on.

-- imx_version_key(text) -> int[6]: the numeric sort key of a version string.
-- Mirrors imx_ver_parse() in server/domain/version.c (a test checks they agree):
-- an optional leading 'v', then up to six runs of 1-9 digits joined by '.' or '-';
-- whatever follows (e.g. '+cu124', '-aws') is a suffix that does not affect ordering.
-- Missing parts are zero, so '12.4' and '12.4.0' share a key. NULL when invalid.
CREATE FUNCTION imx_version_key(v text) RETURNS int[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  WITH m AS (
    SELECT substring(v FROM '^[vV]?([0-9]{1,9}(?:[.-][0-9]{1,9})*)') AS num,
           substring(v FROM '^[vV]?(?:[0-9]{1,9}(?:[.-][0-9]{1,9})*)(.*)$') AS rest
  ), p AS (
    SELECT regexp_split_to_array(num, '[.-]')::int[] AS parts, rest FROM m WHERE num IS NOT NULL
  )
  SELECT CASE
           WHEN length(v) > 64 OR cardinality(parts) > 6 OR rest ~ '^[0-9]'
                OR rest !~ '^[A-Za-z0-9.+_~-]*$' THEN NULL
           ELSE parts || array_fill(0, ARRAY[6 - cardinality(parts)])
         END
  FROM p
$$;

COMMENT ON FUNCTION imx_version_key(text) IS
  'Numeric sort key (int[6]) of a version string; NULL when the string is not a version.';
