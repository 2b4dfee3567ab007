import twilio from 'twilio';
// Type-only deep import: the package's top-level typings expose RequestClient as a value and a
// type but not its namespace, which is where RequestOptions and RequestClientOptions live.
import type TwilioRequestClient from 'twilio/lib/base/RequestClient.js';
import { withoutTrailingSlashes } from '../shared/text-ends.js';

/** Options for Twilio's HTTP client (timeout, keep-alive, autoRetry…), as the SDK declares them. */
type RequestClientOptions = TwilioRequestClient.RequestClientOptions;

/**
 * Moves a Twilio API URI onto another server: the scheme, host and port of `uri` are replaced by
 * those of `baseUrl`, and any path in `baseUrl` is put in front of the original path. The query
 * string is kept.
 *
 * `https://api.twilio.com/2010-04-01/Accounts/AC1/Messages.json` with base
 * `http://127.0.0.1:4010/twilio` becomes `http://127.0.0.1:4010/twilio/2010-04-01/Accounts/AC1/Messages.json`.
 */
export function redirectTwilioUri(uri: string, baseUrl: string): string {
  const original = new URL(uri);
  const base = new URL(baseUrl);
  // A trailing slash on the base would otherwise produce "//2010-04-01/…".
  const prefix = withoutTrailingSlashes(base.pathname);
  return `${base.origin}${prefix}${original.pathname}${original.search}`;
}

/**
 * Twilio's own HTTP client, pointed at a Twilio-compatible server instead of *.twilio.com.
 * The SDK builds absolute URIs per product (api.twilio.com, messaging.twilio.com…) and has no
 * base-URL setting, so the one place to redirect every call is the client that sends them.
 */
class RedirectingRequestClient extends twilio.RequestClient {
  /** The server every request goes to, validated at construction so a typo fails at startup. */
  readonly baseUrl: string;

  constructor(baseUrl: string, options?: RequestClientOptions) {
    super(options);
    const parsed = new URL(baseUrl);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new TypeError(`Twilio API base URL must be http or https, got ${parsed.protocol}`);
    }
    this.baseUrl = baseUrl;
  }

  /** Sends the request as Twilio's client would, only to `baseUrl`. */
  override request<TData>(options: TwilioRequestClient.RequestOptions<TData>) {
    return super.request<TData>({ ...options, uri: redirectTwilioUri(options.uri, this.baseUrl) });
  }
}

/** What Herald needs to talk to Twilio. */
export interface TwilioClientOptions {
  accountSid: string;
  authToken: string;
  /** A Twilio-compatible server (a fake in tests); unset means the real Twilio API. */
  apiBaseUrl?: string | undefined;
  /** Per-request timeout; unset means the SDK's default of 30 seconds. */
  timeoutMs?: number | undefined;
  /** An API key (SK…) to authenticate with instead of the auth token. */
  apiKey?: { sid: string; secret: string } | undefined;
}

/**
 * A Twilio REST client with the SDK's automatic retry switched off: Herald retries sends
 * itself (through the outbox) and must see every 429 to account for it, and a second
 * retry layer inside the SDK would multiply attempts and hide how long a send really took.
 */
export function createTwilioClient(options: TwilioClientOptions): twilio.Twilio {
  const clientOptions: RequestClientOptions = {
    autoRetry: false,
    ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
  };
  const httpClient = options.apiBaseUrl
    ? new RedirectingRequestClient(options.apiBaseUrl, clientOptions)
    : new twilio.RequestClient(clientOptions);
  // autoRetry here only matters if the SDK ever builds its own client; set it anyway so the
  // intent survives someone removing the explicit httpClient.
  if (options.apiKey) return twilio(options.apiKey.sid, options.apiKey.secret, { accountSid: options.accountSid, httpClient, autoRetry: false });
  return twilio(options.accountSid, options.authToken, { httpClient, autoRetry: false });
}
