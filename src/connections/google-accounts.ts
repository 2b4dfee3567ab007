import { CodeChallengeMethod, OAuth2Client, type Credentials } from 'google-auth-library';
import { z } from 'zod';
import type { Logger } from '../logging/logger.js';
import { ConfigurationError, ToolError } from '../shared/errors.js';
import type { ConnectionRecord, ConnectionStore } from './connection-store.js';

/** Google's OAuth settings (GOOGLE_* variables). */
export interface GoogleSettings {
  clientId: string;
  clientSecret: string;
  authUrl: string;
  tokenUrl: string;
  /** Where a grant is revoked when the last feature stops using a connection. */
  revokeUrl: string;
  apiBaseUrl: string;
}

/** What a Google connection keeps sealed. */
export const googleSecretsSchema = z.object({
  refreshToken: z.string().min(1),
  accessToken: z.string().optional(),
  /** Epoch milliseconds. */
  expiresAt: z.number().optional(),
});

/** Google took Herald's access away (revoked, or the refresh token expired): the user must connect again. */
export class GoogleAccessRevokedError extends ToolError {
  constructor(label: string) {
    super(`Google no longer lets Herald into ${label} (access was revoked or has expired). Nothing was changed. Ask the user to connect again by texting "connect my Google calendar".`);
  }
}

/** The scopes every Google connection asks for: who the account is. Features add theirs (incremental consent). */
const IDENTITY_SCOPES = ['openid', 'email'];
/** How Google names the identity scopes in a token's scope list. */
const IDENTITY_SCOPE_NAMES = new Set([...IDENTITY_SCOPES, 'https://www.googleapis.com/auth/userinfo.email']);

/** The scopes a feature (calendar, mail) uses, as opposed to who the account is. */
function featureScopes(scopes: string[]): string[] {
  return scopes.filter((scope) => !IDENTITY_SCOPE_NAMES.has(scope));
}

/**
 * Google accounts: OAuth 2.0 authorization code with PKCE (S256) and offline access, for a
 * connection whose scopes grow as features are added (calendar now, Gmail next: the same
 * connection, `include_granted_scopes`). Clients made here refresh an expired access
 * token on their own and store the new one sealed; a refresh Google refuses
 * (`invalid_grant`) marks the connection as needing a reconnect.
 */
export class GoogleAccounts {
  constructor(
    private readonly settings: GoogleSettings,
    private readonly redirectUri: string,
    private readonly connections: ConnectionStore,
    private readonly logger: Logger,
  ) {}

  /** Google's consent page for these scopes, bound to the link by `state` and to this browser by the PKCE challenge. */
  consentUrl(scopes: string[], state: string, codeChallenge: string): string {
    return this.oauthClient().generateAuthUrl({
      access_type: 'offline',
      // Asks again even when granted before, so Google returns a refresh token every time.
      prompt: 'consent',
      include_granted_scopes: true,
      scope: [...IDENTITY_SCOPES, ...scopes],
      state,
      code_challenge: codeChallenge,
      code_challenge_method: CodeChallengeMethod.S256,
    });
  }

  /**
   * What a consent page should ask for: `requested`, plus what the user's Google connections
   * that lost their access (revoked, expired) were used for, so one reconnect brings back the
   * calendar and the mail together. An active connection only gains what is asked now.
   */
  async scopesFor(userId: string, requested: string[]): Promise<string[]> {
    const broken = (await this.connections.list(userId)).filter((connection) => connection.provider === 'google' && connection.status === 'needs_reconnect');
    return [...new Set([...requested, ...broken.flatMap((connection) => featureScopes(connection.scopes))])];
  }

  /**
   * Exchanges the code (with its verifier) and saves the user's Google connection: one per
   * Google account, whatever features it serves. The scopes recorded are those the new token
   * really has (with `include_granted_scopes`, earlier grants too) among the ones Herald uses
   * for it: what was `requested` now, and what the connection was already used for. A scope
   * a feature gave up (disconnecting the calendar) is not brought back by Google's memory of it.
   */
  async connect(userId: string, code: string, verifier: string, requested: string[]): Promise<ConnectionRecord> {
    const { tokens } = await this.oauthClient().getToken({ code, codeVerifier: verifier });
    if (!tokens.refresh_token) throw new ConfigurationError('Google did not return a refresh token, so Herald could not stay connected. Try connecting again.');
    const email = emailOf(tokens.id_token) ?? 'Google account';
    const existing = (await this.connections.list(userId)).find((connection) => connection.provider === 'google' && connection.account === email);
    const used = new Set([...IDENTITY_SCOPES, ...requested, ...(existing?.scopes ?? [])]);
    const granted = tokens.scope?.split(/\s+/).filter(Boolean) ?? [];
    const scopes = [...new Set(granted.filter((scope) => used.has(scope) || IDENTITY_SCOPE_NAMES.has(scope)))];
    return this.connections.save(userId, {
      provider: 'google',
      account: email,
      label: `Google (${email})`,
      scopes,
      settings: { ...existing?.settings },
      secrets: { refreshToken: tokens.refresh_token, accessToken: tokens.access_token ?? undefined, expiresAt: tokens.expiry_date ?? undefined },
    });
  }

