-- A revocation scheduled with revoke_at counts for reads from that moment (imx_image_status), but
-- the row kept its old status, so nothing that follows a status change ran: the image's patch
-- status stayed ok/vulnerable, and its family's fixed_by and patch statuses still counted it.
-- imx_image_apply_due_revocations() makes a due revocation a real one (the status change fires
-- images_patch_status, as a PATCH to revoked does); every server's webhook dispatcher calls it
-- on each poll (server/webhooks/dispatcher.c), and concurrent calls are harmless.
CREATE INDEX images_revoke_due ON images (revoke_at)
  WHERE revoke_at IS NOT NULL AND status <> 'revoked';

