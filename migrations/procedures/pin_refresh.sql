-- Use case piece: a pin was created or moved (POST /v1/pins, PUT /v1/pins/{id}). Called only
-- from imx_db_pin_refresh() in server/db/pins.c, in the transaction of the create or move.
--
-- Rebuilds the pin's rows for its (new) image under the families' locks: each advisory affecting
-- the image, with the pin's fix (imx_pin_next_fix). A fix that exists now is known to the pin
-- from the start (pin_patch_seen, no event): only fixes appearing later are announced. Then the
-- pin's stored document (pin_docs, 0050).
-- Returns how many advisories affect the pinned image.
CREATE OR REPLACE FUNCTION imx_pin_refresh(p_pin bigint) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  v_fam text;
  v_n integer;
BEGIN
  SELECT i.family INTO v_fam FROM pins p JOIN images i ON i.id = p.image_id WHERE p.id = p_pin;
  IF NOT FOUND THEN
    RETURN 0;
  END IF;
  -- and the family the pin leaves (its stored document's): a refresh of that family's pins
  -- running now must not write this pin's document from before the move after this one
  PERFORM imx_patch_lock_families(ARRAY[v_fam] || ARRAY(SELECT d.family FROM pin_docs d
                                                           WHERE d.pin_id = p_pin));
  DELETE FROM pin_advisories WHERE pin_id = p_pin;
  INSERT INTO pin_advisories (pin_id, advisory_id, image_id, family, fixed_by, seen)
  SELECT p.id, ia.advisory_id, p.image_id, ia.family, f.fix, f.fix IS NOT NULL
    FROM pins p JOIN images i ON i.id = p.image_id
    JOIN image_advisories ia ON ia.image_id = p.image_id,
         LATERAL (SELECT imx_pin_next_fix(p.id, i.family, i.published_at, i.id,
                                          ia.advisory_id) AS fix) f
   WHERE p.id = p_pin;
  GET DIAGNOSTICS v_n = ROW_COUNT;
  INSERT INTO pin_patch_seen (pin_id, image_id, advisory_id)
  SELECT pin_id, image_id, advisory_id FROM pin_advisories WHERE pin_id = p_pin AND seen
  ON CONFLICT DO NOTHING;
  -- its stored document, history included (0050)
  PERFORM imx_pin_docs_write(ARRAY[p_pin], true);
  RETURN v_n;
END
$$;
