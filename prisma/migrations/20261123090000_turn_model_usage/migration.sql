-- What each turn's model calls cost, and which models answered them (a fallback shows up as its own entry).
ALTER TABLE "Turn" ADD COLUMN "cacheReadTokens" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN "cacheWriteTokens" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN "costUsd" DECIMAL(12,6) NOT NULL DEFAULT 0,
ADD COLUMN "models" JSONB;
