-- imaxe:load functions/pins.sql

