-- An inbound message keeps the W3C trace context of the webhook that stored it, so the
-- turn that answers it (on any instance, after a crash too) continues the same trace.
-- Null when tracing is off.
ALTER TABLE "Message" ADD COLUMN "traceContext" TEXT;
