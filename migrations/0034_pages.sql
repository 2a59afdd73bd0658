-- Pages for the lists that had none (issue 14): an advisory's affected images and the reference
-- tables, one keyset page at a time. Each returns the page's document and the key of its last
-- item when a further page exists (NULL on the last page); server/api/cursor.c seals that key
-- into next_cursor.

-- GET /v1/advisories/{id}/affected: images in (family, published_at, id) order after the key
-- (p_family, p_published, p_id), grouped by family as before; a family can continue on the next
-- page. No row when there is no such advisory.
CREATE FUNCTION imx_advisory_affected_page(p_id text, p_family text, p_published timestamptz,
                                           p_image bigint, p_limit int)
RETURNS TABLE (doc json, next_key json)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  WITH p AS (
    SELECT i.family, i.published_at, i.id, json_build_object(
             'id', i.id, 'version', i.version, 'status', i.status, 'patch_status', i.patch_status,
             'published_at', i.published_at,
             'fixed_by', CASE WHEN fx.id IS NOT NULL THEN json_build_object(
               'id', fx.id, 'family', fx.family, 'version', fx.version) END) AS j
    FROM image_advisories ia JOIN images i ON i.id = ia.image_id
    LEFT JOIN images fx ON fx.id = ia.fixed_by
    WHERE ia.advisory_id = p_id
      AND (p_family IS NULL OR (i.family, i.published_at, i.id) > (p_family, p_published, p_image))
    ORDER BY i.family, i.published_at, i.id
    LIMIT p_limit + 1),
  n AS (SELECT p.*, row_number() OVER (ORDER BY p.family, p.published_at, p.id) AS rn FROM p)
  SELECT json_build_object('advisory', a.id, 'families', coalesce((
           SELECT json_agg(json_build_object('family', f.family, 'images', f.images)
                           ORDER BY f.family)
           FROM (SELECT n.family, json_agg(n.j ORDER BY n.rn) AS images
                 FROM n WHERE n.rn <= p_limit GROUP BY n.family) f), '[]')),
         (SELECT json_build_array(n.family, n.published_at, n.id) FROM n
          WHERE n.rn = p_limit AND EXISTS (SELECT 1 FROM n m WHERE m.rn > p_limit))
  FROM advisories a WHERE a.id = p_id
$$;

-- GET /v1/reference/{table}: rows in primary-key order after the key p_after (an object of the
-- primary key's columns, NULL: from the first).
CREATE FUNCTION imx_ref_page(tbl text, p_after jsonb, p_limit int)
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
