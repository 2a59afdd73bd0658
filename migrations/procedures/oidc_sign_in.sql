-- Single sign-on: the user an OpenID Connect sign-in lands as, called by imx_db_oidc_sign_in
-- (server/db/oidc.c) from the callback handler in server/api/oidc.c. One call is one
-- transaction.

-- Finds the user for (issuer, subject), or links the user with that email when the provider
-- vouches for it (email_verified), or provisions a new user (no usable password: '!' verifies
-- against nothing). A disabled user stays out (no row). Then, for every team the group map
-- names (p_teams, with p_roles the role the groups grant there, '' for none), sets the user's
-- membership to that role, creating the team when it is missing, or removes it: the provider
-- owns the memberships of mapped teams; teams the map does not name are left alone.
CREATE OR REPLACE FUNCTION imx_oidc_sign_in(p_issuer text, p_subject text, p_email text,
                                            p_name text, p_email_verified boolean,
                                            p_teams text[], p_roles text[])
RETURNS TABLE (user_id bigint, created boolean, changed integer)
LANGUAGE plpgsql AS $$
DECLARE
    v_disabled timestamptz;
    v_team bigint;
    v_old team_role;
    i integer;
BEGIN
    created := false;
    changed := 0;
    SELECT o.user_id INTO user_id FROM oidc_identities o
     WHERE o.issuer = p_issuer AND o.subject = p_subject;
    IF user_id IS NULL AND p_email_verified THEN
        SELECT u.id INTO user_id FROM users u WHERE lower(u.email) = lower(p_email);
    END IF;
    IF user_id IS NULL THEN
        INSERT INTO users (email, display_name, password_hash)
        VALUES (p_email, left(coalesce(p_name, ''), 200), '!')
        ON CONFLICT DO NOTHING
        RETURNING id INTO user_id;
        IF user_id IS NULL THEN
            -- Another user holds the email and the provider does not vouch for it: refuse
            -- rather than hand that account over.
            RAISE EXCEPTION 'email % belongs to another user', p_email USING ERRCODE = '23505';
        END IF;
        created := true;
    END IF;
    SELECT u.disabled_at INTO v_disabled FROM users u WHERE u.id = imx_oidc_sign_in.user_id FOR UPDATE;
    IF v_disabled IS NOT NULL THEN
        RETURN;
    END IF;
    INSERT INTO oidc_identities AS o (issuer, subject, user_id)
    VALUES (p_issuer, p_subject, imx_oidc_sign_in.user_id)
    ON CONFLICT ON CONSTRAINT oidc_identities_pkey DO UPDATE SET last_at = now();
    FOR i IN 1 .. coalesce(array_length(p_teams, 1), 0) LOOP
        SELECT t.id INTO v_team FROM teams t WHERE t.slug = p_teams[i];
        IF v_team IS NULL AND p_roles[i] <> '' THEN
            INSERT INTO teams (slug, name) VALUES (p_teams[i], p_teams[i]) RETURNING id INTO v_team;
        END IF;
        CONTINUE WHEN v_team IS NULL;
        SELECT m.role INTO v_old FROM memberships m
         WHERE m.team_id = v_team AND m.user_id = imx_oidc_sign_in.user_id;
        IF p_roles[i] = '' THEN
            IF v_old IS NOT NULL THEN
                DELETE FROM memberships m
                 WHERE m.team_id = v_team AND m.user_id = imx_oidc_sign_in.user_id;
                changed := changed + 1;
            END IF;
        ELSIF v_old IS DISTINCT FROM p_roles[i]::team_role THEN
            INSERT INTO memberships AS m (team_id, user_id, role)
            VALUES (v_team, imx_oidc_sign_in.user_id, p_roles[i]::team_role)
            ON CONFLICT ON CONSTRAINT memberships_pkey DO UPDATE SET role = excluded.role;
            changed := changed + 1;
        END IF;
        v_team := NULL;
        v_old := NULL;
    END LOOP;
    RETURN NEXT;
END;
$$;
