-- Compare's rows (server/db/images.c): one per id asked, in that order, with NULLs for an id
-- that does not exist. The summary is the stored one unless a scheduled revocation has come due
-- since it was written; compatibility is {ok, errors, warnings} of the stored report; the costs
-- are the caller's scope's (imx_compare_costs, 0021); the OS half is the image's os_patch_status
-- and the advisories of its OS part (jsonb, as 0025's imx_compare_os_fields takes them), from
-- which the server builds both fields. A function so that its plan is made once a session: as a
-- prepared statement PostgreSQL planned it on every execution (0.5 ms).
CREATE FUNCTION imx_compare_rows(p_ids bigint[], p_user bigint, p_token_team bigint,
                                 p_team bigint)
RETURNS TABLE (epoch bigint, id bigint, found boolean, summary json, kernel text,
               compatibility jsonb, best json, boot json, os_patch_status text,
               os_advisories jsonb)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  RETURN QUERY
  SELECT (SELECT e.n FROM auth_epoch e), u.id, i.id IS NOT NULL,
         CASE WHEN i.revoke_at <= now() THEN imx_image_summary(i.id) ELSE i.summary END,
         i.kernel,
         jsonb_build_object('ok', i.compatibility->'ok', 'errors', i.compatibility->'errors',
                            'warnings', i.compatibility->'warnings'),
         k.best, k.boot, i.os_patch_status,
         coalesce(imx_image_os_json(i.id)::jsonb -> 'advisories', 'null'::jsonb)
    FROM unnest(p_ids) WITH ORDINALITY AS u(id, ord)
    LEFT JOIN images i ON i.id = u.id
    LEFT JOIN LATERAL imx_compare_costs(u.id, p_user, p_token_team, p_team) k ON i.id IS NOT NULL
   ORDER BY u.ord;
END
$$;
