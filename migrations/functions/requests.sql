-- SQL functions: image requests (tables in 0007_costs_requests.sql). Re-applied by
-- server/db/migrate.c whenever this file changes.
-- Callers: server/db/requests.c (imx_request_json_bounded for every request read);
-- imx_requests_matching_image by tests/integration/test_costs.c. Matching itself
-- (imx_request_satisfied_by) is in procedures/publish_images.sql.

-- Open requests that the image satisfies.
CREATE OR REPLACE FUNCTION imx_requests_matching_image(p_image bigint) RETURNS SETOF bigint
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT r.id FROM image_requests r
   WHERE r.state = 'open' AND imx_request_satisfied_by(r.id, p_image)
   ORDER BY r.id
$$;

CREATE OR REPLACE FUNCTION imx_request_json_bounded(p_request bigint, p_max int) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object(
    'id', r.id, 'team', t.slug, 'catalog_team', ct.slug, 'title', r.title, 'family', r.family,
    'os', CASE WHEN r.os_name IS NULL THEN NULL
               ELSE r.os_name || coalesce(':' || r.os_version, '') END,
    'architecture', r.architecture,
    'constraints', (SELECT coalesce(json_agg(json_build_object('component', k.component,
                      'range', k.range) ORDER BY k.ord), '[]')
                    FROM request_constraints k WHERE k.request_id = r.id),
    'gpus', to_json(r.gpus), 'tags', to_json(r.tags), 'justification', r.justification,
    'state', r.state, 'image', r.fulfilled_image_id, 'reason', r.reason,
    'compatibility', r.compatibility,
    'match_count', (SELECT count(*) FROM request_matches m WHERE m.request_id = r.id),
    'matches', (SELECT coalesce(json_agg(json_build_object('image', imx_image_summary(f.image_id),
                  'via', f.via, 'matched_at', f.matched_at) ORDER BY f.ok DESC, f.published_at DESC,
                  f.image_id DESC), '[]')
                FROM (SELECT m.image_id, m.via, m.matched_at, i.patch_status = 'ok' AS ok,
                             i.published_at
                      FROM request_matches m JOIN images i ON i.id = m.image_id
                      WHERE m.request_id = r.id
                      ORDER BY (i.patch_status = 'ok') DESC, i.published_at DESC, i.id DESC
                      LIMIT p_max) f),
    'matches_url', '/v1/requests/' || r.id || '/matches',
    'history', (SELECT coalesce(json_agg(json_build_object('at', e.at, 'from', e.from_state,
                  'to', e.to_state, 'comment', e.comment, 'image', e.image_id,
                  'by', (SELECT email FROM users WHERE id = e.actor_user_id)) ORDER BY e.id), '[]')
                FROM request_events e WHERE e.request_id = r.id),
    'comment_count', (SELECT count(*) FROM request_comments c WHERE c.request_id = r.id),
    'comments', (SELECT coalesce(json_agg(json_build_object('id', f.id, 'at', f.at,
                   'body', f.body, 'by', (SELECT email FROM users WHERE id = f.author_user_id))
                   ORDER BY f.id), '[]')
                 FROM (SELECT c.id, c.at, c.body, c.author_user_id FROM request_comments c
                       WHERE c.request_id = r.id ORDER BY c.id DESC LIMIT p_max) f),
    'created_at', r.created_at, 'updated_at', r.updated_at)
  FROM image_requests r JOIN teams t ON t.id = r.team_id JOIN teams ct ON ct.id = r.catalog_team_id
  WHERE r.id = p_request
$$;
COMMENT ON FUNCTION imx_request_json_bounded(bigint, int) IS
  'A request as JSON with at most p_max matches (patched first, newest first) and its p_max newest comments, with both counts.';
