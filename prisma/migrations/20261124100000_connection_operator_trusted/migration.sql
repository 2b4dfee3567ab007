-- A connection the operator made (`npm run accounts -- add-caldav|add-imap`) may reach any
-- address, private ones included; a user's reaches only public addresses and
-- CONNECT_ALLOWED_HOSTS (src/net). Existing connections count as the users' own.
ALTER TABLE "Connection" ADD COLUMN "operatorTrusted" BOOLEAN NOT NULL DEFAULT false;
