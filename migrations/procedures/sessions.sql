-- Sessions that last (migrations/0240_sessions.sql): opened by imx_db_session_open and rotated by
-- imx_db_session_rotate (server/db/sessions.c), for the handlers in server/api/sessions.c.

-- Opens a session for an active user and keeps the user's live sessions bounded: beyond p_max
-- the oldest are revoked, and rows ended more than a day ago are deleted. Returns the new id and
-- its absolute expiry (Unix seconds); no row when the user is missing or disabled.
CREATE OR REPLACE FUNCTION imx_session_open(p_user bigint, p_kind text, p_secret_hash text,
                                            p_csrf_hash text, p_via text, p_user_agent text,
                                            p_idle_s integer, p_absolute_s integer, p_max integer)
RETURNS TABLE (session_id bigint, expires_at bigint)
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM users u WHERE u.id = p_user AND u.disabled_at IS NULL FOR KEY SHARE;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    DELETE FROM sessions s
     WHERE s.user_id = p_user
       AND (s.revoked_at < now() - interval '1 day' OR s.expires_at < now() - interval '1 day');
    UPDATE sessions s SET revoked_at = now()
     WHERE s.id IN (SELECT o.id FROM sessions o
                     WHERE o.user_id = p_user AND o.revoked_at IS NULL AND o.expires_at > now()
                     ORDER BY o.id DESC OFFSET greatest(p_max - 1, 0));
    INSERT INTO sessions AS s (user_id, kind, secret_hash, csrf_hash, via, user_agent, idle_s,
                               expires_at)
    VALUES (p_user, p_kind, p_secret_hash, p_csrf_hash, p_via, left(coalesce(p_user_agent, ''), 200),
            p_idle_s, now() + make_interval(secs => p_absolute_s))
    RETURNING s.id, floor(extract(epoch FROM s.expires_at))::bigint
         INTO session_id, expires_at;
    RETURN NEXT;
END;
$$;

-- Rotates a live CLI session's refresh token: the old secret stops working at once (a stolen
-- and already used token is worth nothing), the new one carries the session on. Returns the
-- session and its user; no row when the old secret is unknown, revoked, idle too long or expired.
CREATE OR REPLACE FUNCTION imx_session_rotate(p_old_hash text, p_new_hash text)
RETURNS TABLE (session_id bigint, user_id bigint, expires_at bigint)
LANGUAGE sql AS $$
    UPDATE sessions s
       SET secret_hash = p_new_hash, last_seen_at = now()
      FROM users u
     WHERE s.secret_hash = p_old_hash AND s.kind = 'cli' AND s.revoked_at IS NULL
       AND s.expires_at > now() AND s.last_seen_at + make_interval(secs => s.idle_s) > now()
       AND u.id = s.user_id AND u.disabled_at IS NULL
    RETURNING s.id, s.user_id, floor(extract(epoch FROM s.expires_at))::bigint;
$$;
