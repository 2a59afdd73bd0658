
-- imaxe:load functions/lineage.sql
