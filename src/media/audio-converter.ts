import { spawn } from 'node:child_process';

/** Why audio could not be converted. */
export type ConversionProblem = 'ffmpeg_missing' | 'unreadable' | 'timeout';

/**
 * Converts audio the transcription endpoint does not take (AMR from MMS, 3GPP) to 16 kHz
 * mono WAV with ffmpeg (Debian's `ffmpeg` package, installed in the image): bytes in on
 * stdin, WAV out on stdout, nothing on disk. WAV needs no encoder library and every
 * endpoint takes it; 16 kHz is what speech models listen at.
 */
export async function convertToWav(
  bytes: Buffer,
  options: { ffmpegPath: string; timeoutMs: number; maxOutputBytes: number; signal?: AbortSignal | undefined },
): Promise<{ ok: true; wav: Buffer } | { ok: false; problem: ConversionProblem; detail: string }> {
  return new Promise((resolve) => {
    const child = spawn(options.ffmpegPath, ['-hide_banner', '-loglevel', 'error', '-nostdin', '-i', 'pipe:0', '-vn', '-ac', '1', '-ar', '16000', '-f', 'wav', 'pipe:1'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const output: Buffer[] = [];
    let size = 0;
    let errorText = '';
    let settled = false;
    const finish = (result: { ok: true; wav: Buffer } | { ok: false; problem: ConversionProblem; detail: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (child.exitCode === null) child.kill('SIGKILL');
      resolve(result);
    };
    const timer = setTimeout(() => finish({ ok: false, problem: 'timeout', detail: `ffmpeg took longer than ${options.timeoutMs} ms` }), options.timeoutMs);
    const onAbort = () => finish({ ok: false, problem: 'timeout', detail: 'cancelled' });
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (error: NodeJS.ErrnoException) =>
      finish(error.code === 'ENOENT' ? { ok: false, problem: 'ffmpeg_missing', detail: `${options.ffmpegPath} is not installed` } : { ok: false, problem: 'unreadable', detail: error.message }),
    );
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > options.maxOutputBytes) finish({ ok: false, problem: 'unreadable', detail: 'the converted audio is too long' });
      else output.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (errorText.length < 500) errorText += chunk.toString('utf8');
    });
    child.on('close', (code) => {
      if (code === 0 && size > 44) finish({ ok: true, wav: Buffer.concat(output, size) });
      else finish({ ok: false, problem: 'unreadable', detail: errorText.trim().slice(0, 200) || `ffmpeg exited with ${code}` });
    });
    // A closed pipe (ffmpeg gave up early) is reported by 'close'; the write error itself is noise.
    child.stdin.on('error', () => undefined);
    child.stdin.end(bytes);
  });
}
