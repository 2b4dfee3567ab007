-- Erasing a note or a fact cascades to its document by note_id or fact_id: without these, each
-- erased note read the whole table (60 ms a note at 100,000 documents; minutes for DELETE MY
-- DATA of a user with 10,000 notes).
CREATE INDEX document_note_id_idx ON herald_search.document (note_id);
CREATE INDEX document_fact_id_idx ON herald_search.document (fact_id);
-- What the in-process vector cache reads before each search (src/search/vector-cache.ts): the
-- user's embedded documents and their hashes, from the index alone.
CREATE INDEX document_user_embedded_idx ON herald_search.document (user_id, embedding_model) INCLUDE (id, content_hash, kind) WHERE embedding IS NOT NULL;

-- Each user's vocabulary: the distinct words of their notes and facts, with how many documents
-- hold each (src/search/README.md "Trigrams"). Typos and pieces of longer words are looked up
-- here by trigram similarity (a few thousand short words per user, under an index) and the
-- words found are then searched by full-text search, instead of comparing the query word with
-- every document's text (tens of thousands of long strings). Derived data kept by the trigger
-- below on herald_search.document, so a word leaves when the last note or fact holding it is
-- edited or erased (DELETE MY DATA cascades to the documents, and so empties it).
-- `word` sorts byte by byte (COLLATE "C"), so "words starting with" is an index range.
CREATE TABLE herald_search.word (
    user_id UUID NOT NULL,
    word TEXT COLLATE "C" NOT NULL,
    documents INTEGER NOT NULL,
    PRIMARY KEY (user_id, word)
);

-- The words a document contributes: its tokens lower-cased and unstemmed ("simple"), three to
-- forty letters (shorter ones are never looked up by similarity; longer ones are not words).
CREATE FUNCTION herald_search.words_of(content TEXT) RETURNS TEXT[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(array_agg(w ORDER BY w), '{}') FROM unnest(tsvector_to_array(to_tsvector('simple'::regconfig, coalesce(content, '')))) AS w
     WHERE char_length(w) BETWEEN 3 AND 40
$$;

-- Two transactions writing one user's documents would update the same common words ("the") in
-- different orders across statements and could deadlock: the first takes the user's advisory
-- lock until it commits, so the second waits for it once, up front, holding nothing.
CREATE FUNCTION herald_search.count_words() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    gone_users UUID[];
    gone_words TEXT[];
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.text = NEW.text AND OLD.user_id = NEW.user_id THEN
        RETURN NULL;
    END IF;
    -- The user is being erased (DELETE MY DATA cascades to every document): their whole
    -- vocabulary goes at the first document, instead of counting each word down once per note.
    IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT 1 FROM "User" WHERE "id" = OLD.user_id) THEN
        DELETE FROM herald_search.word WHERE user_id = OLD.user_id;
        RETURN NULL;
    END IF;
    PERFORM pg_advisory_xact_lock(hashtextextended('herald_search.word ' || (CASE WHEN TG_OP = 'DELETE' THEN OLD.user_id ELSE NEW.user_id END)::text, 0));
    WITH changes AS (
        SELECT user_id, word, sum(delta)::int AS delta FROM (
            SELECT OLD.user_id AS user_id, w AS word, -1 AS delta FROM unnest(herald_search.words_of(OLD.text)) AS w WHERE TG_OP <> 'INSERT'
            UNION ALL
            SELECT NEW.user_id, w, 1 FROM unnest(herald_search.words_of(NEW.text)) AS w WHERE TG_OP <> 'DELETE'
        ) AS both_sides GROUP BY user_id, word HAVING sum(delta) <> 0
    ), applied AS (
        INSERT INTO herald_search.word AS existing (user_id, word, documents)
        SELECT user_id, word, delta FROM changes ORDER BY user_id, word
        ON CONFLICT (user_id, word) DO UPDATE SET documents = existing.documents + EXCLUDED.documents
        RETURNING existing.user_id, existing.word, existing.documents
    )
    SELECT array_agg(user_id), array_agg(word) INTO gone_users, gone_words FROM applied WHERE documents <= 0;
    IF gone_words IS NOT NULL THEN
        DELETE FROM herald_search.word w USING unnest(gone_users, gone_words) AS g(user_id, word)
         WHERE w.user_id = g.user_id AND w.word = g.word AND w.documents <= 0;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER document_words AFTER INSERT OR UPDATE OR DELETE ON herald_search.document FOR EACH ROW EXECUTE FUNCTION herald_search.count_words();

-- Documents indexed before this migration.
INSERT INTO herald_search.word (user_id, word, documents)
SELECT d.user_id, w, count(*) FROM herald_search.document d, unnest(herald_search.words_of(d.text)) AS w GROUP BY d.user_id, w;
