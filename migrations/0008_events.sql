-- Webhook events from every producer, in the transaction of the change: the JSON each event
-- type carries, the SQL entry points handlers call (server/db/events.c), patch.available from
-- the patch_events staging rows (a trigger: each row is written once, so each event is sent
-- once) and request.updated when a published image matches an open request. Routing (README
-- "Webhooks"): catalog events go to every team's subscriptions, team events to that team's.

-- imaxe:load functions/events.sql

