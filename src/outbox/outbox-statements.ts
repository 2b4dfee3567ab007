// The outbox's hot-path statements, in plain SQL prepared once per connection (preparedName):
// they run once or twice per message sent, and through Prisma they cost several times the CPU.
// Timestamps go in as UTC `timestamp(3)` text (sqlTimestamp) and come back as epoch
// milliseconds, as Prisma stores DateTime columns. updatedAt is the wall clock, as Prisma's
// @updatedAt writes it.

/**
 * A part Twilio accepted (or the look-up found there): $1 id, $2 status, $3 its rank, $4 the
 * sid, $5 sentAt, $6 updatedAt. A status callback that got there first is not moved back.
 */
export const RECORD_SENT = `UPDATE "OutboundMessage"
SET "status" = $2::"OutboundStatus", "statusRank" = $3::int, "twilioSid" = $4, "sentAt" = $5::timestamp, "nextAttemptAt" = NULL, "updatedAt" = $6::timestamp
WHERE "id" = $1::uuid AND "statusRank" <= $3::int`;

/**
 * Claims a part for one send: exactly one sender dispatches it. $1 id, $2 the dispatching
 * rank, $3 now, $4 when this claim lapses, $5 how long a claim lasts (ms), $6 updatedAt.
 * A pending part is taken once its retry time has come; a `dispatching` one only once its
 * claim lapsed, and then its sender died mid-send: that send may have reached Twilio, so the
 * part's outcome becomes unknown from when that claim was taken (`unknownSince`), and the
 * next send looks it up first. Returns the row as it is now (another sender may have changed
 * it since the caller read it).
 */
export const CLAIM_PART = `UPDATE "OutboundMessage"
SET "status" = 'dispatching', "statusRank" = $2::int, "attempts" = "attempts" + 1, "nextAttemptAt" = $4::timestamp,
    "unknownSince" = CASE WHEN "status" = 'dispatching'
                          THEN COALESCE("unknownSince", "nextAttemptAt" - $5::int * interval '1 millisecond')
                          ELSE "unknownSince" END,
    "updatedAt" = $6::timestamp
WHERE "id" = $1::uuid
  AND (("status" = 'pending' AND ("nextAttemptAt" IS NULL OR "nextAttemptAt" <= $3::timestamp))
       OR ("status" = 'dispatching' AND "nextAttemptAt" < $3::timestamp))
RETURNING "attempts", "body",
          (extract(epoch FROM "unknownSince") * 1000)::float8 AS "unknownSince",
          (extract(epoch FROM "createdAt") * 1000)::float8 AS "createdAt"`;

/** What {@link CLAIM_PART} returns. */
export interface ClaimedRow {
  attempts: number;
  body: string;
  unknownSince: number | null;
  createdAt: number;
}

/**
 * Whether the user has a part written before the group $2 that is held back (Twilio failed it
 * and it waits for its retry, or its sender died mid-send and its claim lapsed; $3 now):
 * sending the group first would overtake a message that waited. A part merely on its way
 * (just written, or being sent) is its own sender's: the group is not held for it. $1 the user.
 */
export const WAITS_BEHIND = `SELECT EXISTS (
  SELECT 1 FROM "OutboundMessage" o
   WHERE o."userId" = $1::uuid AND o."status" IN ('pending', 'dispatching') AND o."groupId" <> $2::uuid
     AND ((o."status" = 'pending' AND o."nextAttemptAt" IS NOT NULL) OR (o."status" = 'dispatching' AND o."nextAttemptAt" < $3::timestamp))
     AND o."sequence" < (SELECT min(g."sequence") FROM "OutboundMessage" g WHERE g."groupId" = $2::uuid)
) AS "behind"`;

/** Gives back a part written already claimed ($1), untried: pending again, its attempt not counted. */
export const RELEASE_CLAIM = `UPDATE "OutboundMessage"
SET "status" = 'pending', "statusRank" = 0, "attempts" = GREATEST(0, "attempts" - 1), "nextAttemptAt" = NULL
WHERE "id" = $1::uuid AND "status" = 'dispatching'`;
