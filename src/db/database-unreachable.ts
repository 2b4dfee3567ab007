/**
 * Whether an error means "the database could not be reached" (refused, reset, timed out,
 * shutting down, starting up, out of connections) rather than "the database said no" (a
 * constraint, bad input, a bug). Only the first may be waited out: the inbound spool keeps a
 * webhook it could not store for the first kind (src/conversation/inbound-spool.ts), and
 * answers 500 as before for the second.
 *
 * The error may come from pg (a Node socket error, a server error with a SQLSTATE, or one of
 * pg's own messages, which carry no code), from Prisma (a P1xxx code, or its pg adapter's
 * error kinds), or wrap one of those (`cause`, an AggregateError's `errors`).
 */
export function isDatabaseUnreachable(error: unknown): boolean {
  return visit(error, 0);
}

/** Socket-level failures Node reports by code. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EHOSTUNREACH', 'EHOSTDOWN', 'ENETUNREACH', 'ENETDOWN', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * SQLSTATEs of a server going away or not taking connections: class 08 (connection
 * exception), admin/crash shutdown, "the database system is starting up" (57P03) and
 * too many connections (53300).
 */
const SERVER_CODES = new Set(['57P01', '57P02', '57P03', '53300']);

/** Prisma: can't reach, timed out, server closed the connection, pool timeout. */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);

/** Prisma's pg adapter reports these kinds (DriverAdapterError's cause). */
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);

/** pg's own connection failures have a message and no code. */
const PG_MESSAGES = [/connection terminated/i, /timeout exceeded when trying to connect/i, /connection error and is not queryable/i, /server closed the connection unexpectedly/i];

function visit(error: unknown, depth: number): boolean {
  if (depth > 5 || typeof error !== 'object' || error === null) return false;
  const { code, kind, message, cause, errors } = error as { code?: unknown; kind?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || SERVER_CODES.has(code) || PRISMA_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return true;
  if (typeof kind === 'string' && ADAPTER_KINDS.has(kind)) return true;
  // Only an error without a code is read by its text: a coded one said what it was above.
  if (code === undefined && typeof message === 'string' && PG_MESSAGES.some((pattern) => pattern.test(message))) return true;
  if (Array.isArray(errors) && errors.some((inner) => visit(inner, depth + 1))) return true;
  return visit(cause, depth + 1);
}