  /** An authorised client for the connection; throws {@link GoogleAccessRevokedError} when it needs a reconnect. */
  async client(connection: ConnectionRecord): Promise<OAuth2Client> {
    if (connection.status === 'needs_reconnect') throw new GoogleAccessRevokedError(connection.label);
    const secrets = await this.connections.secrets(connection, googleSecretsSchema);
    const client = this.oauthClient();
    client.setCredentials({ refresh_token: secrets.refreshToken, access_token: secrets.accessToken ?? null, expiry_date: secrets.expiresAt ?? null });
    client.on('tokens', (tokens: Credentials) => {
      // A refresh: keep the new access token (and a rotated refresh token, should Google send one).
      void this.connections
        .updateSecrets(connection.id, {
          refreshToken: tokens.refresh_token ?? secrets.refreshToken,
          accessToken: tokens.access_token ?? undefined,
          expiresAt: tokens.expiry_date ?? undefined,
        })
        .catch((error: unknown) => this.logger.warn({ connectionId: connection.id, error: String(error) }, 'could not store a refreshed Google token'));
    });
    return client;
  }

  /** When Google refused the refresh token: marks the connection and returns the error to report. */
  async revoked(connection: ConnectionRecord): Promise<GoogleAccessRevokedError> {
    await this.connections.markNeedsReconnect(connection.id);
    this.logger.warn({ connectionId: connection.id, userId: connection.userId }, 'Google refused the refresh token; the connection needs a reconnect');
    return new GoogleAccessRevokedError(connection.label);
  }

  /**
   * A feature stops using a Google connection: its `scopes` are dropped from it. When no
   * feature is left using it, the connection is deleted and Herald's grant revoked at Google
   * (best effort: the credentials are gone from Herald either way). Says which happened.
   */
  async release(connection: ConnectionRecord, scopes: string[]): Promise<'kept' | 'deleted'> {
    const remaining = connection.scopes.filter((scope) => !scopes.includes(scope));
    if (featureScopes(remaining).length > 0) {
      await this.connections.updateScopes(connection.id, remaining);
      this.logger.info({ connectionId: connection.id, userId: connection.userId, released: scopes }, 'Google connection kept for its other uses');
      return 'kept';
    }
    const secrets = await this.connections.secrets(connection, googleSecretsSchema).catch(() => undefined);
    await this.connections.remove(connection.userId, connection.id);
    if (secrets) await this.revokeGrant(connection.id, secrets.refreshToken);
    this.logger.info({ connectionId: connection.id, userId: connection.userId }, 'Google connection deleted: nothing uses it any more');
    return 'deleted';
  }

  /**
   * For DELETE MY DATA: reads the user's Google grants now, while their credentials still
   * exist, and returns what revokes them at Google once the erase has committed (not
   * before: an erase that fails leaves the user's accounts working).
   */
  async revocationFor(userId: string): Promise<() => Promise<void>> {
    const grants: Array<{ connectionId: string; refreshToken: string }> = [];
    for (const connection of await this.connections.list(userId)) {
      if (connection.provider !== 'google') continue;
      const secrets = await this.connections.secrets(connection, googleSecretsSchema).catch(() => undefined);
      if (secrets) grants.push({ connectionId: connection.id, refreshToken: secrets.refreshToken });
    }
    return async () => {
      for (const grant of grants) await this.revokeGrant(grant.connectionId, grant.refreshToken);
    };
  }

  /** Revokes a grant at Google, best effort: the credentials are gone from Herald either way. */
  private async revokeGrant(connectionId: string, refreshToken: string): Promise<void> {
    await this.oauthClient()
      .revokeToken(refreshToken)
      .catch((error: unknown) => this.logger.warn({ connectionId, error: String(error) }, 'Google did not confirm revoking the grant; the credentials are deleted from Herald'));
  }

  /** The API base URL clients are pointed at (Google's, or a test's fake). */
  get apiBaseUrl(): string {
    return this.settings.apiBaseUrl;
  }

  private oauthClient(): OAuth2Client {
    return new OAuth2Client({
      clientId: this.settings.clientId,
      clientSecret: this.settings.clientSecret,
      redirectUri: this.redirectUri,
      endpoints: { oauth2AuthBaseUrl: this.settings.authUrl, oauth2TokenUrl: this.settings.tokenUrl, oauth2RevokeUrl: this.settings.revokeUrl },
    });
  }
}

/** True for Google's answer to a refresh token it no longer honours. */
export function isInvalidGrant(error: unknown): boolean {
  const data = (error as { response?: { data?: unknown } } | undefined)?.response?.data;
  return typeof data === 'object' && data !== null && (data as { error?: unknown }).error === 'invalid_grant';
}

/**
 * The email in the ID token from the token endpoint. Read without checking its signature:
 * it came straight from Google's token endpoint over TLS, which OpenID Connect allows.
 */
function emailOf(idToken: string | null | undefined): string | undefined {
  const payload = idToken?.split('.')[1];
  if (!payload) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { email?: unknown };
    return typeof claims.email === 'string' ? claims.email : undefined;
  } catch {
    return undefined;
  }
}
