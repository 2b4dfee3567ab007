-- Issue 31 item 4: a send whose outcome is unknown (the request may have reached Twilio: a
-- timeout, a connection reset after the request was written, a sender that died mid-send) is
-- never resent blind. The start of the first such attempt is kept; before any resend the outbox
-- looks the message up at Twilio (To, From, DateSent from that day, the body, created after
-- it) and records the sid it finds instead of sending again.
ALTER TABLE "OutboundMessage" ADD COLUMN "unknownSince" TIMESTAMP(3);
