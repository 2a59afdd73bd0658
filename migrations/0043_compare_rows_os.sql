-- Compare's rows (0021) with the OS half (0025's imx_compare_os_fields, per image): the image's
-- os_patch_status and the advisories of its OS part (jsonb, as imx_compare_os_fields takes
-- them), so that compare stays one statement; the server builds both fields from them.
DROP FUNCTION imx_compare_rows(bigint[], bigint, bigint, bigint);
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
