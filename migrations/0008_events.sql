-- Webhook events from every producer, in the transaction of the change: the JSON each event
-- type carries, the SQL entry points handlers call (server/db/events.c), patch.available from
-- the patch_events staging rows (a trigger: each row is written once, so each event is sent
-- once) and request.updated when a published image matches an open request. Routing (README
-- "Webhooks"): catalog events go to every team's subscriptions, team events to that team's.

-- An image as every event carries it: its summary with the owning team, parent, artifacts
-- (region -> artifact id), status reason and scheduled revocation.
CREATE FUNCTION imx_image_event_json(p_image bigint) RETURNS jsonb
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
CREATE FUNCTION imx_image_event(p_type text, p_image bigint, p_cause bigint) RETURNS bigint
LANGUAGE sql AS $$
  SELECT imx_webhook_enqueue(NULL, p_type,
           jsonb_build_object('image', imx_image_event_json(i.id), 'cause_image_id', p_cause),
           ARRAY[i.family])
  FROM images i WHERE i.id = p_image
$$;

-- advisory.published to every team: filtered by severity and by the families it affects now
-- (an advisory that affects no image yet carries no families, so family filters let it pass).
CREATE FUNCTION imx_advisory_event(p_id text) RETURNS bigint
LANGUAGE sql AS $$
  WITH f AS (SELECT coalesce(array_agg(DISTINCT i.family ORDER BY i.family), '{}') AS fams
               FROM image_advisories ia JOIN images i ON i.id = ia.image_id
              WHERE ia.advisory_id = p_id)
  SELECT imx_webhook_enqueue(NULL, 'advisory.published',
           jsonb_build_object('advisory', imx_advisory_json(a.id)::jsonb,
                              'affected_families', to_jsonb(f.fams)),
           f.fams, '{}', a.severity)
  FROM advisories a, f WHERE a.id = p_id
$$;

-- pin.moved to the pin's team (filtered by pin name and the new image's family).
CREATE FUNCTION imx_pin_moved_event(p_pin bigint, p_from bigint, p_user bigint) RETURNS bigint
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
CREATE FUNCTION imx_request_event(p_request bigint, p_change text, p_from text, p_image bigint)
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

-- patch.available from a staging row. A 'pin' row goes to the pin's team (filtered by pin name,
-- family and severity); a 'family' row to every team's subscriptions that list the family.
CREATE FUNCTION imx_patch_event_enqueue() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  v_pin  jsonb;
  v_name text;
  v_sev  text;
  v_adv  jsonb;
BEGIN
  SELECT a.severity, jsonb_build_object('id', a.id, 'title', a.title, 'severity', a.severity,
                                        'cvss', a.cvss, 'cves', to_jsonb(a.cves), 'url', a.url)
    INTO v_sev, v_adv FROM advisories a WHERE a.id = NEW.advisory_id;
  IF NEW.kind = 'pin' THEN
    SELECT p.name, jsonb_build_object('id', p.id, 'team', t.slug, 'name', p.name)
      INTO v_name, v_pin FROM pins p JOIN teams t ON t.id = p.team_id WHERE p.id = NEW.pin_id;
  END IF;
  PERFORM imx_webhook_enqueue(
    CASE WHEN NEW.kind = 'pin' THEN NEW.team_id END, 'patch.available',
    jsonb_build_object('kind', NEW.kind, 'team', v_pin -> 'team', 'pin', v_pin,
                       'family', NEW.family, 'image', imx_image_event_json(NEW.image_id),
                       'advisories', jsonb_build_array(v_adv),
                       'fixed_by', imx_image_event_json(NEW.fixed_by)),
    ARRAY[NEW.family], CASE WHEN v_name IS NOT NULL THEN ARRAY[v_name] ELSE '{}' END, v_sev,
    NEW.kind = 'family');
  RETURN NULL;
END
$$;
CREATE TRIGGER patch_events_enqueue AFTER INSERT ON patch_events
  FOR EACH ROW EXECUTE FUNCTION imx_patch_event_enqueue();

-- The publish-time request matcher of 0007, now telling the requesting team.
CREATE OR REPLACE FUNCTION imx_request_matches_on_publish() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE rid bigint;
BEGIN
  FOR rid IN SELECT imx_requests_matching_image(NEW.id) LOOP
    INSERT INTO request_matches (request_id, image_id, via) VALUES (rid, NEW.id, 'published')
      ON CONFLICT DO NOTHING;
    IF FOUND THEN
      PERFORM imx_request_event(rid, 'matched', 'open', NEW.id);
    END IF;
  END LOOP;
  RETURN NULL;
END
$$;
