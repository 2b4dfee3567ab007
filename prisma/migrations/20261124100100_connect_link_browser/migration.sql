-- OAuth consent is bound to the browser that started it: the SHA-256 of a nonce kept in an
-- HttpOnly cookie there, required back at the callback.
ALTER TABLE "ConnectLink" ADD COLUMN "oauthBrowserHash" TEXT;
