-- Notes (the second brain) and contacts (the people in the user's life), issue 23.

-- CreateTable
CREATE TABLE "Note" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "title" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "tags" TEXT[],
    "language" TEXT NOT NULL,
    "sourceMessageId" UUID,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Note_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Contact" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "nicknames" TEXT[],
    "relationship" TEXT,
    "phones" TEXT[],
    "emails" TEXT[],
    "birthday" TEXT,
    "notes" TEXT,
    "source" TEXT NOT NULL,
    "sourceConnectionId" UUID,
    "sourceUid" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Contact_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Note_userId_updatedAt_idx" ON "Note"("userId", "updatedAt");

-- CreateIndex
CREATE INDEX "Contact_userId_name_idx" ON "Contact"("userId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "Contact_userId_source_sourceUid_key" ON "Contact"("userId", "source", "sourceUid");

-- AddForeignKey
ALTER TABLE "Note" ADD CONSTRAINT "Note_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Note" ADD CONSTRAINT "Note_sourceMessageId_fkey" FOREIGN KEY ("sourceMessageId") REFERENCES "Message"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Contact" ADD CONSTRAINT "Contact_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Contact" ADD CONSTRAINT "Contact_sourceConnectionId_fkey" FOREIGN KEY ("sourceConnectionId") REFERENCES "Connection"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The search index (src/search/README.md). It is derived data, rebuilt from "Note" and "Fact"
-- by the triggers below, and lives in a schema of its own, outside Prisma's: what it holds
-- depends on the server (pg_trgm's trigram index and pgvector's column are added at start-up
-- where the server has them, src/search/search-capabilities.ts), and schema.prisma describes
-- only what every server has. Rows cascade from their note or fact, so DELETE MY DATA (which
-- deletes the user row) erases them with their embeddings.
CREATE SCHEMA IF NOT EXISTS herald_search;

-- A language (ISO 639-1, e.g. "en") as the text search configuration that stems it. Hebrew
-- and Arabic letters get "simple" (no stemmer fits them); Cyrillic "russian"; a language
-- with no configuration on this server, or none known, "english" for Latin script, else "simple".
CREATE FUNCTION herald_search.config_for(language TEXT, content TEXT) RETURNS regconfig
LANGUAGE plpgsql STABLE AS $$
DECLARE
    wanted TEXT;
    found regconfig;
BEGIN
    IF content ~ '[\u0590-\u05FF\u0600-\u06FF\uFB1D-\uFDFF\uFE70-\uFEFF]' OR language IN ('he', 'iw', 'ar', 'fa', 'ur', 'yi') THEN
        RETURN 'simple'::regconfig;
    END IF;
    wanted := CASE lower(split_part(coalesce(language, ''), '-', 1))
        WHEN 'en' THEN 'english' WHEN 'es' THEN 'spanish' WHEN 'fr' THEN 'french' WHEN 'de' THEN 'german'
        WHEN 'ru' THEN 'russian' WHEN 'it' THEN 'italian' WHEN 'pt' THEN 'portuguese' WHEN 'nl' THEN 'dutch'
        WHEN 'sv' THEN 'swedish' WHEN 'da' THEN 'danish' WHEN 'fi' THEN 'finnish' WHEN 'no' THEN 'norwegian'
        WHEN 'nb' THEN 'norwegian' WHEN 'nn' THEN 'norwegian' WHEN 'tr' THEN 'turkish' WHEN 'hu' THEN 'hungarian'
        WHEN 'ro' THEN 'romanian' WHEN 'id' THEN 'indonesian' WHEN 'ga' THEN 'irish' WHEN 'lt' THEN 'lithuanian'
        WHEN 'el' THEN 'greek' WHEN 'hy' THEN 'armenian' WHEN 'eu' THEN 'basque' WHEN 'ca' THEN 'catalan'
        WHEN 'ne' THEN 'nepali' WHEN 'sr' THEN 'serbian' WHEN 'ta' THEN 'tamil' WHEN 'hi' THEN 'hindi'
        WHEN 'uk' THEN 'russian' WHEN 'be' THEN 'russian'
        ELSE NULL END;
    IF wanted IS NULL THEN
        IF content ~ '[\u0400-\u04FF]' THEN wanted := 'russian';
        ELSIF content ~ '^[[:ascii:]\u00C0-\u024F[:space:]]*$' THEN wanted := 'english';
        ELSE wanted := 'simple';
        END IF;
    END IF;
    SELECT oid::regconfig INTO found FROM pg_ts_config WHERE cfgname = wanted AND cfgnamespace = 'pg_catalog'::regnamespace;
    RETURN coalesce(found, 'simple'::regconfig);
END $$;

-- One row per note and fact. `text` is what trigram similarity reads (the start of a long
-- note is enough for typos in its subject); `content_hash` is the MD5 of what is embedded,
-- so an edit that changes the words drops the embedding and an edit that does not keeps it.
CREATE TABLE herald_search.document (
    id UUID PRIMARY KEY,
    user_id UUID NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('note', 'fact')),
    note_id UUID REFERENCES "Note"("id") ON DELETE CASCADE,
    fact_id UUID REFERENCES "Fact"("id") ON DELETE CASCADE,
    config regconfig NOT NULL,
    tsv TSVECTOR NOT NULL,
    text TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    embedding REAL[],
    embedding_model TEXT,
    embedding_tokens INTEGER,
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    CHECK ((kind = 'note') = (note_id IS NOT NULL) AND (kind = 'fact') = (fact_id IS NOT NULL))
);
CREATE INDEX document_user_kind_idx ON herald_search.document (user_id, kind);
-- The configurations a user's documents use, read by a skip scan (a few index probes, not 10,000 rows).
CREATE INDEX document_user_config_idx ON herald_search.document (user_id, config);
CREATE INDEX document_tsv_idx ON herald_search.document USING GIN (tsv);
-- Rows still waiting for an embedding (a new note, an edited one, a service that was down).
CREATE INDEX document_unembedded_idx ON herald_search.document (user_id) WHERE embedding IS NULL;

CREATE FUNCTION herald_search.upsert_document(doc_id UUID, owner UUID, doc_kind TEXT, cfg regconfig, vector TSVECTOR, doc_text TEXT)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    hash TEXT := md5(doc_text);
BEGIN
    INSERT INTO herald_search.document AS d (id, user_id, kind, note_id, fact_id, config, tsv, text, content_hash, updated_at)
    VALUES (doc_id, owner, doc_kind, CASE WHEN doc_kind = 'note' THEN doc_id END, CASE WHEN doc_kind = 'fact' THEN doc_id END,
            cfg, vector, left(doc_text, 4000), hash, now())
    ON CONFLICT (id) DO UPDATE SET
        config = EXCLUDED.config, tsv = EXCLUDED.tsv, text = EXCLUDED.text, content_hash = EXCLUDED.content_hash, updated_at = EXCLUDED.updated_at,
        embedding = CASE WHEN d.content_hash = EXCLUDED.content_hash THEN d.embedding END,
        embedding_model = CASE WHEN d.content_hash = EXCLUDED.content_hash THEN d.embedding_model END,
        embedding_tokens = CASE WHEN d.content_hash = EXCLUDED.content_hash THEN d.embedding_tokens END;
END $$;

-- Title weighs most, then tags, then the body.
CREATE FUNCTION herald_search.index_note() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    cfg regconfig := herald_search.config_for(NEW."language", NEW."title" || ' ' || left(NEW."body", 2000));
    tag_text TEXT := coalesce(array_to_string(NEW."tags", ' '), '');
BEGIN
    IF TG_OP = 'UPDATE' AND (OLD."title", OLD."body", OLD."tags", OLD."language") IS NOT DISTINCT FROM (NEW."title", NEW."body", NEW."tags", NEW."language") THEN
        RETURN NULL;
    END IF;
    PERFORM herald_search.upsert_document(NEW."id", NEW."userId", 'note', cfg,
        setweight(to_tsvector(cfg, NEW."title"), 'A') || setweight(to_tsvector(cfg, tag_text), 'B') || setweight(to_tsvector(cfg, NEW."body"), 'C'),
        NEW."title" || E'\n' || tag_text || E'\n' || NEW."body");
    RETURN NULL;
END $$;

-- A fact is in the user's language (their profile's), or its own script's.
CREATE FUNCTION herald_search.index_fact() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    cfg regconfig := herald_search.config_for((SELECT "language" FROM "User" WHERE "id" = NEW."userId"), NEW."content");
BEGIN
    IF TG_OP = 'UPDATE' AND (OLD."content", OLD."subject") IS NOT DISTINCT FROM (NEW."content", NEW."subject") THEN
        RETURN NULL;
    END IF;
    PERFORM herald_search.upsert_document(NEW."id", NEW."userId", 'fact', cfg,
        setweight(to_tsvector(cfg, NEW."content"), 'A') || setweight(to_tsvector(cfg, coalesce(NEW."subject", '')), 'B'),
        NEW."content");
    RETURN NULL;
