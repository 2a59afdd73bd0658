-- Foundation: helpers every later migration relies on.

-- imaxe:load functions/version.sql

