-- Issue 24: RCS as a channel, one-tap answers, "typing…" while Herald thinks.

-- RCS (through a Messaging Service with an RCS sender; Twilio falls back to SMS itself).
ALTER TYPE "Channel" ADD VALUE 'rcs';

-- Inbound: the payload of the button the user tapped (ButtonPayload), when the message is a tap.
ALTER TABLE "Message" ADD COLUMN "buttonPayload" TEXT;
-- Inbound WhatsApp: when the typing indicator was sent for this message (at most once, even
-- when its turn runs again after a crash).
ALTER TABLE "Message" ADD COLUMN "typingIndicatedAt" TIMESTAMP(3);

-- Outbound: the channel the message really went out on, from the status callback (an RCS
-- message Twilio fell back to SMS for is "sms").
ALTER TABLE "OutboundMessage" ADD COLUMN "finalChannel" "Channel";

-- Content API contents Herald made (a quick reply, a list picker of n items): made once per
-- shape, then sent by SID with variables.
CREATE TABLE "ContentShape" (
    "shape" TEXT NOT NULL,
    "contentSid" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ContentShape_pkey" PRIMARY KEY ("shape")
);