END $$;

-- On every insert and update (no column list: a trigger naming columns would pin them, and the
-- functions skip updates that leave the indexed words alone).
CREATE TRIGGER "Note_search_index" AFTER INSERT OR UPDATE ON "Note" FOR EACH ROW EXECUTE FUNCTION herald_search.index_note();
CREATE TRIGGER "Fact_search_index" AFTER INSERT OR UPDATE ON "Fact" FOR EACH ROW EXECUTE FUNCTION herald_search.index_fact();

-- Facts saved before this migration.
INSERT INTO herald_search.document (id, user_id, kind, fact_id, config, tsv, text, content_hash)
SELECT f."id", f."userId", 'fact', f."id", c.cfg,
       setweight(to_tsvector(c.cfg, f."content"), 'A') || setweight(to_tsvector(c.cfg, coalesce(f."subject", '')), 'B'),
       left(f."content", 4000), md5(f."content")
  FROM "Fact" f JOIN "User" u ON u."id" = f."userId",
       LATERAL (SELECT herald_search.config_for(u."language", f."content") AS cfg) c;

-- Cosine similarity of two stored embeddings, for servers without pgvector
-- (src/search/vector-leg.ts uses pgvector's operator where the server has it).
CREATE FUNCTION herald_search.cosine(a REAL[], b REAL[]) RETURNS DOUBLE PRECISION
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT sum(x::float8 * y) / nullif(sqrt(sum(x::float8 * x)) * sqrt(sum(y::float8 * y)), 0) FROM unnest(a, b) AS t(x, y)
$$;

-- OR of tsqueries: a query is parsed once per configuration the user's documents use.
CREATE AGGREGATE herald_search.tsquery_or_agg(tsquery) (SFUNC = tsquery_or, STYPE = tsquery);
