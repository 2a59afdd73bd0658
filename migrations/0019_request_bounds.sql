-- Bounded image-request documents (issue 17), and the indexes the quotas count with: a request carries its matches and comments as
-- their counts plus the first p_max of each, with a link to the paged list of all its matches,
-- so a page of requests has a size that does not grow with the catalog or a discussion.

-- imaxe:load functions/requests.sql

-- The measurements a team recorded in the last day, counted for its quota.
CREATE INDEX measurements_team_created ON measurements (team_id, created_at);

-- Open requests per team and per member, counted for the quotas at creation.
CREATE INDEX image_requests_open_team ON image_requests (team_id)
  WHERE state IN ('open', 'approved', 'building');
CREATE INDEX image_requests_open_creator ON image_requests (created_by)
  WHERE state IN ('open', 'approved', 'building');
