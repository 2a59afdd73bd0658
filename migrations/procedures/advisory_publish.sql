-- Use cases: publish an advisory (POST /v1/advisories), revise it (PATCH /v1/advisories/{id}),
-- withdraw it (DELETE /v1/advisories/{id}). Called only from server/db/advisories.c
-- (imx_db_advisory_publish, imx_db_advisory_withdraw).

-- The images advisory adv now affects and the rows it keeps, reconciled: rows it no longer
-- affects go (with their pin rows), new ones come with their fixed_by, kept ones get theirs
-- recomputed, patch statuses follow, and every pin on an affected image gets its fix.
-- Returns {"affected_images": n, "patch_status_changed": [ids]}. The caller holds the global
-- patch lock exclusively.
--
-- Set-based, and its cost follows the rows it writes (a driver bulletin writes one row for each
-- of the 10,000 images of the bench catalog): fixed_by is computed before the rows are written
-- (imx_patch_pass's rule, with "X does not affect it" read from v_new instead of probing each
-- image's rows), new rows are a plain INSERT (no speculative insertion: the rows there are v_old,
-- read under the global lock), and patch statuses are recomputed only for the images whose
-- status the change can move (imx_patch_status_update decides; see v_touch below). Before this
-- (bench/RESULTS.md, "Feed import"): insert, then an update pass, then a recompute of every
-- affected image, 1.5-3 s for such a bulletin.
CREATE OR REPLACE FUNCTION imx_advisory_reconcile(adv text) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_old bigint[];
  v_old_fix bigint[];
  v_new bigint[];
  v_pkgs integer[];
  v_fams text[];
  v_new_fams text[];
  v_pkg boolean;
  v_gone bigint[];
  v_touch bigint[];
  v_changed bigint[];
