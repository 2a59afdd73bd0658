-- SQL functions: the data of the webhook events (tables in 0008_events.sql). Re-applied by
-- server/db/migrate.c whenever this file changes.
-- Callers: the procedures (procedures/publish_images.sql, image_status.sql,
-- advisory_publish.sql, _patch.sql); server/db/events.c (imx_pin_moved_event,
-- imx_request_event); server/db/reference_import.c (imx_image_compat_event).

-- An image as every event carries it: its summary with the owning team, parent, artifacts
-- (region -> artifact id), status reason and scheduled revocation.
CREATE OR REPLACE FUNCTION imx_image_event_json(p_image bigint) RETURNS jsonb
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT imx_image_summary(i.id)::jsonb || jsonb_build_object(
    'team', (SELECT t.slug FROM teams t WHERE t.id = i.team_id), 'parent_id', i.parent_id,
    'status_reason', i.status_reason, 'revoke_at', i.revoke_at,
    'artifacts', (SELECT coalesce(jsonb_object_agg(a.region, a.artifact_id), '{}')
                    FROM image_artifacts a WHERE a.image_id = i.id))
  FROM images i WHERE i.id = p_image
$$;

-- image.published / image.deprecated / image.revoked for one image, to every team (filtered by
-- family). p_cause: the image whose change this is (a cascade names the revoked ancestor).
CREATE OR REPLACE FUNCTION imx_image_event(p_type text, p_image bigint, p_cause bigint) RETURNS bigint
LANGUAGE sql AS $$
  SELECT imx_webhook_enqueue(NULL, p_type,
           jsonb_build_object('image', imx_image_event_json(i.id), 'cause_image_id', p_cause),
           ARRAY[i.family])
  FROM images i WHERE i.id = p_image
$$;

-- advisory.published to every team: filtered by severity and by the families it affects now
-- (an advisory that affects no image yet carries no families, so family filters let it pass).
-- The families are the rows' own (image_advisories.family, the image's, which never changes):
-- no lookup of each affected image (10,000 for a driver bulletin on the bench catalog).
CREATE OR REPLACE FUNCTION imx_advisory_event(p_id text) RETURNS bigint
LANGUAGE sql AS $$
  WITH f AS (SELECT coalesce(array_agg(DISTINCT ia.family ORDER BY ia.family), '{}') AS fams
               FROM image_advisories ia WHERE ia.advisory_id = p_id)
  SELECT imx_webhook_enqueue(NULL, 'advisory.published',
           jsonb_build_object('advisory', imx_advisory_json(a.id)::jsonb,
                              'affected_families', to_jsonb(f.fams)),
           f.fams, '{}', a.severity)
  FROM advisories a, f WHERE a.id = p_id
$$;

-- pin.moved to the pin's team (filtered by pin name and the new image's family).
CREATE OR REPLACE FUNCTION imx_pin_moved_event(p_pin bigint, p_from bigint, p_user bigint) RETURNS bigint
LANGUAGE sql AS $$
  SELECT imx_webhook_enqueue(p.team_id, 'pin.moved',
           jsonb_build_object('team', t.slug,
                              'pin', jsonb_build_object('id', p.id, 'team', t.slug, 'name', p.name),
                              'from_image', imx_image_event_json(p_from),
                              'to_image', imx_image_event_json(p.image_id),
                              'moved_by', (SELECT u.email FROM users u WHERE u.id = p_user)),
           ARRAY[i.family], ARRAY[p.name])
  FROM pins p JOIN teams t ON t.id = p.team_id JOIN images i ON i.id = p.image_id
  WHERE p.id = p_pin
$$;

-- request.updated to the requesting team. p_change: created | transition | matched; p_from: the
-- state before (NULL on creation); p_image: the matching image (matched) or NULL.
CREATE OR REPLACE FUNCTION imx_request_event(p_request bigint, p_change text, p_from text, p_image bigint)
RETURNS bigint
LANGUAGE sql AS $$
  SELECT imx_webhook_enqueue(r.team_id, 'request.updated',
           jsonb_build_object('change', p_change, 'from', p_from, 'to', r.state,
             'request', jsonb_build_object('id', r.id, 'team', t.slug, 'title', r.title,
                          'family', r.family, 'state', r.state, 'image', r.fulfilled_image_id,
                          'reason', r.reason, 'updated_at', r.updated_at),
             'image', CASE WHEN p_image IS NOT NULL THEN imx_image_event_json(p_image) END))
  FROM image_requests r JOIN teams t ON t.id = r.team_id WHERE r.id = p_request
$$;

-- To every team (filtered by family): the image, its new report and the old one's counts.
CREATE OR REPLACE FUNCTION imx_image_compat_event(p_image bigint, p_before jsonb, p_after jsonb,
                                       p_version text) RETURNS bigint
LANGUAGE sql AS $$
  SELECT imx_webhook_enqueue(NULL, 'image.compatibility_changed',
           jsonb_build_object('image', imx_image_event_json(i.id), 'compatibility', p_after,
                              'previous', jsonb_build_object('ok', p_before->'ok',
                                'errors', p_before->'errors', 'warnings', p_before->'warnings'),
                              'reference_data_version', p_version),
           ARRAY[i.family])
  FROM images i WHERE i.id = p_image
$$;
