import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './herald-process.js';

/** Where Debian's `radicale` package puts the server (`.ci/run` installs it). */
const RADICALE = process.env.HERALD_RADICALE ?? '/usr/bin/radicale';

/**
 * A real Radicale CalDAV server (Debian's `radicale` package) for the tests: its own port,
 * its users (plain htpasswd) and storage under a temporary directory, started in a few
 * seconds and removed on stop. Ready is the moment it logs that it is listening, not a
 * guessed delay.
 */
export class RadicaleServer {
  private constructor(
    readonly url: string,
    private readonly process: ChildProcess,
    private readonly directory: string,
  ) {}

  static async start(users: Record<string, string>): Promise<RadicaleServer> {
    const directory = await mkdtemp(path.join(tmpdir(), 'herald-radicale-'));
    const port = await freePort();
    await writeFile(path.join(directory, 'users'), Object.entries(users).map(([name, password]) => `${name}:${password}`).join('\n'));
    await writeFile(
      path.join(directory, 'config'),
      [
        '[server]',
        `hosts = 127.0.0.1:${port}`,
        '[auth]',
        'type = htpasswd',
        `htpasswd_filename = ${path.join(directory, 'users')}`,
        'htpasswd_encryption = plain',
        'delay = 0',
        '[rights]',
        'type = owner_only',
        '[storage]',
        `filesystem_folder = ${path.join(directory, 'collections')}`,
        '[web]',
        'type = none',
        '[logging]',
        'level = info',
        'mask_passwords = True',
      ].join('\n'),
    );
    const child = spawn(RADICALE, ['--config', path.join(directory, 'config')], { stdio: ['ignore', 'pipe', 'pipe'] });
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (/Listening on|Radicale server ready/.test(output)) {
          child.stderr?.off('data', onData);
          child.stdout?.off('data', onData);
          resolve();
        }
      };
      child.stderr?.on('data', onData);
      child.stdout?.on('data', onData);
      child.once('error', (error) => reject(new Error(`Radicale could not start (${error.message}); install Debian's radicale package (.ci/run does)`)));
      child.once('exit', (code) => reject(new Error(`Radicale exited with code ${code} before it was ready:\n${output}`)));
    });
    // Keep draining its log so the pipe never fills up.
    child.stderr?.resume();
    child.stdout?.resume();
    return new RadicaleServer(`http://127.0.0.1:${port}`, child, directory);
  }

  /** Makes a calendar collection for `user` and returns its URL. */
  async createCalendar(user: string, password: string, name: string, displayName = name): Promise<string> {
    const url = `${this.url}/${user}/${name}/`;
    const response = await fetch(url, {
      method: 'MKCALENDAR',
      headers: { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`, 'content-type': 'application/xml' },
      body: `<?xml version="1.0" encoding="utf-8"?><C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:set><D:prop><D:displayname>${displayName}</D:displayname><C:supported-calendar-component-set><C:comp name="VEVENT"/></C:supported-calendar-component-set></D:prop></D:set></C:mkcalendar>`,
    });
    if (response.status !== 201) throw new Error(`MKCALENDAR ${url} answered ${response.status}: ${await response.text()}`);
    return url;
  }

  async stop(): Promise<void> {
    if (this.process.exitCode === null) {
      const exited = new Promise((resolve) => this.process.once('exit', resolve));
      this.process.kill('SIGTERM');
      await exited;
    }
    await rm(this.directory, { recursive: true, force: true });
  }
}