BEGIN
  SELECT coalesce(array_agg(image_id ORDER BY image_id), '{}'),
         coalesce(array_agg(fixed_by ORDER BY image_id), '{}')
    INTO v_old, v_old_fix
    FROM image_advisories WHERE advisory_id = adv;
  -- Indexed range lookups on the component version keys (image_components_name_key); nothing
  -- for a withdrawn advisory.
  v_new := ARRAY(
    SELECT DISTINCT c.image_id
      FROM advisory_ranges r JOIN advisories a ON a.id = r.advisory_id AND a.withdrawn_at IS NULL
      JOIN image_components c ON c.name = r.component AND c.version_key >= r.lo
       AND c.version_key <= r.hi AND (r.lo_incl OR c.version_key <> r.lo)
       AND (r.hi_incl OR c.version_key <> r.hi)
     WHERE r.advisory_id = adv);
  -- Through OS packages: the versions of each named package in the interval (os_packages_key),
  -- the chunks holding them, the images holding those chunks (both GIN). The images are looked
  -- up chunk by chunk: one GIN scan for all the chunks at once (15,000 for the bench's 30 %
  -- advisory) took 7-21 s, as PostgreSQL 15 compares each of a GIN query's keys with every
  -- other one; 15,000 scans of one key take 0.3 s.
  v_pkgs := ARRAY(
    SELECT op.id
      FROM advisory_package_ranges r JOIN advisories a ON a.id = r.advisory_id
       AND a.withdrawn_at IS NULL
      JOIN os_packages op ON op.ecosystem = r.ecosystem AND op.name = r.package
       AND op.key >= coalesce(r.lo, '\x'::bytea)
       AND imx_pkg_key_in(op.key, r.lo, r.lo_incl, r.hi, r.hi_incl)
     WHERE r.advisory_id = adv);
  IF cardinality(v_pkgs) > 0 THEN
    v_new := ARRAY(SELECT DISTINCT x FROM unnest(v_new || ARRAY(
      SELECT ip.image_id FROM os_package_chunks c
        JOIN image_packages ip ON ip.chunks @> ARRAY[c.id]
       WHERE c.members && v_pkgs)) x);
  END IF;
  v_pkg := EXISTS (SELECT 1 FROM advisory_package_ranges WHERE advisory_id = adv);
  v_new_fams := ARRAY(SELECT DISTINCT i.family FROM unnest(v_new) n(id)
                        JOIN images i ON i.id = n.id);
  v_fams := ARRAY(SELECT v_new_fams[k] FROM generate_subscripts(v_new_fams, 1) k
                  UNION
                  SELECT i.family FROM unnest(v_old) o(id) JOIN images i ON i.id = o.id);
  PERFORM imx_patch_lock_families(v_fams);

  -- Rows it no longer affects (their pin rows go by the foreign key's cascade).
  WITH gone AS (
    DELETE FROM image_advisories ia
     WHERE ia.advisory_id = adv
       AND NOT EXISTS (SELECT 1 FROM unnest(v_new) n(id) WHERE n.id = ia.image_id)
    RETURNING ia.image_id)
  SELECT coalesce(array_agg(image_id), '{}') INTO v_gone FROM gone;

  -- The rows it affects now, with their fix (_patch.sql's rule, as imx_patch_pass computes it):
  -- reading each family of an affected image in publish order, fixed_by is the oldest later
  -- active image adv does not affect. New rows are inserted with it; kept rows whose fix moved
  -- are updated. v_touch: the images whose patch status this can move: a new row on an image
  -- that had no row, or none with a fix while this one has one (or the same for
  -- os_patch_status when adv has package ranges); a kept row whose fix moved; a kept row on an
  -- image with a package inventory (adv's package ranges may have changed, and with them
  -- whether it counts for os_patch_status). An image already patch_available, or vulnerable
  -- and given an unfixed row, keeps its status.
  WITH aff AS MATERIALIZED (
    SELECT DISTINCT x AS id FROM unnest(v_new) x
  ), old AS MATERIALIZED (
    SELECT o.id, o.fixed_by FROM unnest(v_old, v_old_fix) o(id, fixed_by)
  ), fam AS MATERIALIZED (
    SELECT i.id, i.family, i.patch_status, i.os_patch_status, a.id IS NOT NULL AS hit,
           i.status = 'active' AND a.id IS NULL AS fixer,
           row_number() OVER (PARTITION BY i.family ORDER BY i.published_at, i.id) AS rn
      FROM images i LEFT JOIN aff a ON a.id = i.id
     WHERE i.family = ANY (v_new_fams)
  ), nxt AS (
    SELECT f.id, f.family, f.hit, f.patch_status, f.os_patch_status,
           min(CASE WHEN f.fixer THEN f.rn END) OVER (PARTITION BY f.family ORDER BY f.rn DESC
             ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS next_rn
      FROM fam f
  ), want AS MATERIALIZED (
    SELECT n.id AS image_id, n.family, fx.id AS fixed_by, n.patch_status, n.os_patch_status,
           o.id IS NOT NULL AS kept, o.fixed_by AS old_fix
      FROM nxt n LEFT JOIN fam fx ON fx.family = n.family AND fx.rn = n.next_rn
      LEFT JOIN old o ON o.id = n.id
     WHERE n.hit
  ), ins AS (
    INSERT INTO image_advisories (image_id, advisory_id, family, fixed_by)
    SELECT w.image_id, adv, w.family, w.fixed_by FROM want w WHERE NOT w.kept
    RETURNING image_id
  ), upd AS (
    UPDATE image_advisories ia SET fixed_by = w.fixed_by
      FROM want w
     WHERE w.kept AND w.fixed_by IS DISTINCT FROM w.old_fix
       AND ia.advisory_id = adv AND ia.image_id = w.image_id
    RETURNING ia.image_id
  )
  SELECT ARRAY(
    SELECT w.image_id FROM want w
     WHERE CASE WHEN NOT w.kept THEN
                  NOT coalesce(w.patch_status IN ('revoked', 'patch_available')
                               OR (w.patch_status = 'vulnerable' AND w.fixed_by IS NULL), false)
                  OR (v_pkg AND w.os_patch_status IS NOT NULL
                      AND NOT coalesce(w.os_patch_status IN ('revoked', 'patch_available')
                                       OR (w.os_patch_status = 'vulnerable'
                                           AND w.fixed_by IS NULL), false))
                ELSE w.fixed_by IS DISTINCT FROM w.old_fix OR w.os_patch_status IS NOT NULL END)
    INTO v_touch;
  v_changed := ARRAY(SELECT imx_patch_status_update(v_touch || v_gone));

  -- Pins on affected images: without constraints the pin's fix is the image's; with them, the
  -- walk, which starts at the image's fix: the images between the pinned one and its fix are
  -- affected or not active, so none of them can be the pin's fix either, and an image with no
  -- fix leaves none to its pins (a bulletin no image of the family is fixed for yet: no walk).
  INSERT INTO pin_advisories AS pa (pin_id, advisory_id, image_id, family, fixed_by)
  SELECT p.id, adv, p.image_id, ia.family,
         CASE WHEN ia.fixed_by IS NULL THEN NULL
              WHEN NOT EXISTS (SELECT 1 FROM pin_constraints k WHERE k.pin_id = p.id)
              THEN ia.fixed_by
              -- (published_at, id - 1): the walk looks strictly after, and the fix itself counts
              ELSE imx_pin_next_fix(p.id, ia.family, fx.published_at, fx.id - 1, adv) END
    FROM pins p JOIN image_advisories ia ON ia.image_id = p.image_id AND ia.advisory_id = adv
    LEFT JOIN images fx ON fx.id = ia.fixed_by
  ON CONFLICT (pin_id, advisory_id) DO UPDATE SET fixed_by = EXCLUDED.fixed_by
   WHERE pa.fixed_by IS DISTINCT FROM EXCLUDED.fixed_by;

  -- Stored documents whose os_packages changed without their images row (0025).
  PERFORM imx_image_docs_refresh_os(ARRAY(SELECT x FROM unnest(v_old || v_new) x
                                            EXCEPT SELECT y FROM unnest(v_changed) y));
  -- and the pins of the families affected before or now (pin_docs, 0050)
  PERFORM imx_pin_docs_refresh_families(v_fams);

  RETURN json_build_object('affected_images', cardinality(v_new),
                           'patch_status_changed', to_json(v_changed));
END
$$;

-- Publishes (p_revision NULL) or revises an advisory. p_doc: {id, title, published, severity,
-- cvss, cvss_v4, cves, url, source, source_version, unmapped, warnings (a CSAF import: what it
-- left out and what it read with a warning), csaf_doc (a CSAF import: the bulletin, kept in
-- advisory_csaf_docs), affected:[{component, range, lo, lo_incl,
-- hi, hi_incl, fixed} or, over a distro's packages, {ecosystem, package, range, lo, lo_incl, hi,
-- hi_incl, fixed} with lo / hi imx_pkgver_key() hex or null]} as server/api/advisories.c
-- checked it; on a revision only the keys
-- present change, and "affected" replaces every range. p_revision: the revision the client read
-- (If-Match). A publish of a document with a source_version (a CSAF bulletin) whose id exists
-- revises it when the version is newer ("not_newer" otherwise).
-- Steps: lock (global, exclusive); write the advisory and its ranges; reconcile its rows
-- (imx_advisory_reconcile); advisory.published (on publish); patch.available for the fixes
-- that appeared. Returns {"outcome": "created" | "revised" | "not_found" | "withdrawn" |
-- "stale", "revision": n, "affected_images", "patch_status_changed", "patch_events"}.
-- 23505: the id exists (publish).
CREATE OR REPLACE FUNCTION imx_advisory_publish(p_doc jsonb, p_user bigint, p_revision integer)
RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_id text := p_doc->>'id';
  v_adv advisories;
  v_res json;
  v_events integer;
  v_fams text[];
BEGIN
  PERFORM imx_patch_lock_global(true);
  IF p_revision IS NULL AND p_doc ? 'source_version' THEN
    -- a newer revision of a bulletin already imported revises it whole
    SELECT * INTO v_adv FROM advisories WHERE id = v_id FOR UPDATE;
    IF FOUND THEN
      IF v_adv.withdrawn_at IS NOT NULL THEN
        RETURN json_build_object('outcome', 'withdrawn', 'revision', v_adv.revision);
      END IF;
      IF v_adv.source_version IS NULL OR imx_version_key(v_adv.source_version)
                                         >= imx_version_key(p_doc->>'source_version') THEN
        RETURN json_build_object('outcome', 'not_newer', 'revision', v_adv.revision,
                                 'source_version', v_adv.source_version);
      END IF;
      p_revision := v_adv.revision;
    END IF;
  END IF;
  IF p_revision IS NULL THEN
    INSERT INTO advisories (id, title, published, severity, cvss, cvss_v4, cves, url, source,
                            source_version, unmapped, warnings, created_by)
    VALUES (v_id, p_doc->>'title', (p_doc->>'published')::date, p_doc->>'severity',
            (p_doc->>'cvss')::numeric, (p_doc->>'cvss_v4')::numeric,
            ARRAY(SELECT jsonb_array_elements_text(p_doc->'cves')),
            p_doc->>'url', coalesce(p_doc->>'source', 'imaxe'), p_doc->>'source_version',
            coalesce(p_doc->'unmapped', '[]'), coalesce(p_doc->'warnings', '[]'), p_user)
    RETURNING * INTO v_adv;
  ELSE
    SELECT * INTO v_adv FROM advisories WHERE id = v_id FOR UPDATE;
    IF NOT FOUND THEN
      RETURN json_build_object('outcome', 'not_found');
    END IF;
    IF v_adv.withdrawn_at IS NOT NULL THEN
      RETURN json_build_object('outcome', 'withdrawn', 'revision', v_adv.revision);
    END IF;
    IF v_adv.revision <> p_revision THEN
      RETURN json_build_object('outcome', 'stale', 'revision', v_adv.revision);
    END IF;
    UPDATE advisories SET
      title = CASE WHEN p_doc ? 'title' THEN p_doc->>'title' ELSE title END,
      published = CASE WHEN p_doc ? 'published' THEN (p_doc->>'published')::date ELSE published END,
      severity = CASE WHEN p_doc ? 'severity' THEN p_doc->>'severity' ELSE severity END,
      cvss = CASE WHEN p_doc ? 'cvss' THEN (p_doc->>'cvss')::numeric ELSE cvss END,
      cves = CASE WHEN p_doc ? 'cves' THEN ARRAY(SELECT jsonb_array_elements_text(p_doc->'cves'))
                  ELSE cves END,
      url = CASE WHEN p_doc ? 'url' THEN p_doc->>'url' ELSE url END,
      cvss_v4 = CASE WHEN p_doc ? 'cvss_v4' THEN (p_doc->>'cvss_v4')::numeric ELSE cvss_v4 END,
      source_version = CASE WHEN p_doc ? 'source_version' THEN p_doc->>'source_version'
                            ELSE source_version END,
      unmapped = CASE WHEN p_doc ? 'unmapped' THEN p_doc->'unmapped' ELSE unmapped END,
      warnings = CASE WHEN p_doc ? 'warnings' THEN p_doc->'warnings' ELSE warnings END,
      revision = revision + 1, updated_at = now()
     WHERE id = v_id
    RETURNING * INTO v_adv;
    IF p_doc ? 'affected' THEN
      DELETE FROM advisory_ranges WHERE advisory_id = v_id;
      DELETE FROM advisory_package_ranges WHERE advisory_id = v_id;
    END IF;
  END IF;
  -- the bulletin itself, for POST /v1/advisories:reapply (0201)
  IF p_doc ? 'csaf_doc' THEN
    INSERT INTO advisory_csaf_docs (advisory_id, doc) VALUES (v_id, p_doc->'csaf_doc')
    ON CONFLICT (advisory_id) DO UPDATE SET doc = EXCLUDED.doc, stored_at = now();
  END IF;
  IF p_revision IS NULL OR p_doc ? 'affected' THEN
    INSERT INTO advisory_ranges (advisory_id, ord, component, range, lo, lo_incl, hi, hi_incl,
                                 fixed)
    SELECT v_id, (x.o - 1)::int, x.e->>'component', x.e->>'range', (x.e->>'lo')::int[],
           (x.e->>'lo_incl')::boolean, (x.e->>'hi')::int[], (x.e->>'hi_incl')::boolean,
           x.e->>'fixed'
      FROM jsonb_array_elements(p_doc->'affected') WITH ORDINALITY AS x(e, o)
     WHERE NOT x.e ? 'ecosystem';
    INSERT INTO advisory_package_ranges (advisory_id, ord, ecosystem, package, range, lo, lo_incl,
                                         hi, hi_incl, fixed)
    SELECT v_id, (x.o - 1)::int, x.e->>'ecosystem', x.e->>'package', x.e->>'range',
           decode(x.e->>'lo', 'hex'), (x.e->>'lo_incl')::boolean, decode(x.e->>'hi', 'hex'),
           (x.e->>'hi_incl')::boolean, x.e->>'fixed'
      FROM jsonb_array_elements(p_doc->'affected') WITH ORDINALITY AS x(e, o)
     WHERE x.e ? 'ecosystem';
    v_res := imx_advisory_reconcile(v_id);
  ELSE
    v_res := json_build_object('affected_images',
                               (SELECT count(*) FROM image_advisories WHERE advisory_id = v_id),
                               'patch_status_changed', '[]'::json);
    -- title, severity or CVEs: the os_packages of the images it affects (0025)
    PERFORM imx_image_docs_refresh_os(ARRAY(SELECT image_id FROM image_advisories
                                              WHERE advisory_id = v_id));
    -- and the pins that list it (pin_docs, 0050)
    PERFORM imx_pin_docs_refresh_families(ARRAY(SELECT DISTINCT family FROM image_advisories
                                                  WHERE advisory_id = v_id));
  END IF;

  -- a bulletin about nothing imaxe tracks is kept (and listed) but announced to no one
  IF v_adv.revision = 1 AND EXISTS (SELECT 1 FROM advisory_ranges WHERE advisory_id = v_id
                                    UNION ALL
                                    SELECT 1 FROM advisory_package_ranges
                                     WHERE advisory_id = v_id) THEN
    PERFORM imx_advisory_event(v_id);
  END IF;
  v_fams := ARRAY(SELECT DISTINCT family FROM image_advisories WHERE advisory_id = v_id);
  v_events := imx_patch_announce(v_fams);
  RETURN (v_res::jsonb || jsonb_build_object(
            'outcome', CASE WHEN v_adv.revision = 1 THEN 'created' ELSE 'revised' END,
            'revision', v_adv.revision, 'patch_events', v_events))::json;
END
$$;

-- Withdraws an advisory: it keeps its row (GET shows withdrawn_at and the reason) and affects
-- nothing from now on; its rows go, with their pin rows, and patch statuses follow. Announces
-- nothing. Returns {"outcome": "withdrawn" | "not_found" | "already_withdrawn" | "stale",
-- "revision", "patch_status_changed"}.
CREATE OR REPLACE FUNCTION imx_advisory_withdraw(p_id text, p_reason text, p_revision integer)
RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_adv advisories;
  v_old bigint[];
  v_changed bigint[];
BEGIN
  PERFORM imx_patch_lock_global(true);
  SELECT * INTO v_adv FROM advisories WHERE id = p_id FOR UPDATE;
  IF NOT FOUND THEN
    RETURN json_build_object('outcome', 'not_found');
  END IF;
  IF v_adv.withdrawn_at IS NOT NULL THEN
    RETURN json_build_object('outcome', 'already_withdrawn', 'revision', v_adv.revision);
  END IF;
  IF p_revision IS NOT NULL AND v_adv.revision <> p_revision THEN
    RETURN json_build_object('outcome', 'stale', 'revision', v_adv.revision);
  END IF;
  UPDATE advisories SET withdrawn_at = now(), withdrawn_reason = p_reason,
                        revision = revision + 1, updated_at = now()
   WHERE id = p_id RETURNING * INTO v_adv;
  v_old := ARRAY(SELECT image_id FROM image_advisories WHERE advisory_id = p_id);
  PERFORM imx_patch_lock_families(ARRAY(SELECT DISTINCT family FROM image_advisories
                                          WHERE advisory_id = p_id));
  DELETE FROM image_advisories WHERE advisory_id = p_id;
  v_changed := ARRAY(SELECT imx_patch_status_update(v_old));
  PERFORM imx_image_docs_refresh_os(ARRAY(SELECT x FROM unnest(v_old) x
                                            EXCEPT SELECT y FROM unnest(v_changed) y));
  PERFORM imx_pin_docs_refresh_families(ARRAY(SELECT DISTINCT i.family FROM images i
                                                WHERE i.id = ANY (v_old)));
  RETURN json_build_object('outcome', 'withdrawn', 'revision', v_adv.revision,
                           'patch_status_changed', to_json(v_changed));
END
$$;
