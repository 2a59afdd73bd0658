-- SQL function: an image's lineage (GET /v1/images/{id}/lineage). Re-applied by
-- server/db/migrate.c whenever this file changes.
-- Caller: server/db/images.c (the lineage read, with the auth epoch); the in-memory index
-- answers the same page (server/domain/image_index.h) and tests/integration/test_point_reads.c
-- checks the two agree.

-- The image, its parent chain (nearest first, at most 64) and a page of its children; NULL when
-- there is no such image.
CREATE OR REPLACE FUNCTION imx_image_lineage(image_id bigint, p_after bigint, p_limit int) RETURNS text
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_utc boolean := current_setting('TimeZone') IN ('UTC', 'Etc/UTC');
  v text;
BEGIN
  WITH RECURSIVE up (id, parent_id, depth) AS (
    SELECT i.id, i.parent_id, 0 FROM images i WHERE i.id = image_id
    UNION ALL
    SELECT p.id, p.parent_id, up.depth + 1 FROM up JOIN images p ON p.id = up.parent_id
    WHERE up.depth < 64),
  -- One child more than the page, to tell whether another page follows.
  kids AS (
    SELECT c.id, row_number() OVER (ORDER BY c.id) AS n FROM images c
     WHERE c.parent_id = image_id AND (p_after IS NULL OR c.id > p_after)
     ORDER BY c.id LIMIT p_limit + 1),
  -- kind 0: the image; 1: a parent (ord: its depth); 2: a child (ord: its id).
  e (kind, ord, id) AS (
    SELECT CASE WHEN up.depth = 0 THEN 0 ELSE 1 END, up.depth, up.id FROM up
    UNION ALL
    SELECT 2, k.id, k.id FROM kids k WHERE k.n <= p_limit),
  t (kind, ord, doc) AS (
    SELECT e.kind, e.ord,
           left(coalesce(CASE WHEN i.summary IS NOT NULL AND i.revoke_at IS NULL AND v_utc
                              THEN i.summary END, imx_image_summary(i.id))::text, -1)
           || ', "parent_id" : ' || coalesce(i.parent_id::text, 'null')
           || ', "outdated_parent" : ' || (n.newer IS NOT NULL)::text
           || ', "newer_parent" : ' || coalesce(n.newer::text, 'null') || '}'
      FROM e JOIN images i ON i.id = e.id
      LEFT JOIN images p ON p.id = i.parent_id
      -- The newest usable image of the parent's family newer than the parent (0046's reading:
      -- the family index backwards from the newest, stopping at the first that qualifies).
      LEFT JOIN LATERAL (
        SELECT json_build_object('id', x.id, 'family', x.family, 'version', x.version) AS newer
          FROM images x
         WHERE x.family = p.family AND (x.published_at, x.id) > (p.published_at, p.id)
           AND x.status = 'active' AND x.patch_status <> 'revoked'
           AND (x.revoke_at IS NULL OR x.revoke_at > now())
         ORDER BY x.published_at DESC, x.id DESC LIMIT 1) n ON true)
  SELECT '{"image" : ' || (SELECT t.doc FROM t WHERE t.kind = 0)
         || ', "parents" : ['
         || coalesce((SELECT string_agg(t.doc, ', ' ORDER BY t.ord) FROM t WHERE t.kind = 1), '')
         || '], "children" : ['
         || coalesce((SELECT string_agg(t.doc, ', ' ORDER BY t.ord) FROM t WHERE t.kind = 2), '')
         || '], "next_after" : '
         || coalesce((SELECT k.id FROM kids k WHERE k.n = p_limit AND EXISTS (
                        SELECT 1 FROM kids x WHERE x.n > p_limit))::text, 'null')
         || '}'
    INTO v;
  RETURN v;
END
$$;
