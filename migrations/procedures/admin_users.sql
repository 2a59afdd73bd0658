-- Headless administration: `imaxe-server admin create-user` (server/cli/admin.c, through
-- imx_db_admin_create_user in server/db/admin.c). One call is one transaction.

-- Creates a user, or finds the one with that email (case-insensitively); sets the global admin
-- flag when asked (never clears it); sets the password only for a new user or when reset is true;
-- and, when team is given, makes the user a member with that role, creating the team (named
-- after its slug) if it does not exist. Running it again with the same arguments changes nothing
-- but the audit log, which records every run.
CREATE OR REPLACE FUNCTION imx_admin_create_user(p_email text, p_name text, p_hash text,
                                                 p_global_admin boolean, p_reset boolean,
                                                 p_team text, p_role team_role)
RETURNS TABLE (user_id bigint, created boolean, team_created boolean, role_changed boolean)
LANGUAGE plpgsql AS $$
DECLARE
    v_team bigint;
    v_old team_role;
BEGIN
    created := false;
    team_created := false;
    role_changed := false;
    SELECT u.id INTO user_id FROM users u WHERE lower(u.email) = lower(p_email) FOR UPDATE;
    IF user_id IS NULL THEN
        INSERT INTO users (email, display_name, password_hash, is_admin)
        VALUES (p_email, coalesce(p_name, ''), p_hash, p_global_admin)
        RETURNING id INTO user_id;
        created := true;
    ELSE
        UPDATE users u
           SET is_admin = u.is_admin OR p_global_admin,
               password_hash = CASE WHEN p_reset THEN p_hash ELSE u.password_hash END,
               display_name = coalesce(p_name, u.display_name)
         WHERE u.id = user_id;
    END IF;
    IF p_team IS NOT NULL THEN
        SELECT t.id INTO v_team FROM teams t WHERE t.slug = p_team;
        IF v_team IS NULL THEN
            INSERT INTO teams (slug, name) VALUES (p_team, p_team) RETURNING id INTO v_team;
            team_created := true;
        END IF;
        SELECT m.role INTO v_old FROM memberships m WHERE m.team_id = v_team AND m.user_id = imx_admin_create_user.user_id;
        IF v_old IS DISTINCT FROM p_role THEN
            INSERT INTO memberships (team_id, user_id, role) VALUES (v_team, imx_admin_create_user.user_id, p_role)
            ON CONFLICT ON CONSTRAINT memberships_pkey DO UPDATE SET role = EXCLUDED.role;
            role_changed := true;
        END IF;
    END IF;
    INSERT INTO audit_log (actor_user_id, action, resource, resource_id, request_id, detail)
    VALUES (NULL, CASE WHEN created THEN 'create' ELSE 'update' END, 'user', user_id::text,
            'imaxe-server admin',
            jsonb_build_object('email', p_email, 'global_admin', p_global_admin,
                               'password_reset', p_reset AND NOT created, 'team', p_team,
                               'role', p_role, 'team_created', team_created));
    RETURN NEXT;
END;
$$;
