-- An occurrence of a repeating event reminder can be skipped ahead of time (the event's
-- occurrence was moved or deleted): its delivery row is written with this status, and
-- delivery steps over it.
ALTER TYPE "ReminderDeliveryStatus" ADD VALUE 'skipped';
