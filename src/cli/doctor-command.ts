import { loadConfig } from '../config/config.js';
import { createTwilioClient } from '../channels/twilio-request-client.js';
import { ConfigurationError } from '../shared/errors.js';
import { diagnose, formatReports } from './twilio-doctor.js';

/**
 * `npm run doctor`: reads this deployment's Twilio configuration through the API and prints,
 * channel by channel, what is wrong (README "Channels and their rules"). Exit 0 when every
 * configured channel is ready, 1 when something is wrong, 78 when Herald's own settings are
 * missing (no Twilio credentials, no PUBLIC_BASE_URL).
 */
async function main(): Promise<number> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigurationError) {
      process.stderr.write(`${error.message}\n`);
      return 78;
    }
    throw error;
  }
  const { accountSid, authToken, apiBaseUrl, timeoutMs } = config.twilio;
  if (!accountSid || !authToken || !process.env.PUBLIC_BASE_URL) {
    process.stderr.write('npm run doctor needs TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and PUBLIC_BASE_URL: it checks the Twilio account against them.\n');
    return 78;
  }
  const client = createTwilioClient({ accountSid, authToken, apiBaseUrl, timeoutMs });
  const reports = await diagnose(client, {
    publicBaseUrl: config.http.publicBaseUrl,
    smsFrom: config.twilio.smsFrom,
    whatsappFrom: config.twilio.whatsappFrom,
    messagingServiceSid: config.twilio.messagingServiceSid,
    whatsappReminderContentSid: config.twilio.whatsappReminderContentSid,
  });
  process.stdout.write(formatReports(reports));
  return reports.some((report) => report.problems.length > 0) ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`The check failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
