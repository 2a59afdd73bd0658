-- Stored documents read in batches (server/db/image_docs.c): the rows of p_ids in that order,
-- each with the auth epoch, the stored ETag (NULL when there is no current stored document) and
-- the document, left out where it is the one the client holds (p_etags, NULL for none). A
-- function so that its plan is made once a session: as a prepared statement PostgreSQL kept
-- choosing a custom plan (its estimate of the unnested rows makes the generic one look dearer)
-- and so planned it on every execution, which cost more than the reads.
CREATE FUNCTION imx_image_docs_read(p_ids bigint[], p_etags text[])
RETURNS TABLE (epoch bigint, etag text, doc text)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  RETURN QUERY
  SELECT (SELECT e.n FROM auth_epoch e), d.etag,
         CASE WHEN d.etag = u.want THEN NULL ELSE d.head || d.tail END
    FROM unnest(p_ids, p_etags) WITH ORDINALITY AS u(id, want, ord)
    LEFT JOIN image_docs d ON d.image_id = u.id
     AND (d.fresh_until IS NULL OR d.fresh_until > now())
   ORDER BY u.ord;
END
$$;
