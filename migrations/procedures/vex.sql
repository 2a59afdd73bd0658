-- The facts a VEX document about an image is made of (server/domain/vex.c writes OpenVEX and
-- CycloneDX from them): one statement per advisory imaxe holds about the image, each only from
-- what imaxe knows.
--   affected      image_advisories has the row (the patch status's advisories, exactly), with
--                 its fixing image when one exists;
--   fixed         a component advisory names a component of the image, whose version lies in no
--                 range of it and is at least one of its ranges' fixed versions of the same
--                 major release (a driver of branch 570 is not "fixed" by 535.274.02: it was
--                 never in that line);
--   not_affected  vulnerable_code_not_present: as fixed, but no fixed version at or below it;
--                 component_not_present: the image has none of the components it names.
-- Advisories with only OS package ranges appear when they affect the image (an inventory holds
-- thousands of packages that no advisory names). Withdrawn advisories state nothing.
-- Caller: server/db/vex.c (imx_db_image_vex_facts, for GET /v1/images/{id}/vex and the pin's).
-- Every time in the facts comes from the data, never from the clock, so that the same facts give
-- the same signed document (api/vex.c): an affected statement's action_at is when its action
-- became what it says (the latest of the advisory's last revision, the image's publication and
-- its fixing image's publication), and as_of, the documents' timestamp, is the latest time the
-- facts hold (and the latest withdrawal of an advisory with ranges, which drops a statement).

CREATE OR REPLACE FUNCTION imx_image_vex_facts(p_image bigint) RETURNS json
LANGUAGE sql STABLE AS $$
  WITH img AS (
    SELECT i.* FROM images i WHERE i.id = p_image
  ), comp_adv AS (
    SELECT a.* FROM advisories a
     WHERE a.withdrawn_at IS NULL
       AND EXISTS (SELECT 1 FROM advisory_ranges r WHERE r.advisory_id = a.id)
  ), st AS (
    -- affected: the patch status's rows
    SELECT a.id, a.title, a.cves, a.url, coalesce(a.updated_at, a.created_at) AS at,
           'affected' AS status, NULL::text AS justification, ia.fixed_by,
           (SELECT f.published_at FROM images f WHERE f.id = ia.fixed_by) AS fix_at,
           (SELECT json_agg(json_build_object('name', c.name, 'version', c.version)
                            ORDER BY c.name)
              FROM image_components c JOIN advisory_ranges r ON r.component = c.name
               AND r.advisory_id = a.id
               AND imx_key_in(c.version_key, r.lo, r.lo_incl, r.hi, r.hi_incl)
             WHERE c.image_id = p_image) AS components
      FROM image_advisories ia JOIN advisories a ON a.id = ia.advisory_id
     WHERE ia.image_id = p_image
    UNION ALL
    SELECT a.id, a.title, a.cves, a.url, coalesce(a.updated_at, a.created_at),
           CASE WHEN h.named = 0 THEN 'not_affected'
                WHEN h.carries_fix THEN 'fixed'
                ELSE 'not_affected' END,
           CASE WHEN h.named = 0 THEN 'component_not_present'
                WHEN h.carries_fix THEN NULL
                ELSE 'vulnerable_code_not_present' END,
           NULL::bigint, NULL::timestamptz, h.components
      FROM comp_adv a, LATERAL (
        SELECT count(*) AS named,
               coalesce(bool_or(EXISTS (
                 SELECT 1 FROM advisory_ranges r2
                  WHERE r2.advisory_id = a.id AND r2.component = c.name AND r2.fixed IS NOT NULL
                    AND c.version_key >= imx_version_key(r2.fixed)
                    AND c.version_key[1] = (imx_version_key(r2.fixed))[1])), false)
                 AS carries_fix,
               json_agg(json_build_object('name', c.name, 'version', c.version)
                        ORDER BY c.name) AS components
          FROM image_components c
         WHERE c.image_id = p_image
           AND c.name IN (SELECT r.component FROM advisory_ranges r WHERE r.advisory_id = a.id)) h
     WHERE NOT EXISTS (SELECT 1 FROM image_advisories ia
                        WHERE ia.image_id = p_image AND ia.advisory_id = a.id)
  )
  SELECT json_build_object(
    'image', json_build_object('id', i.id, 'family', i.family, 'version', i.version,
               'provider', i.provider, 'status', i.status, 'published_at', i.published_at,
               'artifacts', (SELECT coalesce(json_agg(json_build_object('region', x.region,
                                'artifact_id', x.artifact_id) ORDER BY x.region), '[]')
                               FROM image_artifacts x WHERE x.image_id = i.id)),
    'as_of', greatest(i.published_at, i.updated_at,
                      (SELECT max(greatest(st.at, st.fix_at)) FROM st),
                      (SELECT max(a.withdrawn_at) FROM advisories a
                        WHERE a.withdrawn_at IS NOT NULL
                          AND EXISTS (SELECT 1 FROM advisory_ranges r
                                       WHERE r.advisory_id = a.id))),
    'statements', (SELECT coalesce(json_agg(json_build_object(
        'advisory', st.id, 'title', st.title, 'cves', to_json(st.cves), 'url', st.url,
        'at', st.at, 'status', st.status, 'justification', st.justification,
        'action_at', CASE WHEN st.status = 'affected'
                          THEN greatest(st.at, i.published_at, st.fix_at) END,
        'components', coalesce(st.components, '[]'),
        'fixed_by', (SELECT json_build_object('id', f.id, 'family', f.family,
                             'version', f.version) FROM images f WHERE f.id = st.fixed_by))
        ORDER BY st.id), '[]') FROM st))
  FROM img i
$$;
