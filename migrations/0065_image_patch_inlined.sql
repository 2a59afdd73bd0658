-- imaxe:load functions/image_docs.sql

